"""A pool as chosen: per topic, the documents to judge in order, each with its
inclusion probability, and every parameter that made it; written as TSV
(``topic, docno, order, inclusion``) or as trec_eval qrels (``TOPIC 0 DOCNO -1``: pooled,
not judged)."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional

import numpy as np

from irgauge.collection.pooling.selection import Selection
from irgauge.io.prels import POOL_COLUMNS
from irgauge.io.ids import Ids

HEADER = POOL_COLUMNS  # the prels reader refuses a file with this header


@dataclass(eq=False)
class Pool:
    """``topic_ids`` (natural order); per chosen document: ``topic`` (index into them),
    ``docnos``, ``order`` (1 first within its topic) and ``inclusion``; ``parameters``:
    the strategy, its paper, depth, budget, seed and every strategy parameter."""

    topic_ids: List[str]
    topic: np.ndarray
    docnos: Ids
    order: np.ndarray
    inclusion: np.ndarray
    parameters: Dict[str, Any]
    entries: Optional[np.ndarray] = None  # each document's entry of the candidates' pool
    topic_keys: Optional[List[bytes]] = None  # the topic ids as read (see DepthPool)

    @property
    def topic_bytes(self) -> List[bytes]:
        """The ids of ``topic_ids`` as read: what the files written hold."""
        if self.topic_keys is not None:
            return self.topic_keys
        return [t.encode() for t in self.topic_ids]

    @classmethod
    def of(cls, candidates, chosen: Selection, parameters: Dict[str, Any]) -> "Pool":
        pool = candidates.pool
        topic = pool.topic[chosen.entries]
        heads = (
            np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1])))
            if len(topic)
            else np.zeros(0, dtype=np.int64)
        )
        order = np.arange(1, len(topic) + 1) - np.repeat(
            heads, np.diff(np.append(heads, len(topic)))
        )
        return cls(
            list(pool.topic_ids),
            topic,
            pool.docnos[chosen.entries],
            order,
            np.asarray(chosen.inclusion, dtype=float),
            parameters,
            chosen.entries,
            pool.topic_bytes.tolist(),
        )

    def __len__(self) -> int:
        return len(self.topic)

    def sizes(self) -> Dict[str, int]:
        """Documents chosen per topic."""
        counts = np.bincount(self.topic, minlength=len(self.topic_ids))
        return dict(zip(self.topic_ids, counts.tolist()))

    def frame(self):
        """A DataFrame with the columns ``topic, docno, order, inclusion``."""
        import pandas as pd

        return pd.DataFrame(
            {
                "topic": np.asarray(self.topic_ids, dtype=object)[self.topic],
                "docno": self.docnos.decode(),
                "order": self.order,
                "inclusion": self.inclusion,
            }
        )

    def manifest(self) -> Dict[str, Any]:
        return {"kind": "pool", **self.parameters, "documents": self.sizes()}

    def tsv(self, header: bool = True) -> bytes:
        """The TSV, after ``# key: value`` lines of the parameters (with ``header``)."""
        lines = []
        if header:
            for key, value in self.parameters.items():
                shown = value if isinstance(value, str) else json.dumps(value)
                lines.append(f"# {key}: {shown}".encode())
        lines.append("\t".join(HEADER).encode())
        topics = self.topic_bytes
        docnos = self.docnos.tolist()
        for i, (t, o, p) in enumerate(
            zip(self.topic.tolist(), self.order.tolist(), self.inclusion.tolist())
        ):
            lines.append(b"%s\t%s\t%d\t%s" % (topics[t], docnos[i], o, _number(p)))
        return b"\n".join(lines) + b"\n"

    def qrels(self) -> bytes:
        """trec_eval qrels of the pooled documents, unjudged: ``TOPIC 0 DOCNO -1``."""
        topics = self.topic_bytes
        docnos = self.docnos.tolist()
        body = [b"%s 0 %s -1" % (topics[t], docnos[i]) for i, t in enumerate(self.topic.tolist())]
        return b"".join(line + b"\n" for line in body)


def _number(p: float) -> bytes:
    """The shortest text that reads back as ``p``; 1, not 1.0, for a sure document."""
    return b"1" if p == 1.0 else repr(p).encode()
