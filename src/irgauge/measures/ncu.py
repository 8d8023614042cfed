"""Normalised cumulative utility (Sakai and Robertson), NCUrb and NCUgu, as NTCIREVAL.

A user stops at the n-th relevant document with probability gamma^(n-1) (normalised), and
gets the utility of the list at that rank: precision count(r)/r (``NCUrb,P``), the blended
ratio BR(r) (``NCUrb,BR``) or the inverse effort u^r (``NCUrb,IE``, u as iRBU's patience):

    NCUrb = sum_r isrel(r) U(r) gamma^(count(r)-1) / sum_{n=1..R} gamma^(n-1).

With a cutoff k NTCIREVAL (20200527) sums ranks <= k and divides by min(k, R) instead of
the gamma sum; irgauge follows it there, so NCUrb@k is not NCUrb truncated.
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import Param, rank_sum, ratio, register
from irgauge.measures.blended import BETA, blended_ratio, weighs_gain
from irgauge.measures.cascade import PATIENCE

UTILITIES = ("P", "BR", "IE")


@register(
    "NCUrb",
    "NCUrb = sum_rel U(r) gamma^(count(r)-1) / sum_{n<=R} gamma^(n-1), "
    "U = P, BR or IE (NTCIREVAL's NCUrb,P/BR/IE); @k divides by min(k, R)",
    graded=lambda v: v["utility"] == "BR" and weighs_gain(v),  # P, IE: relevant or not
    params=(
        Param("utility", "P", "str", "P: count(r)/r; BR: blended ratio; IE: u^r", UTILITIES),
        Param(
            "gamma",
            0.95,
            "float",
            "stopping distribution over relevant documents: gamma^(n-1) for the n-th",
            low=0.0,
            high=1.0,
        ),
        BETA,
        PATIENCE,
    ),
)
def ncu_rank_biased(
    ranked, utility: str = "P", gamma: float = 0.95, beta: float = 1.0, u: float = 0.99
) -> np.ndarray:
    if utility == "P":
        value = ranked.count / ranked.ranks
    elif utility == "BR":
        value = blended_ratio(ranked, beta)
    else:
        value = np.power(u, ranked.ranks)
    stop = np.power(gamma, np.maximum(ranked.count - 1, 0))
    total = rank_sum(np.where(ranked.isrel, value * stop, 0.0))
    R = ranked.R.astype(np.float64)
    if ranked.cutoff is not None:
        return ratio(total, np.minimum(R, ranked.cutoff))
    gamma_sum = R if gamma == 1.0 else (1.0 - np.power(gamma, R)) / (1.0 - gamma)
    return ratio(total, gamma_sum)


@register(
    "NCUgu",
    "NCUgu = sum_rel U(r) g(r) / sum of the topic's relevant gains, U = P or BR "
    "(NTCIREVAL's NCUgu,P and NCUgu,BR up to 2019)",
    graded=True,
    cutoff="none",
    params=(Param("utility", "P", "str", "P: count(r)/r; BR: blended ratio", UTILITIES[:2]), BETA),
)
def ncu_graded_uniform(ranked, utility: str = "P", beta: float = 1.0) -> np.ndarray:
    """The stop at a relevant document is proportional to its gain (NTCIREVAL's default
    stop values are the gain values)."""
    value = ranked.count / ranked.ranks if utility == "P" else blended_ratio(ranked, beta)
    total = rank_sum(np.where(ranked.isrel, value * ranked.gain, 0.0))
    return ratio(total, ranked.judgments.ideal_total[ranked.topic])
