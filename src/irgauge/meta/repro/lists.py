"""Two runs' top-k lists per topic, as the document-order statistics read them.

The documents come from the shared ranking builder
(:func:`irgauge.collection.evaluation_order.ordered_documents`): the evaluation order of every
measure (trec_eval's: score descending, ties by docno descending). Each document gets one
integer id over both runs (its rank in byte order), and each (topic, document) one key,
so that the documents the two lists share are found by one sorted search for all topics.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List

import numpy as np

from irgauge.collection.evaluation_order import OrderedDocuments
from irgauge.io.ids import Ids, byte_ranks


@dataclass(frozen=True)
class TopK:
    """The top-k lists of runs A and B on each of ``n_topics`` topics (ranks 1-based):
    list lengths ``a_len`` and ``b_len`` (k, or fewer where a run retrieved fewer), the
    documents both hold (``common_topic``, ``common_a``, ``common_b``: their ranks in A
    and B) and those only one holds (``a_only_topic``/``a_only_rank``, likewise B)."""

    n_topics: int
    a_len: np.ndarray
    b_len: np.ndarray
    common_topic: np.ndarray
    common_a: np.ndarray
    common_b: np.ndarray
    a_only_topic: np.ndarray
    a_only_rank: np.ndarray
    b_only_topic: np.ndarray
    b_only_rank: np.ndarray


@dataclass(frozen=True)
class ListPair:
    """Runs A and B over a common topic list: each document's topic index (-1: a topic
    left out), rank - 1 and (topic, document) key."""

    n_topics: int
    a_topic: np.ndarray
    a_position: np.ndarray
    a_key: np.ndarray
    b_topic: np.ndarray
    b_position: np.ndarray
    b_key: np.ndarray

    def top(self, k: int) -> TopK:
        """The top-``k`` lists of both runs."""
        ma = (self.a_topic >= 0) & (self.a_position < k)
        mb = (self.b_topic >= 0) & (self.b_position < k)
        a_len = np.bincount(self.a_topic[ma], minlength=self.n_topics)
        b_len = np.bincount(self.b_topic[mb], minlength=self.n_topics)
        a_key, b_key = self.a_key[ma], self.b_key[mb]
        b_order = np.argsort(b_key, kind="stable")
        b_sorted = b_key[b_order]
        at = np.minimum(np.searchsorted(b_sorted, a_key), max(len(b_sorted) - 1, 0))
        in_b = b_sorted[at] == a_key if len(b_sorted) else np.zeros(len(a_key), bool)
        in_a = np.zeros(len(b_key), bool)
        in_a[b_order[at[in_b]]] = True
        a_rank = self.a_position[ma] + 1
        b_rank = self.b_position[mb] + 1
        return TopK(
            self.n_topics,
            a_len,
            b_len,
            self.a_topic[ma][in_b],
            a_rank[in_b],
            b_rank[b_order[at[in_b]]],
            self.a_topic[ma][~in_b],
            a_rank[~in_b],
            self.b_topic[mb][~in_a],
            b_rank[~in_a],
        )


def topic_indices(documents: OrderedDocuments, topics: List[str]) -> np.ndarray:
    """Each document's index in ``topics`` (-1 for a topic not there)."""
    where = {t: i for i, t in enumerate(topics)}
    lookup = np.array([where.get(t, -1) for t in documents.topics] + [-1], dtype=np.int64)
    return lookup[documents.topic]


def list_pair(a: OrderedDocuments, b: OrderedDocuments, topics: List[str]) -> ListPair:
    """A and B matched on ``topics`` (the topics the statistics average)."""
    ids = byte_ranks(Ids.concat([a.docnos, b.docnos])).astype(np.int64)
    n_ids = int(ids.max()) + 1 if len(ids) else 1
    a_topic, b_topic = topic_indices(a, topics), topic_indices(b, topics)
    a_id, b_id = ids[: len(a.docnos)], ids[len(a.docnos) :]
    return ListPair(
        len(topics),
        a_topic,
        a.position,
        a_topic * n_ids + a_id,
        b_topic,
        b.position,
        b_topic * n_ids + b_id,
    )
