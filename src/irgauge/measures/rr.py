"""Reciprocal rank and its graded forms for finding one relevant document."""

from __future__ import annotations

import numpy as np

from irgauge.errors import MeasureError
from irgauge.measures.base import Param, register, ratio
from irgauge.io.words import counted


@register("RR", "RR = 1/r1, r1 = rank of the first relevant document")
def reciprocal_rank(ranked) -> np.ndarray:
    return ratio(1.0, ranked.first_rel_rank)


PEN_PARAM = Param(
    "pen",
    None,
    "levels",
    "penalty per relevance level 1:2:..., each > 1, "
    "smallest for the highest level; default: 2 for the top level, +1 per level "
    "below (S:A:B = 2:3:4)",
    low=1.0,
    low_open=True,
    high=1e6,
)


def penalty_of(ranked, pen, levels: np.ndarray) -> np.ndarray:
    """pen(level) of each level >= 1: the listed penalty, else 2 + (highest level - level)."""
    top = ranked.judgments.max_level
    levels = np.asarray(levels)
    if pen is None:
        return 2.0 + (top - levels)
    if len(pen) < top:
        raise MeasureError(
            f"pen gives {counted(len(pen), 'value')} but the qrels have levels up to {top}"
        )
    table = np.array([np.inf] + list(pen[:top]), dtype=np.float64)
    return table[np.clip(levels, 0, top)]


@register(
    "WRR",
    "WRR = 1/(r1 - 1/pen(L1)), L1 = level of the first relevant document",
    params=(PEN_PARAM,),
)
def weighted_rr(ranked, pen=None) -> np.ndarray:
    r1 = ranked.first_rel_rank
    found = r1 > 0
    # rows without a relevant document read a valid level (qrels may have level 0 only)
    level = np.where(found, ranked.at_rank(ranked.grades, r1), max(ranked.judgments.max_level, 1))
    return np.where(found, ratio(1.0, r1 - 1.0 / penalty_of(ranked, pen, level)), 0.0)


@register(
    "NWRR",
    "NWRR = WRR * (1 - 1/pen(M)), M = highest level of the topic's relevant documents; at most 1",
    params=(PEN_PARAM,),
)
def normalised_wrr(ranked, pen=None) -> np.ndarray:
    # topics without relevant documents (top level 0) score 0 anyway; any level >= 1 will do
    top_level = np.maximum(ranked.judgments.topic_max_grade, 1)[ranked.topic]
    return weighted_rr(ranked, pen) * (1.0 - 1.0 / penalty_of(ranked, pen, top_level))
