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
independent seeds; tables give means with Monte Carlo standard errors, figures their 95%
intervals, and the summary orders two metrics only when the 95% interval of their paired
difference, topic sampling (``topic_resamples`` bootstrap resamples of the topics) and
Monte Carlo error combined, excludes 0 (:mod:`irgauge.studies._noise`).

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
from irgauge._checks import renamed_keywords
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise, _plots, _repeat, _topics, matched_ties
from irgauge.io.words import counted

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
TOPIC_RESAMPLES = _noise.TOPIC_RESAMPLES


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


def gain_variants(gains) -> List[str]:
    """The S:A:B gain variants a study compares, each checked: one text is one variant
    (``"3:2:1"``, not five characters), as ``--gains 3:2:1`` is."""
    variants = [gains] if isinstance(gains, str) else list(gains)
    for variant in variants:
        if not isinstance(variant, str):
            raise InputError(f"gains: each variant is text S:A:B such as '3:2:1'; got {variant!r}")
        irgauge_gains(variant)
    return variants


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
    samples: int = 1000  # B, the bootstrap samples
    trials: int = 1000
    alpha: float = 0.05
    subset_size: Optional[int] = None
    swap_mode: str = "strict"
    replacement: bool = False
    gains: Sequence[str] = GAIN_VARIANTS
    repetitions: int = 5
    eval_options: Dict[str, Any] = field(default_factory=dict)
    topic_resamples: int = TOPIC_RESAMPLES


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
    stability_rows: pd.DataFrame  # the stability curves of each repetition
    stability_pairs: pd.DataFrame
    tau: pd.DataFrame  # square of Kendall's tau
    tau_parameters: Dict[str, Any]
    share: _noise.Statistic  # share of significant pairs, with its topic resamples
    swap_share: _noise.Statistic  # share of comparisons reaching the required difference
    tau_draws: Dict[Any, Any]  # (a, b) -> tau on each topic resample
    problem: Optional[str]  # why the design is too small to order measures, if it is


