"""Set measures on the retrieved list (trec_eval's set_F, set_map, set_relative_P,
relative_P): a = relevant retrieved, n = retrieved (within the cutoff), R relevant.

set_P and set_recall are P and R without a cutoff.
"""

from __future__ import annotations

import math

import numpy as np

from irgauge.measures.base import DOUBLE_MAX, Param, register, ratio


def _retrieved(ranked) -> np.ndarray:
    return ranked.lengths.astype(np.float64)


@register(
    "SetF",
    "SetF = (beta+1) P R / (beta P + R), P = a/n, R = a/R; beta enters "
    "unsquared, as in trec_eval's set_F",
    cutoff="none",
    params=(
        Param(
            "beta",
            1.0,
            "float",
            "weight of recall against precision, >= 0 (any number, inf and nan included, "
            "with signed=true)",
            low=-DOUBLE_MAX,
            high=DOUBLE_MAX,
            c_double=True,
        ),
        Param(
            "signed",
            False,
            "bool",
            "take a negative beta as trec_eval's set_F does: beta P + R can then be 0, "
            "and the value an infinity or a NaN",
        ),
    ),
    check=lambda v: (
        None
        if v["signed"] or 0 <= v["beta"] < math.inf
        else f"parameter beta must be finite and >= 0 unless signed=true; got {v['beta']!r}"
    ),
)
def set_f(ranked, beta: float = 1.0, signed: bool = False) -> np.ndarray:
    """A negative beta can make beta P + R zero: the quotient is then C's (IEEE's), an
    infinity or a NaN, as trec_eval prints it; with beta >= 0 and a > 0 it is positive."""
    a = ranked.set_rel_ret
    precision, recall = ratio(a, _retrieved(ranked)), ratio(a, ranked.R)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        value = (beta + 1.0) * precision * recall / (beta * precision + recall)
    return np.where(a > 0, value, 0.0)


@register(
    "SetAP", "SetAP = a^2 / (n R) = set precision x set recall (trec_eval set_map)", cutoff="none"
)
def set_ap(ranked) -> np.ndarray:
    a = ranked.set_rel_ret
    return ratio(a * a, _retrieved(ranked) * ranked.R)


@register(
    "RelP",
    "RelP@k = count(k) / min(k, R); without a cutoff a / min(n, R) "
    "(trec_eval relative_P_k and set_relative_P)",
)
def relative_precision(ranked) -> np.ndarray:
    depth = np.full(ranked.n_rows, ranked.cutoff) if ranked.cutoff is not None else ranked.lengths
    return ratio(ranked.set_rel_ret, np.minimum(depth, ranked.R))
