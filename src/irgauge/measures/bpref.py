"""The bpref family of Sakai's "Alternatives to bpref", on condensed lists.

On a condensed list every document is judged, so r - count(r) is the number of judged
nonrelevant documents above rank r. All binary variants use the relevance threshold;
the rpref variants use graded gains, with
pen(r) = sum_{i<r, g(i)<g(r)} (g(r) - g(i)) / g(r).
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import rank_sum, ratio, register


def _nonrel_above(ranked) -> np.ndarray:
    return ranked.ranks - ranked.count


def _binary(ranked, term: np.ndarray, from_rank: int = 1) -> np.ndarray:
    keep = ranked.isrel & (ranked.ranks >= from_rank)
    return ratio(rank_sum(np.where(keep, term, 0.0)), ranked.R)


@register(
    "bpref",
    "bpref = (1/R) sum_rel (1 - min(nonrel above, R)/min(R, N)) (trec_eval's)",
    condensed=True,
)
def bpref(ranked) -> np.ndarray:
    R, N = ranked.R[:, None], ranked.N[:, None]
    return _binary(ranked, 1.0 - ratio(np.minimum(_nonrel_above(ranked), R), np.minimum(R, N)))


@register("bpref_R", "bpref_R = (1/R) sum_rel (1 - min(nonrel above, R)/R)", condensed=True)
def bpref_r(ranked) -> np.ndarray:
    R = ranked.R[:, None]
    return _binary(ranked, 1.0 - ratio(np.minimum(_nonrel_above(ranked), R), R))


@register(
    "bpref_N",
    "bpref_N = (1/R) sum_rel (1 - nonrel above/N) (trec_eval's bpref_allnonrel)",
    condensed=True,
)
def bpref_n(ranked) -> np.ndarray:
    return _binary(ranked, 1.0 - ratio(_nonrel_above(ranked), ranked.N[:, None]))


@register(
    "old_bpref",
    "trec_eval 8.1's bpref: min(R, nonrel retrieved) in place of min(R, N)",
    condensed=True,
)
def old_bpref(ranked) -> np.ndarray:
    R = ranked.R[:, None]
    nonrel_retrieved = (ranked.lengths - ranked.n_rel_ret)[:, None]
    return _binary(
        ranked, 1.0 - ratio(np.minimum(_nonrel_above(ranked), R), np.minimum(R, nonrel_retrieved))
    )


@register(
    "bpref_relative",
    "bpref_relative = (1/R) sum_{rel, r>1} (1 - nonrel above/(r-1))",
    condensed=True,
)
def bpref_relative(ranked) -> np.ndarray:
    return _binary(ranked, 1.0 - ratio(_nonrel_above(ranked), ranked.ranks - 1.0), from_rank=2)


@register(
    "bpref_relative2", "bpref_relative2 = (1/R) sum_rel (1 - nonrel above/r) = AP'", condensed=True
)
def bpref_relative2(ranked) -> np.ndarray:
    return _binary(ranked, 1.0 - _nonrel_above(ranked) / ranked.ranks)


def _graded_penalty(ranked) -> np.ndarray:
    """pen(r) for every rank, from prefix counts per distinct gain value."""
    gain = ranked.gain
    penalty = np.zeros_like(gain)
    for value in np.unique(gain[gain > 0]):  # a handful of gain values
        lower = (gain < value) & ranked.judged
        count_lower = np.cumsum(lower, axis=1) - lower
        gain_lower = np.cumsum(np.where(lower, gain, 0.0), axis=1) - np.where(lower, gain, 0.0)
        here = gain == value
        penalty[here] = ((count_lower * value - gain_lower) / value)[here]
    return penalty


def _graded(ranked, denominator: np.ndarray, from_rank: int = 1) -> np.ndarray:
    term = np.where(
        ranked.ranks >= from_rank,
        ranked.gain * (1.0 - ratio(_graded_penalty(ranked), denominator)),
        0.0,
    )
    return ratio(rank_sum(term), ranked.judgments.ideal_total[ranked.topic])


def _nbar(ranked) -> np.ndarray:
    """Nbar = sum over the topic's judged documents of (1 - gain/gain(H))."""
    judgments = ranked.judgments

    def per_topic():
        top = judgments.max_gain
        # all gains 0 (gains=0:0:0): no document falls short of the top gain
        gains = judgments.gain_of(judgments.grade)
        shortfall = 1.0 - gains / top if top else np.zeros_like(gains, dtype=np.float64)
        return np.bincount(judgments.topic, weights=shortfall, minlength=judgments.n_topics)

    return judgments.memo("nbar", per_topic)[ranked.topic]


@register(
    "rpref_N", "rpref_N = (1/cg_I(R)) sum_r g(r) (1 - pen(r)/Nbar)", condensed=True, graded=True
)
def rpref_n(ranked) -> np.ndarray:
    return _graded(ranked, _nbar(ranked)[:, None])


@register(
    "rpref_relative",
    "rpref_relative = (1/cg_I(R)) sum_{r>1} g(r) (1 - pen(r)/(r-1))",
    condensed=True,
    graded=True,
)
def rpref_relative(ranked) -> np.ndarray:
    return _graded(ranked, ranked.ranks - 1.0, from_rank=2)


@register(
    "rpref_relative2",
    "rpref_relative2 = (1/cg_I(R)) sum_r g(r) (1 - pen(r)/r)",
    condensed=True,
    graded=True,
)
def rpref_relative2(ranked) -> np.ndarray:
    return _graded(ranked, ranked.ranks)