@renamed_keywords(B="samples")
@common.study_entry
def run_onerel(
    qrels,
    runs,
    out,
    *,
    top_k: Optional[int] = 30,
    top_fraction: Optional[float] = None,
    by: str = "AP",
    seed: Optional[int] = None,
    samples: int = 1000,
    trials: int = 1000,
    alpha: float = 0.05,
    subset_size: Optional[int] = None,
    swap_mode: str = "strict",
    replacement: bool = False,
    gains: Sequence[str] = GAIN_VARIANTS,
    repetitions: int = 5,
    eval_options: Optional[Dict[str, Any]] = None,
    topic_resamples: int = TOPIC_RESAMPLES,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study on ``qrels`` and ``runs``; write tables and figures under ``out/onerel``.

    ``samples``: B, the bootstrap samples of every test (``B=``, its old name, still
    works, deprecated: ``samples`` is every function's name for them).
    ``subset_size``: topics per subset c for swap and stability (default: half the topics).
    ``swap_mode``: "strict" (a tie on one side and not the other is a swap) or "original";
    ``replacement``: draw the two swap subsets with replacement (the poster's variant).
    ``gains``: the S:A:B gain variants of Table 4 (empty: none). ``repetitions``: how many
    times each random experiment runs with independent seeds (the first uses ``seed``).
    ``eval_options`` go to :func:`irgauge.evaluate` (order, rel_level, ...).
    ``topic_resamples``: T, the resamples of the topics behind every ordering's interval
    (:mod:`irgauge.studies._noise`).
    ``progress``: ``label -> callback(done, total)`` or None.
    """
    options = OnerelOptions(
        top_k=top_k,
        top_fraction=top_fraction,
        by=by,
        seed=seed,
        samples=samples,
        trials=trials,
        alpha=alpha,
        subset_size=subset_size,
        swap_mode=swap_mode,
        replacement=replacement,
        gains=gain_variants(gains),
        repetitions=repetitions,
        eval_options=dict(eval_options or {}),
        topic_resamples=topic_resamples,
    )
    result = write_onerel(compute_onerel(qrels, runs, options, progress), out)
    return collection_record.finish_report(result, qrels, runs, out, report, options.eval_options)


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
    matrices, systems = common.selected(
        every,
        o.top_k,
        o.top_fraction,
        o.by,
        default=(OnerelOptions.top_k, OnerelOptions.top_fraction),
    )
    base = {k: matrices[k] for k in BASE}
    first = next(iter(base.values()))
    c = o.subset_size or first.n_topics // 2
    topic = _repeat.topic_draw(seed, first.n_topics, o.topic_resamples, o.trials, o.repetitions)
    dp_rows, dp, first_dp = _repeat.discriminative_power(
        matrices, o.samples, o.alpha, seeds, progress
    )
    step = common.steps(progress, "topic resamples", 3)
    share, _ = _topics.discriminative_power(matrices, o.alpha, topic.indices)
    _, swap_rows, swap_curve, swap = _repeat.swap(
        base, c, o.trials, seeds, o.swap_mode, o.replacement, progress
    )
    swap_share, _ = _topics.swap(
        base, c, topic.trials, topic.experiments, topic.seed, o.swap_mode, o.replacement
    )
    step()
    stability_rows, stability = _repeat.stability(base, c, o.trials, seeds, progress)
    topic_curves = _topics.stability(base, c, topic.trials, topic.experiments, topic.seed)
    step()
    rc = rank_correlations(base)
    tau_draws = _topics.taus(base, topic.indices)
    step()
    return OnerelData(
        options=o,
        record=_record(o, q, runs, labels, notes, matrices, seed, seeds, topic, stability_rows),
        setting=f"{systems}, {counted(first.n_topics, 'topic')}",
        c=c,
        pairs=first_dp.parameters["pairs"],
        statistics=pd.DataFrame([collection_record.collection_statistics(q, runs, o.eval_options)]),
        power=_repeat.discriminative_power_table(dp, BASE),
        asl_pairs=first_dp.details["pairs"],
        gains=_gain_table(dp, o.gains) if len(matrices) > len(base) else None,
        swap=swap,
        swap_curve=swap_curve,
        flat=_repeat.flat_measures(base),
        stability=stability,
        stability_rows=stability_rows,
        stability_pairs=matched_ties.stability_comparison(stability_rows, topic_curves),
        tau=rc.details["matrix"],
        tau_parameters=rc.parameters,
        share=_repeat.statistic(dp_rows, "share", "share of significant pairs", share),
        swap_share=_repeat.statistic(
            swap_rows, "share_reaching", "required difference", swap_share
        ),
        tau_draws=tau_draws,
        problem=_noise.design_problem(first.n_systems, first.n_topics),
    )


def _record(o, q, runs, labels, notes, matrices, seed, seeds, topic, stability_rows):
    """The manifest's parameters, seeds and inputs."""
    first = next(iter(matrices.values()))
    parameters = {
        **common.filter_parameters(o.top_k, o.top_fraction, o.by),
        "B": o.samples,
        "trials": o.trials,
        "alpha": o.alpha,
        "subset_size": o.subset_size or first.n_topics // 2,
        "swap_mode": o.swap_mode,
        "replacement": o.replacement,
        "gains": o.gains,
        "repetitions": o.repetitions,
        "measures": {k: _measure_string(k, labels) for k in matrices},
        "eval_options": o.eval_options,
        "fuzziness": sorted(set(stability_rows["fuzziness"])),
        "topic_sampling": topic.record(),
    }
    seed_record = {
        "seed": seed,
        "repetitions": seeds,
        "discriminative_power": seeds,
        "swap_rates": seeds,
        "stability": seeds,
        "topic_resamples": topic.seed,
    }
    inputs = {"qrels": str(q.source), "runs": common.path_list(runs)}
    return common.Record(parameters, seed_record, first.systems, first.topics, inputs, notes)


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
    names = [m for m in ONE_REL if m not in data.flat]
    summary = _noise.design_warning(data.problem, data.flat)
    summary += _summary(data, names)
    summary += _repeat.swap_sentences(data.swap_share, names, data.c, data.flat, data.problem)
    summary.append(
        _repeat.stability_sentence(
            data.stability_pairs, data.stability, list(ONE_REL), f"c = {data.c}", data.problem
        )
    )
    summary.append(_tau_sentence(data.tau, names, data.tau_draws, data.problem))
    if data.gains is not None:
        summary += _gain_sentences(data.share, o.gains, data.problem)
    summary.append(
        _repeat.method_sentence(
            data.record.parameters["topic_sampling"], o.repetitions, t_stand_in=True
        )
    )
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
            f"{counted(data.pairs, 'pair')}, B = {o.samples})",
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
        f"{counted(o.repetitions, 'repetition')}, with the Monte Carlo band of each ASL "
        f"(+/- 1.96 binomial SE, B = {o.samples}; {data.setting})",
        samples=o.samples,
        alpha=o.alpha,
        title=f"ASL curves ({data.setting}, B = {o.samples})",
    )


def _write_gains(writer: common.StudyWriter, data: OnerelData) -> None:
    o = data.options
    writer.table(
        "gain_values",
        data.gains,
        common.caption(
            f"Discriminative power at alpha = {o.alpha} under gain values S:A:B: share of "
            f"pairs and required difference (diff), means over "
            f"{counted(o.repetitions, 'repetition')} "
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
            f"{counted(o.repetitions, 'repetition')}, with the Monte Carlo band of each "
            f"ASL (+/- 1.96 binomial SE, B = {o.samples})",
            samples=o.samples,
            alpha=o.alpha,
            title=f"{m} under gain values ({data.setting}, B = {o.samples})",
        )


def _write_swap_and_stability(writer: common.StudyWriter, data: OnerelData) -> None:
    o, c = data.options, data.c
    writer.table(
        "swap",
        _repeat.swap_summary_table(data.swap, o.repetitions),
        common.caption(
            f"Swap method: required difference at 95% confidence (c = {c}, "
            f"{counted(o.trials, 'trial')} "
            f"x {counted(o.repetitions, 'repetition')}, {o.swap_mode} swaps, "
            f"{'with' if o.replacement else 'without'} replacement), largest mean, relative "
            f"difference and share of comparisons reaching it, means over the repetitions "
            f"that reach one; not reached (>= 0.20): repetitions whose required difference "
            f"is the catch-all bin, left out of the means; found_in: share of repetitions "
            f"reaching one",
            "pmeasure",
        ),
        _repeat.SWAP_DIGITS,
    )
    writer.figure(
        "swap_rates",
        figures.swap_curves,
        data.swap_curve,
        f"Swap rate against performance difference (c = {c}; mean over "
        f"{counted(o.repetitions, 'repetition')} with its 95% interval, 1.96 Monte Carlo SE; "
        f"dashed "
        f"line: the 5% swap rate of the required difference)",
    )
    common.write_stability(
        writer,
        data.stability,
        data.stability_pairs,
        "pmeasure",
        common.caption(
            f"Stability at fuzziness 0.05: minority rate and proportion of ties (c = {c}, "
            f"{counted(o.trials, 'trial')} x {counted(o.repetitions, 'repetition')}, SE)",
            "pmeasure",
        ),
        "Minority rate against proportion of ties (fuzziness 0.01-0.10; mean over the "
        "repetitions with its 95% interval, 1.96 Monte Carlo SE)",
        data.stability_rows,
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


def _gain_sentences(share: _noise.Statistic, gains, problem: Optional[str]) -> List[str]:
    lines = []
    for m in GAIN_MEASURES:
        by_gains = _repeat.renamed_statistic(share, {f"{m} {v}": v for v in gains})
        lines.append(
            f"{m} under gain values S:A:B, share of significant pairs: "
            f"{_noise.ordering(by_gains, None, problem)}."
        )
    return lines


def _summary(data: OnerelData, names: List[str]) -> List[str]:
    share = data.share
    text = _noise.ordering(share, names, data.problem).text
    return [
        f"Discriminative power (share of pairs with ASL < {data.options.alpha}; "
        f"{data.setting}): {text}. For reference AP {share.shown('AP')}, Q-measure "
        f"{share.shown('Q-measure')}."
    ]


def _tau_sentence(square: pd.DataFrame, names, draws, problem: Optional[str]) -> str:
    if len(names) < 2:
        return "Kendall's tau: fewer than two measures separate the systems."
    off = [(a, b, float(square.loc[a, b])) for k, a in enumerate(names) for b in names[k + 1 :]]
    lo = min(off, key=lambda t: t[2])
    hi = max(off, key=lambda t: t[2])

    def shown(t):
        key = (t[0], t[1]) if (t[0], t[1]) in draws else (t[1], t[0])
        low, high = _topics.interval(t[2], draws[key], -1.0, 1.0)
        return f"{t[2]:.2f} ({t[0]} vs {t[1]}; 95% interval [{low:.2f}, {high:.2f}])"

    if lo[2] == hi[2]:
        # one value for every pair: "ranges from 1.00 (A vs B) to 1.00 (A vs B)" said less
        text = f"Kendall's tau between their rankings is {lo[2]:.2f} for every pair"
    else:
        text = f"Kendall's tau between their rankings ranges from {shown(lo)} to {shown(hi)}"
    return text + (f" (not interpreted: {problem})." if problem else ".")
