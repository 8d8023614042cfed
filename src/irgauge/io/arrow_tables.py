"""Runs and qrels as Parquet or Arrow IPC (Feather) tables, read a row group (or record
batch) at a time so that a run of any size is read in bounded memory.

Columns are named as in the ecosystem (case is ignored):

- topic: ``query_id`` (ir_measures, ir_datasets), ``qid`` (PyTerrier) or ``topic``;
- document: ``doc_id``, ``docno`` or ``doc``; ``docid`` only when none of those is there
  (PyTerrier's results carry ``docid``, its internal document number, beside ``docno``);
- score (runs): ``score``;
- relevance (qrels): ``relevance``, ``label`` or ``rel``;
- run name (runs, optional): ``run``, ``run_id`` or ``tag``, one value per file.

A table with two columns for one role (``qid`` and ``query_id``) is refused, naming both.
Ids are strings, binary or integers (written in decimal), dictionary-encoded or not; an id
must be a token of a TREC text file (not empty, no whitespace and no NUL byte), so that a
table evaluates exactly as the same data written as text. Rows are numbered from 1 in
file order, and errors name the file and the row.

pyarrow is an optional dependency (``pip install "irgauge[arrow]"``); without it, such a
file is refused with that hint. Files are told by suffix (``.parquet``, ``.arrow``,
``.feather``, ``.ipc``, ``.arrows``) or by their first bytes (``PAR1``, ``ARROW1``).
"""

from __future__ import annotations

import os
from typing import Dict, Iterator, List, Optional, Tuple

import numpy as np

from irgauge.errors import InputError
from irgauge.io._source import is_compressed
from irgauge.io.file_names import PathLike, path_stem_and_suffix, strip_compression_suffix
from irgauge.io.file_text import first_bytes
from irgauge.io.noted_inputs import STDIN, note_input
from irgauge.io._tokens import first_unfit_id
from irgauge.io.ids import Ids
from irgauge.io.records import AGGREGATE_TOPIC, Qrels, Run

PARQUET_MAGIC = b"PAR1"
ARROW_MAGIC = b"ARROW1"
SUFFIXES = {
    ".parquet": "parquet",
    ".arrow": "arrow",
    ".feather": "arrow",
    ".ipc": "arrow",
    ".arrows": "arrow",
}
INSTALL_HINT = 'pip install "irgauge[arrow]"'
DEFAULT_MAX_ROWS = 1 << 20  # rows per chunk: a few tens of MB of ids and scores

ROLES = {  # role -> (accepted column names, what the role is called in messages)
    "topic": (("query_id", "qid", "topic"), "topic id"),
    "doc": (("doc_id", "docno", "doc"), "document id"),
    "score": (("score",), "score"),
    "relevance": (("relevance", "label", "rel"), "relevance level"),
    "run": (("run", "run_id", "tag"), "run name"),
}
FALLBACK = {"doc": "docid"}  # read only when no other document column is there
RUN_ROLES = (("topic", True), ("doc", True), ("score", True), ("run", False))
QRELS_ROLES = (("topic", True), ("doc", True), ("relevance", True))


# ------------------------------------------------------------------------- detection
def table_format(path: PathLike) -> Optional[str]:
    """``"parquet"`` or ``"arrow"`` when ``path`` is such a table (by its suffix, else by its
    first bytes), None for anything else (a text file, standard input). A compressed table
    (``run.parquet.gz``) is an InputError: the formats compress their data themselves."""
    name = str(path)
    if name == STDIN:
        return None
    lower = name.lower()
    inner = strip_compression_suffix(lower)
    if inner != lower and path_stem_and_suffix(inner)[1] in SUFFIXES:
        raise _compressed(name)
    suffix = path_stem_and_suffix(lower)[1]
    if suffix in SUFFIXES:
        return SUFFIXES[suffix]
    try:
        if not os.path.isfile(name):  # a pipe is read once, by the text reader
            return None
        with open(name, "rb") as handle:
            start = handle.read(6)
    except OSError:
        return None  # the text reader says why the file cannot be read
    kind = _kind_of(start)
    if kind is None and is_compressed(start):
        if _kind_of(first_bytes(name, 6)) is not None:
            raise _compressed(name)
    return kind


def _kind_of(start: bytes) -> Optional[str]:
    if start.startswith(PARQUET_MAGIC):
        return "parquet"
    return "arrow" if start.startswith(ARROW_MAGIC) else None


def _compressed(name: str) -> InputError:
    return InputError(
        "a compressed Parquet or Arrow file: these formats compress their data themselves; "
        "decompress the file (or write it with compression= inside the format)",
        name,
    )


