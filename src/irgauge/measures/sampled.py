"""What the estimators from sampled judgments share (statAP, statP, statR; Aslam, Pavlu
and Yilmaz, SIGIR 2006): the Horvitz-Thompson weights of the judged documents and the
parameter that asks for an estimate's variance instead of the estimate.

A judged document d was sampled with probability pi_d (its prels line; 1 in qrels) and
counts w_d = 1/pi_d times, so that a sum over the sample estimates the sum over every
document without bias. statR's and statP's variances are Horvitz-Thompson estimates for
documents sampled independently of one another (joint inclusion pi_i pi_j), with
(1 - pi)/pi^2 = w^2 - w, 0 when every probability is 1; statAP's is the Million Query
track's (irgauge.measures.stat_ap).
"""

from __future__ import annotations

import numpy as np

from typing import Any, Callable, Dict

from irgauge.measures.base import Param

VAR = Param(
    "var",
    False,
    "bool",
    "the estimate's variance (Horvitz-Thompson, per topic) instead of the estimate",
)

# what a Horvitz-Thompson sum promises, for the header's estimators line
UNBIASED = "unbiased under any sampling with these inclusion probabilities"


def estimator_or_variance(estimate: str, variance: str) -> Callable[[Dict[str, Any]], str]:
    """The header's text for a family with ``var``: ``estimate`` or, under var=true,
    ``variance``."""
    return lambda values: variance if values.get("var") else estimate


def relevant_weight(ranked) -> np.ndarray:
    """x(r) w(r): 1/pi of the judged relevant document at rank r, 0 elsewhere."""
    return ranked.memo("relevant_weight", lambda lists: np.where(lists.isrel, lists.weight, 0.0))


def variance_term(ranked) -> np.ndarray:
    """x(r) (1 - pi(r))/pi(r)^2 = x(r) (w^2 - w): a judged relevant document's share of
    the variance of a Horvitz-Thompson count."""
    xw = relevant_weight(ranked)
    return xw * (xw - 1.0)
