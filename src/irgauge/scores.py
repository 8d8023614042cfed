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

import csv
import io
import math
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, Iterable, List, Mapping, Optional, Sequence, Union

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError

LONG_HEADER = ("run", "measure", "topic", "value")
TOPIC_COLUMNS = ("topic", "topics", "qid", "query", "query_id")
MEAN_TOPIC = "all"


@dataclass(frozen=True)
class ScoreMatrix:
    """Per-topic scores of one measure: ``values[i, j]`` is system i's score on topic j."""

    values: np.ndarray
    systems: List[str]
    topics: List[str]
    measure: str
    source: Optional[str] = field(default=None, compare=False)

    def __post_init__(self):
        values = np.asarray(self.values, dtype=np.float64)
        object.__setattr__(self, "values", values)
        object.__setattr__(self, "systems", [str(s) for s in self.systems])
        object.__setattr__(self, "topics", [str(t) for t in self.topics])
        if values.ndim != 2 or values.shape != (len(self.systems), len(self.topics)):
            raise InputError(f"measure {self.measure}: score matrix of shape {values.shape} does "
                             f"not match {len(self.systems)} systems x {len(self.topics)} topics",
                             self.source)
        if not np.isfinite(values).all():
            i, j = np.argwhere(~np.isfinite(values))[0]
            raise InputError(f"measure {self.measure}: missing or non-finite score for system "
                             f"{self.systems[i]} on topic {self.topics[j]}", self.source)
        for kind, names in (("system", self.systems), ("topic", self.topics)):
            if len(set(names)) != len(names):
                dup = next(n for n in names if names.count(n) > 1)
                raise InputError(f"measure {self.measure}: duplicate {kind} {dup!r}", self.source)

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
            raise InputError(f"measure {self.measure}: no scores for {what}(s) "
                             f"{', '.join(missing[:5])}", self.source)
        return [index[name] for name in wanted]

    def take_systems(self, systems: Sequence[str]) -> "ScoreMatrix":
        """The matrix restricted to ``systems``, in that order."""
        rows = self._positions(systems, self.systems, "system")
        return ScoreMatrix(self.values[rows], list(systems), self.topics, self.measure,
                           self.source)

    def take_topics(self, topics: Sequence[str]) -> "ScoreMatrix":
        """The matrix restricted to ``topics``, in that order."""
        cols = self._positions(topics, self.topics, "topic")
        return ScoreMatrix(self.values[:, cols], self.systems, list(topics), self.measure,
                           self.source)


Matrices = Dict[str, ScoreMatrix]


# ---------------------------------------------------------------------------- readers

def read_scores(path: Union[str, Path], measures: Optional[Sequence[str]] = None,
                name: Optional[str] = None, header: bool = True) -> Matrices:
    """Read a score file (long TSV or wide CSV/TSV) into ``{measure: ScoreMatrix}``.

    ``measures`` keeps only those measures of a long file (in that order). A wide file holds
    one measure, named ``name`` or else after the file's stem. Accepted: plain or gzipped
    UTF-8 (with or without a BOM); tab-, comma- or semicolon-separated (the header line
    decides, see :func:`_delimiter`); ``#`` lines before the header; a wide file's first
    column holds the topics when it is named topic/topics/qid/query/query_id or has an empty
    name (pandas ``to_csv()`` with its index), otherwise every column is a system and
    topics are numbered 1, 2, ... With ``header=False`` (``--headerless-scores``) a wide file has no header line: its
    columns are systems named 1, 2, ... and its rows topics numbered 1, 2, ...
    """
    path = str(path)
    text = _read_text(path)
    lines = text.splitlines()
    first = 0
    while first < len(lines) and (lines[first].startswith("#") or not lines[first].strip()):
        first += 1
    if first == len(lines):
        raise InputError("score file has no header and no scores", path)
    delimiter = _delimiter(lines[first])
    columns = [c.strip().strip('"') for c in lines[first].split(delimiter)]
    if header and [c.lower() for c in columns[:4]] == list(LONG_HEADER):
        found = _read_long(lines, first, path)
        if name is not None and len(found) == 1:
            found = {name: _renamed(next(iter(found.values())), name)}
    else:
        if measures is not None and name is None and len(measures) == 1:
            name = measures[0]
        label = name or Path(path).stem
        found = {label: _read_wide(text, first, delimiter, path, label, header)}
        measures = None
    return _pick(found, measures, path)


