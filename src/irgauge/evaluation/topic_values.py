"""The per-topic values of the runs, kept as their parts are scored.

An evaluation keeps a value per run, measure and topic, 8 bytes each: many runs over
many topics outgrow the budget the runs are read within (six runs of 100,000 topics, 12
measures: 7 million rows, which as the old table of rows took 450 MB). Each part's values
go to its run's store as the part is scored: in memory while the stores of the
evaluation hold less than their share of the budget (a :class:`ValueSpill`), appended to
a temporary file beyond it. Once every part of a run is in, :meth:`RunValues.finish`
puts its values in qrels topic order and takes their means; the output is then written
from the stores a block of rows at a time (:class:`PerTopicValues`), so that memory holds
one block of text and one column of values, whatever the number of rows.
"""

from __future__ import annotations

import contextlib
import os
import _thread
import weakref
from typing import Dict, Iterator, List, Optional, Sequence, Tuple

import numpy as np

from irgauge.errors import OutputError
from irgauge.io import scratch
from irgauge.scores._results import check_result_values

_UNDEFINED = "the measure is undefined on these topics (or overflows)"
_WORD = 8  # bytes of a topic row (int64) and of a value (float64)


class ValueSpill:
    """The bytes of values the stores of one evaluation may hold in memory together, and
    the temporary folder of the stores past it (made on first need, under ``folder`` or
    the system's; removed with the spill, at exit at the latest)."""

    def __init__(self, limit: int, folder: Optional[str] = None):
        self.limit = limit
        self.held = 0
        self._parent = folder
        # runs are scored on threads (the lock type of threading, which the drop-in does
        # not otherwise load)
        self._lock = _thread.allocate_lock()
        self._folder: Optional[str] = None
        self._files = 0
        self._removal: Optional[weakref.finalize] = None

    def claim(self, nbytes: int) -> bool:
        """Whether ``nbytes`` more may stay in memory (they are then counted)."""
        with self._lock:
            if self.held + nbytes > self.limit:
                return False
            self.held += nbytes
            return True

    def release(self, nbytes: int) -> None:
        with self._lock:
            self.held -= nbytes

    def new_file(self) -> str:
        """The path of a new temporary file in the spill's folder."""
        # imported here, where a folder is made: loading them costs every start-up 3 ms
        import shutil
        import tempfile

        with self._lock:
            if self._folder is None:
                try:
                    self._folder = scratch.made("irgauge-values-", self._parent)
                except OSError as err:
                    where = self._parent or tempfile.gettempdir()
                    raise OutputError(where, err.strerror or str(err)) from None
                self._removal = weakref.finalize(self, shutil.rmtree, self._folder, True)
            self._files += 1
            return os.path.join(self._folder, f"values-{self._files}")

    @contextlib.contextmanager
    def removed_on_failure(self) -> Iterator[None]:
        """Remove the temporary folder at once if the block fails: a caller that keeps the
        error keeps its frames, and the spill with them."""
        try:
            yield
        except BaseException:
            if self._removal is not None:
                self._removal()
            raise

    @property
    def folder(self) -> Optional[str]:
        """The temporary folder, once a store has spilled."""
        return self._folder


