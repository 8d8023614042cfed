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

Reduction and the per-rate scores come from :func:`irgauge.collection.reduce.incomplete_study`.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge.studies import _common as common

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
    from irgauge.evaluation import score_matrices

    runs = list(runs) if not isinstance(runs, (str, Path)) else [runs]
    matrices = score_matrices(qrels, runs, [by], **eval_options)
    chosen = common.select(matrices, top_k, top_fraction, by)[by].systems
    result_names = list(matrices[by].systems)
    by_name = dict(zip(result_names, runs)) if len(result_names) == len(runs) else {}
    return [by_name[s] for s in chosen] if by_name else runs


def run_incomplete(
    qrels,
    runs,
    out,
    *,
    top_k: Optional[int] = 30,
    top_fraction: Optional[float] = None,
    by: str = "AP",
    seed: Optional[int] = None,
    B: int = 1000,
    reductions: int = 5,
    alpha: float = 0.05,
    rates: Sequence[float] = RATES,
    eval_options: Optional[Dict[str, Any]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study; write tables and figures under ``out/incomplete``.

    ``reductions``: independent seeded reductions (the first uses ``seed``); each reduction
    seed also seeds its bootstrap samples. ``rates``: shares j of judgments kept (%).
    """
    from irgauge.errors import InputError
    from irgauge.io.progress import step_counter
    from irgauge.collection.reduce import parse_rates
    from irgauge.studies.incomplete_result import incomplete_study
    from irgauge.meta import rank_correlations
    from irgauge.evaluation import score_matrices
    from irgauge.studies import _noise, _plots, _repeat

    if reductions < 1:
        raise InputError(f"reductions must be at least 1, got {reductions}")
    rates = [r for r in parse_rates(list(rates)) if r != 100]
    eval_options = dict(eval_options or {})
    seed = common.seed_or_fresh(seed)
    seeds = _noise.repetition_seeds(seed, reductions)
    from irgauge.evaluation import read_runs
    from irgauge.io.qrels import read_qrels

    paths = common.path_list(runs)
    step = step_counter(progress("reading and ranking the runs") if progress else None, 3)
    qrels_path, qrels = qrels, read_qrels(qrels)  # read once, evaluated many times
    step()
    every_run = read_runs(paths)
    step()
    chosen_runs = top_runs(qrels, every_run, top_k, top_fraction, by, eval_options)
    step()
    chosen_paths = (
        [paths[every_run.index(r)] for r in chosen_runs]
        if len(chosen_runs) < len(every_run)
        else paths
    )
    rel_level = eval_options.pop("rel_level", 1)
    parts, studies = [], []
    for r, s in enumerate(seeds):
        bar = progress(f"reduction {r + 1}/{len(seeds)}") if progress else None
        study = incomplete_study(
            qrels,
            chosen_runs,
            MEASURES,
            rates=rates,
            seed=s,
            samples=B,
            alpha=alpha,
            rel_level=rel_level,
            progress=bar,
            **eval_options,
        )
        parts.append(study.table.assign(repetition=r))
        studies.append(study)
    rows = pd.concat(parts, ignore_index=True)
    rows["measure"] = rows["measure"].map(lambda m: DISPLAY.get(m, m))
    table = _noise.spread(rows, ["measure", "rate"], ["mean", "tau", "discriminative_power"])
    names = list(dict.fromkeys(table["measure"]))

    full_strings = list(MEASURES) + list(CONDENSED.values())
    labels = {m: DISPLAY[m] for m in MEASURES}
    labels.update(
        {CONDENSED[m]: DISPLAY[f"{m}'" if m != "Q-measure" else "Q-measure'"] for m in CONDENSED}
    )
    labels[CONDENSED["AP"]] = "AP'"
    step = step_counter(progress("evaluation, full relevance data") if progress else None, 1)
    full = common.renamed(
        score_matrices(
            qrels, chosen_runs, full_strings, complete=True, rel_level=rel_level, **eval_options
        ),
        labels,
    )
    step()
    full = {n: full[n] for n in names}
    first = next(iter(full.values()))
    every = len(paths)
    setting = (
        f"{common.systems_phrase(first.n_systems, every, top_k, top_fraction, by)}, "
        f"{first.n_topics} topics"
    )

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    try:
        judgments, warning = _judgment_table(qrels, rel_level)
        notes = [warning] if warning else []
        writer.table(
            "relevance_data",
            judgments,
            common.caption(
                "Relevance data: relevant documents R per level, judged nonrelevant N, and the "
                "topics with R > N, where bpref (min(R, N)) and bpref_R differ",
                "bpref",
                "Table 1",
            ),
            digits=2,
        )
        rc = rank_correlations(full)
        square = rc.details["matrix"]
        writer.table(
            "kendall_tau",
            square.reset_index().rename(columns={"measure_a": "measure"}),
            common.caption(
                f"Kendall's tau between system rankings, full relevance data (significance "
                f"threshold {rc.parameters['threshold']:.3f})",
                "bpref",
                "Table 2",
            ),
            digits=3,
        )
        # the bootstrap runs of the reductions at 100% again (same seeds, same samples, so
        # the same shares as the 100% column of Figure 3), keeping the required differences
        _, dp, first_dp = _repeat.discriminative_power(
            full,
            B,
            alpha,
            seeds,
            progress and (lambda label: progress(f"full relevance data, {label}")),
        )
        power = _repeat.discriminative_power_table(dp, names)
        writer.table(
            "discriminative_power",
            power,
            common.caption(
                f"Discriminative power at alpha = {alpha} and required difference, full "
                f"relevance data ({setting}, {first_dp.parameters['pairs']} pairs, B = {B}): "
                f"means over {reductions} bootstrap runs (one per reduction seed) with Monte "
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
                "Kendall's tau between the rankings on full and on "
                "reduced relevance data (Figure 2)",
                3,
            ),
            (
                "discriminative_power",
                "discriminative_power_by_rate",
                f"Discriminative power (share of pairs with ASL < {alpha}) (Figure 3)",
                3,
            ),
        ):
            writer.table(
                stem,
                _by_rate(table, value, names),
                common.caption(
                    f"{what} against the share j of relevance data kept: mean [SE] over "
                    f"{reductions} reductions",
                    "bpref",
                ),
                digits,
            )

        step = step_counter(progress("figures") if progress else None, 4)
        writer.figure(
            "tau_heatmap",
            _plots.heatmap,
            square,
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
                rc.parameters["threshold"],
            ),
            (
                "discriminative_power",
                "discpower_by_rate",
                f"share of pairs with ASL < {alpha}",
                "Figure 3",
                None,
            ),
        ):
            writer.figure(
                stem,
                _curves(value, ylabel, hline),
                table,
                common.caption(
                    f"{ylabel} against relevance data kept (mean ± sd over {reductions} "
                    f"reductions)",
                    "bpref",
                    fig,
                ),
            )
            step()

        summary = _summary(power, table, square, alpha, min(rates) if rates else 100)
        if warning:
            summary.append(warning)
        parameters = {
            **common.filter_parameters(top_k, top_fraction, by),
            "B": B,
            "alpha": alpha,
            "rates": [100] + list(rates),
            "reductions": reductions,
            "measures": {v: k for k, v in labels.items()},
            "eval_options": {**eval_options, "rel_level": rel_level, "complete": True},
            "reduction": studies[0].reduction.manifest()["rule"],
            "judgments_kept": [s.reduction.manifest()["judgments"] for s in studies],
        }
        seed_record = {
            "seed": seed,
            "reductions": seeds,
            "discriminative_power": seeds,
            "reduction_bootstrap": seeds,
        }
        inputs = {"qrels": str(qrels_path), "runs": paths, "runs_used": chosen_paths}
        result = writer.finish(
            parameters, seed_record, first.systems, first.topics, summary, inputs, notes
        )
    except BaseException:
        writer.abort()
        raise
    return common.finish_report(
        result, qrels_path, paths, out, report, {**eval_options, "rel_level": rel_level}
    )


def _by_rate(table: pd.DataFrame, value: str, names) -> pd.DataFrame:
    """measure x rate table of "mean [SE]" numbers (mean columns, then SE columns)."""
    wide = table.pivot(index="measure", columns="rate", values=value)
    se = table.pivot(index="measure", columns="rate", values=f"{value}_se")
    cols = sorted(wide.columns, reverse=True)
    out = wide.loc[names, cols]
    out.columns = [f"{c:g}%" for c in cols]
    se = se.loc[names, cols]
    for c in cols:
        if c != 100:
            out[f"SE {c:g}%"] = se[c].to_numpy()
    return out.reset_index()


def _judgment_table(qrels, rel_level: int):
    """Table 1 of the paper for this collection, and a warning when R > N on some topics."""
    from irgauge.io.qrels import read_qrels

    q = read_qrels(qrels)
    levels = np.asarray(q.levels)
    topics = np.asarray([t.decode() for t in q.topics])
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
            f"R > N on {over} of {len(R)} topics: bpref (min(R, N) in the denominator) "
            f"and bpref_R differ there; report which one you use."
        )
    return pd.DataFrame([row]), warning


def _curves(value: str, ylabel: str, hline=None):
    from irgauge.studies._plots import curves

    def draw(table, directory, stem):
        return curves(
            table,
            directory,
            stem,
            "rate",
            value,
            "relevance data kept (%)",
            ylabel,
            reverse_x=True,
            hline=hline,
        )

    return draw


def _summary(
    power: pd.DataFrame, table: pd.DataFrame, square: pd.DataFrame, alpha: float, lowest: float
) -> list:
    from irgauge.studies import _noise

    share = {m: (v, e) for m, v, e in zip(power["measure"], power["share"], power["share_se"])}
    required = {
        m: (v, e)
        for m, v, e in zip(
            power["measure"], power["required_difference"], power["required_difference_se"]
        )
    }
    lines = [
        f"Discriminative power (alpha = {alpha}) with full relevance data: "
        f"{_noise.ordering(share)}.",
        f"Required difference (alpha = {alpha}) with full relevance data, smallest "
        f"first: {_noise.ordering(required, higher_is_better=False)}.",
    ]
    at = table[table["rate"] == lowest]
    taus = {m: (v, e) for m, v, e in zip(at["measure"], at["tau"], at["tau_se"])}
    lines.append(
        f"Kendall's tau between the rankings on full and on {lowest:g}% relevance "
        f"data (most robust first): {_noise.ordering(taus)}."
    )
    dps = {
        m: (v, e)
        for m, v, e in zip(at["measure"], at["discriminative_power"], at["discriminative_power_se"])
    }
    lines.append(f"Discriminative power with {lowest:g}% relevance data: {_noise.ordering(dps)}.")
    lines += _mean_shift_sentences(table, lowest)
    if "AP'" in square.index and "bpref_R" in square.index:
        primed = "AP'"
        lines.append(
            f"tau(AP', bpref_R) = {square.loc[primed, 'bpref_R']:.3f} and "
            f"tau(AP, AP') = {square.loc['AP', primed]:.3f} with full data."
        )
    return lines


# original metric -> its condensed form, as displayed
PRIMED = {"AP": "AP'", "Q-measure": "Q'", DISPLAY[NDCG]: DISPLAY[NDCG + "'"]}


def _mean_shift_sentences(table: pd.DataFrame, lowest: float) -> list:
    """Figure 1 in words: how far each original metric's mean moves from full to ``lowest``%
    relevance data, against its condensed form (|shift| with the SE over the reductions; the
    full-data mean has no Monte Carlo error)."""
    from irgauge.studies import _noise

    full = table[table["rate"] == 100].set_index("measure")
    low = table[table["rate"] == lowest].set_index("measure")
    parts = []
    for original, primed in PRIMED.items():
        if original not in low.index or primed not in low.index:
            continue
        shift = {
            m: (abs(low.loc[m, "mean"] - full.loc[m, "mean"]), low.loc[m, "mean_se"])
            for m in (original, primed)
        }
        (a, (da, ea)), (b, (db, eb)) = shift.items()
        if _noise.separated(da, ea, db, eb):
            small, large = (a, b) if da < db else (b, a)
            parts.append(
                f"{small} moves less than {large} "
                f"(|shift| {_noise.fmt(*shift[small])} vs {_noise.fmt(*shift[large])})"
            )
        else:
            parts.append(
                f"{a} and {b} move alike, within noise (|shift| {_noise.fmt(da, ea)} "
                f"vs {_noise.fmt(db, eb)})"
            )
    if not parts:
        return []
    return [
        f"Mean score from full to {lowest:g}% relevance data (Figure 1): " + "; ".join(parts) + "."
    ]
