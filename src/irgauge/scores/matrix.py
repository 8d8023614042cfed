"""Score matrices: one per measure, systems x topics, the input of every meta-evaluation.

Sources:

* irgauge's long per-topic TSV (``irgauge eval --per-topic --format tsv``): optional
  ``# key: value`` metadata lines, then the header ``run	measure	topic	value``; rows with
  topic ``all`` hold means and are skipped;
* wide CSV/TSV, one row per topic and one column per system (the layout of Urbano's score
  files), with an optional first column named ``topic``/``topics``/``qid``;
* pandas DataFrames in either layout;
* qrels and runs, evaluated in-process by :func:`irgauge.evaluate`.

Every loader checks what the methods rely on: a value for every (system, topic) cell, numbers
only, no duplicate (run, topic) rows, and the same topics for every measure; it raises
:class:`irgauge.errors.InputError` naming the file (and line where there is one) otherwise.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from itertools import repeat
from typing import Any, Dict, Iterable, List, Mapping, Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError, InputSizeError
from irgauge.io.adapters import id_column, refuse_mixed_ids
from irgauge.io.records import AGGREGATE_TOPIC, aggregate_topic_error
from irgauge.io.words import counted, listed

LONG_HEADER = ("run", "measure", "topic", "value")
TOPIC_COLUMNS = ("topic", "topics", "qid", "query", "query_id")
MEAN_TOPIC = "all"
# Row and column names that label a summary, not a topic or a system: a spreadsheet's or a
# pandas ``df.loc["mean"] = df.mean()`` row of means, trec_eval's ``all``. Read as a topic,
# a mean would be counted once more in every statistic; it is refused, never guessed.
SUMMARY_NAMES = frozenset({MEAN_TOPIC, "mean", "average", "avg"})


# The largest score magnitude a score matrix holds. The statistics square differences of
# scores and sum them over topics and resamples: beyond about 1e154 a square overflows
# float64 (means become inf and p-values 1); 1e100 leaves room for sums of 1e100 terms and
# more. No retrieval measure comes near; a larger value is refused where it is read.
MAX_SCORE = 1e100


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-topic scores of one measure: ``values[i, j]`` is system i's score on topic j,
    each finite and at most ``MAX_SCORE`` in magnitude."""

    values: np.ndarray
    systems: List[str]
    topics: List[str]
    measure: str
    source: Optional[str] = field(default=None, compare=False)

    def __post_init__(self):
        values = _numeric_copy(self.values, self.measure, self.source)
        object.__setattr__(self, "values", values)
        where = f"measure {self.measure}: "
        systems = _checks.labels(self.systems, where + "systems", source=self.source)
        topics = _checks.labels(self.topics, where + "topics", source=self.source)
        object.__setattr__(self, "systems", systems)
        object.__setattr__(self, "topics", topics)
        if AGGREGATE_TOPIC in self.topics:
            raise aggregate_topic_error(source=self.source)
        if values.ndim != 2 or values.shape != (len(self.systems), len(self.topics)):
            raise InputError(
                f"measure {self.measure}: score matrix of shape {values.shape} does "
                f"not match {counted(len(self.systems), 'system')} x "
                f"{counted(len(self.topics), 'topic')}",
                self.source,
            )
        usable = np.abs(values) <= MAX_SCORE  # False for nan and inf too
        if not usable.all():
            i, j = np.argwhere(~usable)[0]
            raise InputError(
                f"measure {self.measure}: missing, non-finite or out-of-range score "
                f"{float(values[i, j])!r} for system {self.systems[i]} on topic {self.topics[j]} "
                f"(scores are at most {MAX_SCORE:g} in magnitude)",
                self.source,
            )

    @property
    def n_systems(self) -> int:
        return len(self.systems)

    @property
    def n_topics(self) -> int:
        return len(self.topics)

    def means(self) -> np.ndarray:
        """Mean score of every system over all topics."""
        return self.values.mean(axis=1)

    def _positions(self, wanted: Sequence[str], present: Sequence[str], what: str) -> List[int]:
        """Positions of ``wanted`` among ``present``; an InputError names any missing."""
        index = {name: i for i, name in enumerate(present)}
        missing = [name for name in wanted if name not in index]
        if missing:
            raise InputError(
                f"measure {self.measure}: no scores for {what}(s) {', '.join(missing[:5])}",
                self.source,
            )
        return [index[name] for name in wanted]

    def take_systems(self, systems: Sequence[str]) -> "ScoreMatrix":
        """The matrix restricted to ``systems``, in that order."""
        rows = self._positions(systems, self.systems, "system")
        return ScoreMatrix(self.values[rows], list(systems), self.topics, self.measure, self.source)

    def take_topics(self, topics: Sequence[str]) -> "ScoreMatrix":
        """The matrix restricted to ``topics``, in that order."""
        cols = self._positions(topics, self.topics, "topic")
        return ScoreMatrix(
            self.values[:, cols], self.systems, list(topics), self.measure, self.source
        )


