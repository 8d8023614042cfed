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
from irgauge.measures.base import rank_sum, ratio, register

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
    weight = ranked.weight  # 1 for each judged document of qrels: the counts
    # judged ones only: trec_eval skips the others whatever -l says (m_infap.c)
    isrel = ranked.isrel & ranked.judged
    rel = _above(np.where(isrel, weight, 0.0))
    non = _above(np.where(isrel, 0.0, weight))
    pooled = _above(ranked.judged) + _above(ranked.grades == POOLED)
    r = ranked.ranks
    expected = 1.0 / r + pooled / r * (rel + EPSILON) / (rel + non + 2 * EPSILON)
    expected[:, 0] = 1.0
    total = ranked.judgments.estimated_R[ranked.topic]
    return ratio(rank_sum(np.where(isrel, expected * weight, 0.0)), total)
