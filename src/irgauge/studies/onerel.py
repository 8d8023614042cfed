"""Study ``onerel`` (seeds 000 and 001): metrics for finding one relevant document.

On the top-k runs by mean AP (default 30):

* Table 3 of seed 000: discriminative power and required difference at alpha (0.05) of
  P-plus, P-measure, O-measure, NWRR and RR, with AP and Q-measure for reference, from the
  paired bootstrap test with the same B bootstrap samples for every metric;
* Table 4: the same for P-measure, P-plus and O-measure under the gain values 3:2:1, 10:5:1,
  1:1:1 and 0.3:0.2:0.1 (S:A:B; needs three relevance levels);
* seed 001: swap rates (required difference at 95% confidence, share of comparisons
  reaching it) and stability (minority rate, proportion of ties) for the same metrics;
* Kendall's tau between the system rankings of these metrics.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import pandas as pd

from irgauge.studies import _common as common

NAME = "onerel"
TITLE = "Metrics for finding one relevant document (Sakai, seeds 000/001)"

# label -> measure string
ONE_REL = {"P-plus": "P-plus", "P-measure": "P-measure", "O-measure": "O-measure",
           "NWRR": "NWRR", "RR": "RR"}
REFERENCE = {"AP": "AP", "Q-measure": "Q-measure"}
# gain S:A:B as the papers write it -> irgauge's gains (levels 1, 2, 3)
GAIN_VARIANTS = {"3:2:1": "1:2:3", "10:5:1": "1:5:10", "1:1:1": "1:1:1",
                 "0.3:0.2:0.1": "0.1:0.2:0.3"}
GAIN_MEASURES = ("P-measure", "P-plus", "O-measure")


def gain_measures() -> Dict[str, str]:
    """label ("P-measure 10:5:1") -> measure string ("P-measure(gains=1:5:10)")."""
    return {f"{m} {label}": f"{m}(gains={gains})"
            for m in GAIN_MEASURES for label, gains in GAIN_VARIANTS.items()}


def run_onerel(qrels, runs, out, *, top_k: Optional[int] = 30,
               top_fraction: Optional[float] = None, by: str = "AP",
               seed: Optional[int] = None, B: int = 1000, trials: int = 1000,
               alpha: float = 0.05, subset_size: Optional[int] = None,
               eval_options: Optional[Dict[str, Any]] = None,
               report: bool = False) -> common.StudyResult:
    """Run the study on ``qrels`` and ``runs``; write tables and figures under ``out/onerel``.

    ``subset_size``: topics per subset c for swap and stability (default: half the topics).
    ``eval_options`` go to :func:`irgauge.evaluate` (order, rel_level, ...).
    """
    from irgauge.io.qrels import read_qrels
    from irgauge.meta import discriminative_power, rank_correlations, stability, swap_rates
    from irgauge.report import figures
    from irgauge.scores import score_matrices

    eval_options = dict(eval_options or {})
    seed = common.seed_or_fresh(seed)
    q = read_qrels(qrels)
    levels = sorted({int(v) for v in q.levels if v > 0})
    notes = []
    labels = {**{v: k for k, v in ONE_REL.items()}, **{v: k for k, v in REFERENCE.items()}}
    if levels and max(levels) == 3:
        labels.update({v: k for k, v in gain_measures().items()})
    else:
        notes.append(f"gain-value variants skipped: they need relevance levels 1-3 (S, A, B); "
                     f"this collection's highest level is {max(levels) if levels else 0}")
    matrices = common.renamed(score_matrices(q, runs, list(labels), **eval_options), labels)
    matrices = common.select(matrices, top_k, top_fraction, by)
    base = {k: matrices[k] for k in list(ONE_REL) + list(REFERENCE)}
    first = next(iter(base.values()))
    n = first.n_topics
    c = subset_size or n // 2

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    dp = discriminative_power(matrices, samples=B, alphas=(alpha,), seed=seed)
    table = dp.table
    main = _dp_table(table, list(base))
    writer.table("discriminative_power", main,
                 f"Discriminative power at alpha = {alpha} and required difference "
                 f"({first.n_systems} systems, {dp.parameters['pairs']} pairs, {n} topics, "
                 f"B = {B}) (seed 000, Table 3)")
    pairs = dp.details["pairs"]
    writer.figure("asl_curves", figures.asl_curves, pairs[pairs["measure"].isin(base)],
                  "ASL curves: ASL against system pairs sorted by ASL")
    gains_summary = []
    if any(k not in base for k in matrices):
        gain_table = _gain_table(table)
        writer.table("gain_values", gain_table,
                     f"Discriminative power at alpha = {alpha} under gain values S:A:B "
                     f"(seed 000, Table 4)")
        for m in GAIN_MEASURES:
            part = pairs[pairs["measure"].str.startswith(m + " ")]
            writer.figure(f"asl_gains_{m.lower().replace('-', '_')}", figures.asl_curves,
                          part, f"ASL curves of {m} under different gain values")
            shares = gain_table.set_index("gains")[m]
            gains_summary.append(
                f"{m}: gain values {common.ordering(shares.to_dict())} in discriminative power")

    sw = swap_rates(base, subset_size=c, trials=trials, seed=seed)
    swap_summary = sw.details["summary"]
    writer.table("swap", swap_summary,
                 f"Swap method: required difference at 95% confidence (c = {c}, {trials} "
                 f"trials), largest mean, relative difference, share of comparisons reaching it")
    writer.figure("swap_rates", figures.swap_curves, sw.table,
                  f"Swap rate against performance difference (c = {c})")
    st = stability(base, subset_size=c, trials=trials, seed=seed)
    writer.table("stability", _stability_table(st.table),
                 f"Stability: minority rate and proportion of ties (c = {c}, {trials} trials)")
    writer.figure("minority_ties", figures.stability_curves, st.table,
                  "Minority rate against proportion of ties (fuzziness 0.01-0.10)")
    rc = rank_correlations(base)
    square = rc.details["matrix"]
    writer.table("kendall_tau", square.reset_index().rename(columns={"measure_a": "measure"}),
                 f"Kendall's tau between system rankings (significance threshold "
                 f"{rc.parameters['threshold']:.3f} at alpha {rc.parameters['alpha']})")
    writer.figure("kendall_tau", figures.tau_heatmap, square,
                  "Kendall's tau between the system rankings by mean score")

    summary = _summary(main, swap_summary, st.table, square, list(ONE_REL), alpha,
                       first.n_systems, by, top_k, top_fraction)
    summary += gains_summary
    parameters = {**common.filter_parameters(top_k, top_fraction, by),
                  "B": B, "trials": trials, "alpha": alpha, "subset_size": c,
                  "measures": {k: _measure_string(k, labels) for k in matrices},
                  "eval_options": eval_options, "fuzziness": st.parameters["fuzziness"],
                  "swap_mode": sw.parameters["mode"]}
    seeds = {"seed": seed, "discriminative_power": dp.parameters["seed"],
             "swap_rates": sw.parameters["seed"], "stability": st.parameters["seed"]}
    inputs = {"qrels": str(q.source), "runs": common.path_list(runs)}
    result = writer.finish(parameters, seeds, first.systems, first.topics, summary, inputs,
                           notes)
    return common.finish_report(result, qrels, runs, out, report, eval_options)


def _measure_string(label: str, labels: Dict[str, str]) -> str:
    return next(k for k, v in labels.items() if v == label)


def _dp_table(table: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    rows = table[table["measure"].isin(names)]
    rows = rows.sort_values("significant", ascending=False, kind="stable")
    return pd.DataFrame({"measure": rows["measure"], "significant_pairs": rows["significant"],
                         "pairs": rows["pairs"], "share": rows["share"],
                         "required_difference": rows["required_difference_2sf"]})


def _gain_table(table: pd.DataFrame) -> pd.DataFrame:
    """Rows: gain values; columns: share of significant pairs per metric."""
    rows = []
    for label in GAIN_VARIANTS:
        row = {"gains": label}
        for m in GAIN_MEASURES:
            hit = table[table["measure"] == f"{m} {label}"].iloc[0]
            row[m] = hit["share"]
            row[f"{m} diff"] = hit["required_difference_2sf"]
        rows.append(row)
    return pd.DataFrame(rows)


def _stability_table(table: pd.DataFrame, f: float = 0.05) -> pd.DataFrame:
    at = table[(table["fuzziness"] - f).abs() < 1e-9]
    return at[["measure", "fuzziness", "minority_rate", "proportion_ties"]]


def _summary(main, swap, stab, square, one_rel, alpha, n_systems, by, top_k, top_fraction):
    share = dict(zip(main["measure"], main["share"]))
    systems = (f"the top {top_k} systems by {by}" if top_k else
               f"the top {top_fraction:.0%} of systems by {by}" if top_fraction else
               "all systems")
    lines = [f"{common.ordering({m: share[m] for m in one_rel})} in discriminative power "
             f"(alpha = {alpha}) on this collection ({n_systems} systems: {systems}); "
             f"for reference AP {share['AP']:.0%}, Q-measure {share['Q-measure']:.0%} of "
             f"pairs significant."]
    useful = dict(zip(swap["measure"], swap["share_reaching"]))
    found = {m: useful[m] for m in one_rel if pd.notna(useful[m])}
    never = [m for m in one_rel if m not in found]
    if len(found) > 1:
        lines.append(f"{common.ordering(found)} in the share of comparisons reaching the "
                     f"swap method's 95% required difference.")
    elif found:
        m = next(iter(found))
        lines.append(f"Only {m} has a 95% required difference by the swap method "
                     f"({found[m]:.0%} of comparisons reach it).")
    if never:
        lines.append(f"The swap rate of {', '.join(never)} never stays at or below 5% over "
                     f"the difference bins: no required difference at 95% confidence "
                     f"(too few topics per subset or too few trials).")
    at = _stability_table(stab)
    minority = dict(zip(at["measure"], at["minority_rate"]))
    lines.append(f"{common.ordering({m: minority[m] for m in one_rel}, higher_is_better=False)}"
                 f" in minority rate at fuzziness 0.05 (most stable first).")
    taus = square.loc[one_rel, one_rel].to_numpy()
    off = [(square.index[i], square.columns[j], taus[i, j]) for i in range(len(one_rel))
           for j in range(i + 1, len(one_rel))]
    lo = min(off, key=lambda t: t[2])
    hi = max(off, key=lambda t: t[2])
    lines.append(f"Kendall's tau between their rankings ranges from {lo[2]:.2f} ({lo[0]} vs "
                 f"{lo[1]}) to {hi[2]:.2f} ({hi[0]} vs {hi[1]}).")
    return lines