Matrices = Dict[str, ScoreMatrix]


def _numeric_copy(values, measure: str, source: Optional[str]) -> np.ndarray:
    """The scores as a float64 array of the matrix's own, read-only: the caller's array
    may change after, and a result must not change it (nor the matrix change under it)."""
    array = _checks.real_array(
        values, f"measure {measure}: scores", "a systems x topics array", source, copy=True
    )
    array.setflags(write=False)
    return array


def _matrix_from_cells(
    measure: str, table: Mapping[tuple, float], source: Optional[str]
) -> ScoreMatrix:
    systems = list(dict.fromkeys(run for run, _ in table))
    topics = list(dict.fromkeys(topic for _, topic in table))
    values = np.full((len(systems), len(topics)), np.nan)
    si = {s: i for i, s in enumerate(systems)}
    ti = {t: j for j, t in enumerate(topics)}
    for (run, topic), value in table.items():
        values[si[run], ti[topic]] = value
    if np.isnan(values).any():
        i, j = np.argwhere(np.isnan(values))[0]
        raise InputError(
            f"measure {measure}: missing score for run {systems[i]} on topic {topics[j]}", source
        )
    return ScoreMatrix(values, systems, topics, measure, source)


def check_name(kind: str, name: str, source: Optional[str], line: Optional[int]) -> None:
    """InputError unless ``name`` can name a topic or system: not empty, not a summary
    label (``SUMMARY_NAMES``, any case)."""
    if not name:
        raise InputError(f"empty {kind} id", source, line)
    if name.lower() in SUMMARY_NAMES:
        raise InputError(
            f"{kind} {name!r} names a summary (a mean), not a {kind}: remove that "
            f"{'row' if kind == 'topic' else 'column'}, or rename the {kind} if it is one",
            source,
            line,
        )


def long_matrices(rows: Iterable[tuple], source: Optional[str]) -> Matrices:
    """``{measure: ScoreMatrix}`` from the rows (run, measure, topic, value, line or None)
    of the long layout, read from a file or a DataFrame: ``all`` rows skipped, every value
    a finite number, each (run, measure, topic) once."""
    cells: Dict[str, Dict[tuple, float]] = {}
    for run, measure, topic, value, line in rows:
        if topic == MEAN_TOPIC:
            continue
        if measure not in cells:  # once a measure: the loop runs for every row
            _check_label("measure", measure, source, line)
        if not (topic and run) or topic.lower() in SUMMARY_NAMES:
            _check_label("run", run, source, line)
            check_name("topic", topic, source, line)
        try:
            score = float(value)
        except (TypeError, ValueError):
            score = math.nan
        if isinstance(value, str) and not _checks.plain_number_text(value):
            score = math.nan  # finite_score below names the text
        table = cells.setdefault(measure, {})
        if not abs(score) <= MAX_SCORE or (run, topic) in table:
            # the message only for a bad row: building it for every row costs a third more
            what = f"run {run}, measure {measure}, topic {topic}"
            finite_score(value, source, line, what)
            raise InputError(f"duplicate row for {what}", source, line)
        table[(run, topic)] = score
    if not cells:
        raise InputError("no per-topic scores (only means, or no rows)", source)
    return {m: _matrix_from_cells(m, table, source) for m, table in cells.items()}


def _check_label(kind: str, name: str, source: Optional[str], line: Optional[int]) -> None:
    if not name:
        raise InputError(f"empty {kind} name", source, line)


