"""Interpolated precision at recall levels (trec_eval's iprec_at_recall and 11pt_avg).

Interpolated precision at rank i: IP(i) = max_{j >= i} count(j)/j. At recall level x the
cut is c = the number of relevant documents x*R stands for; the value is IP at the rank
of the c-th relevant document (c <= 0: the highest precision anywhere), and 0 when fewer
than c relevant documents were retrieved. Levels are trec_eval's: any finite x (above
1, c can exceed R and the value is 0; below 0, c <= 0). c is kept as a double: past a
64-bit integer it is still past every ranking (trec_eval's C converts it to a long, which
is undefined there: the drop-in refuses such levels for its qrels).
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import DOUBLE_MAX, Param, register

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
# any finite level or multiple of R (its product with R may overflow to an infinity,
# which is past every ranking, or before it, as the product is)
MAX_LEVEL = DOUBLE_MAX


@np.errstate(over="ignore")
def relevant_cut(R: np.ndarray, recall: float, rounding: str) -> np.ndarray:
    """c = round(x*R) (lround: halves away from zero), or trunc(x*R + 0.9) before v10. For
    x < 0 floor(x*R + 0.5) can be lround's c + 1, but every c <= 0 gives the same value.
    A double (a whole number): x*R past a 64-bit integer keeps its order with the counts."""
    scaled = recall * R.astype(np.float64)
    return np.floor(scaled + (0.5 if rounding == "round" else 0.9))


def interpolated_precision(ranked) -> np.ndarray:
    """IP(i) for every rank. Ranks past the list end only lower precision (count stays,
    the rank grows), so they never raise the maximum and need no masking."""

    def compute(lists):
        walked = walk_count(lists)
        # trec_eval's walk stops where its count reaches 0: no precision is taken before
        precision = np.where(walked > 0, walked, 0) / lists.ranks
        return np.maximum.accumulate(precision[:, ::-1], axis=1)[:, ::-1]

    # a suffix maximum is not a prefix of the parent's: the family takes no cutoff,
    # so the memo is only ever filled on whole lists
    return ranked.memo("iprec", compute)


def walk_count(ranked) -> np.ndarray:
    """The count of relevant documents trec_eval's walks read at each rank (m_iprec_at_recall.c,
    m_11pt_avg.c, m_Rprec_mult.c): they start from num_rel_ret, the judged relevant
    retrieved, at the ranking's end and count down at each relevant document. That is
    count(r), but under a threshold below 0, where documents not judged count in the
    ranking and not in num_rel_ret: count(r) less those retrieved."""
    return ranked.count - ranked.unjudged_rel_ret.astype(np.int64)[:, None]


def iprec_at(ranked, recall: float, rounding: str) -> np.ndarray:
    cut = relevant_cut(ranked.R, recall, rounding)
    reached = cut <= ranked.judged_rel_ret
    rank = np.argmax(walk_count(ranked) >= np.maximum(cut, 1)[:, None], axis=1)  # 0-based
    values = np.take_along_axis(interpolated_precision(ranked), rank[:, None], axis=1)[:, 0]
    return np.where(reached & (ranked.lengths > 0), values, 0.0)


@register(
    "IPrec",
    "IPrec(recall=x) = max_{j >= r_c} count(j)/j, r_c = rank of the c-th "
    "relevant document, c = round(x*R) (trec_eval iprec_at_recall_x)",
    cutoff="none",
    params=(
        Param(
            "recall",
            0.0,
            "float",
            "recall level x, usually in [0, 1] (above 1 the value is 0 where round(x*R) > R)",
            low=-MAX_LEVEL,
            high=MAX_LEVEL,
        ),
        ROUNDING,
    ),
)
def iprec(ranked, recall: float = 0.0, rounding: str = "round") -> np.ndarray:
    return iprec_at(ranked, recall, rounding)


WALKS = ("mean", "given")
WALK = Param(
    "walk",
    "mean",
    "str",
    "mean: the mean of IPrec at the levels, in any order; given: trec_eval 10's 11pt_avg "
    "walk over the levels in the order given (the same for ascending levels; a level "
    "before a lower one takes, with every level before it, the highest precision)",
    WALKS,
)


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
            low=-MAX_LEVEL,
            high=MAX_LEVEL,
        ),
        ROUNDING,
        WALK,
    ),
)
def iprec_avg(ranked, recalls=None, rounding: str = "round", walk: str = "mean") -> np.ndarray:
    levels = list(ELEVEN_POINTS if recalls is None else recalls)
    # the mean is the walk over ascending levels, whose sum trec_eval adds in that order
    return levels_walk(ranked, sorted(levels) if walk == "mean" else levels, rounding)


def levels_walk(ranked, levels, rounding: str) -> np.ndarray:
    """trec_eval 10's 11pt_avg (m_11pt_avg.c), which expects ascending levels: a pointer
    starts at the last level and moves to the first while the ranking is read from its
    end. Levels whose cut c exceeds the relevant retrieved are passed over first (value
    0); then a level is met at its c-th relevant document (IPrec at that level) if
    1 <= c <= the cut met last; else the pointer stops there, and that level and every
    one before it take the highest precision anywhere (IPrec at c = 0). Values are added
    in the pointer's order; their sum is divided by the number of levels."""
    highest = iprec_at(ranked, 0.0, rounding)
    ceiling = ranked.judged_rel_ret
    started = np.zeros(len(ceiling), dtype=bool)
    stopped = np.zeros(len(ceiling), dtype=bool)
    total = np.zeros(len(ceiling))
    for level in reversed(levels):
        cut = relevant_cut(ranked.R, level, rounding)
        passed_over = ~started & (cut > ranked.judged_rel_ret)
        met = ~stopped & ~passed_over & (cut >= 1) & (cut <= ceiling)
        stopped |= ~passed_over & ~met
        started |= ~passed_over
        ceiling = np.where(met, cut, ceiling)
        total = total + np.where(stopped, highest, iprec_at(ranked, level, rounding))
    return total / len(levels)
