"""Inferred AP: trec_eval's infAP on qrels (Yilmaz and Aslam, CIKM 2006), and xinfAP on
prels, the stratified estimator of TREC's sample_eval.pl (Yilmaz, Kanoulas and Aslam,
SIGIR 2008).

On qrels (trec_eval's infAP): for a relevant document at rank r with, above it, `rel`
relevant, `non` judged nonrelevant and `pool` pooled-but-unjudged documents (documents
absent from the qrels are skipped but still take a rank),

  E[prec(r)] = 1/r + (rel + non + pool)/r * (rel + eps)/(rel + non + 2 eps), eps = 1e-5,

so a relevant document at rank 1 counts 1; infAP = (1/R) sum of these over the judged
relevant documents retrieved. With complete judgments it is AP up to the eps smoothing.

On prels (xinfAP): the documents listed for a topic (sampled ones at their level, the
pool's unsampled ones at a negative level, read as pooled but unjudged) fall into strata
(:mod:`irgauge.collection.strata`), stratum h with N_h documents, n_h sampled, r_h of
them relevant. For a judged relevant document at rank r, with N_h(r), n_h(r) and r_h(r)
the counts of stratum h among the listed documents above r,

  E[prec(r)] = 1/r + (1/r) sum_h N_h(r) (r_h(r) + 1e-5)/(n_h(r) + 3e-5),
  xinfAP = sum_d (N_h(d)/n_h(d)) E[prec(d)] / R^,  R^ = sum_h r_h N_h/n_h,

the sum over the judged relevant documents d retrieved, h(d) the stratum of d: each
stratum's sampled documents stand for its whole share above the rank, and each judged
relevant document for N_h/n_h of its stratum. A relevant document at rank 1 counts 1;
documents the prels do not list take a rank and count as nonrelevant. This is
sample_eval.pl's infAP, number for number (its 1e-5 and 3e-5 included); it needs the
unsampled documents of the pool listed (trec_eval's -1 lines), as sample_eval.pl does.

xinfAP is a ratio of two estimates, each unbiased only given at least one sampled
document above every relevant one: it is close to AP, not unbiased (docs/pooling.md
gives the bias measured in simulation).
"""

from __future__ import annotations

import numpy as np

from irgauge.collection.judgments import POOLED
from irgauge.collection.rankings import cells
from irgauge.measures.base import rank_sum, rank_sum_cells, ratio, register

EPSILON = 1e-5  # trec_eval's INFAP_EPSILON
SAMPLED_EPSILON = 3e-5  # sample_eval.pl's smoothing of the sampled count


def _above(flags: np.ndarray) -> np.ndarray:
    return np.cumsum(flags, axis=1) - flags


@register(
    "infAP",
    "infAP = (1/R) sum_rel [1/r + (sampled above)/r * (rel above + eps)/"
    "(judged above + 2 eps)] (trec_eval infAP); on prels, sample_eval.pl's stratified "
    "xinfAP",
    cutoff="none",
    estimator="AP, as sample_eval.pl's xinfAP from a stratified sample (its smoothing "
    "included), a ratio of two estimates: consistent, not unbiased",
)
def inferred_ap(ranked) -> np.ndarray:
    if ranked.inclusion is not None:
        return _stratified(ranked)
    if ranked.judgments.rel_level >= 0:
        return _counted(ranked)
    # -l below 0: judged ones only, trec_eval skips the others whatever -l says (m_infap.c)
    isrel = ranked.isrel & ranked.judged
    rel = _above(isrel.astype(np.float64))
    non = _above((ranked.judged & ~isrel).astype(np.float64))
    pooled = _above(ranked.judged) + _above(ranked.grades == POOLED)
    r = ranked.ranks
    expected = 1.0 / r + pooled / r * (rel + EPSILON) / (rel + non + 2 * EPSILON)
    expected[:, 0] = 1.0
    total = ranked.judgments.R[ranked.topic]
    return ratio(rank_sum(np.where(isrel, expected, 0.0)), total)


def _stratified(ranked) -> np.ndarray:
    strata = ranked.judgments.strata
    topic = np.broadcast_to(ranked.topic[:, None], ranked.inclusion.shape)
    stratum = strata.index(topic, ranked.inclusion)  # -1: not listed (NaN), padding too
    above = _stratified_share_above(stratum, ranked.judged, ranked.isrel)
    r = ranked.ranks
    expected = (1.0 + above) / r
    weight = strata.weight[np.maximum(stratum, 0)]
    terms = np.where(ranked.isrel & (stratum >= 0), weight * expected, 0.0)
    return ratio(rank_sum(terms), strata.estimated_R[ranked.topic])


def _stratified_share_above(stratum, judged, relevant) -> np.ndarray:
    """F(r) = sum_h N_h(r) (r_h(r) + 1e-5)/(n_h(r) + 3e-5) over the listed documents
    above rank r (stratum >= 0), for every rank of every row.

    The document at rank r changes the counts of its own stratum only, so F(r + 1) - F(r)
    is that stratum's term after it less its term before it: the counts come from one
    sort by (row, stratum, rank), and F from a running sum of the changes along the row."""
    rows, cols = np.nonzero(stratum >= 0)
    change = np.zeros(stratum.shape)
    if len(rows):
        h = stratum[rows, cols]
        order = np.lexsort((cols, h, rows))
        rows, cols, h = rows[order], cols[order], h[order]
        x = relevant[rows, cols].astype(np.float64)
        j = judged[rows, cols].astype(np.float64)
        group = np.concatenate(([True], (rows[1:] != rows[:-1]) | (h[1:] != h[:-1])))
        start = np.flatnonzero(group)
        size = np.diff(np.append(start, len(rows)))
        docs = np.arange(1, len(rows) + 1) - np.repeat(start, size)  # N_h up to here
        rel = _group_cumsum(x, start, size)
        sampled = _group_cumsum(j, start, size)
        after = docs * (rel + EPSILON) / (sampled + SAMPLED_EPSILON)
        before = (docs - 1) * (rel - x + EPSILON) / (sampled - j + SAMPLED_EPSILON)
        change[rows, cols] = after - before
    return np.cumsum(change, axis=1) - change


def _group_cumsum(values: np.ndarray, start: np.ndarray, size: np.ndarray) -> np.ndarray:
    """Running sum of ``values`` restarting at each group's ``start``."""
    total = np.cumsum(values)
    offset = np.repeat(total[start] - values[start], size)
    return total - offset


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
    return ratio(total, ranked.judgments.R[ranked.topic])


def _above_in_rows(flags: np.ndarray, rows: np.ndarray, first: np.ndarray) -> np.ndarray:
    """Per cell of :func:`cells`: how many cells before it in its row have ``flags``."""
    above = np.cumsum(flags) - flags
    return above - above[first[rows]] if len(rows) else above
