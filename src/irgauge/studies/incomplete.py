"""Study ``incomplete`` (Sakai, "Alternatives to bpref", SIGIR 2007): condensed lists and
the bpref family on full and reduced relevance data.

The metrics: AP, Q-measure and nDCG (Järvelin–Kekäläinen, b=2)@1000 on the original lists,
their condensed forms AP' (= bpref_relative2), Q' and nDCG' (unjudged documents removed),
and bpref (trec_eval's, min(R, N) in the denominator), bpref_R, bpref_N, rpref_N,
rpref_relative2. On the top-k runs by mean AP (default 30):

* Table 1: relevant documents R per level, the range of judged nonrelevant N, whether R <= N
  (bpref and bpref_R differ on topics with R > N; the study warns);
* Table 2: Kendall's tau between the system rankings of every two metrics, full qrels;
* Table 3: discriminative power at alpha (0.05) and required difference, full qrels: means
  and Monte Carlo SE over one bootstrap run per reduction seed;
* Figures 1-3 (and the means of Figure 1 as a table): mean score, tau against the full-qrels
  ranking, and discriminative power against the share j of relevance data kept (100, 90,
  70, 50, 30, 10 by default), each over ``reductions`` independent seeded reductions
  (default 5): mean ± sd in the figures, mean and Monte Carlo SE in the tables.

With ``depths`` (``--depth K[,K...]``) the qrels are reduced instead to the depth-K pool
of the runs for each K (Sakai and Kando 2008), as ``irgauge incomplete --depth``: the
tables have a column per depth, the figures draw each depth at the share of judgments it
keeps, and the summary speaks of the smallest depth.

Every step is scored on the same topics, as ``irgauge incomplete`` scores them
(:func:`irgauge.evaluation.shared_topics.shared_topics`): the full qrels' topics with a
relevant document (all of them with ``empty_topics="zero"``, trec_eval's reading); a
topic that a reduction leaves without a relevant document scores 0 there. The manifest
records the rule and the topics each step left without a relevant document.

Reduction and the per-rate scores come from
:func:`irgauge.studies.incomplete_result.incomplete_study`.

:func:`run_incomplete` runs three steps, each usable alone:
:func:`irgauge.studies.incomplete_numbers.compute_incomplete` (every number, nothing
written), :func:`describe_incomplete` (the summary's sentences) and :func:`write_incomplete`
(tables, figures and manifest under ``out/incomplete``).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge._checks import renamed_keywords
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise, _plots, _repeat
from irgauge.studies._reduction_steps import Steps
from irgauge.studies.incomplete_numbers import (
    DISPLAY,
    NDCG,
    RATES,
    IncompleteData,
    IncompleteOptions,
    compute_incomplete,
)
from irgauge.io.words import counted

NAME = "incomplete"
TITLE = "Alternatives to bpref: condensed lists and reduced judgments (Sakai, SIGIR 2007)"


@renamed_keywords(B="samples")
@common.study_entry
def run_incomplete(
    qrels,
    runs,
    out,
    *,
    top_k: Optional[int] = 30,
    top_fraction: Optional[float] = None,
    by: str = "AP",
    seed: Optional[int] = None,
    samples: int = 1000,
    reductions: int = 5,
    alpha: float = 0.05,
    rates: Sequence[float] = RATES,
    eval_options: Optional[Dict[str, Any]] = None,
    topic_resamples: int = _noise.TOPIC_RESAMPLES,
    depths: Optional[Sequence[int]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study; write tables and figures under ``out/incomplete``.

    ``samples``: B, the bootstrap samples of every test (``B=``, its old name, still
    works, deprecated: ``samples`` is every function's name for them).
    ``reductions``: independent seeded reductions (the first uses ``seed``); each reduction
    seed also seeds its bootstrap samples. ``rates``: shares j of judgments kept (%).
    ``depths`` (e.g. ``[100, 10]``): reduce the qrels instead to the depth-K pool of the
    runs for each K (Sakai and Kando 2008; ``rates`` is then not read); the reduction is
    the same in every repetition, only the bootstrap samples differ.
    """
    options = IncompleteOptions(
        top_k=top_k,
        top_fraction=top_fraction,
        by=by,
        seed=seed,
        samples=samples,
        reductions=reductions,
        alpha=alpha,
        rates=rates,
        eval_options=dict(eval_options or {}),
        topic_resamples=topic_resamples,
        depths=depths,
    )
    data = compute_incomplete(qrels, runs, options, progress)
    result = write_incomplete(data, out, progress)
    return collection_record.finish_report(
        result, qrels, common.path_list(runs), out, report, data.evaluated_with
    )


