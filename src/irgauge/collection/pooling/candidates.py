"""What every pooling strategy chooses from: the depth-K pool of the runs (the shared
primitive, :mod:`irgauge.collection.depth_pool`), each run's ranked list as pool entries,
and, when judgments are given, which entries they call relevant.

``ranked[s, t, r - 1]`` is the pool entry at rank r of run s for topic t (ranks in
evaluation order: score descending, ties by docno descending, as trec_eval), -1 past the
end of the run's list or below depth K. Entries are those of the
:class:`~irgauge.collection.depth_pool.DepthPool`: sorted by topic, then best rank, then
docno, so that each topic's entries are contiguous (``starts[t]`` .. ``starts[t + 1]``).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Tuple

import numpy as np

from irgauge import _checks
from irgauge.collection.depth_pool import DepthPool, depth_pool
from irgauge.errors import InputError
from irgauge.io.qrels import read_qrels
from irgauge.io.runs import read_runs
from irgauge.io.run_topics import require_qrels_topics
from irgauge.io.words import counted


# why a pool refuses a run that misses a qrels topic
POOLED_WITHOUT = "the pool would be built there without this run"


@dataclass(eq=False)
class Candidates:
    """The pool entries, each run's ranked list of them, and their relevance if known."""

    pool: DepthPool
    ranked: np.ndarray  # (runs, topics, width) entry at each rank, -1 past a list's end
    relevant: Optional[np.ndarray]  # entry judged relevant (level >= rel_level); None: no qrels
    depth: Optional[int]  # None: every document of every run
    sources: List[str]

    @property
    def n_topics(self) -> int:
        return len(self.pool.topic_ids)

    @property
    def sizes(self) -> np.ndarray:
        """Pooled documents per topic."""
        return self.pool.sizes()

    @property
    def starts(self) -> np.ndarray:
        """Each topic's first entry (and, last, the number of entries)."""
        return np.concatenate(([0], np.cumsum(self.sizes)))


def build_candidates(
    runs,
    depth: Optional[int] = None,
    qrels=None,
    rel_level: int = 1,
    order=None,
    missing_hint: Optional[str] = POOLED_WITHOUT,
) -> Candidates:
    """Read ``runs`` (and ``qrels``) and pool them to ``depth`` (None: whole runs).

    With qrels, the topics are the qrels' topics, and a run that misses one is refused
    naming its file (:func:`irgauge.io.run_topics.require_qrels_topics`, ``missing_hint``
    saying why or what to do; None: the run is pooled without those topics); without,
    every topic some run answers."""
    if depth is not None:
        depth = _checks.depth(depth)
    read = read_runs(runs, distinct=True)
    if not read:
        raise InputError("a pool needs at least one run", parameter="runs")
    judged = read_qrels(qrels) if qrels is not None else None
    if judged is not None and missing_hint is not None:
        for run in read:
            name = f"qrels {judged.source}"
            require_qrels_topics(run, judged.topic_ids, name, True, missing_hint)
    deepest = depth if depth is not None else max(max(len(r) for r in read), 1)
    topics = judged.topic_index if judged is not None else None
    pool = depth_pool(read, deepest, topics, order)
    ranked = _ranked_entries(pool, len(read))
    relevant = None
    if judged is not None:
        entry = pool.locate(judged.topics, judged.docnos)
        relevant = np.zeros(len(pool), dtype=bool)
        found = entry >= 0
        relevant[entry[found]] = judged.levels[found] >= rel_level
    return Candidates(pool, ranked, relevant, depth, [r.source for r in read])


def _ranked_entries(pool: DepthPool, n_runs: int) -> np.ndarray:
    """``ranked`` (see the module docstring), from the pool's own (run, rank, entry) rows."""
    assert pool.ranked is not None  # depth_pool builds every pool with them
    run, rank, entry = pool.ranked
    width = max(int(rank.max()) if len(rank) else 1, 1)
    ranked = np.full((n_runs, len(pool.topic_ids), width), -1, dtype=np.int64)
    ranked[run, pool.topic[entry], rank - 1] = entry
    return ranked


def entry_levels(pool: DepthPool, qrels) -> Tuple[np.ndarray, np.ndarray]:
    """The level ``qrels`` give each entry of ``pool``, 0 where they hold none (as the
    papers simulate judging), and whether they hold one."""
    judged = read_qrels(qrels)
    level = np.zeros(len(pool), dtype=np.int64)
    held = np.zeros(len(pool), dtype=bool)
    entry = pool.locate(judged.topics, judged.docnos)
    found = entry >= 0
    level[entry[found]] = judged.levels[found]
    held[entry[found]] = True
    return level, held


def check_budget(
    candidates: Candidates, budget: Optional[int], parameter: str = "budget"
) -> Optional[int]:
    """``budget`` (documents per topic) checked against every topic's pool; an error names
    ``parameter``, the caller's (a study's ``budgets``)."""
    if budget is None:
        return None
    budget = _checks.whole(budget, parameter, 1, _checks.MAX_COUNT)
    sizes = candidates.sizes
    over = np.flatnonzero(sizes < budget)
    if len(over):
        t = int(over[0])
        raise InputError(
            f"{parameter}: {counted(budget, 'document')} per topic is more than the pool of "
            f"topic {candidates.pool.topic_ids[t]!r} holds ({int(sizes[t])})",
            parameter=parameter,
        )
    return budget


def per_topic_limit(candidates: Candidates, budget: Optional[int]) -> np.ndarray:
    """Documents to choose per topic: the budget, or the whole pool."""
    sizes = candidates.sizes
    return sizes.copy() if budget is None else np.minimum(sizes, budget)


__all__ = ["Candidates", "build_candidates", "check_budget", "entry_levels", "per_topic_limit"]
