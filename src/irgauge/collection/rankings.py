"""The shared ranking builder: runs matched against judgments as padded grade matrices.

Every measure reads a ``RankedLists``: one row per (run, topic), one column per rank,
holding the judged grade of the document there (``UNJUDGED`` or ``PADDING``
otherwise). Derived arrays (gains, relevance, cumulative counts and gains, the ideal
cumulative gain) are computed once per batch and shared by all measures; a cutoff is a
prefix view that reuses them, and the condensed (judged-only) list is built once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from irgauge.io.ids import Ids, byte_ranks
from irgauge.io.keys import exact_pair_keys, hash_strings, pair_keys, unique_names
from irgauge.collection.judgments import PADDING, UNJUDGED, Judgments
from irgauge.io.records import Run
from irgauge.errors import InputError

ORDERS = ("score", "file")


def _shared(value: Any) -> Any:
    """``value`` made read-only where it is an array: every measure of a batch (a
    registered one's code too) reads the same cached arrays, so one that wrote into
    ``ranked.isrel`` changed what every later measure read (AP above 1)."""
    if isinstance(value, np.ndarray):
        value.flags.writeable = False
    return value


class cached:
    """A value computed once per RankedLists and kept in its cache, read-only."""

    def __init__(self, func):
        self.func, self.name = func, func.__name__
        self.__doc__ = func.__doc__

    def __get__(self, obj, owner=None):
        if obj is None:
            return self
        if self.name not in obj._cache:
            obj._cache[self.name] = _shared(self.compute(obj))
        return obj._cache[self.name]

    def compute(self, obj):
        return self.func(obj)


class shared_prefix(cached):
    """A cached per-rank array; a truncated view slices its parent's copy instead of recomputing."""

    def compute(self, obj):
        if obj._parent is not None:
            return getattr(obj._parent, self.name)[:, : obj.width]
        return self.func(obj)


class RankedLists:
    """Graded ranked lists of a batch of (run, topic) rows.

    ``grades[i, r-1]`` is the grade of the document at rank r of row i (>= 0 judged,
    UNJUDGED, or PADDING past the list's end); ``lengths[i]`` the list length;
    ``topic[i]`` the row's topic index in ``judgments``; ``cutoff`` the rank cutoff in
    force (None for the whole list). ``inclusion[i, r-1]``: the probability that the
    document there was sampled for judging (prels; NaN where it is not judged), or None
    when every judgment counts with probability 1 (qrels).
    """

    def __init__(
        self,
        grades: np.ndarray,
        lengths: np.ndarray,
        topic: np.ndarray,
        judgments: Judgments,
        cutoff: Optional[int] = None,
        parent: Optional["RankedLists"] = None,
        condensed: bool = False,
        inclusion: Optional[np.ndarray] = None,
    ):
        self.grades, self.lengths, self.topic = map(_shared, (grades, lengths, topic))
        self.inclusion = _shared(inclusion)
        self.judgments, self.cutoff, self.is_condensed = judgments, cutoff, condensed
        self._parent = parent
        # each @cached value, of its own property's type, and each measure's memo
        self._cache: Dict[str, Any] = {}
        self._memos: Dict[str, np.ndarray] = {}
        # the same lists under other gains or another threshold, by what changed
        self._variants: Dict[Tuple[Any, ...], "RankedLists"] = {}
        self._views: Dict[int, "RankedLists"] = {}

    @property
    def n_rows(self) -> int:
        return self.grades.shape[0]

    @property
    def width(self) -> int:
        return self.grades.shape[1]

    def truncate(self, k: Optional[int]) -> "RankedLists":
        """The lists cut at rank k (a view sharing this batch's cached arrays)."""
        if k is None:
            return self
        if k not in self._views:
            root = self._parent or self
            width = min(k, root.width)
            self._views[k] = RankedLists(
                root.grades[:, :width],
                np.minimum(root.lengths, k),
                self.topic,
                self.judgments,
                cutoff=k,
                parent=root,
                condensed=self.is_condensed,
                inclusion=None if root.inclusion is None else root.inclusion[:, :width],
            )
        return self._views[k]

    def release(self) -> None:
        """Drop every cached array and view. Views point back at their parent, so a batch's
        caches would otherwise wait for the cycle collector; evaluate releases each batch
        as soon as its measures are computed."""
        others = [*self._cache.values(), *self._variants.values(), *self._views.values()]
        for value in others:
            if isinstance(value, RankedLists) and value is not self:
                value.release()
        for cache in (self._cache, self._memos, self._variants, self._views):
            cache.clear()

    def with_gains(self, gains) -> "RankedLists":
        """The same lists under other gains per level."""
        key = ("gains", tuple(gains))
        if key not in self._variants:
            self._variants[key] = RankedLists(
                self.grades,
                self.lengths,
                self.topic,
                self.judgments.with_gains(gains),
                self.cutoff,
                condensed=self.is_condensed,
                inclusion=self.inclusion,
            )
        return self._variants[key]

    def with_trec_gains(self, pairs, rbp: bool = False) -> "RankedLists":
        """The same lists under trec_eval's gain table for ``level=gain`` pairs
        (``Judgments.with_trec_gains``)."""
        key = ("trec_gains", tuple(pairs), rbp)
        if key not in self._variants:
            self._variants[key] = RankedLists(
                self.grades,
                self.lengths,
                self.topic,
                self.judgments.with_trec_gains(pairs, rbp),
                self.cutoff,
                condensed=self.is_condensed,
                inclusion=self.inclusion,
            )
        return self._variants[key]

    def at_rel_level(self, rel_level: int) -> "RankedLists":
        """The same lists under another relevance threshold (same gains per level)."""
        if rel_level == self.judgments.rel_level:
            return self
        key = ("rel_level", rel_level)
        if key not in self._variants:
            self._variants[key] = RankedLists(
                self.grades,
                self.lengths,
                self.topic,
                self.judgments.with_rel_level(rel_level),
                self.cutoff,
                condensed=self.is_condensed,
                inclusion=self.inclusion,
            )
        return self._variants[key]

    def memo(self, key: str, compute) -> np.ndarray:
        """A per-rank array derived by a measure (e.g. the blended ratio for one beta),
        computed once on the whole lists and sliced for cutoff views."""
        if key not in self._memos:
            if self._parent is not None:
                self._memos[key] = self._parent.memo(key, compute)[:, : self.width]
            else:
                self._memos[key] = _shared(compute(self))
        return self._memos[key]

    @cached
    def condensed(self) -> "RankedLists":
        """The lists with every unjudged document removed (Sakai's condensed lists)."""
        if self.is_condensed:
            return self
        rows, cols, at, _ = cells(self.grades >= 0)
        lengths = np.bincount(rows, minlength=self.n_rows)
        width = max(int(lengths.max()) if len(lengths) else 0, 1)
        grades = np.full((self.n_rows, width), PADDING, dtype=self.grades.dtype)
        grades[rows, at] = self.grades[rows, cols]
        inclusion = None
        if self.inclusion is not None:
            inclusion = np.full(grades.shape, np.nan)
            inclusion[rows, at] = self.inclusion[rows, cols]
        return RankedLists(
            grades, lengths, self.topic, self.judgments, condensed=True, inclusion=inclusion
        )

    # per-rank arrays -----------------------------------------------------------------
    @shared_prefix
    def gain(self) -> np.ndarray:
        """g(r): gain of the document at rank r (0 if not relevant)."""
        return self.judgments.gain_of(self.grades, self.topic)

    @shared_prefix
    def isrel(self) -> np.ndarray:
        """isrel(r): 1 where the document at rank r is relevant (level >= threshold)."""
        return self.judgments.relevant_grades(self.grades)

    @shared_prefix
    def judged(self) -> np.ndarray:
        return self.grades >= 0

    @shared_prefix
    def weight(self) -> np.ndarray:
        """w(r) = 1/pi(r), the Horvitz-Thompson weight of the judged document at rank r
        (pi: its inclusion probability, 1 for qrels); 0 where no judged document is."""
        if self.inclusion is None:
            return self.judged.astype(np.float64)
        return np.where(self.judged, 1.0 / np.where(self.judged, self.inclusion, 1.0), 0.0)

    @shared_prefix
    def count(self) -> np.ndarray:
        """count(r) = number of relevant documents in ranks 1..r."""
        return np.cumsum(self.isrel, axis=1, dtype=np.int64)

    @shared_prefix
    def cg(self) -> np.ndarray:
        """cg(r) = cumulative gain over ranks 1..r."""
        return np.cumsum(self.gain, axis=1)

    @shared_prefix
    def ideal_gain(self) -> np.ndarray:
        """g_I(r): gain at rank r of the ideal list (relevant documents, highest gain first)."""
        # rows first: padding the whole table (every qrels topic) to the batch's width
        # cost a topics x width matrix per batch (80 MB for 100,000 topics x 100 ranks)
        return _pad_columns(self.judgments.ideal_gain[self.topic, : self.width], self.width, 0.0)

    @shared_prefix
    def ideal_cg(self) -> np.ndarray:
        """cg_I(r); constant at cg_I(R) beyond R."""
        return np.cumsum(self.ideal_gain, axis=1)

    @property
    def ranks(self) -> np.ndarray:
        """1..width as floats, broadcastable against the per-rank arrays."""
        return np.arange(1, self.width + 1, dtype=np.float64)

    # per-row values --------------------------------------------------------------------
    @cached
    def R(self) -> np.ndarray:
        """Relevant documents of each row's topic."""
        return self.judgments.R[self.topic]

    @cached
    def N(self) -> np.ndarray:
        """Judged nonrelevant documents of each row's topic."""
        return self.judgments.N[self.topic]

    @cached
    def n_rel_ret(self) -> np.ndarray:
        return self.at_rank(self.count, self.lengths).astype(np.float64)

    @cached
    def judged_rel_ret(self) -> np.ndarray:
        """Judged relevant documents retrieved: trec_eval's num_rel_ret (form_res_rels.c),
        which is n_rel_ret unless a threshold below 0 counts others in the ranking."""
        if self.judgments.rel_level >= 0:
            return self.n_rel_ret
        return self.n_rel_ret - self.unjudged_rel_ret

    @property
    def set_rel_ret(self) -> np.ndarray:
        """Relevant retrieved as the set measures read it: trec_eval's num_rel_ret (judged
        relevant only) over the whole ranking, the ranking's count within a cutoff (its
        P_k, recall_k and relative_P_k count what -l counts)."""
        return self.judged_rel_ret if self.cutoff is None else self.n_rel_ret

    @cached
    def unjudged_rel_ret(self) -> np.ndarray:
        """Relevant documents retrieved that are not judged (0 unless the threshold is
        below 0): how far trec_eval's walks from num_rel_ret lag the ranking's count."""
        if self.judgments.rel_level >= 0:
            return np.zeros(self.n_rows)
        unjudged = self.isrel & (self.grades < 0)
        return self.at_rank(np.cumsum(unjudged, axis=1), self.lengths).astype(np.float64)

    @cached
    def first_rel_rank(self) -> np.ndarray:
        """r1: rank of the first relevant document (0 when none is retrieved)."""
        found = self.isrel.any(axis=1)
        return np.where(found, np.argmax(self.isrel, axis=1) + 1, 0)

    def at_rank(self, cumulative: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """cumulative[i, ranks[i]] (1-based); ranks past the list read its end, rank 0 gives 0."""
        ranks = np.asarray(ranks)
        idx = np.clip(ranks, 1, self.width) - 1
        values = np.take_along_axis(cumulative, idx.reshape(-1, 1).astype(np.intp), axis=1)[:, 0]
        return np.where(ranks > 0, values, 0)


def cells(mask: np.ndarray) -> Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """The True cells of a rows x ranks ``mask`` in rank order: (row, column, place of
    the cell among its row's cells (0 first), index of each row's first cell). A measure
    that adds terms at a few ranks (the relevant ones) computes them there alone
    (:func:`irgauge.measures.base.rank_sum_cells` adds them), not over every rank of the
    padded lists."""
    width = mask.shape[1]
    # flat indices then one division: np.nonzero of a 2-d mask costs twice as much
    rows, cols = np.divmod(np.flatnonzero(mask), max(width, 1))
    first = np.searchsorted(rows, np.arange(mask.shape[0]))
    return rows, cols, np.arange(len(rows)) - first[rows], first


def _pad_columns(matrix: np.ndarray, width: int, fill: float) -> np.ndarray:
    if matrix.shape[1] >= width:
        return matrix[:, :width]
    pad = np.full((matrix.shape[0], width - matrix.shape[1]), fill, dtype=matrix.dtype)
    return np.hstack([matrix, pad])


@dataclass
class MatchedRun:
    """One run's documents in evaluation order, matched against the judgments."""

    name: str
    row_topic: np.ndarray  # topic index of each row (one row per topic answered)
    row_start: np.ndarray  # offset of each row in ``grades``
    row_length: np.ndarray
    grades: np.ndarray  # flat, in ranked order
    unknown_topics: List[str]  # run topics absent from the qrels
    order: str
    repeated: Optional["RepeatedDocs"] = None  # match_run(duplicates="record") only
    inclusion: Optional[np.ndarray] = None  # flat as ``grades``; prels only


@dataclass(frozen=True)
class RepeatedDocs:
    """The topics of a run whose documents kept (after ``max_docs``) hold a docno twice,
    one entry each: the topic's index in the judgments, the docno repeated that is first
    in byte order (the one trec_eval names) and the file lines of its first two copies."""

    topics: List[int]
    docnos: List[bytes]
    first_lines: List[int]
    lines: List[int]


def match_run(
    run: Run,
    judgments: Judgments,
    order: Optional[str] = None,
    max_docs: Optional[int] = None,
    duplicates: str = "refuse",
) -> MatchedRun:
    """Order a run's documents per topic and look up their grades.

    ``order="score"``: score descending, ties by docno descending (trec_eval);
    ``order="file"``: the order of the file (NTCIREVAL). None: the run's natural order.
    ``max_docs``: keep only the first N documents of each topic in that order
    (trec_eval's -M); every measure then sees the shortened lists.
    ``duplicates``: a document retrieved twice for a judged topic is refused at FILE:LINE
    (``"refuse"``), or ``"record"``: scored as it comes and, where both copies are among
    the documents kept, listed in ``MatchedRun.repeated`` (trec_eval 10.0 stops at such a
    topic when it evaluates it, and sees nothing beyond -M).
    """
    if duplicates not in ("refuse", "record"):
        raise ValueError(f"duplicates must be 'refuse' or 'record', not {duplicates!r}")
    if max_docs is not None and max_docs < 1:
        raise InputError(f"max_docs must be >= 1, got {max_docs}")
    order = resolve_order(run, order)
    codes = judgments.topic_codes(run.topics)
    docnos, scores = run.docnos, run.scores
    known = None
    if (codes < 0).any():  # rows of topics absent from the qrels are reported, not scored
        unknown = unique_names(run.topics[codes < 0])[0]
        known = np.flatnonzero(codes >= 0)
        codes, docnos = codes[known], docnos[known]
        scores = scores[known] if scores is not None else None
    else:
        unknown = []
    keys = judgments.run_keys(codes, docnos)
    if duplicates == "refuse":
        _reject_duplicates(run, known, keys, codes, docnos)
    codes, sequence = _evaluation_order(codes, scores, docnos, order, max_docs)
    if sequence is not None:  # the file was not in evaluation order
        docnos, keys = docnos[sequence], keys[sequence]
    repeated = None
    if duplicates == "record":
        repeated = _repeated_docs(run, (known, sequence), keys, codes, docnos)
    grades = judgments.grades_of(codes, docnos, keys)
    inclusion = judgments.inclusion_of(codes, docnos, keys)
    heads = (
        np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        if len(codes)
        else np.zeros(0, dtype=np.intp)
    )
    lengths = np.diff(np.append(heads, len(codes)))
    return MatchedRun(
        run.name, codes[heads], heads, lengths, grades, unknown, order, repeated, inclusion
    )


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


def ranked_prefix(run: Run, codes: np.ndarray, order: str, depth: Optional[int]):
    """The documents of ``run`` whose topic ``codes`` are >= 0, each topic's first
    ``depth`` in evaluation order (as match_run orders them): (topic codes, row of
    ``run`` of each document, rank 1.. within its topic)."""
    rows = np.flatnonzero(codes >= 0)
    codes = codes[rows]
    scores = run.scores[rows] if run.scores is not None else None
    codes, sequence = _evaluation_order(codes, scores, run.docnos[rows], order, depth)
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
    order = order or run.natural_order
    if order not in ORDERS:
        raise InputError(f"unknown document order {order!r}; choose from {', '.join(ORDERS)}")
    if order == "score" and run.scores is None:
        raise InputError(
            "--order score needs scores, but this run is a ranked list without them", run.source
        )
    names, codes = unique_names(run.topics)
    codes, sequence = _evaluation_order(np.asarray(codes), run.scores, run.docnos, order, None)
    docnos = run.docnos if sequence is None else run.docnos[sequence]
    heads = np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
    lengths = np.diff(np.append(heads, len(codes)))
    position = np.arange(len(codes)) - np.repeat(heads, lengths)
    return OrderedDocuments(list(names), codes, position, docnos)


def _copies(keys: np.ndarray, lines: np.ndarray):
    """Index pairs (earlier, later) of documents with equal keys, in file order."""
    order = np.lexsort((lines, keys))  # copies of a document next to each other
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    return order[same], order[same + 1]


def _repeated_pairs(keys: np.ndarray, lines: np.ndarray, codes, docnos):
    """Index pairs (earlier, later by ``lines``) of the copies of a document: the same
    topic and docno. Keys hashing two documents alike are replaced by exact ones."""
    first, second = _copies(keys, lines)
    if not ((docnos[first] == docnos[second]) & (codes[first] == codes[second])).all():
        # a hash collision between documents (vanishingly rare): exact keys instead
        first, second = _copies(exact_pair_keys([codes], [docnos])[0], lines)
    return first, second


def _evaluation_order(codes, scores, docnos, order: str, max_docs: Optional[int]):
    """The documents in evaluation order, each topic's first ``max_docs``: their topic
    codes, and their positions in ``codes`` (None: all of them, in the order given)."""
    if order == "score":
        sequence = _score_order(codes, scores, docnos)
    else:
        sequence = None if _grouped(codes) else np.argsort(codes, kind="stable")
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


def _repeated_docs(run: Run, taken, keys, codes, docnos) -> Optional[RepeatedDocs]:
    """The topics whose documents (their keys, topic codes and docnos) hold a docno twice,
    or None (the usual case). ``taken``: (the rows of ``run`` matched, None for all; the
    documents' positions among them, None for all, in that order)."""
    if not _any_repeated(keys, codes):
        return None
    known, sequence = taken
    entries = np.arange(len(codes)) if sequence is None else sequence
    entries = entries if known is None else known[entries]  # each document's row of run
    lines = entries + 1 if run.line_numbers is None else run.line_numbers[entries]
    first, second = _repeated_pairs(keys, lines, codes, docnos)
    if not len(second):
        return None
    # per topic: the docno first in byte order, its first two copies
    pick = np.lexsort((lines[second], byte_ranks(docnos[second]), codes[second]))
    first, second = first[pick], second[pick]
    heads = np.flatnonzero(np.concatenate(([True], codes[second][1:] != codes[second][:-1])))
    first, second = first[heads], second[heads]
    return RepeatedDocs(
        codes[second].tolist(),
        docnos[second].tolist(),
        lines[first].tolist(),
        lines[second].tolist(),
    )


def _grouped(codes: np.ndarray) -> bool:
    """Whether each topic's lines are contiguous (the usual layout of run files)."""
    if len(codes) == 0:
        return True
    heads = codes[np.concatenate(([True], codes[1:] != codes[:-1]))]
    return np.bincount(heads).max() == 1


def _score_order(codes: np.ndarray, scores: np.ndarray, docnos: np.ndarray):
    """Topic, then score descending, then docno descending (trec_eval's order).

    Returns the permutation, or None when the file is in that order already (usual).
    """
    new_topic = codes[1:] != codes[:-1]
    if _grouped(codes) and np.all(new_topic | (scores[1:] <= scores[:-1])):
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


def _any_repeated(keys: np.ndarray, codes: np.ndarray, chunk: int = 1 << 16) -> bool:
    """Whether any key repeats, by a fast sort of the integer keys. A repeat lies within a
    topic, so when each topic's rows are contiguous they are sorted in chunks that end at
    a topic boundary: small temporaries, sorted in cache (5M keys: 0.10 s in chunks of
    2^20, 0.06 s in chunks of 2^16)."""
    if not _grouped(codes):
        ordered = np.sort(keys)
        return bool((ordered[1:] == ordered[:-1]).any())
    boundaries = np.append(np.flatnonzero(codes[1:] != codes[:-1]) + 1, len(keys))
    begin = 0
    while begin < len(keys):
        at = int(np.searchsorted(boundaries, begin + chunk))
        end = int(boundaries[min(at, len(boundaries) - 1)])
        ordered = np.sort(keys[begin:end])
        if (ordered[1:] == ordered[:-1]).any():
            return True
        begin = end
    return False


class RetrievedTwice(InputError):
    """A document retrieved twice for a topic: an error of the run as a whole, which a run
    read in parts tells only once every part is matched (see run_scoring)."""


def refuse_repeated_documents(run: Run, codes: np.ndarray, n_topics: int) -> None:
    """RetrievedTwice at the first second copy of a document ``run`` retrieves twice for a
    topic (``codes``: each entry's topic index, < 0 for topics left out), as
    :func:`match_run` refuses it: a pool or a reduction built from a run takes it as
    trec_eval's evaluation does, so that a run the evaluation refuses is refused there
    too rather than pooled with its second copy filling a place of the depth."""
    kept = np.flatnonzero(codes >= 0)
    rows = None if len(kept) == len(codes) else kept
    codes = codes if rows is None else codes[kept]
    docnos = run.docnos if rows is None else run.docnos[kept]
    keys = pair_keys(codes, hash_strings(docnos), n_topics)
    _reject_duplicates(run, rows, keys, codes, docnos)


def _reject_duplicates(
    run: Run, rows: Optional[np.ndarray], keys: np.ndarray, codes, docnos
) -> None:
    """RetrievedTwice naming the copy that comes first in the file among the documents'
    second (and later) copies, and the copy before it: the same line whatever the order
    of the entries (a part regrouped by topic and sorted by score has them out of file
    order). ``rows``: the entries of ``run`` that ``keys`` are of (None: all)."""
    if not _any_repeated(keys, codes):
        return  # the usual case
    entries = np.arange(len(keys)) if rows is None else rows
    lines = entries + 1 if run.line_numbers is None else run.line_numbers[entries]
    first, second = _repeated_pairs(keys, lines, codes, docnos)
    if not len(second):
        return  # hash collisions between different documents
    i = np.argmin(lines[second])
    later, earlier = entries[second[i]], entries[first[i]]
    raise RetrievedTwice(
        f"document {docnos[second[i]].decode(errors='backslashreplace')!r} is retrieved twice "
        f"for topic {run.topics[later].decode(errors='backslashreplace')!r} "
        f"(also on {run.position_unit} {run.line_of(earlier)}); "
        "trec_eval rejects such runs too",
        run.source,
        run.line_of(later),
        run.position_unit,
    )


def build_batches(
    runs: List[MatchedRun],
    row_topics: List[np.ndarray],
    judgments: Judgments,
    max_cells: int = 4_000_000,
) -> Iterator[Tuple[np.ndarray, np.ndarray, RankedLists]]:
    """Padded RankedLists for the chosen rows of every run, in batches of bounded size.

    ``row_topics[k]`` lists the topics to evaluate for run k, in output order; a topic
    the run did not answer becomes an empty list (it scores 0). Returns
    (run index, topic index, RankedLists) per batch, one batch at a time, so that only
    one batch's cached arrays are alive.
    """
    parts: Tuple[List[np.ndarray], ...] = ([], [], [], [])  # run, topic, row start, length
    for k, (matched, topics) in enumerate(zip(runs, row_topics)):
        pos = np.full(judgments.n_topics, -1, dtype=np.int64)
        pos[matched.row_topic] = np.arange(len(matched.row_topic))
        where = pos[topics]  # -1 for a topic the run did not answer: the appended 0 below
        parts[0].append(np.full(len(topics), k))
        parts[1].append(topics)
        parts[2].append(np.append(matched.row_start, 0)[where])
        parts[3].append(np.append(matched.row_length, 0)[where])
    run_idx, topic_idx, src_start, src_len = (np.concatenate(p) for p in parts)

    # batches of whole rows, sized so that no padded matrix exceeds max_cells
    longest = max(int(src_len.max()) if len(src_len) else 0, 1)
    per_batch = max(1, max_cells // longest)
    for begin in range(0, len(run_idx), per_batch):
        rows = slice(begin, begin + per_batch)
        width = max(int(src_len[rows].max()), 1)
        picked = (run_idx[rows], src_start[rows], src_len[rows], width)
        grades = _fill(runs, "grades", picked, PADDING)
        inclusion = None
        if judgments.inclusion is not None:
            inclusion = _fill(runs, "inclusion", picked, np.nan)
        yield (
            run_idx[rows],
            topic_idx[rows],
            RankedLists(grades, src_len[rows], topic_idx[rows], judgments, inclusion=inclusion),
        )


def _fill(runs, field: str, picked, fill) -> np.ndarray:
    """The padded matrix of each run's flat ``field`` (grades, inclusion) for the rows
    ``picked`` = (run index, start, length of each row; width), ``fill`` past each list's
    end."""
    run_idx, starts, lengths, width = picked
    # the runs in this batch, by a count: np.unique's first call imports numpy.ma (10-25 ms
    # of every process's start)
    present = np.flatnonzero(np.bincount(run_idx, minlength=len(runs)))
    flats = {k: getattr(runs[k], field) for k in present}
    if field == "grades":
        dtype = np.result_type(np.int16, *(flats[k].dtype for k in present))
    else:
        dtype = np.dtype(np.float64)
    out = np.full((len(run_idx), width), fill, dtype=dtype)
    for k in present:  # one vectorised scatter per run
        rows = np.flatnonzero(run_idx == k)
        total = int(lengths[rows].sum())
        if total == 0:  # (a run that answers no topic has no flat arrays to read)
            continue
        row_of = np.repeat(rows, lengths[rows])
        offset = np.arange(total) - np.repeat(
            np.cumsum(lengths[rows]) - lengths[rows], lengths[rows]
        )
        out[row_of, offset] = flats[k][np.repeat(starts[rows], lengths[rows]) + offset]
    return out


__all__ = [
    "RankedLists",
    "cells",
    "MatchedRun",
    "match_run",
    "ranked_prefix",
    "resolve_order",
    "build_batches",
    "ORDERS",
    "UNJUDGED",
]
