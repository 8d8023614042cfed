"""Study ``onerel``: metrics for finding one relevant document (Sakai, AIRS 2006 and the
P-measure poster, SIGIR 2006).

On the top-k runs by mean AP (default 30):

* Table 2 of the AIRS paper: collection statistics;
* Table 3: discriminative power at alpha (0.05) and required difference of P-plus,
  P-measure, O-measure, NWRR and RR, with AP and Q-measure for reference, from the paired
  bootstrap test with the same B bootstrap samples for every metric;
* Table 4: the same for P-measure, P-plus and O-measure under gain values S:A:B (default
  3:2:1, 10:5:1, 1:1:1, 0.3:0.2:0.1; needs three relevance levels);
* the poster's swap rates (required difference at 95% confidence, share of comparisons
  reaching it; subset size c, strict or original swaps, with or without replacement) and
  stability (minority rate against proportion of ties);
* Kendall's tau between the system rankings of these metrics.

Every random experiment (bootstrap, swap, stability) is repeated ``repetitions`` times with
independent seeds; tables give means with Monte Carlo standard errors, figures mean ± sd,
and the summary orders two metrics only when they differ beyond the noise.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import pandas as pd

from irgauge.studies import _common as common

NAME = "onerel"
TITLE = "Metrics for finding one relevant document (Sakai, AIRS 2006; P-measure poster, 2006)"

# label -> measure string
ONE_REL = {
    "P-plus": "P-plus",
    "P-measure": "P-measure",
    "O-measure": "O-measure",
    "NWRR": "NWRR",
    "RR": "RR",
}
REFERENCE = {"AP": "AP", "Q-measure": "Q-measure"}
# gain S:A:B as the papers write it (the AIRS paper's Table 4)
GAIN_VARIANTS = ("3:2:1", "10:5:1", "1:1:1", "0.3:0.2:0.1")
GAIN_MEASURES = ("P-measure", "P-plus", "O-measure")


def irgauge_gains(sab: str) -> str:
    """Gains written S:A:B (highest level first, as the papers do) -> irgauge's per level
    1, 2, 3 ("3:2:1" -> "1:2:3")."""
    from irgauge.errors import InputError

    parts = [p.strip() for p in str(sab).split(":")]
    try:
        values = [float(p) for p in parts]
    except ValueError:
        values = []
    if len(values) != 3 or any(v < 0 for v in values):
        raise InputError(
            f"gain values {sab!r}: expected three non-negative numbers S:A:B, e.g. 3:2:1"
        )
    return ":".join(reversed(parts))


def gain_measures(variants=GAIN_VARIANTS) -> Dict[str, str]:
    """label ("P-measure 10:5:1") -> measure string ("P-measure(gains=1:5:10)")."""
    return {f"{m} {v}": f"{m}(gains={irgauge_gains(v)})" for m in GAIN_MEASURES for v in variants}


def run_onerel(
    qrels,
    runs,
    out,
    *,
    top_k: Optional[int] = 30,
    top_fraction: Optional[float] = None,
    by: str = "AP",
    seed: Optional[int] = None,
    B: int = 1000,
    trials: int = 1000,
    alpha: float = 0.05,
    subset_size: Optional[int] = None,
    swap_mode: str = "strict",
    replacement: bool = False,
    gains: Sequence[str] = GAIN_VARIANTS,
    repetitions: int = 5,
    eval_options: Optional[Dict[str, Any]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study on ``qrels`` and ``runs``; write tables and figures under ``out/onerel``.

    ``subset_size``: topics per subset c for swap and stability (default: half the topics).
    ``swap_mode``: "strict" (a tie on one side and not the other is a swap) or "original";
    ``replacement``: draw the two swap subsets with replacement (the poster's variant).
    ``gains``: the S:A:B gain variants of Table 4 (empty: none). ``repetitions``: how many
    times each random experiment runs with independent seeds (the first uses ``seed``).
    ``eval_options`` go to :func:`irgauge.evaluate` (order, rel_level, ...).
    ``progress``: ``label -> callback(done, total)`` or None.
    """
    from irgauge.errors import InputError
    from irgauge.io.qrels import read_qrels
    from irgauge.meta import rank_correlations
    from irgauge.report import figures
    from irgauge.evaluation import score_matrices
    from irgauge.studies import _noise, _plots, _repeat

    if repetitions < 1:
        raise InputError(f"repetitions must be at least 1, got {repetitions}")
    eval_options = dict(eval_options or {})
    seed = common.seed_or_fresh(seed)
    seeds = _noise.repetition_seeds(seed, repetitions)
    q = read_qrels(qrels)
    levels = sorted({int(v) for v in q.levels if v > 0})
    notes = []
    labels = {**{v: k for k, v in ONE_REL.items()}, **{v: k for k, v in REFERENCE.items()}}
    gains = list(gains)
    if gains and levels and max(levels) == 3:
        labels.update({v: k for k, v in gain_measures(gains).items()})
    elif gains:
        notes.append(
            f"gain-value variants skipped: they need relevance levels 1-3 (S, A, B); "
            f"this collection's highest level is {max(levels) if levels else 0}"
        )
    from irgauge.io.progress import step_counter

    step = step_counter(progress("evaluation") if progress else None, 1)
    every = common.renamed(score_matrices(q, runs, list(labels), **eval_options), labels)
    step()
    matrices = common.select(every, top_k, top_fraction, by)
    base = {k: matrices[k] for k in list(ONE_REL) + list(REFERENCE)}
    first = next(iter(base.values()))
    n = first.n_topics
    c = subset_size or n // 2
    systems = common.systems_phrase(
        first.n_systems, next(iter(every.values())).n_systems, top_k, top_fraction, by
    )
    setting = f"{systems}, {n} topics"

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    try:
        stats = common.collection_statistics(q, runs)
        writer.table(
            "collection_statistics",
            pd.DataFrame([stats]),
            common.caption("Collection statistics", "onerel", "Table 2"),
            digits=2,
        )
        dp_rows, dp, first_dp = _repeat.discriminative_power(matrices, B, alpha, seeds, progress)
        main = _repeat.discriminative_power_table(dp, list(base))
        writer.table(
            "discriminative_power",
            main,
            common.caption(
                f"Discriminative power at alpha = {alpha} and required difference, means over "
                f"{repetitions} bootstrap repetitions with Monte Carlo SE ({setting}, "
                f"{first_dp.parameters['pairs']} pairs, B = {B})",
                "onerel",
                "Table 3",
            ),
            _repeat.DP_DIGITS,
        )
        pairs = first_dp.details["pairs"]
        writer.figure(
            "asl_curves",
            figures.asl_curves,
            pairs[pairs["measure"].isin(base)],
            f"ASL curves: ASL against system pairs sorted by ASL, first of "
            f"{repetitions} repetitions, with the Monte Carlo band of each ASL "
            f"(+/- 1.96 binomial SE, B = {B}; {setting})",
            samples=B,
            alpha=alpha,
            title=f"ASL curves ({setting}, B = {B})",
        )
        gains_summary = []
        if any(k not in base for k in matrices):
            gain_table = _gain_table(dp, gains)
            writer.table(
                "gain_values",
                gain_table,
                common.caption(
                    f"Discriminative power at alpha = {alpha} under gain values S:A:B: share of "
                    f"pairs and required difference (diff), means over {repetitions} repetitions "
                    f"with Monte Carlo SE",
                    "onerel",
                    "Table 4",
                ),
                digits=3,
            )
            for m in GAIN_MEASURES:
                part = pairs[pairs["measure"].str.startswith(m + " ")]
                writer.figure(
                    f"asl_gains_{m.lower().replace('-', '_')}",
                    figures.asl_curves,
                    part,
                    f"ASL curves of {m} under different gain values, first of "
                    f"{repetitions} repetitions, with the Monte Carlo band of each "
                    f"ASL (+/- 1.96 binomial SE, B = {B})",
                    samples=B,
                    alpha=alpha,
                    title=f"{m} under gain values ({setting}, B = {B})",
                )
                shares = {
                    v: (
                        gain_table.set_index("gains").loc[v, m],
                        gain_table.set_index("gains").loc[v, f"{m} SE"],
                    )
                    for v in gains
                }
                gains_summary.append(
                    f"{m} under gain values S:A:B, share of significant "
                    f"pairs: {_noise.ordering(shares)}."
                )

        sw_bins, sw_rows, sw_curve, sw_spread = _repeat.swap(
            base, c, trials, seeds, swap_mode, replacement, progress
        )
        writer.table(
            "swap",
            _repeat.swap_summary_table(sw_spread),
            common.caption(
                f"Swap method: required difference at 95% confidence (c = {c}, {trials} trials "
                f"x {repetitions} repetitions, {swap_mode} swaps, "
                f"{'with' if replacement else 'without'} replacement), largest mean, relative "
                f"difference (none for the catch-all bin >= 0.20), share of comparisons reaching "
                f"it; found_in: share of repetitions with a required difference",
                "pmeasure",
            ),
            _repeat.SWAP_DIGITS,
        )
        writer.figure(
            "swap_rates",
            _plots.swap_curves,
            sw_curve,
            f"Swap rate against performance difference (c = {c}; mean ± sd over "
            f"{repetitions} repetitions)",
        )
        st_rows, st_curve = _repeat.stability(base, c, trials, seeds, progress)
        writer.table(
            "stability",
            _repeat.stability_table(st_curve),
            common.caption(
                f"Stability at fuzziness 0.05: minority rate and proportion of ties (c = {c}, "
                f"{trials} trials x {repetitions} repetitions, SE)",
                "pmeasure",
            ),
            digits=4,
        )
        st_pairs = _noise.stability_comparison(st_rows)
        writer.table(
            "stability_pairs",
            st_pairs,
            common.caption(
                "Stability read from the curves: minority rate of each pair at the smallest "
                "proportion of ties both reach (mean and SE over the repetitions)",
                "pmeasure",
            ),
            digits=4,
        )
        writer.figure(
            "minority_ties",
            _plots.stability_curves,
            st_curve,
            "Minority rate against proportion of ties (fuzziness 0.01-0.10; mean "
            "± sd over the repetitions)",
        )
        rc = rank_correlations(base)
        square = rc.details["matrix"]
        writer.table(
            "kendall_tau",
            square.reset_index().rename(columns={"measure_a": "measure"}),
            f"Kendall's tau between system rankings by mean score (significance "
            f"threshold {rc.parameters['threshold']:.3f} at alpha "
            f"{rc.parameters['alpha']})",
            digits=3,
        )
        writer.figure(
            "kendall_tau",
            _plots.heatmap,
            square,
            "Kendall's tau between the system rankings by mean score",
            label="Kendall's tau",
        )

        summary = _summary(main, setting, alpha)
        summary += _repeat.swap_sentences(sw_spread, list(ONE_REL), c, _repeat.flat_measures(base))
        summary.append(_repeat.stability_sentence(st_pairs, st_curve, list(ONE_REL), f"c = {c}"))
        summary.append(_tau_sentence(square, list(ONE_REL)))
        summary += gains_summary
        parameters = {
            **common.filter_parameters(top_k, top_fraction, by),
            "B": B,
            "trials": trials,
            "alpha": alpha,
            "subset_size": c,
            "swap_mode": swap_mode,
            "replacement": replacement,
            "gains": gains,
            "repetitions": repetitions,
            "measures": {k: _measure_string(k, labels) for k in matrices},
            "eval_options": eval_options,
            "fuzziness": sorted(set(st_rows["fuzziness"])),
        }
        seed_record = {
            "seed": seed,
            "repetitions": seeds,
            "discriminative_power": seeds,
            "swap_rates": seeds,
            "stability": seeds,
        }
        inputs = {"qrels": str(q.source), "runs": common.path_list(runs)}
        result = writer.finish(
            parameters, seed_record, first.systems, first.topics, summary, inputs, notes
        )
    except BaseException:
        writer.abort()
        raise
    return common.finish_report(result, qrels, runs, out, report, eval_options)