def _pyarrow(path: str):
    try:
        import pyarrow
        import pyarrow.compute  # noqa: F401
        import pyarrow.ipc  # noqa: F401
        import pyarrow.parquet  # noqa: F401
    except ImportError:
        raise InputError(
            f"reading Parquet and Arrow files needs pyarrow: {INSTALL_HINT}", path
        ) from None
    return pyarrow


# ------------------------------------------------------------------------- batches
# a damaged file can fail in pyarrow's own decoding of its metadata (a column path that is
# not UTF-8), not only with an ArrowException
_DAMAGED = (OSError, UnicodeDecodeError)


class _Table:
    """One Parquet or Arrow IPC file: its column names, and its rows a batch at a time."""

    def __init__(self, path: str, kind: str):
        self.path, self.kind = path, kind
        self.pa = pa = _pyarrow(path)
        try:
            with open(path, "rb") as handle:
                note_input(path, handle)
        except OSError as err:
            raise InputError(f"cannot read file: {err.strerror or err}", path) from None
        try:
            if kind == "parquet":
                self.file = pa.parquet.ParquetFile(path, memory_map=True)
                self.names = list(self.file.schema_arrow.names)
            else:
                self.file = self._open_ipc()
                self.names = list(self.file.schema.names)
        except _DAMAGED + (pa.ArrowException,) as err:
            raise self._unreadable(err) from None

    def _open_ipc(self):
        pa = self.pa
        source = pa.memory_map(self.path)
        try:
            return pa.ipc.open_file(source)
        except pa.ArrowInvalid:
            source.seek(0)
            return pa.ipc.open_stream(source)  # the IPC stream format (.arrows)

    def _unreadable(self, err: Exception) -> InputError:
        what = "Parquet" if self.kind == "parquet" else "Arrow IPC (Feather version 2)"
        detail = getattr(err, "strerror", None) or str(err).strip().splitlines()[0]
        return InputError(f"not a readable {what} file: {detail}", self.path)

    def batches(self, columns: List[str], max_rows: int) -> Iterator:
        """Record batches of at most ``max_rows`` rows of ``columns``, in file order."""
        pa = self.pa
        try:
            if self.kind == "parquet":
                batches = self.file.iter_batches(batch_size=max_rows, columns=columns)
            elif isinstance(self.file, pa.ipc.RecordBatchFileReader):
                batches = (self.file.get_batch(i) for i in range(self.file.num_record_batches))
            else:
                batches = iter(self.file)
            for batch in batches:
                batch = batch.select(columns)
                if self.kind != "parquet":
                    # IPC batches are the file's bytes as they lie (memory-mapped): a damaged
                    # offset would index past its buffer; Parquet's are decoded, so checked
                    batch.validate(full=True)
                for at in range(0, max(batch.num_rows, 1), max_rows):
                    yield batch.slice(at, max_rows)
        except _DAMAGED + (pa.ArrowException,) as err:
            raise self._unreadable(err) from None


def _columns(names: List[str], roles, what: str, path: str) -> Dict[str, str]:
    """role -> the table's column for it; a missing required role or two columns for one
    role are InputErrors."""
    by_lower: Dict[str, List[str]] = {}
    for name in names:
        by_lower.setdefault(name.lower(), []).append(name)
    chosen = {}
    for role, required in roles:
        accepted, label = ROLES[role]
        found = [c for alias in accepted for c in by_lower.get(alias, [])]
        if not found and role in FALLBACK:
            found = by_lower.get(FALLBACK[role], [])
        if len(found) > 1:
            raise InputError(
                f"{what} table has columns {found[0]!r} and {found[1]!r}, which both name the "
                f"{label}; keep one of them",
                path,
            )
        if found:
            chosen[role] = found[0]
        elif required:
            accepted = accepted + ((FALLBACK[role],) if role in FALLBACK else ())
            raise InputError(
                f"{what} table has no {label} column (accepted names: {', '.join(accepted)}); "
                f"its columns are {', '.join(map(repr, names)) or 'none'}",
                path,
            )
    return chosen


