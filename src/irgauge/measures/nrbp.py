"""Normalised rank-biased precision, nRBP@k (NTCIREVAL, 2020).

nRBP@k = sum_{r<=k} g(r) p^(r-1) / sum_{r<=min(k,R)} g_I(r) p^(r-1): graded RBP divided by
its value on the ideal list, so the (1-p) factor and the max-gain scaling cancel.
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import rank_sum, ratio, register
from irgauge.measures.rbp import P_PARAM


@register(
    "nRBP",
    "nRBP@k = sum_r g(r) p^(r-1) / the same sum on the ideal list",
    params=(P_PARAM,),
    graded=True,
)
def normalised_rbp(ranked, p: float = 0.95) -> np.ndarray:
    judgments = ranked.judgments

    def ideal_table():
        ranks = np.arange(judgments.ideal_gain.shape[1], dtype=np.float64)
        return np.cumsum(judgments.ideal_gain * np.power(p, ranks), axis=1)

    table = judgments.memo(("nrbp_ideal", p), ideal_table)
    depth = table.shape[1] if ranked.cutoff is None else min(ranked.cutoff, table.shape[1])
    actual = rank_sum(ranked.gain * np.power(p, ranked.ranks - 1.0))
    return ratio(actual, table[ranked.topic, depth - 1])
