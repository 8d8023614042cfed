"""Average precision."""

from __future__ import annotations

import numpy as np

from irgauge.collection.rankings import cells
from irgauge.measures.base import Param, found_over, rank_sum_cells, ratio, register

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
    # at the relevant ranks alone: count(r) there is 1 + the relevant ones above
    rows, cols, place, _ = cells(ranked.isrel)
    precision_at_rel = (place + 1) / ranked.ranks[cols]
    total = rank_sum_cells(rows, place, precision_at_rel, ranked.n_rows)
    if ranked.cutoff is None and norm == "R":  # trec_eval's map (map_cut checks R first)
        return found_over(total, ranked.R)
    return ratio(total, rank_normaliser(ranked, norm))
