"""Meta-evaluation: how sensitive, stable and predictive each measure is (the methods of
Sakai 2004-2007 and Webber et al. 2008).

Every method takes the scores as ``{measure: ScoreMatrix}``, a ScoreMatrix, a tidy
per-topic DataFrame (``EvalResult.per_topic``), an EvalResult or a wide topics x systems
DataFrame (read by :func:`irgauge.scores.frames.as_score_matrices`), a seed and its
parameters, and returns a :class:`MetaResult` recording the seed, parameters, systems and
topics used.
"""

from irgauge.meta.agree import agreement
from irgauge.meta.correlation import (
    rank_correlations,
    tau_ap,
    tau_ap_a,
    tau_ap_b,
    tau_threshold,
)
from irgauge.meta.discpower import discriminative_power
from irgauge.meta.kendall import kendall_tau
from irgauge.meta.predictive import predictive_power
from irgauge.meta.result import MetaResult
from irgauge.meta.stability import stability
from irgauge.meta.swap import swap_rates
from irgauge.meta.topicset import min_detectable_diff, residual_variance, topic_set_size

__all__ = [
    "MetaResult",
    "agreement",
    "discriminative_power",
    "kendall_tau",
    "min_detectable_diff",
    "predictive_power",
    "rank_correlations",
    "residual_variance",
    "stability",
    "swap_rates",
    "tau_ap",
    "tau_ap_a",
    "tau_ap_b",
    "tau_threshold",
    "topic_set_size",
]
