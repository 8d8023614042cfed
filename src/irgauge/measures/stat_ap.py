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

var=true gives the Million Query track's variance estimate, as the later form of its
script computes it (statAP_MQ_eval_v4.pl; an older copy of version 3 has another S3).
Over the judged relevant documents d of the topic, with y(d) = w(d) (prec(d) - statAP)
for one the run ranks (above the cutoff) and y(d) = -w(d) statAP for one it does not,
and
B(d) = sum_{i>d} x(i) w(i)/i (the weight of d in the precision of those below it),

  S1 = sum_d (1 - pi(d)) y(d)^2,   S2 = sum_{d != e} y(d) y(e),
  S3 = sum_{d ranked} (1 - pi(d)) w(d)^2 B(d)^2,
  Var^ = min(1, (S1 - S2/(n - 1) + S3) / R^2 * n / (m + 0.1)),

n the topic's judged documents, m those the run ranks. -S2/(n - 1) stands for the joint
probabilities of a sample of fixed size n (pi_de ~ pi_d pi_e (n - 1)/n); n/(m + 0.1)
and the cap at 1 are the script's. As sum_d y(d) = N^ - statAP R^ = 0, S2 = -sum y^2:
the estimate is not 0 even where every pi is 1.
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import rank_sum, ratio, register
from irgauge.measures.sampled import VAR, estimator_or_variance, relevant_weight, variance_term


@register(
    "statAP",
    "statAP = (1/R^) sum_r x(r)/pi(r) (1 + sum_{j<r} x(j)/pi(j))/r, R^ = sum x/pi "
    "(Aslam, Pavlu and Yilmaz 2006); var=true: its variance as the Million Query track's "
    "statAP_MQ_eval estimates it",
    params=(VAR,),
    estimator=estimator_or_variance(
        "AP, as (AP x R)^ / R^, a ratio of two Horvitz-Thompson estimates: consistent, "
        "not unbiased (a bias of order 1/sample size)",
        "statAP's variance, as the Million Query track's statAP_MQ_eval estimates it",
    ),
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
    return _mq_variance(ranked, xw, precision - value[:, None], below, value, estimated_r)


def _mq_variance(ranked, xw, shifted, below, ap, estimated_r) -> np.ndarray:
    """The Million Query track's variance (module docstring), per row: the ranked
    documents' terms rank by rank, the unranked ones' from the topic's totals
    (sum w = R^, sum (w^2 - w) = Var^(R^))."""
    judgments = ranked.judgments
    spread = variance_term(ranked)  # (1 - pi) w^2 = w^2 - w at each ranked relevant one
    y = shifted * xw
    total_spread = judgments.estimated_R_variance[ranked.topic]
    missing_w = estimated_r - rank_sum(xw)
    missing_spread = total_spread - rank_sum(spread)
    missing_square = missing_spread + missing_w  # sum w^2 = sum (w^2 - w) + sum w
    s1 = rank_sum(np.where(xw > 0, y * y * (1.0 - 1.0 / np.where(xw > 0, xw, 1.0)), 0.0))
    s1 = s1 + ap**2 * missing_spread
    sum_y = rank_sum(y) - ap * missing_w
    sum_y2 = rank_sum(y * y) + ap**2 * missing_square
    s2 = sum_y**2 - sum_y2
    s3 = rank_sum(spread * below**2)
    n = (judgments.R + judgments.N)[ranked.topic].astype(np.float64)
    m = rank_sum(ranked.judged.astype(np.float64))
    s2_share = ratio(s2, n - 1.0)
    variance = ratio(s1 - s2_share + s3, estimated_r**2) * n / (m + 0.1)
    return np.minimum(variance, 1.0)
