"""A pool as chosen: per topic, the documents to judge in order, each with its
inclusion probability, and every parameter that made it; written as TSV
(``topic, docno, order, inclusion``) or as trec_eval qrels (``TOPIC 0 DOCNO -1``: pooled,
not judged). A sample also keeps its design: the pool's documents left unsampled, each
with its inclusion probability, so that once the sample is judged it is written as prels
(``TOPIC DOCNO LEVEL INCLUSION``, the unsampled documents at level -1), which statAP and
infAP (xinfAP, which needs the unsampled documents) both read."""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from irgauge.collection.pooling.selection import Selection
from irgauge.errors import InputError
from irgauge.io.prels import POOL_COLUMNS
from irgauge.io.ids import Ids
from irgauge.io.records import Qrels
from irgauge.io.words import counted
from irgauge.types import QrelsLike

HEADER = POOL_COLUMNS  # the prels reader refuses a file with this header
UNSAMPLED = -1  # the prels level of a pooled document left unsampled (trec_eval's -1)


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
    # a sample's design: the entries left unsampled and their inclusion probabilities,
    # and the candidates' pool that entries index (None: a deterministic pool)
    unsampled: Optional[np.ndarray] = None
    unsampled_inclusion: Optional[np.ndarray] = None
    candidates_pool: Any = None

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
            chosen.unsampled,
            chosen.unsampled_inclusion,
            pool,
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

    @property
    def is_sample(self) -> bool:
        """Whether the pool is a sample whose design (the unsampled documents) it keeps."""
        return self.unsampled is not None and self.candidates_pool is not None

    def entry_levels(self, qrels: QrelsLike) -> Tuple[np.ndarray, np.ndarray]:
        """The level ``qrels`` give every entry of the candidates' pool (0 where they hold
        none) and whether they hold one."""
        from irgauge.collection.pooling.candidates import entry_levels

        return entry_levels(self.candidates_pool, qrels)

    def judged(self, level: np.ndarray) -> Qrels:
        """The sample, judged, as prels: every pooled document of the design with its
        inclusion probability, the sampled ones at ``level`` (one per entry of the
        candidates' pool; a negative one as 0, judged nonrelevant, since -1 marks the
        unsampled), the unsampled ones at -1. Read with ``negative="unjudged"``, statAP,
        statP and statR weigh the judged ones by 1/pi and pass the rest over, and infAP
        (xinfAP) counts each stratum's documents, judged or not."""
        if not self.is_sample:
            raise InputError(
                "prels: only a sample (strategy sample) has inclusion probabilities to "
                "estimate from",
                parameter="strategy",
            )
        assert self.entries is not None and self.unsampled is not None
        entries = np.concatenate([self.entries, self.unsampled])
        sampled = np.arange(len(entries)) < len(self.entries)
        inclusion = np.concatenate([self.inclusion, self.unsampled_inclusion])
        order = np.argsort(entries, kind="stable")  # pool order: topic, best rank, docno
        entries, sampled, inclusion = entries[order], sampled[order], inclusion[order]
        levels = np.where(sampled, np.maximum(np.asarray(level)[entries], 0), UNSAMPLED)
        pool = self.candidates_pool
        return Qrels.from_arrays(
            pool.topics[entries], pool.docnos[entries], levels, "<pool>", inclusion=inclusion
        )

    def judged_by(self, qrels: QrelsLike) -> Tuple[Qrels, int]:
        """:meth:`judged` with the levels ``qrels`` give, 0 where they hold none (as the
        simulations read them), and how many sampled documents they hold none of. A
        topic of the sample none of whose sampled documents they hold is refused: they
        judged another sample (other runs, depth, budget or seed)."""
        level, held = self.entry_levels(qrels)
        assert self.entries is not None
        judged = np.bincount(self.topic, weights=held[self.entries], minlength=len(self.topic_ids))
        drawn = np.bincount(self.topic, minlength=len(self.topic_ids))
        bare = np.flatnonzero((drawn > 0) & (judged == 0))
        if len(bare):
            raise InputError(
                f"qrels: they judge none of the {counted(int(drawn[bare[0]]), 'document')} "
                f"sampled for topic {self.topic_ids[bare[0]]!r}: judge the sample this pool "
                "draws (the same runs, depth, budget, design and seed)",
                parameter="qrels",
            )
        return self.judged(level), int(len(self.entries) - judged.sum())

    def prels(self, qrels: QrelsLike) -> bytes:
        """The sample judged by ``qrels`` (:meth:`judged_by`), as prels lines
        ``TOPIC DOCNO LEVEL INCLUSION`` in pool order."""
        return prels_bytes(self.judged_by(qrels)[0])


def prels_bytes(prels: Qrels) -> bytes:
    """Prels lines ``TOPIC DOCNO LEVEL INCLUSION``, in the order the prels hold them."""
    assert prels.inclusion is not None
    topics = prels.topics.tolist()
    docnos = prels.docnos.tolist()
    lines = [
        b"%s %s %d %s" % (t, d, lv, _number(p))
        for t, d, lv, p in zip(topics, docnos, prels.levels.tolist(), prels.inclusion.tolist())
    ]
    return b"".join(line + b"\n" for line in lines)


def _number(p: float) -> bytes:
    """The shortest text that reads back as ``p``; 1, not 1.0, for a sure document."""
    return b"1" if p == 1.0 else repr(p).encode()
