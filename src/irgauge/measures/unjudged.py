"""Share of unjudged (trec_eval unj_k) and of judged (ir_measures Judged@k) documents in
the top k."""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import register, ratio


@register(
    "Unjudged",
    "Unjudged@k = unjudged documents in ranks 1..k / k; without a "
    "cutoff, / list length (trec_eval unj_k)",
)
def unjudged(ranked) -> np.ndarray:
    within = ranked.ranks[None, :] <= ranked.lengths[:, None]
    count = (within & ~ranked.judged).sum(axis=1)
    depth = np.full(ranked.n_rows, ranked.cutoff) if ranked.cutoff is not None else ranked.lengths
    return ratio(count, depth)


@register(
    "Judged",
    "Judged@k = judged documents in ranks 1..k / min(k, list length); without "
    "a cutoff, / list length (ir_measures' Judged@k)",
)
def judged(ranked) -> np.ndarray:
    within = ranked.ranks[None, :] <= ranked.lengths[:, None]
    count = (within & ranked.judged).sum(axis=1)
    depth = ranked.lengths if ranked.cutoff is None else np.minimum(ranked.lengths, ranked.cutoff)
    return ratio(count, depth)
