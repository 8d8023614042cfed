"""Qrels and runs as read: one entry per file line, ids as byte columns.

``Qrels`` and ``Run`` hold what a file said; :mod:`irgauge.collection` turns them into
per-topic arrays under explicit conventions.
"""

from __future__ import annotations

from dataclasses import dataclass
from numbers import Integral
from functools import cached_property
from typing import Any, Dict, List, Optional, Tuple, Type, TypeVar

import numpy as np

from irgauge._checks import MAX_LEVEL  # grades: int16 in ranked lists, int32 when needed
from irgauge.errors import InputError
from irgauge.io.ids import Ids, as_ids
from irgauge.io.keys import TopicIndex, exact_pair_keys, pair_keys, run_heads


AGGREGATE_TOPIC = "all"  # the topic label of the means in every output (trec_eval's)


def aggregate_topic_error(where: str = "", source=None, line=None, unit="line") -> InputError:
    return InputError(
        f"topic id {AGGREGATE_TOPIC!r}{where} is the label of the mean over all topics in "
        "irgauge's (and trec_eval's) output, so it cannot name a topic; rename the topic",
        source,
        line,
        unit,
    )


def position_unit(fmt: str) -> str:
    """What an entry's number counts in a file of format ``fmt``: a table's rows, else
    the lines of a text file."""
    return "row" if fmt == "arrow" else "line"


def refuse_aggregate_topic(topics, source: str, line_of, unit: str = "line") -> None:
    """InputError at FILE:LINE (``line_of(entry)``; a row of a table with ``unit="row"``)
    for the first topic named ``all``.
    Topics given as Ids or bytes arrays are checked; others by the reader that made them."""
    if isinstance(topics, np.ndarray) and topics.dtype.kind == "S":
        hits = np.flatnonzero(topics == AGGREGATE_TOPIC.encode())
    elif isinstance(topics, Ids):
        # the first of a run of equal neighbours is the first line to name: only heads
        rows = run_heads(topics)
        rows = rows[topics.lens[rows] == len(AGGREGATE_TOPIC)]
        hits = rows[topics[rows] == AGGREGATE_TOPIC.encode()] if len(rows) else rows
    else:
        return
    if len(hits):
        raise aggregate_topic_error("", source, line_of(int(hits[0])), unit)


class IdKeys:
    """The ids of a mapping's keys (``str(key)``), refusing two keys that name one id
    (``1`` and ``'1'``) and, for topics, the id ``all``."""

    def __init__(self, what: str, source: str, topics: bool):
        self.what, self.source, self.topics = what, source, topics
        self.seen: Dict[Any, str] = {}

    def __call__(self, key) -> str:
        if isinstance(key, bool) or not isinstance(key, (str, bytes, Integral)):
            # str(None), str(1.0) or str(('1',)) would be an id no file of the data holds
            raise InputError(
                f"the {self.what} has the key {key!r} ({type(key).__name__}); ids are "
                "str, bytes or int",
                self.source,
            )
        ident = key.decode("utf-8", "surrogateescape") if isinstance(key, bytes) else str(key)
        if self.topics and ident == AGGREGATE_TOPIC:
            raise aggregate_topic_error(f" (key {key!r} of the {self.what})", self.source)
        earlier = self.seen.setdefault(ident, key)
        if earlier is not key:  # keys of one mapping differ: two of them name one id
            raise InputError(
                f"the {self.what} has keys {earlier!r} and {key!r}, which name the same id "
                f"{ident!r}; give each id once, as one type",
                self.source,
            )
        return ident


