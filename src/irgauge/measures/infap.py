"""Inferred AP (Yilmaz and Aslam, 2006) as trec_eval computes it.

For a relevant document at rank r > 1 with, above it, `rel` relevant, `non` judged
nonrelevant and `pool` pooled-but-unjudged documents (documents absent from the qrels
are skipped but still take a rank):
  E[prec(r)] = 1/r + (rel + non + pool)/r * (rel + eps)/(rel + non + 2 eps), eps = 1e-5;
a relevant document at rank 1 counts 1. infAP = (1/R) sum of these. With complete
judgments it is AP up to the eps smoothing.

With its sample's inclusion probabilities (prels), each judged document above counts
w = 1/pi in ``rel`` and ``non`` (the fraction relevant among those sampled above is then
a Hajek estimate), each judged relevant document adds w times its term, and the sum is
divided by R^ = sum of w over the judged relevant documents (statR). With every pi = 1
(qrels) this is the formula above, number for number. Documents above count in
``rel + non + pool`` as they are, once each: the pool is known, only its judging was
sampled.
"""

from __future__ import annotations

import numpy as np

from irgauge.collection.judgments import POOLED
from irgauge.collection.rankings import cells
from irgauge.measures.base import rank_sum, rank_sum_cells, ratio, register

EPSILON = 1e-5  # trec_eval's INFAP_EPSILON


def _above(flags: np.ndarray) -> np.ndarray:
    return np.cumsum(flags, axis=1) - flags


@register(
    "infAP",
    "infAP = (1/R) sum_rel [1/r + (sampled above)/r * (rel above + eps)/"
    "(judged above + 2 eps)] (trec_eval infAP)",
    cutoff="none",
)
def inferred_ap(ranked) -> np.ndarray:
    if ranked.inclusion is None and ranked.judgments.rel_level >= 0:
        return _counted(ranked)
    weight = ranked.weight  # 1 for each judged document of qrels: the counts
    rel = _above(np.where(ranked.isrel, weight, 0.0))
    non = _above(np.where(ranked.isrel, 0.0, weight))
    pooled = _above(ranked.judged) + _above(ranked.grades == POOLED)
    r = ranked.ranks
    expected = 1.0 / r + pooled / r * (rel + EPSILON) / (rel + non + 2 * EPSILON)
    expected[:, 0] = 1.0
    total = ranked.judgments.estimated_R[ranked.topic]
    return ratio(rank_sum(np.where(ranked.isrel, expected * weight, 0.0)), total)


def _counted(ranked) -> np.ndarray:
    """infAP of qrels (every weight 1), number for number as above: the counts above each
    relevant document read off the judged and pooled documents alone, in rank order,
    where the formula above takes four running sums over every rank of the padded lists
    (the bulk of a leave-one-group-out study's time)."""
    grades = ranked.grades
    rows, cols, sampled_above, first = cells((grades >= 0) | (grades == POOLED))
    level = grades[rows, cols]
    rel = level >= ranked.judgments.rel_level
    non = (level >= 0) & ~rel
    rel_above, non_above = _above_in_rows(rel, rows, first), _above_in_rows(non, rows, first)
    pick = np.flatnonzero(rel)
    r = ranked.ranks[cols[pick]]
    rel, non = rel_above[pick], non_above[pick]
    expected = 1.0 / r + sampled_above[pick] / r * (rel + EPSILON) / (rel + non + 2 * EPSILON)
    expected[cols[pick] == 0] = 1.0
    total = rank_sum_cells(rows[pick], rel, expected, ranked.n_rows)
    return ratio(total, ranked.judgments.estimated_R[ranked.topic])


def _above_in_rows(flags: np.ndarray, rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per cell of :func:`cells`: how many cells before it in its row have ``flags``."""
    above = np.cumsum(flags) - flags
    return above - above[first[rows]] if len(rows) else above