def _delimiter(header: str) -> str:
    """The header line decides: a tab means TSV, else a comma (a semicolon when the line
    has semicolons and no comma, as spreadsheets write CSV in some locales)."""
    if "\t" in header:
        return "\t"
    return ";" if ";" in header and "," not in header else ","


def _read_text(path: str) -> str:
    """The file's text: gunzipped if gzip, UTF-8 with an optional BOM; anything else is
    refused at FILE:LINE (a Latin-1 score file would otherwise misname its systems)."""
    import gzip
    import zlib

    try:
        with open(path, "rb") as handle:
            data = handle.read()
        if data[:2] == b"\x1f\x8b":
            data = gzip.decompress(data)
    except OSError as err:
        raise InputError(f"cannot read score file: {err.strerror or err}", path) from None
    except (EOFError, zlib.error) as err:
        raise InputError(f"cannot read score file: corrupt gzip data ({err})", path) from None
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as err:
        line = data.count(b"\n", 0, err.start) + 1
        column = err.start - (data.rfind(b"\n", 0, err.start) + 1) + 1
        raise InputError(f"not UTF-8 text (byte 0x{data[err.start]:02x} at column {column}); "
                         "convert the file to UTF-8", path, line) from None


def _renamed(matrix: ScoreMatrix, name: str) -> ScoreMatrix:
    return ScoreMatrix(matrix.values, matrix.systems, matrix.topics, name, matrix.source)


def _pick(found: Matrices, measures: Optional[Sequence[str]], source: Optional[str]) -> Matrices:
    if measures is None:
        return found
    missing = [m for m in measures if m not in found]
    if missing:
        raise InputError(f"no scores for measure(s) {', '.join(missing)} (found: "
                         f"{', '.join(found) or 'none'})", source)
    return {m: found[m] for m in measures}


