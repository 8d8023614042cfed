"""Linear set utility (trec_eval utility): u = a*rel_ret + b*nonrel_ret + c*rel_missed
+ d*nonrel_missed, nonrel_missed = num_docs - retrieved - rel_missed."""

from __future__ import annotations

from typing import Any, Dict, Optional

import numpy as np

from irgauge.measures.base import DOUBLE_MAX, Param, register

# any finite worth; bounded so that the sums over a collection stay finite
WORTH_LIMIT = 1e12
MAX_DOCS = 10**15
LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
FORMS = ("sum", "trec_eval")


def _worth(name: str, default: float, doc: str) -> Param:
    # trec_eval reads the coefficients with atof: its form takes every double
    return Param(name, default, "float", doc, low=-DOUBLE_MAX, high=DOUBLE_MAX, c_double=True)


def _check(values: Dict[str, Any]) -> Optional[str]:
    """Outside trec_eval's form, finite worths within 1e12 in size and a collection of 0
    to MAX_DOCS documents: the sum is then exact to the double's precision."""
    if values["form"] == "trec_eval":
        return None
    for name in "abcd":
        if not -WORTH_LIMIT <= values[name] <= WORTH_LIMIT:
            return (
                f"parameter {name} must lie in [-1e+12, 1e+12] unless form=trec_eval; "
                f"got {values[name]!r}"
            )
    if not 0 <= values["num_docs"] <= MAX_DOCS:
        return (
            f"parameter num_docs must lie in [0, {MAX_DOCS}] unless form=trec_eval; "
            f"got {values['num_docs']}"
        )
    return None


@register(
    "Utility",
    "u = a*rel_ret + b*(ret - rel_ret) + c*(R - rel_ret) + d*(num_docs + rel_ret - ret - R)",
    cutoff="none",
    params=(
        _worth("a", 1.0, "worth of a relevant retrieved document, within 1e12 in size"),
        _worth("b", -1.0, "worth of a nonrelevant retrieved document, within 1e12 in size"),
        _worth("c", 0.0, "worth of a relevant document not retrieved, within 1e12 in size"),
        _worth("d", 0.0, "worth of a nonrelevant document not retrieved, within 1e12 in size"),
        Param(
            "num_docs",
            0,
            "int",
            f"documents in the collection (trec_eval -N), needed when d != 0: 0 to {MAX_DOCS}",
            low=LONG_MIN,
            high=LONG_MAX,
        ),
        Param(
            "form",
            "sum",
            "str",
            "sum: the utility as defined; trec_eval: as trec_eval's C computes it, with "
            "any double worth (inf and nan included) and any 64-bit num_docs, the count "
            "num_docs + rel_ret - ret - R taken in 64-bit integers, which wrap",
            FORMS,
        ),
    ),
    check=_check,
)
@np.errstate(over="ignore", invalid="ignore")  # trec_eval's form: infinite worths
def utility(
    ranked,
    a: float = 1.0,
    b: float = -1.0,
    c: float = 0.0,
    d: float = 0.0,
    num_docs: int = 0,
    form: str = "sum",
) -> np.ndarray:
    rel_ret, ret, R = ranked.set_rel_ret, ranked.lengths.astype(np.float64), ranked.R
    if form == "trec_eval":
        # m_utility.c: the counts are C longs, each difference converted to a double
        counts = [np.asarray(x).astype(np.int64) for x in (rel_ret, ret, R)]
        rel_ret, ret, R = counts
        nonrel_missed = np.int64(num_docs) + rel_ret - ret - R  # wraps as the C does
        return (
            a * rel_ret.astype(np.float64)
            + b * (ret - rel_ret).astype(np.float64)
            + c * (R - rel_ret).astype(np.float64)
            + d * nonrel_missed.astype(np.float64)
        )
    return (
        a * rel_ret + b * (ret - rel_ret) + c * (R - rel_ret) + d * (num_docs + rel_ret - ret - R)
    )
