"""A run's entries regrouped so that each topic's lines are together (in file order, or by
score descending, ties in file order), as a ranking is built from them: the last step of
reading a run partitioned by topic (:mod:`irgauge.io.run_partitions`)."""

from __future__ import annotations

from dataclasses import replace
from typing import cast

import numpy as np

from irgauge.io.ids import Ids
from irgauge.io.line_scatter import token_keys
from irgauge.io.records import Run


def grouped_by_topic(run: Run, by_score: bool, tokens: bool = False) -> Run:
    """The run's entries with each topic's together (matched as a contiguous run), in
    file order within a topic, or by score descending with ties in file order; topics
    sharing their bytes (see _topics_shared). ``tokens``: the topics are a text file's
    tokens (no byte <= 32 in them)."""
    topics = run.topics
    exact = tokens and len(topics) > 0 and int(topics.lens.max()) <= 8
    # tokens of up to 8 bytes are told apart by their key exactly: no check of their bytes
    keys = token_keys(topics.pool, topics.starts, topics.lens) if exact else topics.hashes()
    if by_score and run.scores is not None:  # a run without scores keeps its file order
        by_score_order = np.argsort(-run.scores, kind="stable")
        order = by_score_order[grouped_by_hash(keys[by_score_order])]
    else:
        order = grouped_by_hash(keys)
    # the topics are not taken with the rest: _topics_shared builds them in this order
    return replace(
        run,
        topics=_topics_shared(topics, order, keys, exact),
        docnos=run.docnos[order],
        scores=None if run.scores is None else run.scores[order],
        line_numbers=run.lines()[order],
    )


SLOT_BITS = 16  # a radix sort of 16-bit keys is one pass over the data (numpy's stable sort)


def grouped_by_hash(hashes: np.ndarray) -> np.ndarray:
    """A stable order of ``hashes`` in which equal hashes are together (groups in no
    particular order): by their top 16 bits (a radix sort), then, where two different
    hashes share those bits, by the whole hash (a sort of those entries only)."""
    slots = (hashes >> np.uint64(64 - SLOT_BITS)).astype(np.uint16)
    order = np.argsort(slots, kind="stable")
    last_in_slot = np.zeros(1 << SLOT_BITS, dtype=np.uint64)
    last_in_slot[slots] = hashes
    shared = last_in_slot[slots] != hashes  # some entries of slots of several hashes
    if shared.any():
        mixed_slot = np.zeros(1 << SLOT_BITS, dtype=bool)
        mixed_slot[slots[shared]] = True
        at = np.flatnonzero(mixed_slot[slots[order]])
        # a hash's top bits are its slot: sorted by hash, these entries stay in their slots
        order[at] = order[at][np.argsort(hashes[order[at]], kind="stable")]
    return order


def _topics_shared(topics: Ids, order: np.ndarray, keys: np.ndarray, exact: bool) -> Ids:
    """``topics[order]`` (grouped by ``keys``), each group's ids pointing at the bytes of
    the group's first: a matcher finds where topics change by comparing offsets, not
    bytes, which after the sort lie scattered over the pool. Groups of keys that are not
    ``exact`` (hashes) are checked byte for byte; on a collision, plainly
    ``topics[order]``."""
    grouped = keys[order]
    if len(grouped) == 0:
        return cast(Ids, topics[order])
    starts = np.concatenate(([True], grouped[1:] != grouped[:-1]))
    first_row = order[np.flatnonzero(starts)][np.cumsum(starts) - 1]
    if exact:
        return cast(Ids, topics[first_row])
    head_of = np.empty_like(first_row)
    head_of[order] = first_row  # each row's group head, by row in file order
    if not topics.equal(topics[head_of]).all():
        return cast(Ids, topics[order])
    return cast(Ids, topics[first_row])