_QrelsT = TypeVar("_QrelsT", bound="Qrels")


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments as read: one entry per (topic, docno); levels < 0 mean judged nonrelevant.

    ``topics`` and ``docnos`` are :class:`~irgauge.io.ids.Ids` (or ``S`` arrays), compared as
    bytes; ``levels`` are int64. ``inclusion``: each judgment's probability of having been
    sampled for judging, in (0, 1] (prels, :mod:`irgauge.io.prels`); None for qrels, whose
    judgments all count with probability 1.
    """

    topics: Any
    docnos: Any
    levels: np.ndarray
    source: str = "<memory>"
    fmt: str = "trec"
    line_numbers: Optional[np.ndarray] = None
    inclusion: Optional[np.ndarray] = None

    @classmethod
    def from_arrays(
        cls: Type[_QrelsT],
        topics,
        docnos,
        levels,
        source="<memory>",
        fmt="trec",
        line_numbers=None,
        conflicting: str = "refuse",
        inclusion=None,
    ) -> _QrelsT:
        """Build qrels, dropping exact repeats and rejecting grades above MAX_LEVEL and,
        unless ``conflicting="record"``, conflicting grades: recorded, a judgment repeated
        with another level is dropped and listed in ``repeats`` as an exact repeat is (the
        trec_eval drop-in, which stops where trec_eval meets either). A judgment repeated
        with another inclusion probability is refused either way: no reading of it is
        right."""
        if conflicting not in ("refuse", "record"):
            raise ValueError(f"conflicting must be 'refuse' or 'record', not {conflicting!r}")
        topics, docnos = as_ids(topics), as_ids(docnos)
        levels = np.asarray(levels, dtype=np.int64)
        if line_numbers is None:
            line_numbers = np.arange(1, len(topics) + 1)
        unit = position_unit(fmt)
        _check_levels(levels, source, line_numbers, unit)
        refuse_aggregate_topic(topics, source, lambda i: int(line_numbers[i]), unit)
        index = TopicIndex(topics)
        codes = index.codes
        keys = pair_keys(codes, docnos.hashes(), len(index))
        earlier, later = _repeats(keys)
        if len(later) and (
            (docnos[earlier] != docnos[later]).any() or (codes[earlier] != codes[later]).any()
        ):
            earlier, later = _repeats(exact_pair_keys([codes], [docnos])[0])  # hash collision
        if len(later) == 0:
            qrels = cls(topics, docnos, levels, source, fmt, line_numbers, inclusion)
            qrels.__dict__["topic_index"] = index
            return qrels
        if inclusion is not None:
            _refuse_other_inclusion(
                inclusion, (earlier, later), (topics, docnos), source, line_numbers
            )
        conflicts = np.flatnonzero(levels[earlier] != levels[later])
        if len(conflicts) and conflicting == "refuse":
            i = conflicts[np.argmin(later[conflicts])]
            first, second = earlier[i], later[i]
            raise InputError(
                f"document {_show(docnos[second])} of topic {_show(topics[second])} is judged "
                f"again with level {levels[second]} (level {levels[first]} on {unit} "
                f"{line_numbers[first]})",
                source,
                int(line_numbers[second]),
                unit,
            )
        keep = np.ones(len(keys), dtype=bool)
        keep[later] = False
        qrels = cls(
            topics[keep],
            docnos[keep],
            levels[keep],
            source,
            fmt,
            line_numbers[keep],
            inclusion[keep] if inclusion is not None else None,
        )
        qrels.__dict__["topic_index"] = index.subset(keep)
        names = index.names
        repeated = docnos[later].tolist()
        qrels.__dict__["repeats"] = [
            (names[code], int(line), docno)
            for code, line, docno in zip(codes[later], line_numbers[later], repeated)
        ]
        return qrels

    @cached_property
    def repeats(self) -> List[Tuple[str, int, bytes]]:
        """(topic id, line, docno) of each repeat of a judgment that from_arrays dropped:
        an exact one, or with ``conflicting="record"`` one with another level (trec_eval
        fails on a topic judging a document twice, irgauge takes an exact repeat once)."""
        return []

    @cached_property
    def topic_index(self) -> TopicIndex:
        """The distinct topics in natural order and each entry's code (computed once)."""
        return TopicIndex(self.topics)

    @property
    def topic_ids(self) -> List[str]:
        return self.topic_index.names

    def __len__(self) -> int:
        return len(self.levels)


def _show(value: bytes) -> str:
    return repr(value.decode("utf-8", "backslashreplace"))


def _refuse_other_inclusion(inclusion, pairs, ids, source, line_numbers) -> None:
    """InputError at the first line that repeats a judgment with another inclusion
    probability (``pairs``: the indices of each earlier and later copy; ``ids``: the
    topics and docnos)."""
    earlier, later = pairs
    topics, docnos = ids
    other = np.flatnonzero(inclusion[earlier] != inclusion[later])
    if len(other):
        i = other[np.argmin(later[other])]
        first, second = earlier[i], later[i]
        raise InputError(
            f"document {_show(docnos[second])} of topic {_show(topics[second])} is listed "
            f"again with inclusion probability {float(inclusion[second])!r} "
            f"({float(inclusion[first])!r} on line {line_numbers[first]})",
            source,
            int(line_numbers[second]),
        )


def _check_levels(levels: np.ndarray, source: str, line_numbers: np.ndarray, unit: str) -> None:
    """Grades are held as 32-bit integers at most (16-bit while they fit)."""
    if len(levels) and levels.max() > MAX_LEVEL:
        i = int(np.argmax(levels > MAX_LEVEL))
        raise InputError(
            f"relevance level {levels[i]} is above {MAX_LEVEL}, the highest "
            "level irgauge evaluates (grades are 32-bit integers)",
            source,
            int(line_numbers[i]),
            unit,
        )


@dataclass(frozen=True, eq=False)
class Run:
    """A run as read: one entry per retrieved document, in file order."""

    name: str
    topics: Any  # Ids (or a numpy array of bytes)
    docnos: Any
    scores: Optional[np.ndarray]  # None for ranked lists without scores
    natural_order: str = "score"  # the order the input's format implies
    source: str = "<memory>"
    line_numbers: Optional[np.ndarray] = None  # None: entry i is on line i + 1
    tag: Optional[str] = None
    position_unit: str = "line"  # what line_numbers count: "row" for a table's rows

    def __post_init__(self):
        refuse_aggregate_topic(self.topics, self.source, self.line_of, self.position_unit)

    def line_of(self, entry: int) -> int:
        """The file line of an entry."""
        return int(self.line_numbers[entry]) if self.line_numbers is not None else entry + 1

    def lines(self) -> np.ndarray:
        """Every entry's file line, as an array (1, 2, ... where ``line_numbers`` is None)."""
        if self.line_numbers is not None:
            return self.line_numbers
        return np.arange(1, len(self) + 1, dtype=np.int64)

    def __len__(self) -> int:
        return len(self.docnos)


def _repeats(keys: np.ndarray):
    """Index pairs (earlier, later) of entries whose key equals the preceding equal key."""
    ordered = np.sort(keys)  # qrels rarely repeat a judgment: a fast sort tells (3x faster)
    if not (ordered[1:] == ordered[:-1]).any():
        none = np.zeros(0, dtype=np.intp)
        return none, none
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    return order[same], order[same + 1]
