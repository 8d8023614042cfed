"""Share of unjudged documents in the top k (trec_eval unj_k)."""
from __future__ import annotations

import numpy as np

from irgauge.measures.base import register, ratio


@register("Unjudged", "Unjudged@k = unjudged documents in ranks 1..k / k; without a "
          "cutoff, / list length (trec_eval unj_k)")
def unjudged(ranked) -> np.ndarray:
    within = ranked.ranks[None, :] <= ranked.lengths[:, None]
    count = (within & ~ranked.judged).sum(axis=1)
    depth = np.full(ranked.n_rows, ranked.cutoff) if ranked.cutoff is not None \
        else ranked.lengths
    return ratio(count, depth)
