"""Study ``incomplete`` (seed 002, Sakai "Alternatives to bpref"): condensed lists and the
bpref family on full and reduced relevance data.

The ten metrics: AP, Q-measure and nDCG on the original lists, their condensed forms AP'
(= bpref_relative2), Q' and nDCG' (unjudged documents removed), and bpref_R, bpref_N,
rpref_N, rpref_relative2. On the top-k runs by mean AP (default 30):

* Table 2: Kendall's tau between the system rankings of every two metrics, full qrels;
* Table 3: discriminative power at alpha (0.05) and required difference, full qrels;
* Figures 1-3: mean score, tau against the full-qrels ranking, and discriminative power
  against the reduction rate j (100, 90, 70, 50, 30, 10; one seeded reduction, nested).

Reduction and the per-rate scores come from :func:`irgauge.incomplete.incomplete_study`.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import pandas as pd

from irgauge.studies import _common as common

NAME = "incomplete"
TITLE = "Alternatives to bpref: condensed lists and reduced judgments (Sakai, seed 002)"

NDCG = "nDCG(dcg=jk,b=2)@1000"
# measure strings given to the study; condensed forms of the first three are added by it
MEASURES = ("AP", "Q-measure", NDCG, "bpref_R", "bpref_N", "rpref_N", "rpref_relative2")
# names in the study's tables -> display names
DISPLAY = {"AP": "AP", "Q-measure": "Q-measure", NDCG: "nDCG", "AP'": "AP'",
           "Q-measure'": "Q'", NDCG + "'": "nDCG'", "bpref_R": "bpref_R",
           "bpref_N": "bpref_N", "rpref_N": "rpref_N", "rpref_relative2": "rpref_relative2"}


def top_runs(qrels, runs, top_k, top_fraction, by: str, eval_options) -> list:
    """The run paths of the systems the filter keeps (by mean ``by`` on the full qrels)."""
    from irgauge.scores import score_matrices

    runs = list(runs) if not isinstance(runs, (str, Path)) else [runs]
    matrices = score_matrices(qrels, runs, [by], **eval_options)
    chosen = common.select(matrices, top_k, top_fraction, by)[by].systems
    result_names = list(matrices[by].systems)
    by_name = dict(zip(result_names, runs)) if len(result_names) == len(runs) else {}
    return [by_name[s] for s in chosen] if by_name else runs


def run_incomplete(qrels, runs, out, *, top_k: Optional[int] = 30,
                   top_fraction: Optional[float] = None, by: str = "AP",
                   seed: Optional[int] = None, B: int = 1000, trials: Optional[int] = None,
                   alpha: float = 0.05, rates: Sequence[float] = (90, 70, 50, 30, 10),
                   eval_options: Optional[Dict[str, Any]] = None,
                   report: bool = False) -> common.StudyResult:
    """Run the study; write tables and figures under ``out/incomplete``.

    ``seed`` seeds the reduction and the bootstrap samples. ``trials`` is accepted for a
    uniform interface and unused (one reduction, as in the paper).
    """
    from irgauge.incomplete import incomplete_study
    from irgauge.meta import discriminative_power, rank_correlations
    from irgauge.report import figures
    from irgauge.scores import score_matrices

    eval_options = dict(eval_options or {})
    seed = common.seed_or_fresh(seed)
    chosen_runs = top_runs(qrels, runs, top_k, top_fraction, by, eval_options)
    rel_level = eval_options.pop("rel_level", 1)
    study = incomplete_study(qrels, chosen_runs, MEASURES, rates=rates, seed=seed, samples=B,
                             alpha=alpha, rel_level=rel_level, **eval_options)
    table = study.table.assign(measure=study.table["measure"].map(lambda m: DISPLAY.get(m, m)))
    names = list(dict.fromkeys(table["measure"]))

    full_strings = list(MEASURES) + ["AP(judged_only=true)", "Q-measure(judged_only=true)",
                                     "nDCG(dcg=jk,b=2,judged_only=true)@1000"]
    labels = dict(zip(full_strings, ["AP", "Q-measure", "nDCG", "bpref_R", "bpref_N",
                                     "rpref_N", "rpref_relative2", "AP'", "Q'", "nDCG'"]))
    full = common.renamed(score_matrices(qrels, chosen_runs, full_strings, complete=True,
                                         rel_level=rel_level, **eval_options), labels)
    full = {n: full[n] for n in names}
    first = next(iter(full.values()))

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    rc = rank_correlations(full)
    square = rc.details["matrix"]
    writer.table("kendall_tau", square.reset_index().rename(columns={"measure_a": "measure"}),
                 f"Kendall's tau between system rankings, full relevance data (significance "
                 f"threshold {rc.parameters['threshold']:.3f}) (seed 002, Table 2)", digits=3)
    dp = discriminative_power(full, samples=B, alphas=(alpha,), seed=study.metadata[
        "bootstrap_seed"])
    power = dp.table.sort_values("significant", ascending=False, kind="stable")
    writer.table("discriminative_power", pd.DataFrame({
        "measure": power["measure"], "significant_pairs": power["significant"],
        "pairs": power["pairs"], "share": power["share"],
        "required_difference": power["required_difference_2sf"]}),
        f"Discriminative power at alpha = {alpha}, full relevance data ({first.n_systems} "
        f"systems, B = {B}) (seed 002, Table 3)")
    by_rate = table.pivot(index="measure", columns="rate", values="discriminative_power")
    by_rate = by_rate.loc[names, sorted(by_rate.columns, reverse=True)]
    by_rate.columns = [f"{c:g}%" for c in by_rate.columns]
    writer.table("discriminative_power_by_rate", by_rate.reset_index(),
                 f"Discriminative power (share of pairs with ASL < {alpha}) against the "
                 f"share j of relevance data kept", digits=3)
    tau_rate = table.pivot(index="measure", columns="rate", values="tau")
    tau_rate = tau_rate.loc[names, sorted(tau_rate.columns, reverse=True)]
    tau_rate.columns = [f"{c:g}%" for c in tau_rate.columns]
    writer.table("tau_by_rate", tau_rate.reset_index(),
                 "Kendall's tau between the ranking on full and on reduced relevance data",
                 digits=3)

    writer.figure("tau_heatmap", figures.tau_heatmap, square,
                  "Kendall's tau between metrics, full relevance data")
    writer.figure("mean_by_rate", _curves("mean", "mean score over systems and topics"),
                  table, "Mean score against relevance data kept (seed 002, Figure 1)")
    writer.figure("tau_by_rate", _curves("tau", "Kendall's tau with full-data ranking",
                                         hline=rc.parameters["threshold"]),
                  table, "tau against relevance data kept (seed 002, Figure 2)")
    writer.figure("discpower_by_rate", _curves("discriminative_power",
                                               f"share of pairs with ASL < {alpha}"),
                  table, "Discriminative power against relevance data kept (seed 002, "
                         "Figure 3)")

    summary = _summary(power, table, square, alpha, min(rates))
    parameters = {**common.filter_parameters(top_k, top_fraction, by), "B": B,
                  "alpha": alpha, "rates": [100] + list(rates),
                  "measures": {v: k for k, v in labels.items()},
                  "eval_options": {**eval_options, "rel_level": rel_level, "complete": True},
                  "reduction": study.reduction.manifest()["rule"],
                  "judgments_kept": study.reduction.manifest()["judgments"]}
    seeds = {"seed": seed, "reduction": study.metadata["seed"],
             "discriminative_power": study.metadata["bootstrap_seed"]}
    inputs = {"qrels": str(qrels), "runs": common.path_list(runs),
              "runs_used": common.path_list(chosen_runs)}
    result = writer.finish(parameters, seeds, first.systems, first.topics, summary, inputs)
    return common.finish_report(result, qrels, runs, out, report,
                                {**eval_options, "rel_level": rel_level})


def _curves(value: str, ylabel: str, hline=None):
    from irgauge.studies._plots import condition_curves

    def draw(table, directory, stem):
        return condition_curves(table, directory, stem, "rate", value,
                                "relevance data kept (%)", ylabel, hline=hline)
    return draw


def _summary(power: pd.DataFrame, table: pd.DataFrame, square: pd.DataFrame, alpha: float,
             lowest: float) -> list:
    share = dict(zip(power["measure"], power["share"]))
    lines = [f"{common.ordering(share)} in discriminative power (alpha = {alpha}) with full "
             f"relevance data."]
    at = table[table["rate"] == lowest]
    taus = dict(zip(at["measure"], at["tau"]))
    lines.append(f"{common.ordering(taus)} in Kendall's tau between the rankings on full and "
                 f"on {lowest:g}% relevance data (most robust first).")
    dps = dict(zip(at["measure"], at["discriminative_power"]))
    lines.append(f"{common.ordering(dps)} in discriminative power with {lowest:g}% relevance "
                 f"data.")
    if "AP'" in square.index and "bpref_R" in square.index:
        primed = "AP'"
        lines.append(f"tau(AP', bpref_R) = {square.loc[primed, 'bpref_R']:.3f} and "
                     f"tau(AP, AP') = {square.loc['AP', primed]:.3f} with full data.")
    return lines
