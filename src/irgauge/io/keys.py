"""Integer keys for topics and (topic, docno) pairs, so that matching runs against qrels is
a sorted search over integers rather than a dictionary lookup per line or per topic.

Ids are hashed to 64 bits with whole-array operations (:meth:`irgauge.io.ids.Ids.hashes`).
Every match found through a hash is verified byte for byte; on a collision (vanishingly
rare) callers fall back to exact codes from a sort of the ids.
"""

from __future__ import annotations

import copy
from typing import List, Tuple

import numpy as np

from irgauge.io.ids import Ids, as_ids, byte_ranks
from irgauge.io._numbers import scan_ints


def hash_strings(strings) -> np.ndarray:
    """64-bit hashes of ids (Ids, ``S`` array or sequence): same bytes, same hash."""
    return as_ids(strings).hashes()


def pair_keys(topic_codes: np.ndarray, doc_hashes: np.ndarray, n_topics: int) -> np.ndarray:
    """Topic-major keys: the topic code in the high bits, the docno hash below it.

    Sorted keys then group by topic, so looking up a run (whose lines come topic by topic)
    searches a small, cache-resident region at a time. With T topics the hash keeps
    64 - bits(T) bits (51 for 5,000 topics); matches are verified anyway.
    """
    shift = np.uint64(64 - max(int(n_topics).bit_length(), 1))
    keys = doc_hashes >> (np.uint64(64) - shift)  # in place from here: one temporary
    topics = topic_codes.astype(np.uint64)
    topics <<= shift
    keys |= topics
    return keys


def exact_pair_keys(topic_codes: List[np.ndarray], docnos: List) -> List[np.ndarray]:
    """Collision-free keys for several (topic codes, docnos) arrays sharing one code space."""
    sizes = [len(d) for d in docnos]
    inverse = byte_ranks(Ids.concat([as_ids(d) for d in docnos]))
    n_docs = np.uint64(inverse.max() + 1 if len(inverse) else 1)
    parts = np.split(inverse.astype(np.uint64), np.cumsum(sizes)[:-1])
    return [t.astype(np.uint64) * n_docs + p for t, p in zip(topic_codes, parts)]


def run_heads(values: Ids) -> np.ndarray:
    """Indices where a new run of equal consecutive ids starts (files list a topic's lines
    together, so there are few)."""
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    # neighbours with the same start and length hold the same bytes (a run file's topic
    # column keeps one copy per run of lines): only the other pairs need comparing
    maybe = (
        np.flatnonzero(
            (values.starts[1:] != values.starts[:-1]) | (values.lens[1:] != values.lens[:-1])
        )
        + 1
    )
    heads = maybe[values[maybe] != values[maybe - 1]]
    return np.concatenate((np.zeros(1, dtype=heads.dtype), heads))


def comes_back(hashes: np.ndarray) -> bool:
    """Whether a value of a column comes back after another: some value heads two runs
    of equal neighbours (a topic in two places of a run file, by the hashes of its ids)."""
    heads = hashes[np.concatenate(([True], hashes[1:] != hashes[:-1]))] if len(hashes) else hashes
    ordered = np.sort(heads)  # not np.unique: its first call imports numpy.ma (25 ms)
    return bool((ordered[1:] == ordered[:-1]).any())


class TopicIndex:
    """The distinct topic ids of a column, in natural order, and lookups into them."""

    def __init__(self, topics) -> None:
        topics = as_ids(topics)
        heads = run_heads(topics)
        first, codes = topics[heads].unique()
        distinct = topics[heads[first]]
        order = natural_order_of(distinct)
        self.ids: Ids = distinct[order]
        self.names: List[str] = self.ids.decode()
        rank = np.empty(len(order), dtype=np.int64)
        rank[order] = np.arange(len(order))
        self.codes = np.repeat(rank[codes], np.diff(np.append(heads, len(topics))))
        hashes = self.ids.hashes()
        self._order = np.argsort(hashes)
        self._sorted = hashes[self._order]

    def __len__(self) -> int:
        return len(self.names)

    def subset(self, rows) -> "TopicIndex":
        """The same topics, with the codes of the chosen rows only."""
        other = copy.copy(self)
        other.codes = self.codes[rows]
        return other

    def lookup(self, topics) -> np.ndarray:
        """Code of each id of ``topics``; -1 for ids not in the index."""
        topics = as_ids(topics)
        n = len(topics)
        if n == 0 or len(self.names) == 0:
            return np.full(n, -1, dtype=np.int64)
        heads = run_heads(topics)
        wanted = topics[heads]
        pos = np.minimum(np.searchsorted(self._sorted, wanted.hashes()), len(self._sorted) - 1)
        code = self._order[pos]
        found = (self._sorted[pos] == wanted.hashes()) & (self.ids[code] == wanted)
        codes = np.where(found, code, -1).astype(
            np.int32 if len(self.names) < (1 << 31) else np.int64
        )
        return np.repeat(codes, np.diff(np.append(heads, n)))


def natural_order_of(ids: Ids) -> np.ndarray:
    """Permutation sorting ids numerically when all are integers (ties, e.g. ``7`` and
    ``07``, by bytes), else by bytes."""

    ok, values = scan_ints(ids)
    if len(ids) and ok.all():
        order = np.argsort(values, kind="stable")
        if not (values[order][1:] == values[order][:-1]).any():
            return order
        return np.lexsort((byte_ranks(ids), values))
    return np.argsort(byte_ranks(ids), kind="stable")


def unique_names(values) -> Tuple[List[str], np.ndarray]:
    """The distinct ids of a column as str in natural order, and each row's index into them."""
    index = TopicIndex(values)
    return index.names, index.codes
