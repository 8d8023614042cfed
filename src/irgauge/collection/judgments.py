"""Judgments: qrels as per-topic arrays under explicit conventions (relevance threshold,
gains), able to find the grade of any retrieved document."""

from __future__ import annotations

import copy
from numbers import Real
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np

from irgauge import _checks
from irgauge._checks import GAIN_MAX
from irgauge.errors import InputError
from irgauge.io.ids import _MULT
from irgauge.io.keys import exact_pair_keys, hash_strings, pair_keys
from irgauge.io.records import Qrels
from irgauge.collection.strata import Strata
from irgauge.collection.trec_gains import UNJUDGED_IN_POOL, TrecGainTable

LOOKUP_CHUNK = 1 << 18  # look up 262,144 keys at a time: small temporaries
UNJUDGED = -1
PADDING = -2
POOLED = -3  # in the qrels with a negative level, read as "pooled but unjudged" (trec_eval)
NEGATIVE_LEVELS = ("nonrelevant", "unjudged")
TREC_LOWEST_LEVEL = -2  # trec_eval's -l below this reads its rankings as -l -2 does
GAIN_LIST_LEVELS = 64  # metadata spells the gains out level by level up to this level


def _read_only(*arrays: Any) -> None:
    """The judgments' derived arrays made read-only: every batch of every run reads them
    (a registered measure's code too), as a batch's own arrays (``collection.rankings``)."""
    for array in arrays:
        if isinstance(array, np.ndarray):
            array.flags.writeable = False


def parse_gains(text: Union[None, str, Sequence[float]]) -> Optional[List[float]]:
    """``"1:2:3"`` -> gains for levels 1, 2, 3 (NTCIREVAL's ``-g`` order). A sequence of
    numbers (the Python API; a bare number is the gain of level 1) is checked number by
    number: a mapping or a bool is refused, where its text once passed for gains."""
    if text is None:
        return None
    if isinstance(text, str) and not text.strip():  # as every list: empty is not the default
        raise InputError(f"no gains given; got {text!r} (leave gains out for the default)")
    if isinstance(text, str):
        try:
            if not _checks.plain_number_text(text):  # 0_5 (5.0 to float()), full-width digits
                raise ValueError(text)
            gains = [float(part) for part in text.split(":")]
        except ValueError:
            raise InputError(
                f"gains {text!r} must be numbers separated by ':' (levels 1, 2, ...)"
            ) from None
    else:
        gains = _checks.sequence(
            text, "gains", _gain_number, what="a gain per level 1, 2, ... (a list of numbers)"
        )
        text = ":".join(f"{g:g}" for g in gains)  # the range is refused as the text would be
    if any(not 0 <= g <= GAIN_MAX for g in gains):  # NaN fails too
        raise InputError(
            f"gains {text!r} must lie in [0, {GAIN_MAX:g}] (2^gain of the "
            "exponential forms must stay finite)"
        )
    return gains


def _gain_number(value, name: str) -> float:
    """One gain's type (the range, NaN included, is refused below as the text would be)."""
    if isinstance(value, (bool, str, bytes)) or not isinstance(value, Real):
        raise InputError(f"{name}: expected a number; got {value!r}")
    return float(value)


