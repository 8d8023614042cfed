"""Reciprocal rank and its graded forms for finding one relevant document."""
from __future__ import annotations

import numpy as np

from irgauge.errors import MeasureError
from irgauge.measures.base import Param, register, ratio


@register("RR", "RR = 1/r1, r1 = rank of the first relevant document")
def reciprocal_rank(ranked) -> np.ndarray:
    return ratio(1.0, ranked.first_rel_rank)


PEN_PARAM = Param("pen", None, "levels", "penalty per relevance level 1:2:..., each > 1, "
                  "smallest for the highest level; default: 2 for the top level, +1 per level "
                  "below (S:A:B = 2:3:4)", low=1.0, low_open=True, high=1e6)


def penalties(ranked, pen) -> np.ndarray:
    """pen(level) indexed by level (index 0 unused)."""
    top = ranked.judgments.max_level
    if pen is None:
        return np.array([np.inf] + [2.0 + (top - level) for level in range(1, top + 1)])
    if len(pen) < top:
        raise MeasureError(f"pen gives {len(pen)} values but the qrels have levels up to {top}")
    return np.array([np.inf] + list(pen[:top]), dtype=np.float64)


@register("WRR", "WRR = 1/(r1 - 1/pen(L1)), L1 = level of the first relevant document",
          params=(PEN_PARAM,))
def weighted_rr(ranked, pen=None) -> np.ndarray:
    table = penalties(ranked, pen)
    r1 = ranked.first_rel_rank
    level = ranked.at_rank(ranked.grades, r1)
    found = r1 > 0
    # rows without a relevant document read any valid entry (qrels may have level 0 only)
    index = np.where(found, level, len(table) - 1)
    return np.where(found, ratio(1.0, r1 - 1.0 / table[index]), 0.0)


@register("NWRR", "NWRR = WRR * (1 - 1/pen(M)), M = highest level of the topic's relevant "
          "documents; at most 1", params=(PEN_PARAM,))
def normalised_wrr(ranked, pen=None) -> np.ndarray:
    table = penalties(ranked, pen)
    judgments = ranked.judgments
    present = judgments.level_counts > 0
    present[:, : judgments.rel_level] = False
    top_level = present.shape[1] - 1 - np.argmax(present[:, ::-1], axis=1)  # 0 when none
    # topics without relevant documents score 0 anyway; clip so that qrels whose only
    # level is 0 (a one-entry table) still index it
    top_level = np.clip(top_level, 1, len(table) - 1)
    return weighted_rr(ranked, pen) * (1.0 - 1.0 / table[top_level[ranked.topic]])
