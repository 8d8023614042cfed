"""Counts, as trec_eval prints them: num_ret, num_rel, num_rel_ret, num_nonrel_judged_ret."""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import register


@register("num_ret", "number of documents retrieved (within the cutoff)", integer=True)
def num_ret(ranked) -> np.ndarray:
    return ranked.lengths


@register("num_rel", "R: number of relevant documents of the topic", cutoff="none", integer=True)
def num_rel(ranked) -> np.ndarray:
    return ranked.R


@register("num_rel_ret", "number of relevant documents retrieved (within the cutoff)", integer=True)
def num_rel_ret(ranked) -> np.ndarray:
    return ranked.set_rel_ret


@register("num_nonrel_judged_ret", "number of judged nonrelevant documents retrieved", integer=True)
def num_nonrel_judged_ret(ranked) -> np.ndarray:
    return (ranked.judged & ~ranked.isrel).sum(axis=1)


@register(
    "NumQ",
    "1 per topic evaluated, summed: the number of topics (ir_measures' NumQ)",
    cutoff="none",
    integer=True,
)
def num_q(ranked) -> np.ndarray:
    return np.ones(ranked.n_rows)
