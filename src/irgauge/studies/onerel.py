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

:func:`run_onerel` runs three steps, each usable alone: :func:`compute_onerel` (every number,
nothing written), :func:`describe_onerel` (the summary's sentences) and :func:`write_onerel`
(tables, figures and manifest under ``out/onerel``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional, Sequence

import pandas as pd

from irgauge.errors import InputError
from irgauge.evaluation import score_matrices
from irgauge.io.qrels import read_qrels
from irgauge.meta import rank_correlations
from irgauge.report import figures
from irgauge.studies import _common as common
from irgauge.studies import _noise, _plots, _repeat

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
BASE = list(ONE_REL) + list(REFERENCE)
# gain S:A:B as the papers write it (the AIRS paper's Table 4)
GAIN_VARIANTS = ("3:2:1", "10:5:1", "1:1:1", "0.3:0.2:0.1")
GAIN_MEASURES = ("P-measure", "P-plus", "O-measure")


def irgauge_gains(sab: str) -> str:
    """Gains written S:A:B (highest level first, as the papers do) -> irgauge's per level
    1, 2, 3 ("3:2:1" -> "1:2:3")."""
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


@dataclass(frozen=True)
class OnerelOptions:
    """The options of :func:`run_onerel` (see there), the same defaults."""

    top_k: Optional[int] = 30
    top_fraction: Optional[float] = None
    by: str = "AP"
    seed: Optional[int] = None
    B: int = 1000
    trials: int = 1000
    alpha: float = 0.05
    subset_size: Optional[int] = None
    swap_mode: str = "strict"
    replacement: bool = False
    gains: Sequence[str] = GAIN_VARIANTS
    repetitions: int = 5
    eval_options: Dict[str, Any] = field(default_factory=dict)


@dataclass
class OnerelData:
    """Everything the study writes, computed: tables, figure data, manifest record."""

    options: OnerelOptions
    record: common.Record
    setting: str  # systems and topics, in words
    c: int  # topics per subset of the swap and stability experiments
    pairs: int  # system pairs of the bootstrap
    statistics: pd.DataFrame
    power: pd.DataFrame  # Table 3
    asl_pairs: pd.DataFrame  # ASL of every pair, first repetition
    gains: Optional[pd.DataFrame]  # Table 4; None when the gain variants are skipped
    swap: pd.DataFrame  # spread of the swap method's summary
    swap_curve: pd.DataFrame
    flat: List[str]  # measures giving every system the same score
    stability: pd.DataFrame  # spread of the stability curves
    stability_pairs: pd.DataFrame
    tau: pd.DataFrame  # square of Kendall's tau
    tau_parameters: Dict[str, Any]


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
    options = OnerelOptions(
        top_k=top_k,
        top_fraction=top_fraction,
        by=by,
        seed=seed,
        B=B,
        trials=trials,
        alpha=alpha,
        subset_size=subset_size,
        swap_mode=swap_mode,
        replacement=replacement,
        gains=list(gains),
        repetitions=repetitions,
        eval_options=dict(eval_options or {}),
    )
    result = write_onerel(compute_onerel(qrels, runs, options, progress), out)
    return common.finish_report(result, qrels, runs, out, report, options.eval_options)


def compute_onerel(
    qrels, runs, options: OnerelOptions = OnerelOptions(), progress=None
) -> OnerelData:
    """Every number of the study, nothing written."""
    o = options
    seed, seeds = common.seeds_for(o.seed, o.repetitions)
    q = read_qrels(qrels)
    labels, notes = _labels(q, o.gains)
    step = common.steps(progress, "evaluation", 1)
    every = common.renamed(score_matrices(q, runs, list(labels), **o.eval_options), labels)
    step()
    matrices, systems = common.selected(every, o.top_k, o.top_fraction, o.by)
    base = {k: matrices[k] for k in BASE}
    first = next(iter(base.values()))
    c = o.subset_size or first.n_topics // 2
    _, dp, first_dp = _repeat.discriminative_power(matrices, o.B, o.alpha, seeds, progress)
    _, _, swap_curve, swap = _repeat.swap(
        base, c, o.trials, seeds, o.swap_mode, o.replacement, progress
    )
    stability_rows, stability = _repeat.stability(base, c, o.trials, seeds, progress)
    rc = rank_correlations(base)
    parameters = {
        **common.filter_parameters(o.top_k, o.top_fraction, o.by),
        "B": o.B,
        "trials": o.trials,
        "alpha": o.alpha,
        "subset_size": c,
        "swap_mode": o.swap_mode,
        "replacement": o.replacement,
        "gains": o.gains,
        "repetitions": o.repetitions,
        "measures": {k: _measure_string(k, labels) for k in matrices},
        "eval_options": o.eval_options,
        "fuzziness": sorted(set(stability_rows["fuzziness"])),
    }
    seed_record = {
        "seed": seed,
        "repetitions": seeds,
        "discriminative_power": seeds,
        "swap_rates": seeds,
        "stability": seeds,
    }
    inputs = {"qrels": str(q.source), "runs": common.path_list(runs)}
    return OnerelData(
        options=o,
        record=common.Record(parameters, seed_record, first.systems, first.topics, inputs, notes),
        setting=f"{systems}, {first.n_topics} topics",
        c=c,
        pairs=first_dp.parameters["pairs"],
        statistics=pd.DataFrame([common.collection_statistics(q, runs)]),
        power=_repeat.discriminative_power_table(dp, BASE),
        asl_pairs=first_dp.details["pairs"],
        gains=_gain_table(dp, o.gains) if len(matrices) > len(base) else None,
        swap=swap,
        swap_curve=swap_curve,
        flat=_repeat.flat_measures(base),
        stability=stability,
        stability_pairs=_noise.stability_comparison(stability_rows),
        tau=rc.details["matrix"],
        tau_parameters=rc.parameters,
    )


def _labels(q, gains: Sequence[str]):
    """(measure string -> label of every measure evaluated, notes): the gain variants only
    where the collection has the three levels S, A, B they weigh."""
    labels = {**{v: k for k, v in ONE_REL.items()}, **{v: k for k, v in REFERENCE.items()}}
    levels = sorted({int(v) for v in q.levels if v > 0})
    if gains and levels and max(levels) == 3:
        labels.update({v: k for k, v in gain_measures(gains).items()})
        return labels, []
    if gains:
        return labels, [
            f"gain-value variants skipped: they need relevance levels 1-3 (S, A, B); "
            f"this collection's highest level is {max(levels) if levels else 0}"
        ]
    return labels, []


def describe_onerel(data: OnerelData) -> List[str]:
    """The summary's sentences, from the computed tables."""
    o = data.options
    summary = _summary(data.power, data.setting, o.alpha)
    summary += _repeat.swap_sentences(data.swap, list(ONE_REL), data.c, data.flat)
    summary.append(
        _repeat.stability_sentence(
            data.stability_pairs, data.stability, list(ONE_REL), f"c = {data.c}"
        )
    )
    summary.append(_tau_sentence(data.tau, list(ONE_REL)))
    if data.gains is not None:
        summary += _gain_sentences(data.gains, o.gains)
    return summary


def write_onerel(data: OnerelData, out) -> common.StudyResult:
    """Write the tables, figures, manifest and summary under ``out/onerel``."""
    with common.study_writer(out, NAME, TITLE) as writer:
        writer.table(
            "collection_statistics",
            data.statistics,
            common.caption("Collection statistics", "onerel", "Table 2"),
            digits=2,
        )
        _write_power(writer, data)
        if data.gains is not None:
            _write_gains(writer, data)
        _write_swap_and_stability(writer, data)
        _write_tau(writer, data)
        return writer.finish_with(data.record, describe_onerel(data))


def _write_power(writer: common.StudyWriter, data: OnerelData) -> None:
    o = data.options
    writer.table(
        "discriminative_power",
        data.power,
        common.caption(
            f"Discriminative power at alpha = {o.alpha} and required difference, means over "
            f"{o.repetitions} bootstrap repetitions with Monte Carlo SE ({data.setting}, "
            f"{data.pairs} pairs, B = {o.B})",
            "onerel",
            "Table 3",
        ),
        _repeat.DP_DIGITS,
    )
    writer.figure(
        "asl_curves",
        figures.asl_curves,
        data.asl_pairs[data.asl_pairs["measure"].isin(BASE)],
        f"ASL curves: ASL against system pairs sorted by ASL, first of "
        f"{o.repetitions} repetitions, with the Monte Carlo band of each ASL "
        f"(+/- 1.96 binomial SE, B = {o.B}; {data.setting})",
        samples=o.B,
        alpha=o.alpha,
        title=f"ASL curves ({data.setting}, B = {o.B})",
    )


def _write_gains(writer: common.StudyWriter, data: OnerelData) -> None:
    o = data.options
    writer.table(
        "gain_values",
        data.gains,
        common.caption(
            f"Discriminative power at alpha = {o.alpha} under gain values S:A:B: share of "
            f"pairs and required difference (diff), means over {o.repetitions} repetitions "
            f"with Monte Carlo SE",
            "onerel",
            "Table 4",
        ),
        digits=3,
    )
    pairs = data.asl_pairs
    for m in GAIN_MEASURES:
        writer.figure(
            f"asl_gains_{m.lower().replace('-', '_')}",
            figures.asl_curves,
            pairs[pairs["measure"].str.startswith(m + " ")],
            f"ASL curves of {m} under different gain values, first of "
            f"{o.repetitions} repetitions, with the Monte Carlo band of each "
            f"ASL (+/- 1.96 binomial SE, B = {o.B})",
            samples=o.B,
            alpha=o.alpha,
            title=f"{m} under gain values ({data.setting}, B = {o.B})",
        )


def _write_swap_and_stability(writer: common.StudyWriter, data: OnerelData) -> None:
    o, c = data.options, data.c
    writer.table(
        "swap",
        _repeat.swap_summary_table(data.swap),
        common.caption(
            f"Swap method: required difference at 95% confidence (c = {c}, {o.trials} trials "
            f"x {o.repetitions} repetitions, {o.swap_mode} swaps, "
            f"{'with' if o.replacement else 'without'} replacement), largest mean, relative "
            f"difference (none for the catch-all bin >= 0.20), share of comparisons reaching "
            f"it; found_in: share of repetitions with a required difference",
            "pmeasure",
        ),
        _repeat.SWAP_DIGITS,
    )
    writer.figure(
        "swap_rates",
        figures.swap_curves,
        data.swap_curve,
        f"Swap rate against performance difference (c = {c}; mean ± sd over "
        f"{o.repetitions} repetitions)",
    )
    common.write_stability(
        writer,
        data.stability,
        data.stability_pairs,
        "pmeasure",
        common.caption(
            f"Stability at fuzziness 0.05: minority rate and proportion of ties (c = {c}, "
            f"{o.trials} trials x {o.repetitions} repetitions, SE)",
            "pmeasure",
        ),
        "Minority rate against proportion of ties (fuzziness 0.01-0.10; mean "
        "± sd over the repetitions)",
    )


def _write_tau(writer: common.StudyWriter, data: OnerelData) -> None:
    writer.table(
        "kendall_tau",
        data.tau.reset_index().rename(columns={"measure_a": "measure"}),
        f"Kendall's tau between system rankings by mean score (significance "
        f"threshold {data.tau_parameters['threshold']:.3f} at alpha "
        f"{data.tau_parameters['alpha']})",
        digits=3,
    )
    writer.figure(
        "kendall_tau",
        _plots.heatmap,
        data.tau,
        "Kendall's tau between the system rankings by mean score",
        label="Kendall's tau",
    )


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


def _gain_sentences(gain_table: pd.DataFrame, gains) -> List[str]:
    by_gains = gain_table.set_index("gains")
    lines = []
    for m in GAIN_MEASURES:
        shares = {v: (by_gains.loc[v, m], by_gains.loc[v, f"{m} SE"]) for v in gains}
        lines.append(
            f"{m} under gain values S:A:B, share of significant pairs: {_noise.ordering(shares)}."
        )
    return lines


def _summary(main: pd.DataFrame, setting: str, alpha: float) -> list:
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