def _number(text: str, path: Optional[str], line: Optional[int], what: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise InputError(f"non-numeric value {text!r} for {what}", path, line) from None
    if not math.isfinite(value):
        raise InputError(f"missing or non-finite value {text!r} for {what}", path, line)
    return value


def _read_long(lines: List[str], first: int, path: str) -> Matrices:
    """Parse the tidy ``run measure topic value`` layout; ``all`` rows are skipped."""
    cells: Dict[str, Dict[tuple, float]] = {}
    for number in range(first + 1, len(lines)):
        raw = lines[number]
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = raw.split("\t")
        if len(parts) < 4:
            raise InputError(f"expected 4 tab-separated fields (run, measure, topic, value), "
                             f"found {len(parts)}", path, number + 1)
        run, measure, topic, value = (p.strip() for p in parts[:4])
        if topic == MEAN_TOPIC:
            continue
        what = f"run {run}, measure {measure}, topic {topic}"
        score = _number(value, path, number + 1, what)
        table = cells.setdefault(measure, {})
        if (run, topic) in table:
            raise InputError(f"duplicate row for {what}", path, number + 1)
        table[(run, topic)] = score
    if not cells:
        raise InputError("score file holds no per-topic scores", path)
    return {m: _matrix_from_cells(m, table, path) for m, table in cells.items()}


def _matrix_from_cells(measure: str, table: Mapping[tuple, float],
                       source: Optional[str]) -> ScoreMatrix:
    systems = list(dict.fromkeys(run for run, _ in table))
    topics = list(dict.fromkeys(topic for _, topic in table))
    values = np.full((len(systems), len(topics)), np.nan)
    si = {s: i for i, s in enumerate(systems)}
    ti = {t: j for j, t in enumerate(topics)}
    for (run, topic), value in table.items():
        values[si[run], ti[topic]] = value
    if np.isnan(values).any():
        i, j = np.argwhere(np.isnan(values))[0]
        raise InputError(f"measure {measure}: missing score for run {systems[i]} on topic "
                         f"{topics[j]}", source)
    return ScoreMatrix(values, systems, topics, measure, source)


def _read_wide(text: str, first: int, delimiter: str, path: str, measure: str,
               has_header: bool = True) -> ScoreMatrix:
    """Parse one-row-per-topic, one-column-per-system CSV/TSV."""
    try:
        rows = list(csv.reader(io.StringIO(text), delimiter=delimiter, strict=True))
    except csv.Error as err:
        raise InputError(f"cannot parse the {'TSV' if delimiter == chr(9) else 'CSV'}: {err}",
                         path) from None
    if has_header:
        header = [c.strip() for c in rows[first]]
        # pandas to_csv() writes its index under an empty name
        has_topic = header[0].lower() in TOPIC_COLUMNS or (header[0] == "" and len(header) > 1)
        start = first + 1
    else:
        header = [str(k + 1) for k in range(len(rows[first]))]
        has_topic, start = False, first
    systems = header[1:] if has_topic else header
    _check_system_names(systems, path, first + 1)
    values, topics = [], []
    first_line: Dict[str, int] = {}
    for number in range(start, len(rows)):
        row = rows[number]
        if not row or all(not c.strip() for c in row) or row[0].startswith("#"):
            continue
        if len(row) != len(header):
            raise InputError(f"expected {len(header)} fields, found {len(row)} (missing cell?)",
                             path, number + 1)
        topic = row[0].strip() if has_topic else str(len(topics) + 1)
        if not topic:
            raise InputError("empty topic id", path, number + 1)
        if topic in first_line:
            raise InputError(f"topic {topic!r} appears twice (also on line "
                             f"{first_line[topic]})", path, number + 1)
        first_line[topic] = number + 1
        cells = row[1:] if has_topic else row
        for system, cell in zip(systems, cells):
            if not cell.strip() or cell.strip().upper() in ("NA", "NAN"):
                raise InputError(f"missing score for system {system} on topic {topic}",
                                 path, number + 1)
        values.append([_number(c, path, number + 1, f"system {s} on topic {topic}")
                       for s, c in zip(systems, cells)])
        topics.append(topic)
    if not topics:
        raise InputError("score file holds no topics", path)
    return ScoreMatrix(np.array(values).T, systems, topics, measure, path)


def _check_system_names(systems: List[str], path: str, line: int) -> None:
    """Every system named, once (a duplicate would silently merge two columns)."""
    seen = set()
    for k, system in enumerate(systems):
        if not system:
            raise InputError(f"column {k + 1} of the header has no system name", path, line)
        if system in seen:
            raise InputError(f"system {system!r} appears twice in the header", path, line)
        seen.add(system)


def from_frame(frame, measure: Optional[str] = None, source: Optional[str] = None) -> Matrices:
    """Score matrices from a pandas DataFrame.

    A long frame has columns run, measure, topic, value (``all`` rows skipped); a wide frame
    has one column per system and one row per topic (the index, or a ``topic`` column, names
    the topics) and holds the single measure ``measure``.
    """
    import pandas as pd

    cols = [str(c).lower() for c in frame.columns]
    if set(LONG_HEADER) <= set(cols):
        long = frame.rename(columns={c: str(c).lower() for c in frame.columns})
        long = long[long["topic"].astype(str) != MEAN_TOPIC]
        values = pd.to_numeric(long["value"], errors="coerce")
        if values.isna().any():
            bad = long.loc[values.isna()].iloc[0]
            raise InputError(f"non-numeric or missing value {bad['value']!r} for run "
                             f"{bad['run']}, measure {bad['measure']}, topic {bad['topic']}",
                             source)
        keys = long[["run", "measure", "topic"]].astype(str)
        dup = keys.duplicated()
        if dup.any():
            bad = keys.loc[dup].iloc[0]
            raise InputError(f"duplicate row for run {bad['run']}, measure {bad['measure']}, "
                             f"topic {bad['topic']}", source)
        found = {}
        for name, part in keys.assign(value=values.to_numpy()).groupby("measure", sort=False):
            table = dict(zip(zip(part["run"], part["topic"]), part["value"]))
            found[name] = _matrix_from_cells(name, table, source)
        if not found:
            raise InputError("frame holds no per-topic scores", source)
        return found
    wide = frame
    if cols and cols[0] in TOPIC_COLUMNS:
        wide = frame.set_index(frame.columns[0])
    numeric = wide.apply(pd.to_numeric, errors="coerce")
    bad = numeric.isna() & ~wide.isna()
    if bad.to_numpy().any():
        r, c = np.argwhere(bad.to_numpy())[0]
        raise InputError(f"non-numeric value {wide.iat[r, c]!r} for system {wide.columns[c]} "
                         f"on topic {wide.index[r]}", source)
    label = measure or "score"
    matrix = ScoreMatrix(numeric.to_numpy(dtype=float).T, [str(c) for c in wide.columns],
                         [str(t) for t in wide.index], label, source)
    return {label: matrix}


def combine(parts: Iterable[Matrices]) -> Matrices:
    """Merge several ``{measure: matrix}`` maps and align them on common systems/topics.

    Every measure must cover the same topics (a metric compared on other topics would not be
    comparable); systems are those present for every measure, in the first one's order.
    """
    merged: Matrices = {}
    for part in parts:
        for name, matrix in part.items():
            if name in merged:
                raise InputError(f"measure {name} given twice (also in {merged[name].source})",
                                 matrix.source)
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
            raise InputError(f"measures {first.measure} and {matrix.measure} cover different "
                             f"topics (e.g. {', '.join(extra)})", matrix.source)
    shared = [s for s in first.systems if all(s in set(m.systems) for m in matrices.values())]
    return {name: m.take_systems(shared).take_topics(first.topics)
            for name, m in matrices.items()}


# ---------------------------------------------------------------------------- selection

def select_systems(matrices: Matrices, top_k: Optional[int] = None,
                   top_fraction: Optional[float] = None, by: Optional[str] = None) -> Matrices:
    """Keep all systems, the ``top_k`` best, or the best ``top_fraction`` by measure ``by``.

    Systems are ranked by mean score of ``by`` (default: the first measure), ties broken by
    the order of appearance. A fraction keeps ``ceil(fraction * n)`` systems, as "the top 75%"
    of a track should not lose a system to rounding down.
    """
    if top_k is None and top_fraction is None:
        return matrices
    if top_k is not None and top_fraction is not None:
        raise InputError("give either top-k or top-fraction, not both")
    by = by or next(iter(matrices))
    if by not in matrices:
        raise InputError(f"cannot select systems by {by}: no scores for it (have: "
                         f"{', '.join(matrices)})")
    ref = matrices[by]
    n = ref.n_systems
    if top_fraction is not None:
        top_fraction = _checks.fraction(top_fraction, "top_fraction")
        keep = int(math.ceil(top_fraction * n - 1e-9))
    else:
        keep = min(_checks.count(top_k, "top_k"), n)
    order = np.argsort(-ref.means(), kind="stable")[:keep]
    chosen = [ref.systems[i] for i in order]
    return {name: m.take_systems(chosen) for name, m in matrices.items()}


def require_systems(matrices: Matrices, minimum: int = 2) -> None:
    """Raise InputError when fewer than ``minimum`` systems are left."""
    for matrix in matrices.values():
        if matrix.n_systems < minimum:
            raise InputError(f"measure {matrix.measure}: {matrix.n_systems} system(s); at least "
                             f"{minimum} are needed", matrix.source)


# ---------------------------------------------------------------------------- in-process

def score_matrices(qrels, runs, measures, **options) -> Matrices:
    """Evaluate ``runs`` against ``qrels`` with :func:`irgauge.evaluate`; one matrix per measure.

    ``options`` go to ``evaluate`` unchanged. Measures are named as ``evaluate`` names them
    in its per-topic table.
    """
    from irgauge.evaluate import evaluate  # the function (the submodule shares its name)

    result = evaluate(qrels, runs, measures, **options)
    per_topic = result.per_topic
    return align(from_frame(per_topic[list(LONG_HEADER)], source="evaluate"))
