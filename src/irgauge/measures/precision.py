"""Set-based measures on the top of the list: P@k, R@k, Rprec, Hit@k."""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import Param, register, ratio
from irgauge.measures.iprec import MAX_LEVEL, walk_count


@register("P", "P@k = count(k)/k; without a cutoff, relevant retrieved / retrieved")
def precision(ranked) -> np.ndarray:
    denominator = ranked.cutoff if ranked.cutoff is not None else ranked.lengths
    return ratio(ranked.set_rel_ret, denominator)


@register("R", "Recall@k = count(k)/R")
def recall(ranked) -> np.ndarray:
    return ratio(ranked.set_rel_ret, ranked.R)


@register(
    "Rprec",
    "R-precision = count(R)/R; mult=m: count(c)/c at c = trunc(m*R + 0.9) (trec_eval Rprec_mult_m)",
    cutoff="none",
    params=(
        Param(
            "mult",
            1.0,
            "float",
            "multiple of R at which precision is taken",
            low=0.0,
            low_open=True,
            high=MAX_LEVEL,
        ),
        Param(
            "form",
            "plain",
            "str",
            "plain: count(c)/c; trec_eval: its Rprec_mult walk, from the judged relevant "
            "retrieved back through the ranking (the same but under a threshold below 0)",
            ("plain", "trec_eval"),
        ),
    ),
)
def r_precision(ranked, mult: float = 1.0, form: str = "plain") -> np.ndarray:
    # trec_eval's rounding: m*R + 0.9 truncated, so mult=1 gives exactly R; a double, so
    # that a depth past a 64-bit integer is still past every ranking
    with np.errstate(over="ignore"):
        depth = np.floor(mult * ranked.R.astype(np.float64) + 0.9) if mult != 1.0 else ranked.R
    if form == "plain":
        return ratio(ranked.at_rank(ranked.count, depth), depth)
    # m_Rprec_mult.c: past the ranking num_rel_ret / c, else the walk's count at c,
    # 0 where the walk has stopped (its count reached 0 further down)
    within = ranked.at_rank(np.maximum(walk_count(ranked), 0), depth)
    past = depth > ranked.lengths
    return ratio(np.where(past, ranked.judged_rel_ret, within), depth)


@register("Hit", "Hit@k (NQcorrect@k, trec_eval success_k) = 1 if count(k) > 0")
def hit(ranked) -> np.ndarray:
    return (ranked.n_rel_ret > 0).astype(np.float64)
