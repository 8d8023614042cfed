"""statR: the number of relevant documents estimated from sampled judgments."""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import register
from irgauge.measures.sampled import UNBIASED, VAR, estimator_or_variance


@register(
    "statR",
    "statR = R^ = sum x(d)/pi(d) over the topic's judged documents (Horvitz-Thompson; "
    "Aslam, Pavlu and Yilmaz 2006); var=true: sum x(d)(1 - pi(d))/pi(d)^2",
    params=(VAR,),
    cutoff="none",
    estimator=estimator_or_variance(
        f"R, Horvitz-Thompson: {UNBIASED}",
        "statR's variance, Horvitz-Thompson for documents sampled independently",
    ),
)
def stat_r(ranked, var: bool = False) -> np.ndarray:
    judgments = ranked.judgments
    per_topic = judgments.estimated_R_variance if var else judgments.estimated_R
    return per_topic[ranked.topic]