# ------------------------------------------------------------------------- columns
class _Rows:
    """Converts the columns of one batch, whose first row is row ``first`` of the file."""

    def __init__(self, table: _Table, first: int):
        self.pa, self.path, self.first = table.pa, table.path, first

    def fail(self, row: int, problem: str) -> InputError:
        return InputError(problem, self.path, self.first + row, "row")

    def no_nulls(self, column, name: str) -> None:
        if column.null_count:
            valid = np.asarray(column.is_valid().to_numpy(zero_copy_only=False), bool)
            raise self.fail(int(np.argmin(valid)), f"no value in column {name!r} (null)")

    def ids(self, column, name: str) -> Ids:
        """An id column as Ids, each id a token of a text file."""
        pa, kind = self.pa, column.type
        if pa.types.is_dictionary(kind):
            column = column.dictionary_decode()
            kind = column.type
        if pa.types.is_integer(kind):
            column = column.cast(pa.large_string())
        elif _is_text(pa, kind):
            column = column.cast(pa.large_binary())
        else:
            raise self.fail(0, f"column {name!r} holds {kind}; ids must be strings or integers")
        self.no_nulls(column, name)
        offsets = np.frombuffer(column.buffers()[1], np.int64)
        offsets = offsets[column.offset : column.offset + len(column) + 1]
        data = column.buffers()[2]
        data = np.frombuffer(data, np.uint8) if data is not None else np.zeros(0, np.uint8)
        pool = Ids.padded(data[offsets[0] : offsets[-1]].tobytes())
        starts = offsets[:-1] - offsets[0]
        lens = np.diff(offsets)
        ids = Ids(pool, starts, lens, compact=True)
        row = first_unfit_id(ids)
        if row >= 0 and lens[row] == 0:
            raise self.fail(row, f"empty id in column {name!r}")
        if row >= 0:
            raise self.fail(
                row,
                f"id {ids[row]!r} in column {name!r} holds whitespace or a NUL byte, "
                "which a TREC file cannot hold",
            )
        return ids

    def numbers(self, column, name: str) -> np.ndarray:
        """A numeric column as float64, every value given."""
        pa = self.pa
        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        kind = column.type
        if not (pa.types.is_integer(kind) or pa.types.is_floating(kind) or _is_decimal(pa, kind)):
            raise self.fail(0, f"column {name!r} holds {kind}, not numbers")
        self.no_nulls(column, name)
        return np.asarray(column.cast(pa.float64()).to_numpy(zero_copy_only=False), np.float64)

    def scores(self, column, name: str) -> np.ndarray:
        scores = self.numbers(column, name)
        bad = np.flatnonzero(~np.isfinite(scores))
        if len(bad):
            raise self.fail(int(bad[0]), f"score {scores[bad[0]]} is not a finite number")
        return scores

    def levels(self, column, name: str) -> np.ndarray:
        """Relevance levels as int64: integers, or floats that are whole numbers."""
        pa = self.pa
        if pa.types.is_dictionary(column.type):
            column = column.dictionary_decode()
        if pa.types.is_integer(column.type):
            self.no_nulls(column, name)
            try:
                return np.asarray(column.cast(pa.int64()).to_numpy(), np.int64)
            except pa.ArrowInvalid:
                big = np.flatnonzero(column.to_numpy() > np.iinfo(np.int64).max)
                raise self.fail(int(big[0]), "relevance level outside the 64-bit range") from None
        values = self.numbers(column, name)
        whole = np.isfinite(values) & (values == np.floor(values)) & (np.abs(values) < 2.0**63)
        if not whole.all():
            row = int(np.argmin(whole))
            raise self.fail(row, f"relevance level {values[row]} is not an integer")
        return values.astype(np.int64)

    def no_aggregate_topic(self, topics: Ids) -> None:
        hits = np.flatnonzero(topics == AGGREGATE_TOPIC.encode())
        if len(hits):
            raise self.fail(
                int(hits[0]),
                f"topic id {AGGREGATE_TOPIC!r} is the label of the mean over all topics in "
                "irgauge's (and trec_eval's) output, so it cannot name a topic; rename the topic",
            )


def _is_text(pa, kind) -> bool:
    checks: Tuple[str, ...] = ("is_string", "is_large_string", "is_binary", "is_large_binary")
    checks += ("is_string_view", "is_binary_view", "is_fixed_size_binary")
    return any(getattr(pa.types, c, lambda _: False)(kind) for c in checks)


def _is_decimal(pa, kind) -> bool:
    return pa.types.is_decimal(kind)