class RunValues:
    """One run's value of each measure on each topic it is scored on.

    Parts are added in any topic order, each as the qrels topic of its rows and a matrix
    of values (measures x rows). :meth:`finish` then orders the rows by qrels topic:
    ``topic_rows`` ascending, :meth:`column` a measure's values in that order, ``means``
    each measure's aggregate of its column. Without a spill everything stays in memory
    (a store made on a Dask worker, sent whole to the client).
    """

    def __init__(self, n_measures: int, spill: Optional[ValueSpill] = None):
        self.n_measures = n_measures
        self._spill = spill
        self._chunks: List[Tuple[np.ndarray, np.ndarray]] = []
        self._held = 0  # bytes of _chunks counted by the spill
        self._unsorted: Optional[str] = None  # the file parts go to once spilled
        self._sizes: List[int] = []  # rows of each part in that file
        self._matrix: Optional[np.ndarray] = None  # finished in memory
        self._sorted: Optional[str] = None  # finished in a file: measure after measure
        # empty until finish() orders the rows and aggregates them
        self.topic_rows: np.ndarray = np.zeros(0, np.int64)
        self.means: List[float] = []
        self.notes: List[str] = []  # the results check's, on the finished values

    def add(self, topic_rows: np.ndarray, values: np.ndarray) -> None:
        """The rows of one part: their qrels topics, and values[measure, row]."""
        rows = np.asarray(topic_rows, dtype=np.int64)
        matrix = np.asarray(values, dtype=np.float64).reshape(self.n_measures, len(rows))
        size = rows.nbytes + matrix.nbytes
        if self._unsorted is None and (self._spill is None or self._spill.claim(size)):
            self._chunks.append((rows, matrix))
            self._held += size if self._spill is not None else 0
            return
        self._append([*self._chunks, (rows, matrix)])
        self._chunks = []
        self._spilling().release(self._held)
        self._held = 0

    def add_store(self, other: "RunValues") -> None:
        """Every part of ``other``, an unfinished store kept in memory."""
        for rows, matrix in other._chunks:
            self.add(rows, matrix)

    def _spilling(self) -> ValueSpill:
        """The spill of a store that writes its values to a file: only a store given one
        does (one made without keeps everything in memory, never reaching here)."""
        if self._spill is None:
            raise RuntimeError("a store without a spill keeps its values in memory")
        return self._spill

    def _append(self, chunks) -> None:
        if self._unsorted is None:
            self._unsorted = self._spilling().new_file()
        try:
            with open(self._unsorted, "ab") as out:
                for rows, matrix in chunks:
                    rows.tofile(out)
                    np.ascontiguousarray(matrix).tofile(out)
                    self._sizes.append(len(rows))
        except OSError as err:
            raise OutputError(self._unsorted, err.strerror or str(err)) from None

    def finish(self, measures: Sequence, aggregate: str) -> None:
        """Rows in qrels topic order, and each measure's aggregate over them (the mean of
        the values in that order, as every output states it)."""
        if self._unsorted is None:
            matrix = self._finish_in_memory()
            for i, measure in enumerate(measures):
                self.notes += check_result_values(measure.name, matrix[i], reason=_UNDEFINED)
            self.means = [m.aggregate(matrix[i], aggregate) for i, m in enumerate(measures)]
            return
        starts = np.cumsum([0] + [(1 + self.n_measures) * n for n in self._sizes]) * _WORD
        rows = _concatenate(
            [_read(self._unsorted, np.int64, s, n) for s, n in zip(starts, self._sizes)], np.int64
        )
        order = np.argsort(rows, kind="stable")
        self.topic_rows = rows[order]
        del rows
        self._sorted = sorted_file = self._spilling().new_file()
        self.means = []
        try:
            with open(sorted_file, "wb") as out:
                for i, measure in enumerate(measures):
                    column = _concatenate(
                        [
                            _read(self._unsorted, np.float64, s + (1 + i) * n * _WORD, n)
                            for s, n in zip(starts, self._sizes)
                        ],
                        np.float64,
                    )[order]
                    column.tofile(out)
                    self.notes += check_result_values(measure.name, column, reason=_UNDEFINED)
                    self.means.append(measure.aggregate(column, aggregate))
        except OSError as err:
            raise OutputError(sorted_file, err.strerror or str(err)) from None
        os.remove(self._unsorted)
        self._unsorted = None

    def _finish_in_memory(self) -> np.ndarray:
        """Order the parts kept in memory; the finished matrix (measures x rows)."""
        rows = _concatenate([r for r, _ in self._chunks], np.int64)
        order = np.argsort(rows, kind="stable")
        self.topic_rows = rows[order]
        if self._chunks:
            matrix = np.concatenate([m for _, m in self._chunks], axis=1)[:, order]
        else:
            matrix = np.zeros((self.n_measures, 0))
        self._matrix, self._chunks = matrix, []
        return matrix

    def __len__(self) -> int:
        return len(self.topic_rows)

    @property
    def spilled(self) -> bool:
        """Whether the values are in a temporary file (once finished: read from it)."""
        return self._unsorted is not None or self._sorted is not None

    def column(self, measure: int, start: int = 0, stop: Optional[int] = None) -> np.ndarray:
        """Values of measure number ``measure`` on the finished rows ``start:stop``."""
        stop = len(self) if stop is None else min(stop, len(self))
        if self._matrix is not None:
            return self._matrix[measure, start:stop]
        if self._sorted is None:  # neither in memory nor in a file: not finished
            return np.zeros(0)
        offset = (measure * len(self) + start) * _WORD
        return _read(self._sorted, np.float64, offset, max(stop - start, 0))

    def matrix(self, start: int = 0, stop: Optional[int] = None) -> np.ndarray:
        """Every measure's values on the finished rows ``start:stop`` (measures x rows)."""
        return np.vstack([self.column(i, start, stop) for i in range(self.n_measures)])


