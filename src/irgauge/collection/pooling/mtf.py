"""``mtf``: Move-to-Front pooling (Cormack, Palmer and Clarke 1998, "Efficient
construction of large test collections", SIGIR).

Every run starts with the same priority (0). The run of highest priority is chosen
(ties: the run given first) and its next unjudged document is judged; a relevant
document leaves the priority as it is, so the run keeps being judged, while a
nonrelevant one lowers it by one, and the next run of highest priority takes over:

    priority_s <- priority_s - [d not relevant]

This is the loop of :mod:`irgauge.collection.pooling.adaptive` with that update. The
bandit papers (Losada, Parapar and Barreiro 2016, 2017) use it as their baseline.
Deterministic given the judgments: inclusion 1.
"""

from __future__ import annotations

import numpy as np

from irgauge.collection.pooling.adaptive import judge_in_turn, judging_needs_qrels
from irgauge.collection.pooling.candidates import Candidates
from irgauge.collection.pooling.selection import Selection

PAPER = "Move-to-Front pooling (Cormack, Palmer and Clarke 1998)"
PARAMETERS: dict = {}


class MoveToFront:
    def __init__(self, n_topics: int, n_runs: int):
        self.priority = np.zeros((n_topics, n_runs))

    def update(self, t: np.ndarray, s: np.ndarray, relevant: np.ndarray) -> None:
        self.priority[t, s] -= ~relevant


def select(candidates: Candidates, budget, rng) -> Selection:
    judging_needs_qrels(candidates, "mtf")
    n_runs, n_topics, _ = candidates.ranked.shape
    return judge_in_turn(candidates, budget, MoveToFront(n_topics, n_runs))
