"""(Normalised) discounted cumulative gain in its three common forms: nDCG, DCG, IDCG.

- ``dcg=log2`` (trec_eval's ndcg, ir_measures' nDCG): g(r)/log2(r+1).
- ``dcg=exp-log2`` (Burges et al., gdeval): (2^g(r) - 1)/log2(r+1).
- ``dcg=jk`` (Järvelin–Kekäläinen, the papers' and NTCIREVAL's nDCG): g(r) for r <= b,
  g(r)/log_b(r) beyond.

nDCG@k = DCG@k / IDCG@k; the ideal list holds all relevant documents, so
it does not depend on how many documents the run returned. ``DCG`` and ``IDCG`` are the
numerator and the denominator as measures of their own, computed by the same functions
(``run_dcg``, ``row_ideal_dcg``) under the same parameters.

nDCG is graded: by default (``levels=all``) every level >= 1 earns its gain whatever the
binary threshold (-l) says, as trec_eval's ndcg does; ``levels=relevant`` zeroes the
gains of levels below the threshold.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from irgauge._checks import GAIN_MAX
from irgauge.collection.trec_gains import parse_pairs
from irgauge.errors import MeasureError
from irgauge.measures.base import Param, rank_sum, ratio, register

DCG_FORMS = ("log2", "exp-log2", "jk")
LEVELS = ("all", "relevant")


def levels_read(values) -> str:
    """What the family reads (base.LEVELS): every level with its gain, or the threshold's."""
    return "all" if values["levels"] == "all" else "threshold"


TREC_GAINS = Param(
    "trec_gains",
    None,
    "pairs",
    "trec_eval's level=gain pairs as given, ';'-separated (1=3;1=2;-1=0.5): its gain "
    "table, any level and any gain (-1: documents outside the qrels, -2: judged with "
    "a negative level), every level keeping its gain whatever -l says",
)


def graded_lists(ranked, levels: str = "all", trec_gains: Optional[str] = None):
    """The lists whose gains a graded measure reads: with ``levels="all"`` every level
    >= 1 keeps its gain whatever the relevance threshold is; ``trec_gains``, under
    trec_eval's gain table (collection/trec_gains.py)."""
    if trec_gains is not None:
        return ranked.with_trec_gains(parse_pairs(trec_gains))
    return ranked.at_rel_level(1) if levels == "all" else ranked


def discount(ranks: np.ndarray, dcg: str, b: float) -> np.ndarray:
    """Weight of rank r (1-based)."""
    if dcg == "jk":
        return np.where(ranks <= b, 1.0, np.log(b) / np.log(np.maximum(ranks, 2.0)))
    return 1.0 / np.log2(ranks + 1.0)


def discounted(gains: np.ndarray, ranks: np.ndarray, dcg: str = "log2", b: float = 2.0):
    """Each rank's term: the (transformed) gain times its rank's weight; for the log2
    forms, divided by log2(r + 1) as trec_eval divides, so that sums of huge gains (its
    ``level=gain`` pairs take any double) round as its own do."""
    if dcg == "jk":
        return gains * discount(ranks, dcg, b)
    return transform(gains, dcg) / np.log2(ranks + 1.0)


def transform(gains: np.ndarray, dcg: str) -> np.ndarray:
    """2^g - 1 for ``exp-log2`` (finite for g <= GAIN_MAX), else g."""
    if dcg != "exp-log2":
        return gains
    if gains.size and gains.max() > GAIN_MAX:  # levels used as gains (a QA level L40000)
        raise MeasureError(
            f"dcg=exp-log2 computes 2^gain, which overflows above gain "
            f"{GAIN_MAX:g}; the highest gain here is {gains.max():g}: give "
            "gains= (or --gains) to map the levels"
        )
    return np.power(2.0, gains) - 1.0


def ideal_dcg(ranked, dcg: str, b: float) -> np.ndarray:
    """Ideal DCG at the cutoff (or over all relevant documents) for each row."""
    judgments = ranked.judgments

    def cumulative():
        ranks = np.arange(1, judgments.ideal_gain.shape[1] + 1, dtype=np.float64)
        return np.cumsum(discounted(judgments.ideal_gain, ranks, dcg, b), axis=1)

    table = judgments.memo(("ideal_dcg", dcg, b), cumulative)
    depth = table.shape[1] if ranked.cutoff is None else min(ranked.cutoff, table.shape[1])
    return table[ranked.topic, depth - 1]


DCG_PARAMS = (
    Param(
        "dcg",
        "log2",
        "str",
        "log2: g/log2(r+1) (trec_eval); exp-log2: "
        "(2^g-1)/log2(r+1); jk: Järvelin–Kekäläinen g/log_b(r) for r > b",
        DCG_FORMS,
    ),
    Param(
        "b",
        2.0,
        "float",
        "log base of the jk form (ranks <= b undiscounted)",
        low=1.0,
        low_open=True,
        high=1e9,
    ),
    Param(
        "levels",
        "all",
        "str",
        "all: every level >= 1 keeps its gain whatever "
        "-l says (trec_eval); relevant: only levels >= the threshold",
        LEVELS,
    ),
    TREC_GAINS,
)


def run_dcg(
    ranked, dcg: str = "log2", b: float = 2.0, levels: str = "all", trec_gains=None
) -> np.ndarray:
    """DCG of each row at its cutoff: sum_{r<=k} transform(g(r)) disc(r), the per-rank
    terms computed once per batch and form (cutoff views slice them)."""
    ranked = graded_lists(ranked, levels, trec_gains)

    def weighted(lists):
        return discounted(lists.gain, lists.ranks, dcg, b)

    return rank_sum(ranked.memo(f"dcg:{dcg}:{b!r}", weighted))


def row_ideal_dcg(
    ranked, dcg: str = "log2", b: float = 2.0, levels: str = "all", trec_gains=None
) -> np.ndarray:
    """Ideal DCG of each row's topic at the row's cutoff (the denominator of nDCG)."""
    return ideal_dcg(graded_lists(ranked, levels, trec_gains), dcg, b)


@register(
    "nDCG",
    "nDCG@k = DCG@k / IDCG@k, DCG@k = sum_{r<=k} g(r) disc(r); disc per dcg form (see params)",
    graded=True,
    params=DCG_PARAMS,
    levels=levels_read,
)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # trec_gains: any double
def ndcg(
    ranked, dcg: str = "log2", b: float = 2.0, levels: str = "all", trec_gains=None
) -> np.ndarray:
    return ratio(
        run_dcg(ranked, dcg, b, levels, trec_gains),
        row_ideal_dcg(ranked, dcg, b, levels, trec_gains),
    )


@register(
    "DCG",
    "DCG@k = sum_{r<=k} g(r) disc(r), unnormalised (nDCG's numerator; same dcg forms)",
    graded=True,
    params=DCG_PARAMS,
    levels=levels_read,
)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # trec_gains: any double
def dcg_measure(
    ranked, dcg: str = "log2", b: float = 2.0, levels: str = "all", trec_gains=None
) -> np.ndarray:
    return run_dcg(ranked, dcg, b, levels, trec_gains)


@register(
    "IDCG",
    "IDCG@k = DCG@k of the ideal list (every relevant document, highest gain first): "
    "nDCG's denominator; depends on the topic only",
    graded=True,
    params=DCG_PARAMS,
    levels=levels_read,
)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # trec_gains: any double
def idcg_measure(
    ranked, dcg: str = "log2", b: float = 2.0, levels: str = "all", trec_gains=None
) -> np.ndarray:
    return row_ideal_dcg(ranked, dcg, b, levels, trec_gains)