@dataclass(eq=False)
class Judgments:
    """Per-topic judgment arrays under a relevance threshold and a gain per level.

    A document is relevant when its level >= ``rel_level``; relevant documents get
    ``gain(level)`` (default: the level itself), all others gain 0. A negative level
    means judged nonrelevant (``negative="nonrelevant"``, Sakai's reading) or, as
    trec_eval reads it, in the pool but unjudged (``negative="unjudged"``): such a
    document is then neither in R nor in N and scores as unjudged (POOLED). ``rel_level``
    0 makes every judged document relevant (trec_eval -l 0): N is 0, and level 0 keeps
    gain 0. Below 0, as trec_eval's -l reads its rankings (form_res_rels.c gives a
    document outside the qrels level -1, one judged with a negative level -2, and its
    measures compare those with -l): R, N, gains and the judged relevant documents are
    those of -l 0, and a ranking's relevant documents (``relevant_grades``) also count
    those outside the qrels (-1), and below it the pooled ones (-2, the lowest level).
    """

    qrels: Qrels
    rel_level: int = 1
    gains: Optional[Sequence[float]] = None
    negative: str = "nonrelevant"
    topic_ids: List[str] = field(init=False)

    def __post_init__(self) -> None:
        if self.rel_level < TREC_LOWEST_LEVEL:
            raise InputError(
                f"relevance level threshold must be >= {TREC_LOWEST_LEVEL}, got {self.rel_level}"
            )
        if self.negative not in NEGATIVE_LEVELS:
            raise InputError(
                f"negative levels must mean one of {', '.join(NEGATIVE_LEVELS)}; "
                f"got {self.negative!r}"
            )
        self.source_qrels = q = self.qrels
        self.trec_gains: Optional[TrecGainTable] = None
        self.index = q.topic_index
        self.topic_ids = q.topic_ids  # every topic of the file, even one only pooled
        self.topic = self.index.codes
        self._pooled_keys = np.zeros(0, dtype=np.int64)
        # prels: the inclusion probability of each pooled-but-unsampled document, in the
        # order of _pooled_keys: it names the document's stratum (infAP's sample)
        self._pooled_inclusion: Optional[np.ndarray] = None
        self._pooled_topic = np.zeros(0, dtype=self.topic.dtype)
        if self.negative == "unjudged" and (q.levels < 0).any():
            pooled = q.levels < 0
            keys = pair_keys(
                self.topic[pooled], hash_strings(q.docnos[pooled]), len(self.topic_ids)
            )
            order = np.argsort(keys, kind="stable")
            self._pooled_keys = keys[order]
            self._pooled_topic = self.topic[pooled][order]
            if q.inclusion is not None:
                self._pooled_inclusion = q.inclusion[pooled][order]
            lines = q.line_numbers[~pooled] if q.line_numbers is not None else None
            inclusion = q.inclusion[~pooled] if q.inclusion is not None else None
            self.qrels = q = Qrels(
                q.topics[~pooled],
                q.docnos[~pooled],
                q.levels[~pooled],
                q.source,
                q.fmt,
                lines,
                inclusion,
            )
            self.topic = self.topic[~pooled]
        # each judgment's probability of having been sampled (prels); None: all judged
        self.inclusion = q.inclusion
        levels = np.maximum(q.levels, 0)
        # int16 halves the padded grade matrices; levels beyond it (a QA level L40000) widen
        self.grade = levels.astype(np.int16 if levels.max(initial=0) < 2**15 else np.int32)
        self.max_level = int(self.grade.max()) if len(self.grade) else 0
        n_topics = len(self.topic_ids)
        self.relevant = self.grade >= self.rel_level
        self.R = np.bincount(self.topic, weights=self.relevant, minlength=n_topics).astype(np.int64)
        self.N = np.bincount(self.topic, weights=~self.relevant, minlength=n_topics).astype(
            np.int64
        )
        # highest relevant level per topic (0: none); per-level tables would cost
        # topics x levels, unbounded for QA levels such as L40000
        self.topic_max_grade = np.zeros(n_topics, dtype=self.grade.dtype)
        np.maximum.at(self.topic_max_grade, self.topic[self.relevant], self.grade[self.relevant])
        self._apply_gains()
        self._set_keys(pair_keys(self.topic, hash_strings(q.docnos), len(self.topic_ids)))
        _read_only(self.topic, self.grade, self.relevant, self.R, self.N, self.topic_max_grade)

    def _apply_gains(self) -> None:
        self._memo: Dict[object, np.ndarray] = {}
        if self.trec_gains is not None:
            self.gain_table = None
            self.ideal_gain = self._trec_ideal_gains(self.trec_gains)
            with np.errstate(over="ignore"):  # gains of any double: an inf, as trec_eval's
                self.ideal_total = self.ideal_gain.sum(axis=1)
            self.max_gain = float(self.ideal_gain.max(initial=0.0))
            _read_only(self.ideal_gain, self.ideal_total)
            return
        self.gain_table = self._gain_table()
        if self.gain_table is not None:
            self.max_gain = float(self.gain_table.max())
        else:  # gain = level from the threshold up
            self.max_gain = float(self.max_level) if self.max_level >= self.rel_level else 0.0
        if self.gains:  # NTCIREVAL's gv[maxrl]: the top listed gain, even for a level unused
            self.max_gain = max(self.max_gain, float(max(self.gains)))
        self.ideal_gain = self._ideal_gains(self.relevant)
        self.ideal_total = self.ideal_gain.sum(axis=1)
        _read_only(self.ideal_gain, self.ideal_total, self.gain_table)

    def with_gains(self, gains: Sequence[float]) -> "Judgments":
        """The same judgments under other gains (threshold and documents unchanged)."""
        other = copy.copy(self)
        other.gains = list(gains)
        other.trec_gains = None
        other._apply_gains()
        return other

    def with_trec_gains(self, pairs: Sequence[Tuple[int, float]], rbp: bool = False) -> "Judgments":
        """The same judgments under trec_eval's gain table for ``level=gain`` pairs
        (collection/trec_gains.py): any level, a negative one included (-1: documents
        outside the qrels, -2: those judged with a negative level), any gain; the ideal
        ranking and each document's gain as trec_eval 10.0 computes them, whatever the
        relevance threshold (``rbp``: brought into [0, 1] as trec_eval's rbp does)."""
        key = ("trec_gains", tuple(pairs), rbp)

        def build() -> "Judgments":
            other = copy.copy(self)
            other.trec_gains = TrecGainTable(pairs, rbp)
            other._apply_gains()
            return other

        return self.memo(key, build)

    def with_rel_level(self, rel_level: int) -> "Judgments":
        """The same judgments and gains under another relevance threshold (computed once).

        trec_eval's graded measures (ndcg, G, rbp) give every level its gain whatever
        -l says; they read the lists through ``with_rel_level(1)``.
        """
        if rel_level == self.rel_level:
            return self
        return self.memo(
            ("rel_level", rel_level),
            lambda: type(self)(
                self.source_qrels, rel_level=rel_level, gains=self.gains, negative=self.negative
            ),
        )

    def memo(self, key: object, compute: Callable[[], Any]) -> Any:
        """Per-topic arrays derived from the judgments, computed once per key."""
        if key not in self._memo:
            self._memo[key] = compute()
            _read_only(self._memo[key])
        return self._memo[key]

    @property
    def estimated_R(self) -> np.ndarray:
        """R^ = sum over the judged relevant documents of 1/pi (Horvitz-Thompson), per
        topic: R itself when every judgment has probability 1 (qrels)."""

        def compute():
            if self.inclusion is None:
                return self.R.astype(np.float64)
            return np.bincount(
                self.topic, weights=self.relevant / self.inclusion, minlength=self.n_topics
            )

        return self.memo("estimated_R", compute)

    @property
    def estimated_R_variance(self) -> np.ndarray:
        """Var^(R^) = sum over the judged relevant documents of (1 - pi)/pi^2, per topic:
        the Horvitz-Thompson variance estimate for documents sampled independently
        (joint inclusion pi_i pi_j); 0 when every probability is 1."""

        def compute():
            if self.inclusion is None:
                return np.zeros(self.n_topics)
            pi = self.inclusion
            return np.bincount(
                self.topic, weights=self.relevant * (1 - pi) / pi**2, minlength=self.n_topics
            )

        return self.memo("estimated_R_variance", compute)

    def ideal_cg_at(self, topics: np.ndarray, ranks: np.ndarray) -> np.ndarray:
        """cg_I(r) for each (topic, rank); ranks past R give cg_I(R), rank 0 gives 0."""
        cumulative = self.memo("ideal_cg", lambda: np.cumsum(self.ideal_gain, axis=1))
        idx = np.clip(ranks, 1, cumulative.shape[1]) - 1
        return np.where(np.asarray(ranks) > 0, cumulative[topics, idx], 0.0)

    def gain_of(self, grades: np.ndarray, topics: Optional[np.ndarray] = None) -> np.ndarray:
        """g(level) of each grade: 0 below the relevance threshold and for unjudged or
        padding entries (negative grades); the listed gain, else the level itself. Under
        trec_eval's gain table, the gain its get_gain gives (``topics``: each row's topic,
        whose levels set the table's order)."""
        grades = np.asarray(grades)
        if self.trec_gains is not None:
            return self._trec_gain_of(grades, topics)
        if self.gain_table is not None:
            return self.gain_table[np.maximum(grades, 0)]
        return np.where(grades >= max(self.rel_level, 0), grades, 0).astype(np.float64)

    def relevant_grades(self, grades: np.ndarray) -> np.ndarray:
        """Where a ranking's grades count as relevant: level >= the threshold; below 0,
        also a document outside the qrels (trec_eval's level -1) and, below -1, one
        judged with a negative level (its -2)."""
        if self.rel_level >= 0:
            return grades >= self.rel_level
        found = (grades >= 0) | (grades == UNJUDGED)
        return found | (grades == POOLED) if self.rel_level <= UNJUDGED_IN_POOL else found

    def topic_max_gain(self) -> np.ndarray:
        """Highest gain among each topic's judged documents (0 for level 0 only)."""

        def compute():
            top = np.zeros(self.n_topics)
            np.maximum.at(top, self.topic, self.gain_of(self.grade, self.topic))
            return top

        return self.memo("topic_max_gain", compute)

    def _gain_table(self) -> Optional[np.ndarray]:
        """Gain per level 0..max level when gains are listed; None for gain = level (a
        table would be as long as the highest level)."""
        if self.gains is None:
            return None
        if len(self.gains) < self.max_level:
            raise InputError(
                f"{self.qrels.source}: the qrels have levels up to {self.max_level} but "
                f"the gains give values for levels 1..{len(self.gains)} only"
            )
        levels = np.array([0.0] + list(self.gains[: self.max_level]), dtype=np.float64)
        levels[: max(self.rel_level, 0)] = 0.0
        return levels

    def _ideal_gains(self, relevant: np.ndarray) -> np.ndarray:
        """Topics x max(R) matrix of relevant gains, highest first, zero-padded."""
        n_topics = len(self.topic_ids)
        width = max(int(self.R.max()) if n_topics else 0, 1)
        ideal = np.zeros((n_topics, width))
        gains = self.gain_of(self.grade[relevant])
        topics = self.topic[relevant]
        order = np.lexsort((-gains, topics))
        topics, gains = topics[order], gains[order]
        starts = np.searchsorted(topics, np.arange(n_topics))
        ideal[topics, np.arange(len(topics)) - starts[topics]] = gains
        return ideal

    def _topic_levels(self) -> Tuple[np.ndarray, np.ndarray]:
        """Each topic's number of levels (highest judged level + 1; 0 without a judged
        document) and its count of documents per level (topics x levels)."""
        levels = np.zeros(self.n_topics, dtype=np.int64)
        np.maximum.at(levels, self.topic, self.grade.astype(np.int64) + 1)
        counts = np.zeros((self.n_topics, self.max_level + 1), dtype=np.int64)
        np.add.at(counts, (self.topic, self.grade.astype(np.int64)), 1)
        return levels, counts

    def _trec_ideal_gains(self, table: "TrecGainTable") -> np.ndarray:
        levels, counts = self._topic_levels()
        ideal = [table.ideal(int(n), row) for n, row in zip(levels, counts)]
        matrix = np.zeros((self.n_topics, max([len(g) for g in ideal] + [1])))
        for topic, gains in enumerate(ideal):
            matrix[topic, : len(gains)] = gains
        return matrix

    def _trec_gain_of(self, grades: np.ndarray, topics: Optional[np.ndarray]) -> np.ndarray:
        table = self.trec_gains
        assert table is not None
        levels = self.memo("trec_levels", self._topic_levels)[0]
        if topics is None:  # one topic's grades, or a table whose order no topic changes
            topics = np.zeros(grades.shape[:1], dtype=np.int64)
        distinct, which = np.unique(levels, return_inverse=True)
        # columns: trec_eval's levels -2 (judged negative), -1 (not in the qrels), 0, 1, ...
        lookup = np.vstack(
            [table.run_gains(int(n), UNJUDGED_IN_POOL, self.max_level) for n in distinct]
            or [np.zeros(self.max_level + 3)]
        )
        trec_level = np.where(grades == POOLED, UNJUDGED_IN_POOL, grades)
        column = np.where(grades == PADDING, 0, trec_level - UNJUDGED_IN_POOL)
        rows = which[np.asarray(topics)] if len(distinct) else np.zeros_like(topics)
        rows = rows.reshape(rows.shape + (1,) * (grades.ndim - rows.ndim))
        return np.where(grades == PADDING, 0.0, lookup[rows, column])

    def _set_keys(self, keys: np.ndarray) -> None:
        # the order among equal keys does not matter: the key order serves unique keys only
        self._key_order = np.argsort(keys)
        self._sorted_keys = keys[self._key_order]
        self._keys_unique = not (self._sorted_keys[1:] == self._sorted_keys[:-1]).any()
        self._table: Optional[_KeyTable] = None  # built on the first lookup

    def with_lookup_built(self) -> "Judgments":
        """Self, its lookup table built now rather than on the first lookup: a copy sent to
        many Dask workers then carries the table (a memory copy to unpickle) instead of
        each worker building its own (0.2 s CPU per worker for a million judgments)."""
        if self._table is None and len(self._sorted_keys) and self._keys_unique:
            self._table = _KeyTable(self._sorted_keys)
        return self

    @property
    def n_topics(self) -> int:
        return len(self.topic_ids)

    def topic_codes(self, topics: np.ndarray) -> np.ndarray:
        """Topic index of each entry; -1 for topics absent from the qrels."""
        return self.index.lookup(topics)

    def run_keys(self, topic_codes: np.ndarray, docnos: np.ndarray) -> np.ndarray:
        return pair_keys(topic_codes, hash_strings(docnos), len(self.topic_ids))

    def grades_of(
        self, topic_codes: np.ndarray, docnos: np.ndarray, keys: np.ndarray
    ) -> np.ndarray:
        """Grade of each retrieved document, UNJUDGED where it is not in the qrels."""
        return self._mark_pooled(
            self._gather(self.grade, UNJUDGED, topic_codes, docnos, keys), keys
        )

    def inclusion_of(
        self, topic_codes: np.ndarray, docnos: np.ndarray, keys: np.ndarray
    ) -> Optional[np.ndarray]:
        """Inclusion probability of each retrieved document, NaN where the prels do not
        list it; None when the judgments carry none (qrels). A pooled document the prels
        list at a negative level, read as unjudged, gets its line's probability: that of
        its stratum, which infAP's sample needs (it weighs no estimate)."""
        if self.inclusion is None:
            return None
        out = self._gather(self.inclusion, np.nan, topic_codes, docnos, keys)
        if self._pooled_inclusion is not None and len(self._pooled_keys) and len(keys):
            at, hit = _binary_search(self._pooled_keys, keys)
            hit &= np.isnan(out)
            out[hit] = self._pooled_inclusion[at[hit]]
        return out

    @property
    def strata(self) -> Strata:
        """The strata of a prels sample (see :class:`Strata`); memoised."""
        if self.inclusion is None:
            raise ValueError("strata need inclusion probabilities (prels)")
        judged = (self.topic, self.inclusion, self.relevant)
        pooled = (self._pooled_topic, self._pooled_inclusion)
        return self.memo("strata", lambda: Strata.build(judged, pooled, self.n_topics))

    def _gather(self, values, absent, topic_codes, docnos, keys) -> np.ndarray:
        """``values`` (one per judgment) of each retrieved document, ``absent`` where it
        is not in the qrels."""
        out = np.full(len(keys), absent, dtype=values.dtype)
        if len(self._sorted_keys) == 0 or len(keys) == 0:
            return out
        if self._keys_unique and self._lookup(topic_codes, docnos, keys, (out, values)):
            return out
        # a hash collision (vanishingly rare): redo the lookup with exact keys
        qkeys, rkeys = exact_pair_keys([self.topic, topic_codes], [self.qrels.docnos, docnos])
        order = np.argsort(qkeys)
        pos, hit = _binary_search(qkeys[order], rkeys)
        out[hit] = values[order[pos[hit]]]
        return out

    def _lookup(self, topic_codes, docnos, keys, filled) -> bool:
        """Fill ``out`` with ``values`` (``filled``: the pair) by a hash-table search of the
        judgment keys, a chunk at a time (small temporaries); False when a hash match is
        not the same (topic, docno), i.e. on a collision."""
        out, values = filled
        if self._table is None:
            self._table = _KeyTable(self._sorted_keys)
        for begin in range(0, len(keys), LOOKUP_CHUNK):
            part = keys[begin : begin + LOOKUP_CHUNK]
            pos = self._table.find(part)
            where = np.flatnonzero(pos >= 0)
            found = self._key_order[pos[where]]
            where += begin
            if not (
                (self.qrels.docnos[found] == docnos[where])
                & (self.topic[found] == topic_codes[where])
            ).all():
                return False
            out[where] = values[found]
        return True

    def _mark_pooled(self, grades: np.ndarray, keys: np.ndarray) -> np.ndarray:
        """POOLED for retrieved documents the qrels list with a negative level, when those
        read as pooled but unjudged. Keys are 64-bit hashes; a collision could only turn
        an unjudged document into a pooled one."""
        if len(self._pooled_keys) == 0 or len(keys) == 0:
            return grades
        grades[(grades == UNJUDGED) & _binary_search(self._pooled_keys, keys)[1]] = POOLED
        return grades

    def gain_text(self) -> str:
        """The gain each level 1, 2, ..., max level earns, as ``gains=`` takes it
        (``0:2:3``: level 1 below the threshold); past GAIN_LIST_LEVELS levels without a
        list, the rule in words."""
        if self.gain_table is None and self.max_level > GAIN_LIST_LEVELS:
            return f"gain = level from level {self.rel_level} (levels up to {self.max_level})"
        table = self.gain_of(np.arange(1, self.max_level + 1))
        return ":".join(_fmt_gain(g) for g in table) or "none"


