"""``bandit``: multi-armed bandit pooling, MM-NS (Losada, Parapar and Barreiro 2016,
"Feeling lucky? Multi-armed bandits for ordering judgements in pooling-based
evaluation", SAC; 2017, "Multi-armed bandits for adjudicating documents in
pooling-based evaluation of information retrieval systems", IP&M).

Each run is an arm with a Beta(1, 1) prior on its probability of giving a relevant
document. MM (maximum mean) pulls the arm of highest posterior mean

    E[theta_s] = (1 + rel_s) / (2 + rel_s + nrel_s),

ties to the run given first, and judges that run's next unjudged document. NS (the
non-stationary variant) lets old evidence fade, since a run's documents grow less
likely to be relevant as it is read deeper: after each judgment of a document of run s,

    rel_s <- discount * rel_s + [d relevant],  nrel_s <- discount * nrel_s + [d not relevant]

(``discount`` = 1 is stationary MM). The loop is that of
:mod:`irgauge.collection.pooling.adaptive`. Deterministic given the judgments:
inclusion 1.

Provenance: this is the rule as the papers are recalled, not checked against them:
neither paper's text nor the authors' code could be consulted where this was written.
Assumed without that check: the discount fades the counts only (the Beta(1, 1) prior
stays), once per judgment of the run's own documents; a document already judged through
another run is passed over without feedback; an exhausted run leaves the game; ties go
to the run given first.
"""

from __future__ import annotations

import numpy as np

from irgauge import _checks
from irgauge.collection.pooling.adaptive import judge_in_turn, judging_needs_qrels
from irgauge.collection.pooling.candidates import Candidates
from irgauge.collection.pooling.selection import Selection

PAPER = "multi-armed bandits, MM-NS (Losada, Parapar and Barreiro 2016, 2017)"
PARAMETERS = {"discount": 0.9}


class MaxMean:
    def __init__(self, n_topics: int, n_runs: int, discount: float):
        self.rel = np.zeros((n_topics, n_runs))
        self.nrel = np.zeros((n_topics, n_runs))
        self.priority = np.full((n_topics, n_runs), 0.5)
        self.discount = discount

    def update(self, t: np.ndarray, s: np.ndarray, relevant: np.ndarray) -> None:
        rel = self.discount * self.rel[t, s] + relevant
        nrel = self.discount * self.nrel[t, s] + ~relevant
        self.rel[t, s], self.nrel[t, s] = rel, nrel
        self.priority[t, s] = (1 + rel) / (2 + rel + nrel)


def select(candidates: Candidates, budget, rng, discount: float = 0.9) -> Selection:
    judging_needs_qrels(candidates, "bandit")
    discount = _checks.real(discount, "discount", 0.0, 1.0, min_open=True)
    n_runs, n_topics, _ = candidates.ranked.shape
    return judge_in_turn(candidates, budget, MaxMean(n_topics, n_runs, discount))
