"""Rank-biased precision (Moffat and Zobel) and its residual."""

from __future__ import annotations

from typing import Any, Callable, Dict, Optional

import numpy as np

from irgauge.collection.trec_gains import parse_pairs
from irgauge.measures.base import DOUBLE_MAX, Param, rank_sum, register
from irgauge.measures.ndcg import TREC_GAINS

P_PARAM = Param(
    "p",
    0.95,
    "float",
    "persistence: probability of looking at the next rank",
    low=0.0,
    high=1.0,
    high_open=True,
)
# trec_eval's rbp and rbp_resid take any p (a double, read with atof); their forms here
# (norm=trec_eval, form=trec_eval) take it too, infinities and NaNs included
ANY_P = Param(
    "p",
    0.95,
    "float",
    "persistence: probability of looking at the next rank, in [0, 1) (trec_eval's "
    "forms take any p, inf and nan included)",
    low=-DOUBLE_MAX,
    high=DOUBLE_MAX,
    c_double=True,
)


def _persistence(trec_eval_form: Callable[[Dict[str, Any]], bool]):
    """A check that p lies in [0, 1) unless the measure takes trec_eval's form."""

    def check(values: Dict[str, Any]) -> Optional[str]:
        p = values["p"]
        if 0.0 <= p < 1.0 or trec_eval_form(values):
            return None
        return f"parameter p must lie in [0, 1); got {p!r} (trec_eval's form takes any p)"

    return check


def _trec_eval_form(values: Dict[str, Any]) -> bool:
    return bool(values["graded"]) and values["norm"] == "trec_eval"


def _gains_form(values: Dict[str, Any]) -> Optional[str]:
    if values.get("trec_gains") is not None and not _trec_eval_form(values):
        return "parameter trec_gains takes trec_eval's form only (graded=true,norm=trec_eval)"
    return None


GRADED = Param(
    "graded",
    False,
    "bool",
    "weight each rank by gain/max gain instead of isrel (NTCIREVAL's graded RBP)",
)
NORMS = ("collection", "trec_eval")
NORM = Param(
    "norm",
    "collection",
    "str",
    "graded weights: gain / the collection's max gain (NTCIREVAL), or trec_eval's "
    "rbp: every level keeps its gain whatever -l says, divided by the topic's "
    "highest gain when that exceeds 1",
    NORMS,
)
RESIDUAL_FORMS = ("tail", "unjudged", "trec_eval")


def _trec_eval_weights(ranked, trec_gains: Optional[str] = None) -> np.ndarray:
    if trec_gains is not None:  # trec_eval's gain table, brought into [0, 1] by m_rbp.c
        return ranked.with_trec_gains(parse_pairs(trec_gains), rbp=True).gain
    ranked = ranked.at_rel_level(1)
    top = ranked.judgments.topic_max_gain()[ranked.topic]
    return ranked.gain / np.where(top > 1.0, top, 1.0)[:, None]


@register(
    "RBP",
    "RBP = (1-p) sum_r isrel(r) p^(r-1) (graded: gain/max gain in place of isrel)",
    params=(ANY_P, GRADED, NORM, TREC_GAINS),
    graded=lambda v: bool(v["graded"]),  # isrel alone unless graded=true
    check=lambda v: _gains_form(v) or _persistence(_trec_eval_form)(v),
    levels=lambda v: "all" if v["graded"] and v["norm"] == "trec_eval" else "threshold",
)
@np.errstate(over="ignore", invalid="ignore")  # |p| > 1: powers overflow, as in trec_eval
def rank_biased_precision(
    ranked,
    p: float = 0.95,
    graded: bool = False,
    norm: str = "collection",
    trec_gains: Optional[str] = None,
) -> np.ndarray:
    if graded and norm == "trec_eval":
        weight = _trec_eval_weights(ranked, trec_gains)
        return (1.0 - p) * rank_sum(_terms(weight, _sequential_powers(p, ranked.width)))
    if graded:
        weight = (
            ranked.gain / ranked.judgments.max_gain
            if ranked.judgments.max_gain
            else np.zeros_like(ranked.gain)
        )
    else:
        weight = ranked.isrel
    return (1.0 - p) * rank_sum(_terms(weight, np.power(p, ranked.ranks - 1.0)))


@register(
    "RBP_resid",
    "residual of RBP: form=tail: p^L, the weight past the list's end "
    "(L = list length within the cutoff); unjudged: p^L + (1-p) sum_{unjudged r} "
    "p^(r-1) (Moffat-Zobel); trec_eval: the unjudged form, 0 when no unjudged "
    "document was retrieved (trec_eval rbp_resid)",
    params=(ANY_P, Param("form", "tail", "str", "tail, unjudged or trec_eval", RESIDUAL_FORMS)),
    check=_persistence(lambda v: v["form"] == "trec_eval"),
)
@np.errstate(over="ignore", invalid="ignore")
def rbp_residual(ranked, p: float = 0.95, form: str = "tail") -> np.ndarray:
    if form == "tail":
        return np.power(p, ranked.lengths.astype(np.float64))
    within = ranked.ranks[None, :] <= ranked.lengths[:, None]
    unjudged = within & ~ranked.judged
    if form == "trec_eval":
        powers = _sequential_powers(p, ranked.width + 1)  # p^0 .. p^width
        residual = powers[ranked.lengths] + (1.0 - p) * rank_sum(_terms(unjudged, powers[:-1]))
        return np.where(unjudged.any(axis=1), residual, 0.0)
    tail = np.power(p, ranked.lengths.astype(np.float64))
    return tail + (1.0 - p) * rank_sum(_terms(unjudged, np.power(p, ranked.ranks - 1.0)))


def _terms(weight: np.ndarray, powers: np.ndarray) -> np.ndarray:
    """weight * p^(r-1), 0 where the weight is 0: trec_eval adds no term there, so a p
    outside [0, 1), whose powers can overflow to an infinity, gives no 0 * inf = NaN."""
    return np.where(weight != 0, weight * powers, 0.0)


def _sequential_powers(p: float, n: int) -> np.ndarray:
    """p^0, p^1, ..., p^(n-1) as trec_eval computes them, one multiplication per rank:
    np.power can differ from that product in the last bit, which flips a printed digit
    at a tie."""
    return np.multiply.accumulate(np.concatenate(([1.0], np.full(max(n - 1, 0), p))))