class _KeyTable:
    """A hash table over sorted unique keys, for whole-array lookups: most keys are found
    (or known absent) in one vectorised gather instead of the log2(n) dependent reads of
    a binary search.

    Hand-written because it pays on the keys Judgments looks up (topic-major, a run's
    lines topic by topic): bench/bench_keys.py measured it 1.3-1.7x faster than
    pandas.Index.get_indexer (which would also cost every `irgauge eval` the import of
    pandas, 0.6 s and 43 MB) and 2.1-2.4x faster than numpy.searchsorted; figures in
    bench/README.md.

    Open addressing with linear probing and no wrap-around, built without a loop: with
    the keys ordered by home slot h_i (top bits of a multiplicative hash of the key),
    placing them in that order gives slot s_i = max(h_i, s_{i-1} + 1)
    = i + max_{j<=i}(h_j - j), a running maximum. Every slot from a key's home to its own
    slot is then occupied, so a lookup probes from the home until the key or an empty
    slot. 2^bits >= 4n homes (load <= 1/4): an absent key (most retrieved documents are
    unjudged) whose home is taken must probe on, so the lower the load, the fewer keys
    take a second round (1/4 halves the lookup time of 1/2; bench/README.md); keys still
    unresolved after PROBES probes (a long cluster, rare) get a binary search.

    Past MAX_KEYS judgments the table would add too much to the peak memory of a large
    evaluation (bench/README.md), so a binary search finds the keys, after a filter of
    FILTER_BITS bits per key (a bit per home, as in a one-hash Bloom filter) has set
    aside the keys that are surely absent: with 2% of them passing by mistake, the search
    sees little more than the judged documents.
    """

    PROBES = 4
    MAX_KEYS = 1 << 20
    FILTER_BITS = 32  # at least, per key: 4 bytes per judgment

    def __init__(self, sorted_keys: np.ndarray) -> None:
        n = len(sorted_keys)
        self.sorted_keys = sorted_keys
        self.position: Optional[np.ndarray] = None
        self.filter: Optional[np.ndarray] = None
        if n > self.MAX_KEYS:
            self.filter_shift = np.uint64(64 - (self.FILTER_BITS * n - 1).bit_length())
            home = self._filter_home(sorted_keys)
            self.filter = np.zeros(max(1 << (61 - int(self.filter_shift)), 1), np.uint8)
            np.bitwise_or.at(self.filter, home >> np.uint64(3), self._bit(home))
            return
        self.shift = np.uint64(64 - max((4 * n - 1).bit_length(), 1))
        home = self._home(sorted_keys)
        # any order among equal homes places the keys correctly: an unstable sort, 5x
        # faster than a stable one (bench/README.md, "Judgment lookup")
        order = np.argsort(home)
        rank = np.arange(n, dtype=np.int64)
        slot = rank + np.maximum.accumulate(home[order] - rank)
        size = max(1 << (64 - int(self.shift)), int(slot[-1]) + 1) + self.PROBES
        # slot -> position in sorted_keys; n (one past the end) marks an empty slot
        self.position = np.full(size, n, dtype=np.int32 if n < (1 << 31) else np.int64)
        self.position[slot] = order

    def _home(self, keys: np.ndarray) -> np.ndarray:
        """Fibonacci hashing: the top bits of key x an odd constant depend on every bit of
        the key (the topic code above, the docno's hash below)."""
        return ((keys * _MULT) >> self.shift).astype(np.int64)

    def _filter_home(self, keys: np.ndarray) -> np.ndarray:
        return (keys * _MULT) >> self.filter_shift

    @staticmethod
    def _bit(home: np.ndarray) -> np.ndarray:
        return np.left_shift(1, (home & np.uint64(7)).astype(np.uint8), dtype=np.uint8)

    def find(self, keys: np.ndarray) -> np.ndarray:
        """Position of each key in the sorted keys, -1 where absent."""
        n = len(self.sorted_keys)
        table, bits = self.position, self.filter
        if table is None:  # a big table: its filter, then a search
            assert bits is not None  # __init__ builds one of the two
            home = self._filter_home(keys)
            maybe = np.flatnonzero(bits[home >> np.uint64(3)] & self._bit(home))
            return self._search(keys[maybe], maybe, np.full(len(keys), -1, dtype=np.int64))
        slot = self._home(keys)
        position = table.take(slot)
        occupied = position < n  # else an empty slot: the key is absent
        hit = occupied & (self.sorted_keys.take(position, mode="clip") == keys)
        found = np.where(hit, position, -1)
        # most keys are settled by their home slot; the rest probe on as a short list
        rows = np.flatnonzero(occupied & ~hit)
        for step in range(1, self.PROBES):
            if len(rows) == 0:
                break
            position = table.take(slot[rows] + step)
            occupied = position < n
            hit = occupied & (self.sorted_keys.take(position, mode="clip") == keys[rows])
            found[rows[hit]] = position[hit]
            rows = rows[occupied & ~hit]
        return self._search(keys[rows], rows, found)

    def _search(self, keys: np.ndarray, rows: np.ndarray, found: np.ndarray) -> np.ndarray:
        """found[rows] = position of ``keys`` by a binary search (-1 where absent)."""
        if len(keys):
            at, hit = _binary_search(self.sorted_keys, keys)
            found[rows[hit]] = at[hit]
        return found


def _binary_search(sorted_keys: np.ndarray, keys: np.ndarray):
    """Binary search of non-empty ``sorted_keys``: each key's position (clipped to the last
    one) and whether the key is there."""
    at = np.minimum(np.searchsorted(sorted_keys, keys), len(sorted_keys) - 1)
    return at, sorted_keys[at] == keys


def _fmt_gain(g: float) -> str:
    return str(int(g)) if float(g).is_integer() else repr(float(g))
