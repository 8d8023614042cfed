"""Set-based measures on the top of the list: P@k, R@k, Rprec, Hit@k."""
from __future__ import annotations

import numpy as np

from irgauge.measures.base import register, ratio


@register("P", "P@k = count(k)/k; without a cutoff, relevant retrieved / retrieved")
def precision(ranked) -> np.ndarray:
    denominator = ranked.cutoff if ranked.cutoff is not None else ranked.lengths
    return ratio(ranked.n_rel_ret, denominator)


@register("R", "Recall@k = count(k)/R")
def recall(ranked) -> np.ndarray:
    return ratio(ranked.n_rel_ret, ranked.R)


@register("Rprec", "R-precision = count(R)/R", cutoff="none")
def r_precision(ranked) -> np.ndarray:
    return ratio(ranked.at_rank(ranked.count, ranked.R), ranked.R)


@register("Hit", "Hit@k (NQcorrect@k, trec_eval success_k) = 1 if count(k) > 0")
def hit(ranked) -> np.ndarray:
    return (ranked.n_rel_ret > 0).astype(np.float64)
