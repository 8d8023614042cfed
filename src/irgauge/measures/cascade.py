"""Cascade measures: a user scans down the list and stops at rank r with probability s(r).

Stopping probability (``stop`` parameter):
- ``ntcir`` (NTCIREVAL): s(r) = g(r) / (g_max + 1), g_max = the highest gain of the gain
  table, so that even a top-level document leaves some chance to go on;
- ``exp`` (Chapelle et al.; gdeval, ir_measures): s(r) = (2^g(r) - 1) / 2^max_grade
  (at most 1), meant for gain = level.

With dsat(r) = prod_{i<=r} (1 - s(i)) (dsat(0) = 1), the probability of reaching rank r and
stopping there is dsat(r-1) s(r), and each measure weights it by a utility at r:
- ERR  = sum_r dsat(r-1) s(r) / r                                  (Chapelle et al. 2009)
- EBR  = sum_r dsat(r-1) s(r) BR(r), BR the blended ratio          (Sakai 2018)
- iRBU = sum_r dsat(r-1) s(r) u^r, u the RBU patience (0.99)       (Sakai 2020)
The normalised forms nERR, nEBR, niRBU divide by the same sum over the ideal list up to
min(k, R) (BR = 1 there), as NTCIREVAL's nERR@l, nEBR@l, niRBU@l.
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import GAIN_MAX, Param, rank_sum, ratio, register
from irgauge.measures.blended import BETA, blended_ratio

STOPS = ("ntcir", "exp")
STOP = Param(
    "stop",
    "ntcir",
    "str",
    "stopping probability: ntcir = g/(max gain+1) "
    "(NTCIREVAL); exp = (2^g-1)/2^max_grade (gdeval, ir_measures)",
    STOPS,
)
MAX_GRADE = Param(
    "max_grade", 4.0, "float", "max_grade of the exp form (gdeval's 4)", low=0.0, high=GAIN_MAX
)
PATIENCE = Param(
    "u",
    0.99,
    "float",
    "RBU patience: utility u^r of stopping at rank r",
    low=0.0,
    low_open=True,
    high=1.0,
)
CASCADE_PARAMS = (STOP, MAX_GRADE)


def stop_probability(gains: np.ndarray, max_gain: float, stop: str, max_grade: float) -> np.ndarray:
    if stop == "exp":  # a gain above max_grade would give s > 1: it stops surely
        # gains past max_grade + 1 give s >= 1 anyway; clipping keeps 2^g finite
        capped = np.minimum(gains, max_grade + 1.0)
        return np.minimum((np.power(2.0, capped) - 1.0) / np.power(2.0, max_grade), 1.0)
    return gains / (max_gain + 1.0)


def _reach_and_stop(s: np.ndarray) -> np.ndarray:
    """dsat(r-1) * s(r): the probability of stopping exactly at rank r."""
    survive = np.cumprod(1.0 - s, axis=1)
    before = np.hstack([np.ones((s.shape[0], 1)), survive[:, :-1]])
    return before * s


def _stops(ranked, stop: str, max_grade: float) -> np.ndarray:
    def compute(lists):
        s = stop_probability(lists.gain, lists.judgments.max_gain, stop, max_grade)
        return _reach_and_stop(s)

    return ranked.memo(f"cascade:{stop}:{max_grade!r}", compute)


def _ideal(ranked, utility: str, stop: str, max_grade: float, u: float) -> np.ndarray:
    """The measure on the ideal list, at depth min(k, R) (the whole ideal list without k)."""
    judgments = ranked.judgments

    def cumulative():
        gains = judgments.ideal_gain
        ranks = np.arange(1, gains.shape[1] + 1, dtype=np.float64)
        weight = _reach_and_stop(stop_probability(gains, judgments.max_gain, stop, max_grade))
        if utility == "rr":
            weight = weight / ranks
        elif utility == "rbu":
            weight = weight * np.power(u, ranks)
        return np.cumsum(weight, axis=1)  # utility "br": BR = 1 on the ideal list up to R

    table = judgments.memo(("cascade_ideal", utility, stop, max_grade, u), cumulative)
    depth = table.shape[1] if ranked.cutoff is None else min(ranked.cutoff, table.shape[1])
    return table[ranked.topic, depth - 1]


@register(
    "ERR",
    "ERR = sum_r dsat(r-1) s(r) / r, s(r) = g(r)/(max gain+1) (NTCIREVAL) or "
    "(2^g-1)/2^max_grade (gdeval)",
    params=CASCADE_PARAMS,
    graded=True,
)
def err(ranked, stop: str = "ntcir", max_grade: float = 4.0) -> np.ndarray:
    return rank_sum(_stops(ranked, stop, max_grade) / ranked.ranks)


@register("nERR", "nERR@k = ERR@k / ERR@k of the ideal list", params=CASCADE_PARAMS, graded=True)
def normalised_err(ranked, stop: str = "ntcir", max_grade: float = 4.0) -> np.ndarray:
    return ratio(err(ranked, stop, max_grade), _ideal(ranked, "rr", stop, max_grade, 0.0))


@register(
    "EBR",
    "EBR = sum_r dsat(r-1) s(r) BR(r) (expected blended ratio)",
    params=CASCADE_PARAMS + (BETA,),
    graded=True,
)
def ebr(ranked, stop: str = "ntcir", max_grade: float = 4.0, beta: float = 1.0) -> np.ndarray:
    return rank_sum(_stops(ranked, stop, max_grade) * blended_ratio(ranked, beta))


@register(
    "nEBR",
    "nEBR@k = EBR@k / EBR@k of the ideal list (where BR = 1)",
    params=CASCADE_PARAMS + (BETA,),
    graded=True,
)
def normalised_ebr(
    ranked, stop: str = "ntcir", max_grade: float = 4.0, beta: float = 1.0
) -> np.ndarray:
    return ratio(ebr(ranked, stop, max_grade, beta), _ideal(ranked, "br", stop, max_grade, 0.0))


@register(
    "iRBU",
    "iRBU = sum_r dsat(r-1) s(r) u^r (intentwise rank-biased utility)",
    params=CASCADE_PARAMS + (PATIENCE,),
    graded=True,
)
def irbu(ranked, stop: str = "ntcir", max_grade: float = 4.0, u: float = 0.99) -> np.ndarray:
    return rank_sum(_stops(ranked, stop, max_grade) * np.power(u, ranked.ranks))


@register(
    "niRBU",
    "niRBU@k = iRBU@k / iRBU@k of the ideal list",
    params=CASCADE_PARAMS + (PATIENCE,),
    graded=True,
)
def normalised_irbu(
    ranked, stop: str = "ntcir", max_grade: float = 4.0, u: float = 0.99
) -> np.ndarray:
    return ratio(irbu(ranked, stop, max_grade, u), _ideal(ranked, "rbu", stop, max_grade, u))