def _measure_string(label: str, labels: Dict[str, str]) -> str:
    return next(k for k, v in labels.items() if v == label)


def _gain_table(spread: pd.DataFrame, gains) -> pd.DataFrame:
    """Rows: gain values; columns: share of significant pairs per metric (and its SE)."""
    table = spread.set_index("measure")
    rows = []
    for v in gains:
        row = {"gains": v}
        for m in GAIN_MEASURES:
            hit = table.loc[f"{m} {v}"]
            row[m] = hit["share"]
            row[f"{m} SE"] = hit["share_se"]
            row[f"{m} diff"] = hit["required_difference"]
            row[f"{m} diff SE"] = hit["required_difference_se"]
        rows.append(row)
    return pd.DataFrame(rows)


def _summary(main: pd.DataFrame, setting: str, alpha: float) -> list:
    from irgauge.studies import _noise

    share = {m: (s, e) for m, s, e in zip(main["measure"], main["share"], main["share_se"])}
    one = {m: share[m] for m in ONE_REL}
    ap, q = share["AP"], share["Q-measure"]
    return [
        f"Discriminative power (share of pairs with ASL < {alpha}; {setting}): "
        f"{_noise.ordering(one)}. For reference AP {_noise.fmt(*ap)}, Q-measure "
        f"{_noise.fmt(*q)}."
    ]


def _tau_sentence(square: pd.DataFrame, names) -> str:
    taus = square.loc[names, names].to_numpy()
    off = [
        (names[i], names[j], taus[i, j])
        for i in range(len(names))
        for j in range(i + 1, len(names))
    ]
    lo = min(off, key=lambda t: t[2])
    hi = max(off, key=lambda t: t[2])
    return (
        f"Kendall's tau between their rankings ranges from {lo[2]:.2f} ({lo[0]} vs "
        f"{lo[1]}) to {hi[2]:.2f} ({hi[0]} vs {hi[1]})."
    )
