"""statP@k: precision at k estimated from sampled judgments (Horvitz-Thompson)."""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import rank_sum, ratio, register
from irgauge.measures.sampled import (
    UNBIASED,
    VAR,
    estimator_or_variance,
    relevant_weight,
    variance_term,
)


@register(
    "statP",
    "statP@k = (1/k) sum_{r<=k} x(r)/pi(r) over the judged relevant documents (Aslam, "
    "Pavlu and Yilmaz 2006); var=true: (1/k^2) sum_{r<=k} x(r)(1 - pi(r))/pi(r)^2",
    params=(VAR,),
    estimator=estimator_or_variance(
        f"precision at the cutoff, Horvitz-Thompson: {UNBIASED}",
        "statP's variance, Horvitz-Thompson for documents sampled independently",
    ),
)
def stat_precision(ranked, var: bool = False) -> np.ndarray:
    denominator = ranked.cutoff if ranked.cutoff is not None else ranked.lengths
    if var:
        return ratio(rank_sum(variance_term(ranked)), np.square(denominator, dtype=np.float64))
    return ratio(rank_sum(relevant_weight(ranked)), denominator)
