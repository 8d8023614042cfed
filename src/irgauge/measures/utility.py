"""Linear set utility (trec_eval utility): u = a*rel_ret + b*nonrel_ret + c*rel_missed
+ d*nonrel_missed, nonrel_missed = num_docs - retrieved - rel_missed."""
from __future__ import annotations

import numpy as np

from irgauge.measures.base import Param, register


@register("Utility", "u = a*rel_ret + b*(ret - rel_ret) + c*(R - rel_ret) + "
          "d*(num_docs + rel_ret - ret - R)", cutoff="none",
          params=(Param("a", 1.0, "float", "worth of a relevant retrieved document"),
                  Param("b", -1.0, "float", "worth of a nonrelevant retrieved document"),
                  Param("c", 0.0, "float", "worth of a relevant document not retrieved"),
                  Param("d", 0.0, "float", "worth of a nonrelevant document not retrieved"),
                  Param("num_docs", 0, "int", "documents in the collection (trec_eval -N), "
                        "needed when d != 0")))
def utility(ranked, a: float = 1.0, b: float = -1.0, c: float = 0.0, d: float = 0.0,
            num_docs: int = 0) -> np.ndarray:
    rel_ret, ret, R = ranked.n_rel_ret, ranked.lengths.astype(np.float64), ranked.R
    return a * rel_ret + b * (ret - rel_ret) + c * (R - rel_ret) + d * (num_docs + rel_ret
                                                                        - ret - R)
