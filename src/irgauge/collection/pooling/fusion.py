"""``fusion``: the top N of reciprocal rank fusion (Cormack, Clarke and Büttcher 2009).

A document's fused score is ``RRF(d) = sum over runs s retrieving d of 1 / (k + r_s(d))``,
r_s(d) its rank in run s (evaluation order, 1 first; runs cut at depth K when given),
k = 60. Documents are judged by RRF descending, ties by docno ascending in byte order,
as trectools' ``reciprocal_rank_fusion``. Each document's terms are added smallest
first, so that documents holding the same ranks get the same float and tie exactly.
Deterministic: inclusion 1.
"""

from __future__ import annotations

import numpy as np

from irgauge.collection.pooling.candidates import Candidates, per_topic_limit
from irgauge.collection.pooling.selection import Selection, deterministic, first_per_topic
from irgauge.io.ids import byte_ranks

PAPER = "reciprocal rank fusion (Cormack, Clarke and Büttcher 2009)"
PARAMETERS = {"k": 60}


def rrf_scores(candidates: Candidates, k: float = 60) -> np.ndarray:
    """RRF(d) of every pool entry."""
    ranked = candidates.ranked
    width = ranked.shape[2]
    # deepest ranks first: each entry's terms are summed in increasing size
    deep_first = np.moveaxis(ranked[:, :, ::-1], 2, 0).reshape(width, -1)
    weight = np.repeat(1.0 / (k + np.arange(width, 0, -1)), deep_first.shape[1])
    flat = deep_first.ravel()
    there = flat >= 0
    return np.bincount(flat[there], weights=weight[there], minlength=len(candidates.pool))


def select(candidates: Candidates, budget, rng, k: float = 60) -> Selection:
    pool = candidates.pool
    score = rrf_scores(candidates, k)
    fused = np.lexsort((byte_ranks(pool.docnos), -score, pool.topic))
    keep = first_per_topic(pool.topic[fused], per_topic_limit(candidates, budget))
    return deterministic(fused[keep])
