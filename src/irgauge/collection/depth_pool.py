"""Depth-K pools: the union of every run's top K documents per topic (TREC's pool).

``depth_pool(runs, K)`` returns a :class:`DepthPool`, one entry per pooled (topic, document):

- ``topic_ids``: the topics pooled (the ``topics`` given, else every topic a run answers),
  in natural order; ``topic[i]`` is entry i's index into them and ``topics[i]`` its id;
- ``docnos[i]``: the document;
- ``best_rank[i] = min over runs r of rank_r(i)``, the best (smallest, 1-based) rank any
  run gives it, counting only ranks <= K;
- ``contributors[r, i]``: whether run r has it in its top K (a boolean runs x entries
  array, rows in the order of ``runs``);
- ``order[i]``: its place 1.. within its topic when judged in pool order;
- ``ranked``: each run's ranked list as entries, three arrays of one row per (run,
  document within the run's top K): the run's index, the document's rank in it and its
  pool entry (what the pooling strategies read the runs through).

Ranks are taken in evaluation order, the shared ranking builder's
(:func:`irgauge.collection.evaluation_order.ranked_prefix`): by default score descending, ties by
docno descending in byte order (trec_eval), or the file's order for a format without
scores. Entries are sorted by topic, then best rank, then docno ascending in byte order,
which is the order to judge them in.

:func:`depth_pools` returns the pools at several depths, ordering each run once. The
pool at depth K is contained in the pool at any larger depth.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Sequence, Union

import numpy as np

from irgauge import _checks
from irgauge.collection.evaluation_order import ranked_prefix, resolve_order
from irgauge.collection.repeated_documents import refuse_repeated_documents
from irgauge.errors import InputError
from irgauge.io.ids import Ids, as_ids, byte_ranks
from irgauge.io.keys import TopicIndex, exact_pair_keys, pair_keys
from irgauge.io.records import Run
from irgauge.io.runs import read_runs, unique_run_names
from irgauge.io.words import counted
from irgauge.types import RunsLike


@dataclass(eq=False)
class DepthPool:
    """The depth-K pool of a set of runs (see the module docstring)."""

    depth: int
    runs: List[str]
    topic_ids: List[str]
    topic: np.ndarray
    docnos: Ids
    best_rank: np.ndarray
    contributors: np.ndarray
    order: np.ndarray
    ranked: Optional[tuple] = None  # (run index, rank, entry) of each run's documents
    # the topic ids as read, byte for byte: ``topic_ids`` shows bytes that are not UTF-8
    # as \xNN escapes, which encoded back would be other ids
    topic_keys: Optional[Ids] = None

    @property
    def topic_bytes(self) -> Ids:
        """The ids of ``topic_ids`` as read (bytes)."""
        if self.topic_keys is not None:
            return self.topic_keys
        return as_ids([t.encode() for t in self.topic_ids])

    def __len__(self) -> int:
        return len(self.topic)

    @property
    def topics(self) -> Ids:
        """The topic id of each entry."""
        return self.topic_bytes[self.topic]

    def sizes(self) -> np.ndarray:
        """Pooled documents per topic (indexed as ``topic_ids``)."""
        return np.bincount(self.topic, minlength=len(self.topic_ids))

    def locate(self, topics, docnos) -> np.ndarray:
        """The pool entry of each (topic, docno) pair, -1 where it is not pooled; exact
        (byte for byte)."""
        codes = TopicIndex(self.topic_bytes).lookup(topics)
        known = np.flatnonzero(codes >= 0)
        found = np.full(len(codes), -1, dtype=np.int64)
        if not len(known) or not len(self):
            return found
        mine, theirs = exact_pair_keys(
            [self.topic, codes[known]], [self.docnos, as_ids(docnos)[known]]
        )
        by_key = np.argsort(mine)
        at = np.minimum(np.searchsorted(mine[by_key], theirs), len(mine) - 1)
        hit = mine[by_key][at] == theirs
        found[known[hit]] = by_key[at[hit]]
        return found


def depth_pool(
    runs: RunsLike,
    depth: int,
    topics: Union[None, Sequence[str], TopicIndex] = None,
    order: Optional[str] = None,
    topics_of: Optional[str] = None,
) -> DepthPool:
    """The depth-``depth`` pool of ``runs`` (paths, Run objects, DataFrames or dicts).

    ``topics``: pool only these topic ids (e.g. a qrels' topics; a run answering none of
    them is refused, naming ``topics_of``, their source); default every topic a run
    answers. ``order``: the document order ("score" or "file"; default each run's natural
    order).
    """
    # one depth, a number: "5" is text from Python (as pool(depth=) refuses it), and
    # "5,10" a list that depth_pools would read
    return depth_pools(runs, [_checks.depth(depth)], topics, order, topics_of)[0]


def depth_pools(
    runs, depths, topics=None, order: Optional[str] = None, topics_of: Optional[str] = None
) -> List[DepthPool]:
    """The pools at each depth of ``depths`` (see :func:`depth_pool`), in that order.
    ``topics_of``: where ``topics`` come from (a qrels file), named when a run answers
    none of them."""
    depths = parse_depths(depths)
    read = read_runs(runs)
    if not read:
        raise InputError("a pool needs at least one run", parameter="runs")
    index = _topic_index(read, topics)
    names = _run_names(read)
    deepest = max(depths)
    per_run = []
    for k, run in enumerate(read):
        codes = index.lookup(run.topics)
        if topics is not None and len(codes) and (codes < 0).all():
            _refuse_run_off_the_topics(run, index, topics_of)
        refuse_repeated_documents(run, codes, len(index))
        codes, rows, rank = ranked_prefix(run, codes, resolve_order(run, order), deepest)
        per_run.append((np.full(len(codes), k, dtype=np.int64), codes, run.docnos[rows], rank))
    run_of = np.concatenate([p[0] for p in per_run])
    codes = np.concatenate([p[1] for p in per_run]).astype(np.int64)
    docnos = Ids.concat([as_ids(p[2]) for p in per_run])
    rank = np.concatenate([p[3] for p in per_run])
    key = _document_keys(codes, docnos, len(index))
    return [
        _pool_at(k, names, index, (run_of, codes, docnos, rank, key), len(read)) for k in depths
    ]


def _document_keys(codes: np.ndarray, docnos: Ids, n_topics: int) -> np.ndarray:
    """One integer key per (topic, docno): hashed (a sort of integers, where exact keys
    sort the ids' bytes: 3x slower on a TREC DL-sized pool), exact when two documents of
    a topic share a hash (vanishingly rare; every shared key is checked byte for byte)."""
    keys = pair_keys(codes, docnos.hashes(), n_topics)
    ordered = np.argsort(keys)
    same = np.flatnonzero(keys[ordered][1:] == keys[ordered][:-1])
    first, second = ordered[same], ordered[same + 1]
    if len(same) and not docnos[first].equal(docnos[second]).all():
        return exact_pair_keys([codes], [docnos])[0]
    return keys


def _pool_at(depth: int, names, index: TopicIndex, entries, n_runs: int) -> DepthPool:
    run_of, codes, docnos, rank, key = entries
    within = np.flatnonzero(rank <= depth)
    run_of, codes, rank, key = run_of[within], codes[within], rank[within], key[within]
    by_key = np.lexsort((rank, key))  # each document's entries together, best rank first
    head = np.ones(len(by_key), dtype=bool)
    head[1:] = key[by_key][1:] != key[by_key][:-1]
    entry = np.cumsum(head) - 1  # pooled document of each (run, document)
    first = by_key[head]
    pooled_docnos = docnos[within[first]]
    best, topic = rank[first], codes[first]
    contributors = np.zeros((n_runs, len(first)), dtype=bool)
    contributors[run_of[by_key], entry] = True
    final = np.lexsort((byte_ranks(pooled_docnos), best, topic))
    topic = topic[final]
    heads = (
        np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1]))) if len(topic) else final
    )
    place = np.arange(1, len(topic) + 1) - np.repeat(heads, np.diff(np.append(heads, len(topic))))
    moved = np.empty(len(final), dtype=np.int64)
    moved[final] = np.arange(len(final))
    ranked = (run_of[by_key], rank[by_key], moved[entry])
    return DepthPool(
        depth,
        names,
        list(index.names),
        topic,
        pooled_docnos[final],
        best[final],
        contributors[:, final],
        place,
        ranked,
        index.ids,
    )


def parse_depths(depths, source: Optional[str] = None) -> List[int]:
    """Depths from ``"10,100"``, one number or a sequence: whole numbers >= 1, duplicates
    dropped, smallest first."""
    if isinstance(depths, str):
        items: Sequence = _checks.items(depths, "depth", "depths", spaces=False)
    else:
        items = _checks.sequence(depths, "depth", lambda d, name: d)
    parsed = []
    for item in items:
        text = item.strip() if isinstance(item, str) else item
        if isinstance(text, str) and text.isascii() and text.isdigit():
            text = int(text)
        if isinstance(text, bool) or not isinstance(text, (int, np.integer)):
            raise InputError(f"depth {item!r} is not a whole number", source, parameter="depth")
        if text < 1:
            raise InputError(f"depth {item!r} must be >= 1", source, parameter="depth")
        parsed.append(_checks.depth(int(text)))
    if not parsed:
        raise InputError("no depth given", source, parameter="depth")
    return sorted(set(parsed))


def _topic_index(runs: List[Run], topics) -> TopicIndex:
    if topics is None:
        return TopicIndex(Ids.concat([as_ids(r.topics) for r in runs]))
    if isinstance(topics, TopicIndex):
        return topics
    return TopicIndex([t.encode() if isinstance(t, str) else t for t in topics])


def _refuse_run_off_the_topics(run: Run, index: TopicIndex, topics_of: Optional[str]) -> None:
    """A run that answers none of the topics pooled (ids written 01 where the qrels write
    1, another collection's run) would add nothing to the pool: refused, naming its file."""
    theirs = TopicIndex(run.topics).names
    shown = ", ".join(theirs[:3]) + (" ..." if len(theirs) > 3 else "")
    where = f" of qrels {topics_of}" if topics_of else ""
    raise InputError(
        f"run {run.name} answers none of the {counted(len(index), 'topic')}{where} "
        f"(its topics: {shown}); "
        "topic ids match as written",
        run.source,
    )


def _run_names(runs: List[Run]) -> List[str]:
    return unique_run_names([(r.name, r.source) for r in runs])


__all__ = ["DepthPool", "depth_pool", "depth_pools", "parse_depths"]
