"""Capped recall, BEIR's ``R_cap@k``: relevant retrieved in the top k over min(R, k).

Recall@k cannot reach 1 when a topic has more than k relevant documents; capping the
denominator at k lets a perfect top k score 1 (Thakur et al., BEIR, 2021). With a cutoff
it equals trec_eval's relative_P@k (irgauge's ``RelP@k``); without one, min(R, inf) = R,
so ``R_cap`` is recall over the whole list. Relevant means a level at or above the
relevance threshold (``rel=``, -l), as for R and P; a topic without relevant documents
scores 0, as R does (``--empty-topics`` decides whether it is averaged).
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import register, ratio


@register(
    "R_cap",
    "R_cap@k = count(k) / min(R, k) (BEIR's capped recall); without a cutoff count/R",
)
def capped_recall(ranked) -> np.ndarray:
    if ranked.cutoff is None:
        return ratio(ranked.n_rel_ret, ranked.R)
    return ratio(ranked.n_rel_ret, np.minimum(ranked.R, ranked.cutoff))
