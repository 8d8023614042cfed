"""The judging loop of the adaptive strategies (``mtf``, ``bandit``), simulated on
judgments: each run is an arm; at each step every topic still within its budget picks
the run of highest priority (ties: the run given first), and the next document of that
run not yet judged is judged (a document already judged through another run is passed
over without a judgment and without feedback). The judgment's relevance goes back to
the policy, which updates that run's priority. A run whose list is exhausted leaves the
game. The loop is sequential by nature, but each step is one array operation over all
topics: per step O(topics x runs) work, never a Python loop over topics.
"""

from __future__ import annotations

import numpy as np

from irgauge.collection.pooling.candidates import Candidates, per_topic_limit
from irgauge.collection.pooling.selection import Selection, deterministic
from irgauge.errors import InputError


def judging_needs_qrels(candidates: Candidates, strategy: str) -> np.ndarray:
    if candidates.relevant is None:
        raise InputError(
            f"strategy: {strategy} chooses each document from the judgments made so far: "
            "give the judgments to simulate with (--qrels)",
            parameter="strategy",
        )
    return candidates.relevant


def judge_in_turn(candidates: Candidates, budget, policy) -> Selection:
    """Run the loop; ``policy`` has ``priority`` (topics x runs, float, updated in place)
    and ``update(t, s, relevant)`` for the arms just pulled."""
    relevant = judging_needs_qrels(candidates, "adaptive")  # the strategies check it first
    ranked = candidates.ranked
    n_runs, n_topics, width = ranked.shape
    limit = per_topic_limit(candidates, budget)
    priority = policy.priority
    priority[(ranked[:, :, 0] < 0).T] = -np.inf  # runs with nothing for the topic
    pointer = np.zeros((n_topics, n_runs), dtype=np.int64)
    judged = np.zeros(len(candidates.pool), dtype=bool)
    place = np.zeros(len(candidates.pool), dtype=np.int64)  # judging order, 0: not judged
    count = np.zeros(n_topics, dtype=np.int64)
    active = np.flatnonzero((count < limit) & np.isfinite(priority.max(axis=1)))
    while len(active):
        s = np.argmax(priority[active], axis=1)
        p = pointer[active, s]
        entry = np.where(p < width, ranked[s, active, np.minimum(p, width - 1)], -1)
        gone = entry < 0
        priority[active[gone], s[gone]] = -np.inf
        fresh = ~gone & ~judged[np.maximum(entry, 0)]
        pointer[active[~gone], s[~gone]] += 1
        t, s, entry = active[fresh], s[fresh], entry[fresh]
        judged[entry] = True
        count[t] += 1
        place[entry] = count[t]
        policy.update(t, s, relevant[entry])
        active = active[(count[active] < limit[active]) & np.isfinite(priority[active].max(axis=1))]
    chosen = np.flatnonzero(place)
    chosen = chosen[np.lexsort((place[chosen], candidates.pool.topic[chosen]))]
    return deterministic(chosen)