def finite_score(value, source: Optional[str], line: Optional[int], what: str) -> float:
    """``value`` (a number or its text) as a finite float; else an InputError naming ``what``."""
    try:
        if isinstance(value, str) and not _checks.plain_number_text(value):
            raise ValueError(value)
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(f"non-numeric value {value!r} for {what}", source, line) from None
    if not math.isfinite(number):
        raise InputError(f"missing or non-finite value {value!r} for {what}", source, line)
    if abs(number) > MAX_SCORE:
        raise InputError(
            f"value {value!r} for {what} is beyond the scores irgauge's statistics handle "
            f"(at most {MAX_SCORE:g} in magnitude)",
            source,
            line,
        )
    return number


def from_frame(frame, measure: Optional[str] = None, source: Optional[str] = None) -> Matrices:
    """Score matrices from a pandas DataFrame.

    A long frame has columns run, measure, topic, value (``all`` rows skipped); a wide frame
    has one column per system and one row per topic (the index, or a ``topic`` column, names
    the topics) and holds the single measure ``measure``.
    """
    # the frame's own library, loaded already: a module-level import would load pandas
    # for every reader of score files (tests/test_startup.py)
    import pandas as pd

    cols = [str(c).lower() for c in frame.columns]
    if set(LONG_HEADER) <= set(cols):
        long = frame.rename(columns={c: str(c).lower() for c in frame.columns})
        for column in ("run", "topic"):  # 1 and '1' would become one id below
            refuse_mixed_ids(long[column], column, "score")
        # lists, not Series: iterating a pandas string column boxes every element, which
        # doubled the time of 200k rows
        run, measure, topic = (long[c].astype(str).tolist() for c in ("run", "measure", "topic"))
        return long_matrices(zip(run, measure, topic, long["value"].tolist(), repeat(None)), source)
    wide = frame
    if cols and cols[0] in TOPIC_COLUMNS:
        wide = frame.set_index(frame.columns[0])
    # the labels as the qrels' and runs' frames read ids (NaN, 1.5 or a date refused, 101.0
    # read as 101); str() made NaN a topic 'nan', and a column given twice failed in
    # pandas' words
    systems = id_column(pd.Series(wide.columns), "columns (systems)", "score").tolist()
    topics = id_column(pd.Series(wide.index), "index (topics)", "score").tolist()
    numeric = wide.set_axis(range(len(systems)), axis=1).apply(pd.to_numeric, errors="coerce")
    bad = numeric.isna().to_numpy() & ~wide.isna().to_numpy()
    # to_numeric keeps complex numbers, and the cast to float below would drop their
    # imaginary part with a warning
    complex_cells = np.zeros(bad.shape, dtype=bool)
    for c, column in enumerate(numeric.columns):
        if numeric[column].dtype.kind in "cO":
            complex_cells[:, c] = [_is_complex(v) for v in wide.iloc[:, c].tolist()]
    if (bad | complex_cells).any():
        r, c = np.argwhere(bad | complex_cells)[0]
        what = "complex" if complex_cells[r, c] else "non-numeric"
        raise InputError(
            f"{what} value {_shown(wide.iat[r, c])} for system {wide.columns[c]} "
            f"on topic {wide.index[r]}",
            source,
        )
    label = measure or "score"
    for kind, names in (("system", systems), ("topic", topics)):
        for name in names:  # a df.loc["mean"] = df.mean() row is no topic
            check_name(kind, name, source, None)
    matrix = ScoreMatrix(numeric.to_numpy(dtype=float).T, systems, topics, label, source)
    return {label: matrix}


def _is_complex(value: Any) -> bool:
    return isinstance(value, (complex, np.complexfloating))


def _shown(value: Any) -> str:
    """A cell as the user wrote it: numpy's scalars as Python's (``(1+1j)``, not
    ``np.complex128(1+1j)``)."""
    return repr(value.item() if isinstance(value, np.generic) else value)


