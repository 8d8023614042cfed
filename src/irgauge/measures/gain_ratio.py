"""trec_eval's experimental gain measures G and binG (Buckley, 2008).

binG = (1/R) sum_{relevant r} 1 / log2(2 + r - count(r))  (nonrelevant or unjudged
above r lower the credit).
G    = (1/sum g_I) sum_r g(r) / log2(2 + cost(r) - cg(r)), cost(r) = sum_{i<=r}
max(g_I(i), 1): the ideal gain so far with at least 1 per rank.
G gives every level its gain whatever the relevance threshold, as trec_eval does.
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import found_over, rank_sum, ratio, register
from irgauge.measures.ndcg import TREC_GAINS, graded_lists


@register("binG", "binG = (1/R) sum_rel 1/log2(2 + nonrelevant above)", cutoff="none")
def bin_g(ranked) -> np.ndarray:
    credit = 1.0 / np.log2(2.0 + ranked.ranks - ranked.count)
    return found_over(rank_sum(np.where(ranked.isrel, credit, 0.0)), ranked.R)


@register(
    "G",
    "G = (1/cg_I) sum_r g(r)/log2(2 + sum_{i<=r} max(g_I(i),1) - cg(r))",
    cutoff="none",
    graded=True,
    levels="all",
    params=(TREC_GAINS,),
)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # trec_gains: any double
def normalised_gain(ranked, trec_gains=None) -> np.ndarray:
    ranked = graded_lists(ranked, "all", trec_gains)
    cost = np.cumsum(np.maximum(ranked.ideal_gain, 1.0), axis=1)
    gain = ranked.gain
    credit = np.where(gain != 0, gain / np.log2(2.0 + cost - ranked.cg), 0.0)
    return ratio(rank_sum(credit), ranked.judgments.ideal_total[ranked.topic])