def describe_incomplete(data: IncompleteData) -> List[str]:
    """The summary's sentences, from the computed tables."""
    summary = _noise.design_warning(data.problem, data.flat)
    summary += _summary(data, data.steps)
    if data.warning:
        summary.append(data.warning)
    summary.append(
        _repeat.method_sentence(
            data.record.parameters["topic_sampling"],
            data.options.reductions,
            "reductions",
            t_stand_in=True,
        )
    )
    return summary


def write_incomplete(data: IncompleteData, out, progress=None) -> common.StudyResult:
    """Write the tables, figures, manifest and summary under ``out/incomplete``."""
    with common.study_writer(out, NAME, TITLE) as writer:
        _write_tables(writer, data)
        _write_figures(writer, data, progress)
        return writer.finish_with(data.record, describe_incomplete(data))


def _write_tables(writer: common.StudyWriter, data: IncompleteData) -> None:
    o = data.options
    writer.table(
        "relevance_data",
        data.judgments,
        common.caption(
            "Relevance data: relevant documents R per level, judged nonrelevant N, and the "
            "topics with R > N, where bpref (min(R, N)) and bpref_R differ",
            "bpref",
            "Table 1",
        ),
        digits=2,
    )
    writer.table(
        "kendall_tau",
        data.tau.reset_index().rename(columns={"measure_a": "measure"}),
        common.caption(
            f"Kendall's tau between system rankings, full relevance data (significance "
            f"threshold {data.tau_threshold:.3f})",
            "bpref",
            "Table 2",
        ),
        digits=3,
    )
    writer.table(
        "discriminative_power",
        data.power,
        common.caption(
            f"Discriminative power at alpha = {o.alpha} and required difference, full "
            f"relevance data ({data.setting}, {counted(data.pairs, 'pair')}, B = {o.samples}): "
            f"means over {o.reductions} bootstrap runs (one per reduction seed) with Monte "
            f"Carlo SE",
            "bpref",
            "Table 3",
        ),
        _repeat.DP_DIGITS,
    )
    for value, stem, what, digits in (
        ("mean", "mean_by_rate", "Mean score over systems and topics (Figure 1)", 4),
        (
            "tau",
            "tau_by_rate",
            "Kendall's tau between the rankings on full and on reduced relevance data (Figure 2)",
            3,
        ),
        (
            "discriminative_power",
            "discriminative_power_by_rate",
            f"Discriminative power (share of pairs with ASL < {o.alpha}) (Figure 3)",
            3,
        ),
    ):
        writer.table(
            stem,
            _by_rate(data.by_rate, value, data.names, data.steps),
            common.caption(
                f"{what} against {data.steps.axis}: mean [SE] over {o.reductions} reductions",
                "bpref",
            ),
            digits,
        )


def _write_figures(writer: common.StudyWriter, data: IncompleteData, progress) -> None:
    o = data.options
    step = common.steps(progress, "figures", 4)
    writer.figure(
        "tau_heatmap",
        _plots.heatmap,
        data.tau,
        "Kendall's tau between metrics, full relevance data",
        label="Kendall's tau",
    )
    step()
    for value, stem, ylabel, fig, hline in (
        ("mean", "mean_by_rate", "mean score over systems and topics", "Figure 1", None),
        (
            "tau",
            "tau_by_rate",
            "Kendall's tau with full-data ranking",
            "Figure 2",
            data.tau_threshold,
        ),
        (
            "discriminative_power",
            "discpower_by_rate",
            f"share of pairs with ASL < {o.alpha}",
            "Figure 3",
            None,
        ),
    ):
        writer.figure(
            stem,
            _curves(value, ylabel, hline),
            data.by_rate,
            common.caption(
                f"{ylabel} against relevance data kept (mean over {o.reductions} reductions "
                f"with its 95% interval, 1.96 Monte Carlo SE"
                + (f"; dotted line: {HLINE_LABEL}" if hline is not None else "")
                + ")",
                "bpref",
                fig,
            ),
        )
        step()


