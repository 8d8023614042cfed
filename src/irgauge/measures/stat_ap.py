"""statAP: average precision estimated from sampled judgments (Aslam, Pavlu and Yilmaz,
SIGIR 2006; the estimator of the TREC Million Query track's statAP_MQ_eval).

With x(r) = 1 for a judged relevant document at rank r and w(r) = 1/pi(r):

  A(r) = sum_{j<r} x(j) w(j)        (relevant documents above r, estimated)
  prec(r) = (1 + A(r))/r            (precision at r, given r relevant)
  N^ = sum_r x(r) w(r) prec(r)      (Horvitz-Thompson estimate of sum_rel prec(r))
  statAP = N^ / R^                  (R^: statR, over every judged document of the topic)

N^ is unbiased for sum_rel prec(r) when documents are sampled independently (the pair
(j, r) is sampled with probability pi(j) pi(r)); N^/R^ is a ratio of unbiased estimates,
consistent and nearly unbiased, as the paper says.

var=true gives the delta-method (Taylor) variance of the ratio: with
B(r) = sum_{i>r} x(i) w(i)/i (the document's weight in the precision of those below) and
c(d) = x(d) w(d) (prec(d) + B(d) - statAP)/R^ (for a judged relevant document d the run
does not rank above the cutoff: -statAP w(d)/R^),
  Var^ = sum_d (1 - pi(d)) c(d)^2 over the judged documents of the topic.
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import rank_sum, ratio, register
from irgauge.measures.sampled import VAR, relevant_weight, variance_term


@register(
    "statAP",
    "statAP = (1/R^) sum_r x(r)/pi(r) (1 + sum_{j<r} x(j)/pi(j))/r, R^ = sum x/pi "
    "(Aslam, Pavlu and Yilmaz 2006); var=true: its delta-method variance",
    params=(VAR,),
)
def stat_ap(ranked, var: bool = False) -> np.ndarray:
    xw = relevant_weight(ranked)
    above = np.cumsum(xw, axis=1) - xw
    precision = (1.0 + above) / ranked.ranks
    estimated_r = ranked.judgments.estimated_R[ranked.topic]
    value = ratio(rank_sum(xw * precision), estimated_r)
    if not var:
        return value
    share = xw / ranked.ranks  # each relevant document's weight in the precision below it
    below = rank_sum(share)[:, None] - np.cumsum(share, axis=1)
    ap = value[:, None]
    spread = rank_sum(variance_term(ranked) * ((precision + below - ap) ** 2 - ap**2))
    total = spread + value**2 * ranked.judgments.estimated_R_variance[ranked.topic]
    return ratio(total, estimated_r**2)
