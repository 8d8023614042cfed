"""``depth``: TREC's depth-K pool (Voorhees and Harman, TREC; as in Zobel 1998 and
Sakai 2007).

The pool of a topic is the union of every run's top K documents in evaluation order
(score descending, ties by docno descending, as trec_eval). Documents are judged in the
order of the best rank any run gives them, then by docno ascending in byte order; with
a budget N the first N of that order are chosen (the pool of the smallest depth that
holds them, completed in that order). Deterministic: inclusion 1.
"""

from __future__ import annotations

from irgauge.collection.pooling.candidates import Candidates, per_topic_limit
from irgauge.collection.pooling.selection import Selection, deterministic, first_per_topic

PAPER = "TREC depth-K pooling (Voorhees and Harman 2005; Zobel 1998)"
PARAMETERS: dict = {}


def select(candidates: Candidates, budget, rng) -> Selection:
    pool = candidates.pool  # its entries are in this order already
    keep = first_per_topic(pool.topic, per_topic_limit(candidates, budget))
    return deterministic(keep.nonzero()[0])
