"""Inferred AP (Yilmaz and Aslam, 2006) as trec_eval computes it.

For a relevant document at rank r > 1 with, above it, `rel` relevant, `non` judged
nonrelevant and `pool` pooled-but-unjudged documents (documents absent from the qrels
are skipped but still take a rank):
  E[prec(r)] = 1/r + (rel + non + pool)/r * (rel + eps)/(rel + non + 2 eps), eps = 1e-5;
a relevant document at rank 1 counts 1. infAP = (1/R) sum of these. With complete
judgments it is AP up to the eps smoothing.
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
    rel = _above(ranked.isrel)
    non = _above(ranked.judged & ~ranked.isrel)
    pool = _above(ranked.grades == POOLED)
    r = ranked.ranks
    expected = 1.0 / r + (rel + non + pool) / r * (rel + EPSILON) / (rel + non + 2 * EPSILON)
    expected[:, 0] = 1.0
    return ratio(rank_sum(np.where(ranked.isrel, expected, 0.0)), ranked.R)
