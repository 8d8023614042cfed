"""Interpolated precision at recall levels (trec_eval's iprec_at_recall and 11pt_avg).

Interpolated precision at rank i: IP(i) = max_{j >= i} count(j)/j. At recall level x the
cut is c = the number of relevant documents x*R stands for; the value is IP at the rank
of the c-th relevant document (c = 0: the highest precision anywhere), and 0 when fewer
than c relevant documents were retrieved.
"""

from __future__ import annotations

import numpy as np

from irgauge.errors import MeasureError
from irgauge.measures.base import Param, register

ROUNDINGS = ("round", "v9")
ROUNDING = Param(
    "rounding",
    "round",
    "str",
    "how x*R becomes a number of relevant documents: round (trec_eval 10) or "
    "v9: trunc(x*R + 0.9) (trec_eval <= 9.0.8, pytrec_eval)",
    ROUNDINGS,
)
ELEVEN_POINTS = tuple(i / 10 for i in range(11))


def relevant_cut(R: np.ndarray, recall: float, rounding: str) -> np.ndarray:
    """c = round(x*R) (lround: halves away from zero), or trunc(x*R + 0.9) before v10."""
    if not 0.0 <= recall <= 1.0:
        raise MeasureError(f"recall level must lie in [0, 1], got {recall}")
    scaled = recall * R.astype(np.float64)
    return np.floor(scaled + (0.5 if rounding == "round" else 0.9)).astype(np.int64)


def interpolated_precision(ranked) -> np.ndarray:
    """IP(i) for every rank. Ranks past the list end only lower precision (count stays,
    the rank grows), so they never raise the maximum and need no masking."""

    def compute(lists):
        precision = lists.count / lists.ranks
        return np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]

    # a suffix maximum is not a prefix of the parent's: the family takes no cutoff,
    # so the memo is only ever filled on whole lists
    return ranked.memo("iprec", compute)


def iprec_at(ranked, recall: float, rounding: str) -> np.ndarray:
    cut = relevant_cut(ranked.R, recall, rounding)
    reached = cut <= ranked.n_rel_ret
    rank = np.argmax(ranked.count >= np.maximum(cut, 1)[:, None], axis=1)  # 0-based
    values = np.take_along_axis(interpolated_precision(ranked), rank[:, None], axis=1)[:, 0]
    return np.where(reached & (ranked.lengths > 0), values, 0.0)


@register(
    "IPrec",
    "IPrec(recall=x) = max_{j >= r_c} count(j)/j, r_c = rank of the c-th "
    "relevant document, c = round(x*R) (trec_eval iprec_at_recall_x)",
    cutoff="none",
    params=(Param("recall", 0.0, "float", "recall level x in [0, 1]", low=0.0, high=1.0), ROUNDING),
)
def iprec(ranked, recall: float = 0.0, rounding: str = "round") -> np.ndarray:
    return iprec_at(ranked, recall, rounding)


@register(
    "IPrec_avg",
    "mean of IPrec over recall levels, by default 0, 0.1, ..., 1 (trec_eval 11pt_avg)",
    cutoff="none",
    params=(
        Param(
            "recalls",
            None,
            "levels",
            "recall levels x1:x2:...; default the eleven points 0:0.1:...:1",
            low=0.0,
            high=1.0,
        ),
        ROUNDING,
    ),
)
def iprec_avg(ranked, recalls=None, rounding: str = "round") -> np.ndarray:
    levels = ELEVEN_POINTS if recalls is None else recalls
    # added level by level, as trec_eval does: np.mean(axis=0) of a single topic's column
    # is a pairwise sum, of several topics a sequential one
    total = np.zeros(len(ranked.R))
    for level in levels:
        total = total + iprec_at(ranked, level, rounding)
    return total / len(levels)
