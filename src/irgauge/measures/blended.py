"""Sakai's blended-ratio measures: Q-measure, R-measure, O-measure, P-measure, P-plus,
and the cumulative-gain ratio nCG (= WP).

Blended ratio: BR(r) = (beta*cg(r) + count(r)) / (beta*cg_I(r) + r).
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.ap import NORMS, rank_normaliser
from irgauge.measures.base import Param, rank_sum, ratio, register

BETA = Param(
    "beta",
    1.0,
    "float",
    "weight of cumulative gain against rank (0 turns Q into AP)",
    low=0.0,
    high=1e6,
)


def weighs_gain(values) -> bool:
    """Whether BR reads gains under these parameters: beta = 0 leaves count(r)/r alone."""
    return bool(values["beta"] != 0)


def blended_ratio(ranked, beta: float) -> np.ndarray:
    def compute(lists):
        return (beta * lists.cg + lists.count) / (beta * lists.ideal_cg + lists.ranks)

    return ranked.memo(f"BR:{beta!r}", compute)


@register(
    "Q-measure",
    "Q = (1/R) sum_r isrel(r) BR(r)",
    graded=weighs_gain,
    params=(
        BETA,
        Param("norm", "R", "str", "divide by R, or by min(k, R) as NTCIREVAL's Q@l", NORMS),
    ),
)
def q_measure(ranked, beta: float = 1.0, norm: str = "R") -> np.ndarray:
    total = rank_sum(np.where(ranked.isrel, blended_ratio(ranked, beta), 0.0))
    return ratio(total, rank_normaliser(ranked, norm))


@register("R-measure", "R-measure = BR(R)", graded=weighs_gain, params=(BETA,))
def r_measure(ranked, beta: float = 1.0) -> np.ndarray:
    R = ranked.R
    cg = ranked.at_rank(ranked.cg, R)
    count = ranked.at_rank(ranked.count, R)
    ideal = ranked.judgments.ideal_cg_at(ranked.topic, R)
    return ratio(beta * cg + count, beta * ideal + R)


def _br_at(ranked, beta: float, ranks: np.ndarray) -> np.ndarray:
    return np.where(ranks > 0, ranked.at_rank(blended_ratio(ranked, beta), ranks), 0.0)


def preferred_rank(ranked) -> np.ndarray:
    """r_p: the top-ranked document among those of the highest relevant level retrieved."""
    levels = np.where(ranked.isrel, ranked.grades, -1)
    best = levels.max(axis=1, initial=-1)
    found = best >= 0
    return np.where(found, np.argmax(levels == best[:, None], axis=1) + 1, 0)


@register(
    "O-measure",
    "O = BR(r1), r1 = rank of the first relevant document",
    graded=weighs_gain,
    params=(BETA,),
)
def o_measure(ranked, beta: float = 1.0) -> np.ndarray:
    return _br_at(ranked, beta, ranked.first_rel_rank)


@register(
    "P-measure",
    "P = BR(r_p), r_p = preferred rank (highest level, then top rank)",
    graded=weighs_gain,
    params=(BETA,),
)
def p_measure(ranked, beta: float = 1.0) -> np.ndarray:
    return _br_at(ranked, beta, preferred_rank(ranked))


@register(
    "P-plus",
    "P+ = (1/count(r_p)) sum_{r <= r_p} isrel(r) BR(r)",
    graded=weighs_gain,
    params=(BETA,),
)
def p_plus(ranked, beta: float = 1.0) -> np.ndarray:
    rp = preferred_rank(ranked)
    within = ranked.ranks[None, :] <= rp[:, None]
    total = rank_sum(np.where(ranked.isrel & within, blended_ratio(ranked, beta), 0.0))
    return ratio(total, ranked.at_rank(ranked.count, rp))


@register(
    "nCG",
    "nCG@k = cg(k)/cg_I(k); without a cutoff k = the list length. The papers' "
    "weighted precision WP is the same ratio",
    graded=True,
)
def normalised_cg(ranked) -> np.ndarray:
    ranks = np.full(ranked.n_rows, ranked.cutoff) if ranked.cutoff is not None else ranked.lengths
    return ratio(
        ranked.at_rank(ranked.cg, ranks), ranked.judgments.ideal_cg_at(ranked.topic, ranks)
    )
