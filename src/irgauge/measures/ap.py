"""Average precision."""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import found_over, Param, rank_sum, ratio, register

NORMS = ("R", "min")


def rank_normaliser(ranked, norm: str) -> np.ndarray:
    """R, or min(cutoff, R) as NTCIREVAL's AP@l and Q@l divide."""
    if norm == "min" and ranked.cutoff is not None:
        return np.minimum(ranked.R, ranked.cutoff)
    return ranked.R


@register(
    "AP",
    "AP = (1/R) sum_r isrel(r) count(r)/r (trec_eval map; @k: map_cut_k)",
    params=(
        Param(
            "norm", "R", "str", "divide by R (trec_eval) or by min(k, R) (NTCIREVAL's AP@l)", NORMS
        ),
    ),
)
def average_precision(ranked, norm: str = "R") -> np.ndarray:
    precision_at_rel = np.where(ranked.isrel, ranked.count / ranked.ranks, 0.0)
    if ranked.cutoff is None and norm == "R":  # trec_eval's map (map_cut checks R first)
        return found_over(rank_sum(precision_at_rel), ranked.R)
    return ratio(rank_sum(precision_at_rel), rank_normaliser(ranked, norm))
