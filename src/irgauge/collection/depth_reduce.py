"""Pool-depth reduction (Sakai and Kando 2008): the qrels restricted to a shallower pool.

For each depth K, the reduced qrels keep exactly the judgments (topic, docno) that are in
the depth-K pool of the given runs (:mod:`irgauge.collection.depth_pool`: the union of
every run's top K in evaluation order), whatever their level; judgments of documents no
run places in its top K are dropped. The pool at a smaller depth is contained in the pool
at a larger one, so the reduced qrels are nested too. Topics are the qrels'.

:class:`DepthReduction` offers what :class:`irgauge.collection.reduce.Reduction` offers
(``steps``, ``keep_mask``, ``qrels_at``, ``manifest``), so that
:func:`irgauge.collection.reduce.write_reduced` and the incomplete-judgment study take
either.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import numpy as np

from irgauge.collection.depth_pool import DepthPool, depth_pools, parse_depths
from irgauge.io.qrels import read_qrels
from irgauge.io.records import Qrels
from irgauge.types import DepthsLike, QrelsLike, RunsLike


@dataclass(eq=False)
class DepthReduction:
    """The qrels and, per depth, the judgments its pool keeps (largest depth first).

    ``best_rank[i]``: the best rank any run gives judgment i's document within the
    deepest pool (0: not pooled); judgment i is kept at depth K when
    ``0 < best_rank[i] <= K``.
    """

    qrels: Qrels
    depths: List[int]
    runs: List[str]
    order: Optional[str]
    pool: DepthPool  # at the largest depth
    best_rank: np.ndarray

    kind = "depth"

    @property
    def steps(self) -> List[int]:
        return self.depths

    @staticmethod
    def label(depth: int) -> str:
        return f"depth{depth}"

    def keep_mask(self, depth: int) -> np.ndarray:
        return (self.best_rank > 0) & (self.best_rank <= depth)

    def qrels_at(self, depth: int) -> Qrels:
        """The qrels restricted to the depth-``depth`` pool."""
        q, keep = self.qrels, self.keep_mask(depth)
        lines = q.line_numbers[keep] if q.line_numbers is not None else None
        return Qrels(
            q.topics[keep],
            q.docnos[keep],
            q.levels[keep],
            f"{q.source}@{self.label(depth)}",
            q.fmt,
            lines,
        )

    def manifest(self) -> Dict[str, Any]:
        """Depths, runs and, per topic, the judgments and pooled documents at each depth."""
        topic = self.qrels.topic_index.codes
        n = len(self.qrels.topic_ids)
        judged = np.bincount(topic, minlength=n)
        kept = {d: np.bincount(topic[self.keep_mask(d)], minlength=n) for d in self.depths}
        pooled = {
            d: np.bincount(self.pool.topic[self.pool.best_rank <= d], minlength=n)
            for d in self.depths
        }
        return {
            "method": "pool-depth reduction (Sakai and Kando 2008)",
            "source": self.qrels.source,
            "format": self.qrels.fmt,
            "depths": self.depths,
            "runs": self.runs,
            "order": self.order or "each run's natural order",
            "rule": "keep the judgments of the documents in the union of every run's top K "
            "(evaluation order: score descending, docno descending)",
            "judgments": {self.label(d): int(self.keep_mask(d).sum()) for d in self.depths},
            "topics": {
                name: {
                    "judgments": int(judged[t]),
                    "kept": {self.label(d): int(kept[d][t]) for d in self.depths},
                    "pooled": {self.label(d): int(pooled[d][t]) for d in self.depths},
                }
                for t, name in enumerate(self.qrels.topic_ids)
            },
        }


def reduce_to_depth(
    qrels: QrelsLike, runs: RunsLike, depths: DepthsLike, order: Optional[str] = None
) -> DepthReduction:
    """The qrels restricted to the depth-K pool of ``runs`` for each K of ``depths``
    (module docstring). A run answering none of the qrels' topics is refused."""
    q = read_qrels(qrels)
    depths = sorted(parse_depths(depths), reverse=True)
    deepest = depths[0]
    pool = depth_pools(runs, [deepest], q.topic_index, order, topics_of=q.source)[0]
    found = pool.locate(q.topics, q.docnos)
    best_rank = np.where(found >= 0, pool.best_rank[np.maximum(found, 0)], 0)
    return DepthReduction(q, depths, pool.runs, order, pool, best_rank)


__all__ = ["DepthReduction", "reduce_to_depth"]
