"""The shared ranking builder: runs matched against judgments as padded grade matrices.

Every measure reads a ``RankedLists``: one row per (run, topic), one column per rank,
holding the judged grade of the document there (``UNJUDGED`` or ``PADDING``
otherwise). Derived arrays (gains, relevance, cumulative counts and gains, the ideal
cumulative gain) are computed once per batch and shared by all measures; a cutoff is a
prefix view that reuses them, and the condensed (judged-only) list is built once.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Dict, Iterator, List, Optional, Tuple

import numpy as np

from irgauge.collection.judgments import PADDING, UNJUDGED, Judgments

if TYPE_CHECKING:  # (the measures read ranked lists without loading the matcher)
    from irgauge.collection.run_matching import MatchedRun


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


__all__ = ["RankedLists", "cells", "build_batches", "UNJUDGED"]