def _read(path: str, dtype, offset: int, count: int) -> np.ndarray:
    try:
        return np.fromfile(path, dtype=dtype, count=count, offset=int(offset))
    except OSError as err:
        raise OutputError(path, err.strerror or str(err)) from None


def _concatenate(arrays: List[np.ndarray], dtype) -> np.ndarray:
    return np.concatenate(arrays) if arrays else np.zeros(0, dtype)


class PerTopicValues:
    """The finished stores of an evaluation's runs, as the long rows (run, measure, topic,
    value) of its per-topic table: by run, then measure (as given), then qrels topic."""

    def __init__(self, names, stores: List[RunValues], measure_names, topic_ids):
        self.names = list(names)
        self.stores = stores
        self.measure_names = list(measure_names)
        self._topic_ids = topic_ids
        self._ids: Optional[np.ndarray] = None

    @property
    def topic_ids(self) -> np.ndarray:
        """The qrels topic ids as an object array (made once, on first use)."""
        if self._ids is None:
            self._ids = np.asarray(list(self._topic_ids), dtype=object)
        return self._ids

    def __len__(self) -> int:
        return sum(len(s) for s in self.stores) * len(self.measure_names)

    def blocks(self, rows: int) -> Iterator[Dict[str, np.ndarray]]:
        """The rows, at most ``rows`` at a time, as columns run, measure, topic, value."""
        for name, store in zip(self.names, self.stores):
            for i, measure in enumerate(self.measure_names):
                for start in range(0, len(store), rows):
                    topics = store.topic_rows[start : start + rows]
                    yield {
                        "run": np.full(len(topics), name, dtype=object),
                        "measure": np.full(len(topics), measure, dtype=object),
                        "topic": self.topic_ids[topics],
                        "value": store.column(i, start, start + rows),
                    }

    def by_topic(self, run: int, topics: int) -> Iterator[Tuple[np.ndarray, np.ndarray]]:
        """Run number ``run``'s topic ids and values (measures x topics), at most
        ``topics`` topics at a time: each topic's measures together (trec_eval -q)."""
        store = self.stores[run]
        for start in range(0, len(store), max(topics, 1)):
            stop = start + max(topics, 1)
            yield self.topic_ids[store.topic_rows[start:stop]], store.matrix(start, stop)

    def columns(self) -> Dict[str, np.ndarray]:
        """Every row at once."""
        parts = list(self.blocks(max(len(self), 1)))
        if not parts:
            return {
                "run": np.zeros(0, object),
                "measure": np.zeros(0, object),
                "topic": np.zeros(0, object),
                "value": np.zeros(0),
            }
        return {key: np.concatenate([p[key] for p in parts]) for key in parts[0]}

    def wide_columns(self) -> Dict[str, np.ndarray]:
        """Every value at once as a wide table: columns run, topic, then a column per
        measure; a row per run and topic, each run's rows followed by its aggregates
        (topic 'all')."""
        runs: List[np.ndarray] = []
        topics: List[np.ndarray] = []
        columns: List[List[np.ndarray]] = [[] for _ in self.measure_names]
        for name, store in zip(self.names, self.stores):
            runs.append(np.full(len(store) + 1, name, dtype=object))
            topics += [self.topic_ids[store.topic_rows], np.asarray(["all"], dtype=object)]
            for i, column in enumerate(columns):
                column += [store.column(i), np.asarray([store.means[i]], np.float64)]
        joined = {
            "run": _concatenate(runs, object),
            "topic": _concatenate(topics, object),
        }
        for measure, column in zip(self.measure_names, columns):
            joined[measure] = _concatenate(column, np.float64)
        return joined

    def means(self) -> Dict[str, np.ndarray]:
        """The aggregates, a row per run and measure (topic 'all' is the caller's)."""
        return {
            "run": np.repeat(np.asarray(self.names, dtype=object), len(self.measure_names)),
            "measure": np.tile(np.asarray(self.measure_names, dtype=object), len(self.names)),
            "value": np.asarray([v for s in self.stores for v in s.means], dtype=np.float64),
        }
