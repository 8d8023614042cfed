"""Label agreement of every pair of qrels (and Krippendorff's alpha over all of them): the
rows of the agreement table and the confusion and per-topic kappa details. The statistics
themselves are in :mod:`irgauge.meta.agreement`."""

from __future__ import annotations

from typing import List

import numpy as np

from irgauge.meta import agreement as ag
from irgauge.meta.agreement_units import Units
from irgauge.stats.resampling import percentile_interval


def _topics_judged(units: Units, columns: List[int], minimum: int) -> np.ndarray:
    """Indices of the topics that at least ``minimum`` of ``columns`` judge."""
    judges = np.zeros(len(units.topics), dtype=int)
    for k in columns:  # a loop over the qrels, not the judgments
        judged = ~np.isnan(units.grades[:, k])
        judges += np.bincount(units.topic[judged], minlength=len(units.topics)) > 0
    return np.flatnonzero(judges >= minimum)


def _positions(units: Units, shared: np.ndarray) -> np.ndarray:
    """Each unit's position among the ``shared`` topics (-1: not shared)."""
    pos = np.full(len(units.topics), -1)
    pos[shared] = np.arange(len(shared))
    return pos[units.topic]


def _rows(a: str, b: str, names, values: np.ndarray, confidence: float) -> List[dict]:
    """Table rows from (1 + samples) x statistics values: row 0 is the point estimate."""
    low, high = percentile_interval(values[1:], confidence)
    return [
        {
            "a": a,
            "b": b,
            "measure": "-",
            "statistic": name,
            "value": float(values[0, i]),
            "low": float(low[i]),
            "high": float(high[i]),
        }
        for i, name in enumerate(names)
    ]


def _confusion(units, a, b, t, both, n_topics):
    """Per-topic confusion counts (topics x L x L) of the pairs both judge, and the levels."""
    ga, gb = units.grades[both, a], units.grades[both, b]
    levels = np.unique(np.concatenate([ga, gb]))
    size = len(levels)
    cell = np.searchsorted(levels, ga) * size + np.searchsorted(levels, gb)
    counts = np.bincount(t[both] * size * size + cell, minlength=n_topics * size * size)
    return counts.reshape(n_topics, size, size).astype(float), levels


def pair_statistics(
    units: Units, a: int, b: int, rel_level: int, samples: int, seed: int, confidence: float
):
    """Rows of the label statistics of qrels a against qrels b, their details, and a note
    (or None) when the pair shares too few topics or pairs for some of them."""
    name_a, name_b = units.names[a], units.names[b]
    shared = _topics_judged(units, [a, b], 2)
    what = f"qrels {name_a} and {name_b}"
    note = ag.too_few_topics(what, len(shared))
    t = _positions(units, shared)
    judged_a = ~np.isnan(units.grades[:, a]) & (t >= 0)
    judged_b = ~np.isnan(units.grades[:, b]) & (t >= 0)
    both = judged_a & judged_b
    n = len(shared)
    counts = np.stack(
        [np.bincount(t[m], minlength=n) for m in (both, judged_a & ~both, judged_b & ~both)], 1
    )
    if not both.any():  # no pair judged by both: only the counts exist
        summed = ag.resampled_sums(counts.astype(float), samples, seed)
        values = {s: np.full(len(summed), np.nan) for s in ag.LABEL_STATISTICS}
        values.update(pairs=summed[:, 0], only_a=summed[:, 1], only_b=summed[:, 2])
        stacked = np.stack([values[s] for s in ag.LABEL_STATISTICS], axis=1)
        note = note or f"{what} judge no (topic, docno) pair in common: their statistics are NaN"
        return _rows(name_a, name_b, ag.LABEL_STATISTICS, stacked, confidence), {}, note
    confusion, levels = _confusion(units, a, b, t, both, n)
    domain = np.unique(np.maximum(levels, 0.0))
    clipped = np.maximum(units.grades[both][:, [a, b]], 0.0)
    coincidence = ag.coincidences(clipped, t[both], n, domain)
    table = np.hstack([counts, confusion.reshape(n, -1), coincidence.reshape(n, -1)])
    summed = ag.resampled_sums(table, samples, seed)  # row 0: all topics once
    size, v = len(levels), len(domain)
    conf = summed[:, 3 : 3 + size * size].reshape(-1, size, size)
    coinc = summed[:, 3 + size * size :].reshape(-1, v, v)
    values = {
        "pairs": summed[:, 0],
        "only_a": summed[:, 1],
        "only_b": summed[:, 2],
        "cohen_kappa": ag.binary_kappa(conf, levels, rel_level),
        "weighted_kappa_linear": ag.weighted_kappa(conf, levels, 1),
        "weighted_kappa_quadratic": ag.weighted_kappa(conf, levels, 2),
        "krippendorff_alpha_ordinal": ag.krippendorff_alpha(coinc, domain, "ordinal"),
        "krippendorff_alpha_interval": ag.krippendorff_alpha(coinc, domain, "interval"),
        **ag.leniency(conf, levels, rel_level),
    }
    stacked = np.stack([values[s] for s in ag.LABEL_STATISTICS], axis=1)
    rows = _rows(name_a, name_b, ag.LABEL_STATISTICS, stacked, confidence)
    details = _pair_details(name_a, name_b, conf[0], levels, confusion, units, shared, rel_level)
    return rows, details, note


