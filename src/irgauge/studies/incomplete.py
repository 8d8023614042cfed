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

:func:`run_incomplete` runs three steps, each usable alone: :func:`compute_incomplete`
(every number, nothing written), :func:`describe_incomplete` (the summary's sentences) and
:func:`write_incomplete` (tables, figures and manifest under ``out/incomplete``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge.collection.depth_pool import parse_depths
from irgauge.collection.reduce import parse_rates
from irgauge.evaluation import read_runs, score_matrices
from irgauge.evaluation.tasks import on_cluster, run_steps
from irgauge.io.qrels import read_qrels
from irgauge.meta import rank_correlations
from irgauge.meta.kendall import kendall_tau_columns
from irgauge._checks import renamed_keywords
from irgauge.studies import _common as common
from irgauge.studies import _noise, _plots, _repeat, _topics
from irgauge.studies._reduction_steps import Steps
from irgauge.studies.incomplete_result import incomplete_study
from irgauge.io.words import counted

NAME = "incomplete"
TITLE = "Alternatives to bpref: condensed lists and reduced judgments (Sakai, SIGIR 2007)"

NDCG = "nDCG(dcg=jk,b=2)@1000"
# measure strings given to the study; condensed forms of the first three are added by it
MEASURES = ("AP", "Q-measure", NDCG, "bpref", "bpref_R", "bpref_N", "rpref_N", "rpref_relative2")
CONDENSED = {
    "AP": "AP(judged_only=true)",
    "Q-measure": "Q-measure(judged_only=true)",
    NDCG: "nDCG(dcg=jk,b=2,judged_only=true)@1000",
}
# names in the study's tables -> display names
DISPLAY = {
    "AP": "AP",
    "Q-measure": "Q-measure",
    NDCG: common.label(NDCG),
    "AP'": "AP'",
    "Q-measure'": "Q'",
    NDCG + "'": common.label(CONDENSED[NDCG]),
    "bpref": "bpref",
    "bpref_R": "bpref_R",
    "bpref_N": "bpref_N",
    "rpref_N": "rpref_N",
    "rpref_relative2": "rpref_relative2",
}
RATES = (90, 70, 50, 30, 10)


def top_runs(qrels, runs, top_k, top_fraction, by: str, eval_options) -> list:
    """The run paths of the systems the filter keeps (by mean ``by`` on the full qrels)."""
    runs = list(runs) if not isinstance(runs, (str, Path)) else [runs]
    matrices = score_matrices(qrels, runs, [by], **eval_options)
    chosen = common.select(matrices, top_k, top_fraction, by)[by].systems
    result_names = list(matrices[by].systems)
    by_name = dict(zip(result_names, runs)) if len(result_names) == len(runs) else {}
    return [by_name[s] for s in chosen] if by_name else runs


@dataclass(frozen=True)
class IncompleteOptions:
    """The options of :func:`run_incomplete` (see there), the same defaults."""

    top_k: Optional[int] = 30
    top_fraction: Optional[float] = None
    by: str = "AP"
    seed: Optional[int] = None
    samples: int = 1000  # B, the bootstrap samples
    reductions: int = 5
    alpha: float = 0.05
    rates: Sequence[float] = RATES
    eval_options: Dict[str, Any] = field(default_factory=dict)
    topic_resamples: int = _noise.TOPIC_RESAMPLES
    depths: Optional[Sequence[int]] = None  # pool depths, in place of the rates


@dataclass
class IncompleteData:
    """Everything the study writes, computed: tables, figure data, manifest record."""

    options: IncompleteOptions
    record: common.Record
    rates: List[float]  # the reduced shares j (%), without 100
    steps: Steps  # the reductions: the rates, or the pool depths
    evaluated_with: Dict[str, Any]  # options of every evaluation, rel_level included
    setting: str  # systems and topics, in words
    pairs: int  # system pairs of the bootstrap
    judgments: pd.DataFrame  # Table 1
    warning: Optional[str]  # when R > N on some topics
    share: Any  # full-data share of significant pairs (_noise.Statistic)
    required: Any  # full-data required difference (_noise.Statistic)
    problem: Optional[str]  # why the design is too small to order measures, if it is
    reduced: Dict[str, Any]  # tau, discriminative power and |mean shift| at the lowest rate
    flat: List[str]  # measures giving every system the same score: in no ordering
    tau: pd.DataFrame  # square of Kendall's tau, full relevance data
    tau_threshold: float
    power: pd.DataFrame  # Table 3
    by_rate: pd.DataFrame  # mean, tau, discriminative power per measure and rate (spread)
    names: List[str]  # measures in table order


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
    return common.finish_report(
        result, qrels, common.path_list(runs), out, report, data.evaluated_with
    )


def compute_incomplete(
    qrels, runs, options: IncompleteOptions = IncompleteOptions(), progress=None
) -> IncompleteData:
    """Every number of the study, nothing written."""
    o = options
    seed, seeds = common.seeds_for(o.seed, o.reductions, "reductions")
    steps, eval_options = _steps(o)
    rates = steps.rates
    rel_level = eval_options.pop("rel_level", 1)
    q, paths, chosen_runs, chosen_paths = _read_and_rank(qrels, runs, o, progress)
    by_rate, studies = _reduce(q, chosen_runs, steps, seeds, o, rel_level, eval_options, progress)
    names = list(dict.fromkeys(by_rate["measure"]))
    labels = _labels()
    step = common.steps(progress, "evaluation, full relevance data", 1)
    # every topic scored, then the reductions' shared topics taken, as each step is
    shared = studies[0].topics
    scoring = {**eval_options, "empty_topics": "zero"}
    full = common.renamed(
        score_matrices(q, chosen_runs, list(labels), complete=True, rel_level=rel_level, **scoring),
        labels,
    )
    step()
    full = {n: full[n].take_topics(shared.topics) for n in names}
    first = next(iter(full.values()))
    default = (IncompleteOptions.top_k, IncompleteOptions.top_fraction)
    systems = common.systems_phrase(
        first.n_systems, len(paths), o.top_k, o.top_fraction, o.by, default
    )
    judgments, warning = _judgment_table(q, rel_level)
    rc = rank_correlations(full)
    # the bootstrap runs of the reductions at 100% again (same seeds, same samples, so
    # the same shares as the 100% column of Figure 3), keeping the required differences
    dp_rows, dp, first_dp = _repeat.discriminative_power(
        full,
        o.samples,
        o.alpha,
        seeds,
        progress and (lambda label: progress(f"full relevance data, {label}")),
    )
    topic = _repeat.topic_draw(seed, first.n_topics, o.topic_resamples, 1, 1)
    topic_share, topic_required = _topics.discriminative_power(full, o.alpha, topic.indices)
    parameters, seed_record = _parameters(o, steps, labels, eval_options, rel_level, studies)
    parameters["topic_sampling"] = {
        **topic.record(),
        "experiment_resamples": None,
        "runs_per_resample": None,
        "trials_per_run": None,
    }
    seed_record.update(seed=seed, reductions=seeds, topic_resamples=topic.seed)
    seed_record.update(discriminative_power=seeds, reduction_bootstrap=seeds)
    inputs = {"qrels": str(qrels), "runs": paths, "runs_used": chosen_paths}
    notes = ([warning] if warning else []) + _topic_notes(studies)
    return IncompleteData(
        options=o,
        record=common.Record(parameters, seed_record, first.systems, first.topics, inputs, notes),
        rates=rates,
        steps=steps,
        evaluated_with={**eval_options, "rel_level": rel_level},
        setting=f"{systems}, {counted(first.n_topics, 'topic')}",
        pairs=first_dp.parameters["pairs"],
        judgments=judgments,
        warning=warning,
        share=_repeat.statistic(dp_rows, "share", "share of significant pairs", topic_share),
        required=_repeat.statistic(
            dp_rows,
            "required_difference",
            "required difference",
            topic_required,
            higher_is_better=False,
        ),
        problem=_noise.design_problem(first.n_systems, first.n_topics),
        flat=_repeat.flat_measures(full),
        reduced=_reduced_statistics(studies, steps, o.alpha, topic),
        tau=rc.details["matrix"],
        tau_threshold=rc.parameters["threshold"],
        power=_repeat.discriminative_power_table(dp, names),
        by_rate=by_rate,
        names=names,
    )


def _steps(o: IncompleteOptions):
    """(the reductions: the rates or the depths; the evaluation options)."""
    eval_options = dict(o.eval_options)
    if o.depths is None:
        return Steps([r for r in parse_rates(list(o.rates)) if r != 100]), eval_options
    return Steps([], parse_depths(o.depths)), eval_options


def _topic_notes(studies) -> List[str]:
    """The notes of the topics the reductions lost, each once (a random reduction keeps a
    relevant document of every topic, a depth is the same in every repetition: the
    repetitions rarely differ)."""
    return list(dict.fromkeys(n for s in studies for n in s.topics.notes()))


def _parameters(o, steps: Steps, labels, eval_options, rel_level, studies):
    """The manifest's parameters, and an empty record of the seeds."""
    reduced: Dict[str, Any] = (
        {"rates": [100] + list(steps.rates)}
        if steps.depths is None
        else {"depths": steps.depths, "pooled_runs": studies[0].reduction.runs}
    )
    return {
        **common.filter_parameters(o.top_k, o.top_fraction, o.by),
        "B": o.samples,
        "alpha": o.alpha,
        **reduced,
        "reductions": o.reductions,
        "measures": {v: k for k, v in labels.items()},
        "eval_options": {**eval_options, "rel_level": rel_level, "complete": True},
        **studies[0].topics.record(),
        "reduction": studies[0].reduction.manifest()["rule"],
        "judgments_kept": [s.reduction.manifest()["judgments"] for s in studies],
    }, {}


def _reduced_statistics(studies, steps: Steps, alpha: float, topic) -> Dict[str, Any]:
    """At the lowest rate (or depth): Kendall's tau with the full-data ranking,
    discriminative power and |mean shift| from full data, each a
    :class:`~irgauge.studies._noise.Statistic` over the reductions (the repetitions) with
    its topic resamples (the reductions' mean on each)."""
    lowest, full_step = steps.lowest, steps.full
    if lowest is None:
        return {}
    reps: Dict[str, Dict[str, list]] = {"tau": {}, "dp": {}, "shift": {}}
    draws: Dict[str, Dict[str, list]] = {"tau": {}, "dp": {}, "shift": {}}
    for study in studies:
        full, low = study.matrices[100], study.matrices[steps.matrix_key(lowest)]
        at = study.table.set_index(["measure", steps.column])
        share, _ = _topics.discriminative_power(low, alpha, topic.indices)
        mean_full = _topics.system_means(full, topic.indices)
        mean_low = _topics.system_means(
            {k: m.take_systems(full[k].systems) for k, m in low.items()}, topic.indices
        )
        for name in low:
            label = DISPLAY.get(name, name)
            shift = abs(at.loc[(name, lowest), "mean"] - at.loc[(name, full_step), "mean"])
            for key, value, draw in (
                (
                    "tau",
                    at.loc[(name, lowest), "tau"],
                    kendall_tau_columns(mean_full[name], mean_low[name]),
                ),
                ("dp", at.loc[(name, lowest), "discriminative_power"], share[name]),
                ("shift", shift, np.abs(mean_low[name].mean(0) - mean_full[name].mean(0))),
            ):
                reps[key].setdefault(label, []).append(float(value))
                draws[key].setdefault(label, []).append(draw)
    # a resampled value is the mean over the same reductions as the repetitions', so it
    # carries none of their Monte Carlo error: the interval adds it whole (var_r / R)
    return {
        key: _noise.Statistic(
            label,
            {m: np.asarray(v) for m, v in reps[key].items()},
            {m: np.mean(v, axis=0) for m, v in draws[key].items()},
            higher,
            digits,
        )
        for key, label, higher, digits in (
            ("tau", "tau", True, 3),
            ("dp", "share of significant pairs", True, 3),
            ("shift", "|shift|", False, 4),
        )
    }


def _read_and_rank(qrels, runs, options: IncompleteOptions, progress):
    """(qrels read, every run path, the runs the filter keeps, their paths): qrels and runs
    read once, as they are evaluated many times."""
    paths = common.path_list(runs)
    step = common.steps(progress, "reading and ranking the runs", 3)
    q = read_qrels(qrels)
    step()
    every_run = read_runs(paths)
    step()
    o = options
    chosen_runs = top_runs(q, every_run, o.top_k, o.top_fraction, o.by, o.eval_options)
    step()
    chosen_paths = (
        [paths[every_run.index(r)] for r in chosen_runs]
        if len(chosen_runs) < len(every_run)
        else paths
    )
    return q, paths, chosen_runs, chosen_paths


def _reduce(q, runs, steps: Steps, seeds, options: IncompleteOptions, rel_level, eval_options,
            progress):  # fmt: skip
    """(mean, tau and discriminative power per measure and rate (or depth), spread over
    the reductions; the study of each reduction)."""
    reduction = (steps.rates, steps.depths)
    studies = run_steps(  # each reduction a step: a task on a cluster, with the same result
        _reduction,
        seeds,
        (q, runs, reduction, options.samples, options.alpha, rel_level, eval_options),
        progress=progress("reductions") if progress is not None and on_cluster() else None,
        step_progress=progress and (lambda r: progress(f"reduction {r + 1}/{len(seeds)}")),
    )
    rows = pd.concat(
        [study.table.assign(repetition=r) for r, study in enumerate(studies)], ignore_index=True
    )
    rows["measure"] = rows["measure"].map(lambda m: DISPLAY.get(m, m))
    # a depth's share kept is the same in every repetition: kept beside its depth
    keys = ["measure", "rate"] if steps.depths is None else ["measure", "depth", "rate"]
    return _noise.spread(rows, keys, ["mean", "tau", "discriminative_power"]), studies


def _reduction(
    seed: int, q, runs, reduction, B: int, alpha: float, rel_level, eval_options, progress=None
):
    """The incomplete-judgments study of one reduction of the qrels (seeded):
    ``reduction`` = (rates, depths), the depths in place of the rates unless None."""
    rates, depths = reduction
    return incomplete_study(
        q,
        runs,
        MEASURES,
        rates=rates,
        depths=depths,
        seed=seed,
        samples=B,
        alpha=alpha,
        rel_level=rel_level,
        progress=progress,
        **eval_options,
    )


def _labels() -> Dict[str, str]:
    """measure string -> name in the tables, the condensed forms included."""
    labels = {m: DISPLAY[m] for m in MEASURES}
    labels.update(
        {CONDENSED[m]: DISPLAY[f"{m}'" if m != "Q-measure" else "Q-measure'"] for m in CONDENSED}
    )
    labels[CONDENSED["AP"]] = "AP'"
    return labels


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


def _judgment_table(qrels, rel_level: int):
    """Table 1 of the paper for this collection, and a warning when R > N on some topics."""
    q = read_qrels(qrels)
    levels = np.asarray(q.levels)
    topics = np.asarray(q.topics.decode())
    frame = pd.DataFrame({"topic": topics, "level": levels})
    rel = frame["level"] >= rel_level
    R = rel.groupby(frame["topic"]).sum()
    N = (~rel).groupby(frame["topic"]).sum()
    row: Dict[str, Any] = {"topics": len(R)}
    for level in sorted({int(v) for v in levels if v >= rel_level}, reverse=True):
        row[f"R level {level} (mean)"] = float(
            (frame["level"] == level).groupby(frame["topic"]).sum().mean()
        )
    row["R (mean)"] = float(R.mean())
    row["R range"] = f"{int(R.min())}-{int(R.max())}"
    row["N range"] = f"{int(N.min())}-{int(N.max())}"
    over = int((R > N).sum())
    row["topics with R > N"] = over
    row["R <= N on every topic"] = "yes" if over == 0 else "no"
    warning = None
    if over:
        warning = (
            f"R > N on {over} of {counted(len(R), 'topic')}: bpref (min(R, N) in the denominator) "
            f"and bpref_R differ there; report which one you use."
        )
    return pd.DataFrame([row]), warning


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