def _by_rate(table: pd.DataFrame, value: str, names, steps: Steps) -> pd.DataFrame:
    """measure x rate (or depth) table of "mean [SE]" numbers (mean columns, then SE
    columns), the full relevance data first."""
    wide = table.pivot(index="measure", columns=steps.column, values=value)
    se = table.pivot(index="measure", columns=steps.column, values=f"{value}_se")
    cols = [c for c in [steps.full, *steps.reduced] if c in wide.columns]
    out = wide.loc[names, cols]
    out.columns = [steps.header(c) for c in cols]
    se = se.loc[names, cols]
    for c in cols:
        if c != steps.full:
            out[f"SE {steps.header(c)}"] = se[c].to_numpy()
    return out.reset_index()


HLINE_LABEL = "smallest tau significantly above 0"
# the range of each figure's statistic: bands stop there
LIMITS = {"mean": (0.0, 1.0), "tau": (-1.0, 1.0), "discriminative_power": (0.0, 1.0)}


def _curves(value: str, ylabel: str, hline=None):
    def draw(table, directory, stem):
        return _plots.curves(
            table,
            directory,
            stem,
            "rate",
            value,
            "relevance data kept (%)",
            ylabel,
            reverse_x=True,
            hline=hline,
            limits=LIMITS.get(value, (-np.inf, np.inf)),
            hline_label=HLINE_LABEL if hline is not None else None,
            band="band: 95% interval of the mean\n(Monte Carlo, over the reductions)",
        )

    return draw


def _summary(data: IncompleteData, steps: Steps) -> list:
    alpha, square, problem = data.options.alpha, data.tau, data.problem
    names = [m for m in data.power["measure"] if m not in data.flat]
    lines = [
        f"Discriminative power (alpha = {alpha}) with full relevance data: "
        f"{_noise.ordering(data.share, names, problem)}.",
        f"Required difference (alpha = {alpha}) with full relevance data, smallest "
        f"first: {_noise.ordering(data.required, names, problem)}.",
    ]
    lowest = steps.data(steps.lowest) if steps.lowest is not None else ""
    if data.reduced:
        lines.append(
            f"Kendall's tau between the rankings on full and on {lowest} "
            f"(most robust first): "
            f"{_noise.ordering(data.reduced['tau'], names, problem)}."
        )
        lines.append(
            f"Discriminative power with {lowest}: "
            f"{_noise.ordering(data.reduced['dp'], names, problem)}."
        )
    lines += _mean_shift_sentences(data.reduced.get("shift"), lowest, problem)
    if "AP'" in square.index and "bpref_R" in square.index:
        primed = "AP'"
        lines.append(
            f"tau(AP', bpref_R) = {square.loc[primed, 'bpref_R']:.3f} and "
            f"tau(AP, AP') = {square.loc['AP', primed]:.3f} with full data."
        )
    return lines


# original metric -> its condensed form, as displayed
PRIMED = {"AP": "AP'", "Q-measure": "Q'", DISPLAY[NDCG]: DISPLAY[NDCG + "'"]}


def _mean_shift_sentences(shift, lowest: str, problem: Optional[str]) -> list:
    """Figure 1 in words: how far each original metric's mean moves from full to ``lowest``
    (the smallest reduction's relevance data, in words), against its condensed form
    (|shift| over the reductions, with its topic resamples)."""
    if shift is None:
        return []
    parts = []
    for original, primed in PRIMED.items():
        if original not in shift.reps or primed not in shift.reps:
            continue
        small, large = sorted((original, primed), key=shift.value)
        if problem:
            parts.append(f"{small} {shift.shown(small)}, {large} {shift.shown(large)}")
            continue
        text, _ = _noise.pair_sentence(shift, small, large, f"{small} moves less than {large}")
        parts.append(text)
    if not parts:
        return []
    return [f"Mean score from full to {lowest} (Figure 1): " + "; ".join(parts) + "."]
