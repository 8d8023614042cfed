"""Yet Another Average Precision (Robertson, 2012; trec_eval's yaap): AP's sum made
smooth at its ends so that it averages better over topics.

yaap = log((1 + S) / (1 + R - S)), S = sum_r isrel(r) count(r)/r, AP's sum before it is
divided by R (so S = R * AP). 0 where S = R/2; no relevant document retrieved gives
log(1 / (1 + R)).
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import rank_sum, register


@register(
    "yaap", "yaap = log((1 + S) / (1 + R - S)), S = sum_r isrel(r) count(r)/r (trec_eval yaap)"
)
def yet_another_average_precision(ranked) -> np.ndarray:
    precision_at_rel = np.where(ranked.isrel, ranked.count / ranked.ranks, 0.0)
    total = rank_sum(precision_at_rel)
    # 1 + R - S >= 1 while S <= R; under trec_eval's -l below 0, documents outside the
    # qrels count in S and not in R, and the quotient is C's: an infinity or a NaN
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.log((1.0 + total) / (1.0 + ranked.R - total))
