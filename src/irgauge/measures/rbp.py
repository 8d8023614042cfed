"""Rank-biased precision (Moffat and Zobel) and its residual."""
from __future__ import annotations

import numpy as np

from irgauge.measures.base import Param, register

P_PARAM = Param("p", 0.95, "float", "persistence: probability of looking at the next rank")
GRADED = Param("graded", False, "bool", "weight each rank by gain/max gain instead of isrel "
               "(NTCIREVAL's graded RBP)")


@register("RBP", "RBP = (1-p) sum_r isrel(r) p^(r-1) (graded: gain/max gain in place of isrel)",
          params=(P_PARAM, GRADED), graded=True)
def rank_biased_precision(ranked, p: float = 0.95, graded: bool = False) -> np.ndarray:
    if graded:
        weight = ranked.gain / ranked.judgments.max_gain if ranked.judgments.max_gain else \
            np.zeros_like(ranked.gain)
    else:
        weight = ranked.isrel
    return (1.0 - p) * (weight * np.power(p, ranked.ranks - 1.0)).sum(axis=1)


@register("RBP_resid", "residual of RBP: p^L, the weight of the ranks past the list's end "
          "(L = list length within the cutoff)", params=(P_PARAM,))
def rbp_residual(ranked, p: float = 0.95) -> np.ndarray:
    return np.power(p, ranked.lengths.astype(np.float64))
