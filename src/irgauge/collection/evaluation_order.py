"""The order a run's documents are evaluated in: score descending, ties by docno
descending (trec_eval), or the file's order (NTCIREVAL); each topic's documents together.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np

from irgauge.errors import InputError
from irgauge.io.ids import Ids, byte_ranks
from irgauge.io.keys import unique_names
from irgauge.io.records import Run

ORDERS = ("score", "file")


def resolve_order(run: Run, order: Optional[str]) -> str:
    """The document order to evaluate ``run`` in: ``order``, or the run's natural one;
    refused when unknown, or "score" for a run without scores."""
    order = order or run.natural_order
    if order not in ORDERS:
        raise InputError(f"unknown document order {order!r}; choose from {', '.join(ORDERS)}")
    if order == "score" and run.scores is None:
        raise InputError(
            "--order score needs scores, but this run is a ranked list without them", run.source
        )
    return order


def ranked_prefix(
    run: Run, codes: np.ndarray, order: str, depth: Optional[int]
) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The documents of ``run`` whose topic ``codes`` are >= 0, each topic's first
    ``depth`` in evaluation order (as match_run orders them): (topic codes, row of
    ``run`` of each document, rank 1.. within its topic)."""
    rows = np.flatnonzero(codes >= 0)
    codes = codes[rows]
    scores = run.scores[rows] if run.scores is not None else None
    codes, sequence = in_evaluation_order(codes, scores, run.docnos[rows], order, depth)
    if sequence is not None:
        rows = rows[sequence]
    heads = (
        np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        if len(codes)
        else rows[:0]
    )
    rank = np.arange(1, len(codes) + 1) - np.repeat(heads, np.diff(np.append(heads, len(codes))))
    return codes, rows, rank


@dataclass(frozen=True)
class OrderedDocuments:
    """One run's documents in evaluation order, grouped by topic: ``topics`` the topic
    names, ``topic[i]`` the index in ``topics`` of document i, ``position[i]`` its rank - 1
    within its topic and ``docnos`` the documents (Ids)."""

    topics: List[str]
    topic: np.ndarray
    position: np.ndarray
    docnos: Ids


def ordered_documents(run: Run, order: Optional[str] = None) -> OrderedDocuments:
    """The documents of ``run`` in the order every measure sees them (:func:`match_run`'s
    evaluation order: score descending, ties by docno descending, as trec_eval; or the
    file's order), for statistics that compare the document lists of two runs."""
    order = resolve_order(run, order)
    names, codes = unique_names(run.topics)
    codes, sequence = in_evaluation_order(np.asarray(codes), run.scores, run.docnos, order, None)
    docnos = run.docnos if sequence is None else run.docnos[sequence]
    heads = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    lengths = np.diff(np.append(heads, len(codes)))
    position = np.arange(len(codes)) - np.repeat(heads, lengths)
    return OrderedDocuments(list(names), codes, position, docnos)


def in_evaluation_order(
    codes: np.ndarray,
    scores: Optional[np.ndarray],
    docnos: Any,
    order: str,
    max_docs: Optional[int],
) -> Tuple[np.ndarray, Optional[np.ndarray]]:
    """The documents in evaluation order, each topic's first ``max_docs``: their topic
    codes, and their positions in ``codes`` (None: all of them, in the order given)."""
    sequence: Optional[np.ndarray]
    if order == "score":
        assert scores is not None  # (resolve_order refuses "score" for a run without)
        sequence = _score_order(codes, scores, docnos)
    else:
        sequence = None if topics_grouped(codes) else np.argsort(codes, kind="stable")
    if max_docs is not None and len(codes):
        if sequence is None:
            sequence = np.arange(len(codes))
        codes = codes[sequence]
        # position of each document within its topic, after ordering
        starts = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        position = np.arange(len(codes)) - np.repeat(starts, np.diff(np.append(starts, len(codes))))
        keep = position < max_docs
        codes, sequence = codes[keep], sequence[keep]
    elif sequence is not None:
        codes = codes[sequence]
    return codes, sequence


def topics_grouped(codes: np.ndarray) -> bool:
    """Whether each topic's lines are contiguous (the usual layout of run files)."""
    if len(codes) == 0:
        return True
    heads = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]
    return bool(np.bincount(heads).max() == 1)


def _score_order(codes: np.ndarray, scores: np.ndarray, docnos: Any) -> Optional[np.ndarray]:
    """Topic, then score descending, then docno descending (trec_eval's order).

    Returns the permutation, or None when the file is in that order already (usual).
    """
    new_topic = codes[1:] != codes[:-1]
    if topics_grouped(codes) and np.all(new_topic | (scores[1:] <= scores[:-1])):
        sequence = None
        sc, ss = codes, scores
    else:
        sequence = np.lexsort((-scores, codes))
        sc, ss = codes[sequence], scores[sequence]
    tie = (sc[1:] == sc[:-1]) & (ss[1:] == ss[:-1])
    if tie.any():  # only tied documents need the (slower) string comparison
        if sequence is None:
            sequence = np.arange(len(codes))
        in_tie = np.zeros(len(sequence), dtype=bool)
        in_tie[1:] |= tie
        in_tie[:-1] |= tie
        group = np.cumsum(np.concatenate(([True], ~tie)))
        idx = np.flatnonzero(in_tie)
        doc_rank = byte_ranks(docnos[sequence[idx]])  # byte order, as trec_eval's strcmp
        top = int(doc_rank.max())
        if len(idx) * (top + 1) < (1 << 62):
            # (tie group, docno descending) as one integer key; two entries share it only
            # as copies of one document with one score (kept by match_run's "record"),
            # which are alike, so any sort will do
            within = np.argsort(group[idx] * (top + 1) + (top - doc_rank))
        else:
            within = np.lexsort((-doc_rank, group[idx]))
        sequence[idx] = sequence[idx][within]
    return sequence