def _pair_details(name_a, name_b, total, levels, per_topic, units, shared, rel_level):
    """Confusion records (every cell, zeros included) and the per-topic kappa records."""
    lv = [int(x) for x in levels]
    confusion = [
        {"a": name_a, "b": name_b, "level_a": la, "level_b": lb, "count": int(total[i, j])}
        for i, la in enumerate(lv)
        for j, lb in enumerate(lv)
    ]
    kappas = ag.binary_kappa(per_topic, levels, rel_level)
    pairs = per_topic.sum(axis=(1, 2))
    topics = [
        {
            "a": name_a,
            "b": name_b,
            "topic": units.topics[s],
            "pairs": int(p),
            "cohen_kappa": float(k),
        }
        for s, p, k in zip(shared, pairs, kappas)
    ]
    return {"confusion": confusion, "topic_kappa": topics}


def all_statistics(units: Units, samples: int, seed: int, confidence: float):
    """Rows (a = b = all) of Krippendorff's alpha over every qrels, on the units judged by
    at least two, over the topics at least two judge; and a note (or None) when there are
    too few of them."""
    columns = list(range(len(units.names)))
    shared = _topics_judged(units, columns, 2)
    note = ag.too_few_topics("the qrels", len(shared))
    t = _positions(units, shared)
    pairable = ((~np.isnan(units.grades)).sum(axis=1) >= 2) & (t >= 0)
    grades = np.maximum(units.grades[pairable], 0.0)
    domain = np.unique(grades[~np.isnan(grades)])
    n = len(shared)
    if not len(domain):  # no unit judged twice: only the count exists
        values = {s: np.full(1 + samples, np.nan) for s in ag.ALL_STATISTICS}
        values["pairs"] = ag.resampled_sums(np.zeros((n, 1)), samples, seed)[:, 0]
    else:
        coincidence = ag.coincidences(grades, t[pairable], n, domain).reshape(n, -1)
        table = np.hstack([np.bincount(t[pairable], minlength=n)[:, None], coincidence])
        summed = ag.resampled_sums(table, samples, seed)
        coinc = summed[:, 1:].reshape(-1, len(domain), len(domain))
        values = {
            "pairs": summed[:, 0],
            "krippendorff_alpha_ordinal": ag.krippendorff_alpha(coinc, domain, "ordinal"),
            "krippendorff_alpha_interval": ag.krippendorff_alpha(coinc, domain, "interval"),
        }
    stacked = np.stack([values[s] for s in ag.ALL_STATISTICS], axis=1)
    return _rows("all", "all", ag.ALL_STATISTICS, stacked, confidence), note
