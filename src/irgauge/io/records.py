"""Qrels and runs as read: one entry per file line, ids as byte columns.

``Qrels`` and ``Run`` hold what a file said; :mod:`irgauge.collection` turns them into
per-topic arrays under explicit conventions.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Any, List, Optional

import numpy as np

from irgauge._checks import MAX_LEVEL  # grades: int16 in ranked lists, int32 when needed
from irgauge.errors import InputError
from irgauge.io.ids import as_ids
from irgauge.io.keys import TopicIndex, exact_pair_keys, pair_keys


@dataclass(frozen=True, eq=False)
class Qrels:
    """Judgments as read: one entry per (topic, docno); levels < 0 mean judged nonrelevant.

    ``topics`` and ``docnos`` are :class:`~irgauge.io.ids.Ids` (or ``S`` arrays), compared as
    bytes; ``levels`` are int64.
    """

    topics: Any
    docnos: Any
    levels: np.ndarray
    source: str = "<memory>"
    fmt: str = "trec"
    line_numbers: Optional[np.ndarray] = None

    @classmethod
    def from_arrays(
        cls, topics, docnos, levels, source="<memory>", fmt="trec", line_numbers=None
    ) -> "Qrels":
        """Build qrels, dropping exact repeats and rejecting conflicting grades and grades
        above MAX_LEVEL."""
        topics, docnos = as_ids(topics), as_ids(docnos)
        levels = np.asarray(levels, dtype=np.int64)
        if line_numbers is None:
            line_numbers = np.arange(1, len(topics) + 1)
        _check_levels(levels, source, line_numbers)
        index = TopicIndex(topics)
        codes = index.codes
        keys = pair_keys(codes, docnos.hashes(), len(index))
        earlier, later = _repeats(keys)
        if len(later) and (
            (docnos[earlier] != docnos[later]).any() or (codes[earlier] != codes[later]).any()
        ):
            earlier, later = _repeats(exact_pair_keys([codes], [docnos])[0])  # hash collision
        if len(later) == 0:
            qrels = cls(topics, docnos, levels, source, fmt, line_numbers)
            qrels.__dict__["topic_index"] = index
            return qrels
        conflicts = np.flatnonzero(levels[earlier] != levels[later])
        if len(conflicts):
            i = conflicts[np.argmin(later[conflicts])]
            first, second = earlier[i], later[i]
            raise InputError(
                f"document {_show(docnos[second])} of topic {_show(topics[second])} is judged "
                f"again with level {levels[second]} (level {levels[first]} on line "
                f"{line_numbers[first]})",
                source,
                int(line_numbers[second]),
            )
        keep = np.ones(len(keys), dtype=bool)
        keep[later] = False
        qrels = cls(topics[keep], docnos[keep], levels[keep], source, fmt, line_numbers[keep])
        qrels.__dict__["topic_index"] = index.subset(keep)
        return qrels

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


def _check_levels(levels: np.ndarray, source: str, line_numbers: np.ndarray) -> None:
    """Grades are held as 32-bit integers at most (16-bit while they fit)."""
    if len(levels) and levels.max() > MAX_LEVEL:
        i = int(np.argmax(levels > MAX_LEVEL))
        raise InputError(
            f"relevance level {levels[i]} is above {MAX_LEVEL}, the highest "
            "level irgauge evaluates (grades are 32-bit integers)",
            source,
            int(line_numbers[i]),
        )


@dataclass(frozen=True, eq=False)
class Run:
    """A run as read: one entry per retrieved document, in file order."""

    name: str
    topics: np.ndarray
    docnos: np.ndarray
    scores: Optional[np.ndarray]  # None for ranked lists without scores
    natural_order: str = "score"  # the order the input's format implies
    source: str = "<memory>"
    line_numbers: Optional[np.ndarray] = None  # None: entry i is on line i + 1
    tag: Optional[str] = None

    def line_of(self, entry: int) -> int:
        """The file line of an entry."""
        return int(self.line_numbers[entry]) if self.line_numbers is not None else entry + 1

    def __len__(self) -> int:
        return len(self.docnos)


def _repeats(keys: np.ndarray):
    """Index pairs (earlier, later) of entries whose key equals the preceding equal key."""
    order = np.argsort(keys, kind="stable")
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    return order[same], order[same + 1]