def combine(parts: Iterable[Matrices]) -> Matrices:
    """Merge several ``{measure: matrix}`` maps and align them on common systems/topics.

    Every measure must cover the same topics (a metric compared on other topics would not be
    comparable); systems are those present for every measure, in the first one's order.
    """
    merged: Matrices = {}
    for part in parts:
        for name, matrix in part.items():
            if name in merged:
                raise InputError(
                    f"measure {name} given twice (also in {merged[name].source})", matrix.source
                )
            merged[name] = matrix
    if not merged:
        raise InputError("no score matrices given")
    return align(merged)


def align(matrices: Matrices) -> Matrices:
    """Check equal topic sets and restrict all measures to the systems they share."""
    first = next(iter(matrices.values()))
    topics = set(first.topics)
    for matrix in matrices.values():
        if set(matrix.topics) != topics:
            extra = sorted(set(matrix.topics) ^ topics)[:5]
            raise InputError(
                f"measures {first.measure} and {matrix.measure} cover different "
                f"topics (e.g. {', '.join(extra)})",
                matrix.source,
            )
    sets = [set(m.systems) for m in matrices.values()]
    shared = [s for s in first.systems if all(s in names for names in sets)]
    return {name: m.take_systems(shared).take_topics(first.topics) for name, m in matrices.items()}


def select_systems(
    matrices: Matrices,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = None,
    by: Optional[str] = None,
    minimum: Optional[int] = None,
) -> Matrices:
    """Keep all systems, the ``top_k`` best, or the best ``top_fraction`` by measure ``by``.

    Systems are ranked by mean score of ``by`` (default: the first measure), ties broken by
    the order of appearance. A fraction keeps ``ceil(fraction * n)`` systems, as "the top 75%"
    of a track should not lose a system to rounding down. A filter that keeps fewer than
    ``minimum`` of at least ``minimum`` systems is refused naming its parameter (the scores
    had enough: the filter took them away).
    """
    # a measure named to rank by is checked even when all systems are kept: it is recorded
    # with the results, and a name with no scores must not pass for a choice made
    if by is not None:
        from irgauge.scores.lookup import find_measure

        if find_measure(matrices, by) is None:
            raise InputError(
                f"cannot select systems by {by}: no scores for it (have: {', '.join(matrices)})"
            )
        by = find_measure(matrices, by)  # --by MAP ranks by a file's AP
    if top_k is None and top_fraction is None:
        return matrices
    if top_k is not None and top_fraction is not None:
        raise InputError("give either top-k or top-fraction, not both")
    by = by or next(iter(matrices))
    ref = matrices[by]
    n = ref.n_systems
    if top_fraction is not None:
        top_fraction = _checks.fraction(top_fraction, "top_fraction")
        # at least one: a fraction so small that the tolerance ate ceil's one system
        keep = max(1, int(math.ceil(top_fraction * n - 1e-9)))
    else:
        keep = min(_checks.count(top_k, "top_k"), n)
    if minimum is not None and keep < minimum <= n:
        parameter, value = ("top_k", top_k) if top_k is not None else ("top_fraction", top_fraction)
        raise InputError(
            f"{parameter}: {value:g} keeps {keep} of {counted(n, 'system')}; "
            f"at least {minimum} are needed",
            parameter=parameter,
        )
    order = np.argsort(-ref.means(), kind="stable")[:keep]
    chosen = [ref.systems[i] for i in order]
    return {name: m.take_systems(chosen) for name, m in matrices.items()}


def require_systems(matrices: Matrices, minimum: int = 2) -> None:
    """Raise InputError when fewer than ``minimum`` systems are left."""
    for matrix in matrices.values():
        if matrix.n_systems < minimum:
            raise InputSizeError(
                f"measure {matrix.measure}: {counted(matrix.n_systems, 'system')} "
                f"({listed(matrix.systems, 3)}); at least {minimum} are needed",
                matrix.source,
            )


def check_matrices(matrices) -> tuple:
    """Validate ``{measure: ScoreMatrix}`` (aligned, >= 2 systems); return (names, systems,
    topics, stacked values measures x systems x topics)."""
    if not matrices:
        raise InputError("no score matrices given")
    matrices = align(dict(matrices))
    require_systems(matrices, 2)
    first = next(iter(matrices.values()))
    stacked = np.stack([m.values for m in matrices.values()])
    return list(matrices), first.systems, first.topics, stacked