# ------------------------------------------------------------------------- runs
def iter_arrow_run_chunks(
    path: PathLike, max_rows: Optional[int] = None, name: Optional[str] = None
) -> Iterator[Run]:
    """The run in a Parquet or Arrow file as Runs of at most ``max_rows`` consecutive rows
    (default ``DEFAULT_MAX_ROWS``), in file order, read a row group or record batch at a
    time: the whole table is never in memory. Chunks do not follow topic boundaries.

    Each Run's ids are those the text reader gives for the same ids, scores are float64,
    and ``line_numbers`` are the rows' numbers in the file (from 1). The run is named
    ``name``, else by its ``run``/``run_id``/``tag`` column (one value per file), else by
    the file's stem."""
    path = str(path)
    kind = table_format(path) or "parquet"
    max_rows = DEFAULT_MAX_ROWS if max_rows is None else int(max_rows)
    if max_rows < 1:
        raise InputError(f"max_rows must be at least 1, got {max_rows}")
    table = _Table(path, kind)
    chosen = _columns(table.names, RUN_ROLES, "run", path)
    tag: Optional[str] = None
    first = 1
    for batch in table.batches(list(chosen.values()), max_rows):
        if batch.num_rows == 0:
            continue
        rows = _Rows(table, first)
        if "run" in chosen:
            tag = _run_tag(rows, batch.column(chosen["run"]), chosen["run"], tag)
        topics = rows.ids(batch.column(chosen["topic"]), chosen["topic"])
        rows.no_aggregate_topic(topics)
        yield Run(
            name=name or tag or path_stem_and_suffix(str(path))[0],
            topics=topics,
            docnos=rows.ids(batch.column(chosen["doc"]), chosen["doc"]),
            scores=rows.scores(batch.column(chosen["score"]), chosen["score"]),
            natural_order="score",
            source=path,
            line_numbers=np.arange(first, first + batch.num_rows, dtype=np.int64),
            tag=tag,
            position_unit="row",
        )
        first += batch.num_rows
    if first == 1:
        raise InputError("run table holds no rows", path)


def _run_tag(rows: _Rows, column, label: str, tag: Optional[str]) -> Optional[str]:
    """The run name of a batch's rows (nulls aside), which must be the earlier rows' one."""
    pa = rows.pa
    if pa.types.is_dictionary(column.type):
        column = column.dictionary_decode()
    names = [_text(v) for v in pa.compute.unique(column.drop_null()).to_pylist()]
    if not names:
        return tag
    tag = names[0] if tag is None else tag
    other = next((n for n in names if n != tag), None)
    if other is not None:
        texts = pa.array([_text(v) if v is not None else tag for v in column.to_pylist()])
        row = int(np.argmax(np.asarray(texts.to_numpy(zero_copy_only=False)) != tag))
        raise rows.fail(
            row,
            f"column {label!r} names run {other!r}, but earlier rows name run {tag!r}; "
            "the file holds several runs: write one file per run",
        )
    return tag


def _text(value) -> str:
    return value.decode("utf-8", "backslashreplace") if isinstance(value, bytes) else str(value)


def read_arrow_run(path: PathLike, name: Optional[str] = None) -> Run:
    """The whole run in a Parquet or Arrow file (its chunks joined)."""
    topics: List[Ids] = []
    docnos: List[Ids] = []
    scores: list = []  # each chunk's; a run table always has its score column
    last: Optional[Run] = None
    for chunk in iter_arrow_run_chunks(path, name=name):
        topics.append(chunk.topics)
        docnos.append(chunk.docnos)
        scores.append(chunk.scores)
        last = chunk
    assert last is not None  # an empty table is refused
    return Run(
        name=last.name,
        topics=Ids.concat(topics),
        docnos=Ids.concat(docnos),
        scores=np.concatenate(scores),
        natural_order="score",
        source=str(path),
        line_numbers=None,  # entry i is row i + 1
        tag=last.tag,
        position_unit="row",
    )


# ------------------------------------------------------------------------- qrels
def read_arrow_qrels(
    path: PathLike, max_rows: Optional[int] = None, conflicting: str = "refuse"
) -> Qrels:
    """Judgments in a Parquet or Arrow file, read a row group at a time; repeated and
    conflicting judgments are handled as in a text file (``Qrels.from_arrays``)."""
    path = str(path)
    table = _Table(path, table_format(path) or "parquet")
    chosen = _columns(table.names, QRELS_ROLES, "qrels", path)
    parts: Tuple[List[Ids], List[Ids], List[np.ndarray]] = ([], [], [])
    first = 1
    for batch in table.batches(list(chosen.values()), max_rows or DEFAULT_MAX_ROWS):
        if batch.num_rows == 0:
            continue
        rows = _Rows(table, first)
        topics = rows.ids(batch.column(chosen["topic"]), chosen["topic"])
        rows.no_aggregate_topic(topics)
        parts[0].append(topics)
        parts[1].append(rows.ids(batch.column(chosen["doc"]), chosen["doc"]))
        parts[2].append(rows.levels(batch.column(chosen["relevance"]), chosen["relevance"]))
        first += batch.num_rows
    if first == 1:
        raise InputError("qrels table holds no rows", path)
    return Qrels.from_arrays(
        Ids.concat(parts[0]),
        Ids.concat(parts[1]),
        np.concatenate(parts[2]),
        source=path,
        fmt="arrow",
        conflicting=conflicting,
    )
