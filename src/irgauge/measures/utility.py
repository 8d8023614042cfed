"""Linear set utility (trec_eval utility): u = a*rel_ret + b*nonrel_ret + c*rel_missed
+ d*nonrel_missed, nonrel_missed = num_docs - retrieved - rel_missed."""

from __future__ import annotations

from typing import Any, Dict

import numpy as np

from irgauge.measures.base import Param, register

# any finite worth; bounded so that the sums over a collection stay finite
WORTH: Dict[str, Any] = {"low": -1e12, "high": 1e12}
MAX_DOCS = 10**15


@register(
    "Utility",
    "u = a*rel_ret + b*(ret - rel_ret) + c*(R - rel_ret) + d*(num_docs + rel_ret - ret - R)",
    cutoff="none",
    params=(
        Param("a", 1.0, "float", "worth of a relevant retrieved document", **WORTH),
        Param("b", -1.0, "float", "worth of a nonrelevant retrieved document", **WORTH),
        Param("c", 0.0, "float", "worth of a relevant document not retrieved", **WORTH),
        Param("d", 0.0, "float", "worth of a nonrelevant document not retrieved", **WORTH),
        Param(
            "num_docs",
            0,
            "int",
            "documents in the collection (trec_eval -N), needed when d != 0",
            low=0,
            high=MAX_DOCS,
        ),
    ),
)
def utility(
    ranked, a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0, num_docs: int = 0
) -> np.ndarray:
    rel_ret, ret, R = ranked.n_rel_ret, ranked.lengths.astype(np.float64), ranked.R
    return (
        a * rel_ret + b * (ret - rel_ret) + c * (R - rel_ret) + d * (num_docs + rel_ret - ret - R)
    )
