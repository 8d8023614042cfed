"""Hypothesis strategies of hostile input files: valid content of each format, then mutated.

A file is a list of lines, each a list of fields (bytes); a mutation changes fields
(reserved or colliding ids, out-of-range numbers, NULs, bytes that are not UTF-8, huge
fields) or lines (duplicated, removed, a very long line), and the file is then laid out
with some line end (LF, CRLF, CR, mixed, none at the end), an optional BOM, and an optional
compression (gzip, bz2, xz; gzip cut short, padded with NULs, followed by garbage, split in
two members). Empty and whitespace-only files are among the outcomes.

``Layout`` is kept apart from the content: the layouts that keep the content (``benign``)
must give the same output as the plain file, byte for byte.
"""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
from dataclasses import dataclass
from typing import List, Sequence

from hypothesis import HealthCheck, settings, strategies as st

# IRGAUGE_FUZZ_EXAMPLES=N runs N examples of every property (default: each property's own
# budget, chosen so that the whole harness runs in about two minutes on one core)
EXAMPLES_VARIABLE = "IRGAUGE_FUZZ_EXAMPLES"


def fuzz_settings(examples: int) -> settings:
    """Settings of one property: ``examples`` by default, the environment's count if set."""
    wanted = os.environ.get(EXAMPLES_VARIABLE, "").strip()
    return settings(
        max_examples=int(wanted) if wanted else examples,
        deadline=None,  # a command's first call imports pandas and scipy
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.data_too_large,
            HealthCheck.large_base_example,
            HealthCheck.filter_too_much,
        ],
    )


MAX_LINE = 1 << 20  # the readers' longest line (io._source.MAX_LINE_BYTES)

# values a field may be replaced by
RESERVED_IDS = [b"all", b"ALL", b"-", b"#x", b"1", b"01", b"1.0", b"\xc3\xa9", b"e\xcc\x81"]
NUMBERS = [
    b"1e308",
    b"-1e308",
    b"1e309",
    b"1e-400",
    b"nan",
    b"NaN",
    b"inf",
    b"-inf",
    b"Infinity",
    b"-0",
    b"-0.0",
    b"+1",
    b"0x1p3",
    b"1_0",
    b"1e",
    b".",
    b"9223372036854775807",
    b"9223372036854775808",
    b"-9223372036854775809",
    b"2147483647",
    b"2147483648",
    b"-1",
    b"1e100",
    b"1e101",
    b"3.5",
    b"L2",
    b"S",
    b"",
]
ODD_BYTES = [b"\x00", b"\xff", b"\xc3", b"\xef\xbb\xbf", b"\r", b"\x0b", b"\x0c", b"\xa0", b'"']


@dataclass(frozen=True)
class FileFormat:
    """A line format: its separator and which fields are ids and which numbers."""

    separator: bytes
    id_fields: Sequence[int]
    number_fields: Sequence[int]


@dataclass(frozen=True)
class Layout:
    """How the lines become bytes."""

    line_end: str  # "lf", "crlf", "cr", "mixed"
    final_end: bool
    bom: bool
    compression: str  # "", "gzip", "bz2", "xz", "gzip-members", "gzip-padded", "gzip-cut",
    # "gzip-garbage"

    @property
    def benign(self) -> bool:
        """Whether the file holds the same content as the plain LF file."""
        return not self.compression.startswith(("gzip-cut", "gzip-garbage"))


PLAIN = Layout("lf", True, False, "")


def layouts(hostile: bool = True) -> st.SearchStrategy:
    compressions = ["", "gzip", "bz2", "xz", "gzip-members", "gzip-padded"]
    if hostile:
        compressions += ["gzip-cut", "gzip-garbage"]
    return st.builds(
        Layout,
        line_end=st.sampled_from(["lf", "crlf", "cr", "mixed"]),
        final_end=st.booleans(),
        bom=st.booleans(),
        compression=st.sampled_from(compressions),
    )


def render(lines: List[List[bytes]], fmt: FileFormat, layout: Layout, cut: int = 0) -> bytes:
    """The file's bytes; ``cut`` picks where a "gzip-cut" file ends."""
    # mixed: a CR is always followed by a CR (of "\r" or "\r\n"), never by the LF of an empty
    # line's end, which would make one CRLF of two line ends (a line fewer than the plain file)
    ends = {"lf": [b"\n"], "crlf": [b"\r\n"], "cr": [b"\r"], "mixed": [b"\n", b"\r", b"\r\n"]}
    choice = ends[layout.line_end]
    text = b"".join(
        fmt.separator.join(fields) + choice[i % len(choice)] for i, fields in enumerate(lines)
    )
    if lines and not layout.final_end:
        text = text[: -len(choice[(len(lines) - 1) % len(choice)])]
    if layout.bom:
        text = b"\xef\xbb\xbf" + text
    return compress(text, layout.compression, cut)


def compress(text: bytes, how: str, cut: int = 0) -> bytes:
    if how == "":
        return text
    if how == "bz2":
        return bz2.compress(text)
    if how == "xz":
        return lzma.compress(text)
    packed = gzip.compress(text, mtime=0)
    if how == "gzip-members":
        half = len(text) // 2
        return gzip.compress(text[:half], mtime=0) + gzip.compress(text[half:], mtime=0)
    if how == "gzip-padded":
        return packed + b"\0" * (1 + cut % 5000)
    if how == "gzip-cut":
        return packed[: max(2, len(packed) - 1 - cut % len(packed))]
    if how == "gzip-garbage":
        return packed + b"\0\0garbage" + bytes([cut % 256])
    return packed


@st.composite
def mutated(draw, lines: List[List[bytes]], fmt: FileFormat) -> List[List[bytes]]:
    """``lines`` with up to three mutations."""
    lines = [list(fields) for fields in lines]
    for _ in range(draw(st.integers(0, 3))):
        kind = draw(
            st.sampled_from(
                ["id", "number", "odd", "huge", "duplicate", "drop", "split", "long", "blank"]
            )
        )
        if not lines:
            break
        row = draw(st.integers(0, len(lines) - 1))
        fields = lines[row]
        column = draw(st.integers(0, max(len(fields) - 1, 0)))
        ids = [i for i in fmt.id_fields if i < len(fields)]
        numbers = [i for i in fmt.number_fields if i < len(fields)]
        if kind == "id" and ids:
            fields[draw(st.sampled_from(ids))] = draw(st.sampled_from(RESERVED_IDS))
        elif kind == "number" and numbers:
            fields[draw(st.sampled_from(numbers))] = draw(st.sampled_from(NUMBERS))
        elif kind == "odd" and fields:
            at = draw(st.integers(0, len(fields[column])))
            value = fields[column]
            fields[column] = value[:at] + draw(st.sampled_from(ODD_BYTES)) + value[at:]
        elif kind == "huge" and fields:
            fields[column] = b"x" * draw(st.sampled_from([300, 70_000, MAX_LINE + 1]))
        elif kind == "duplicate":
            lines.insert(row, list(fields))
        elif kind == "drop":
            del lines[row]
        elif kind == "split" and fields:
            lines[row] = fields[:column]  # a short line: a field missing
        elif kind == "long":
            lines.insert(row, [b"y" * (MAX_LINE + 10)])
        elif kind == "blank":
            lines.insert(row, [draw(st.sampled_from([b"", b" \t", b"# a comment"]))])
    return lines


@st.composite
def hostile_bytes(draw, lines: List[List[bytes]], fmt: FileFormat) -> bytes:
    """A hostile version of the file: mutated lines in any layout, or an empty file."""
    if draw(st.integers(0, 19)) == 0:
        return draw(st.sampled_from([b"", b"\n", b" \t\r\n", b"\0", b"\xef\xbb\xbf"]))
    return render(draw(mutated(lines, fmt)), fmt, draw(layouts()), draw(st.integers(0, 1 << 16)))


# ------------------------------------------------------------------ valid contents

TOPICS = [b"1", b"2", b"3"]
DOCS = [b"d1", b"d2", b"d3", b"d4", b"d5"]

TREC_RUN = FileFormat(b" ", id_fields=(0, 2, 5), number_fields=(3, 4))
TREC_QRELS = FileFormat(b" ", id_fields=(0, 2), number_fields=(1, 3))
NTCIR_QRELS = FileFormat(b" ", id_fields=(0, 1), number_fields=(2,))
PRELS = FileFormat(b" ", id_fields=(0, 1), number_fields=(2, 3))
LONG_SCORES = FileFormat(b"\t", id_fields=(0, 1, 2), number_fields=(3,))
WIDE_SCORES = FileFormat(b",", id_fields=(0,), number_fields=(1, 2, 3))
QA_GOLD = FileFormat(b";", id_fields=(0, 1, 3), number_fields=(2,))
QA_RUN = FileFormat(b";", id_fields=(0, 2, 5), number_fields=(3, 4))


def trec_run(tag: bytes = b"r", shift: int = 0) -> List[List[bytes]]:
    return [
        [t, b"Q0", DOCS[(i + shift) % len(DOCS)], str(i + 1).encode(), f"{5 - i}.5".encode(), tag]
        for t in TOPICS
        for i in range(4)
    ]


def trec_qrels() -> List[List[bytes]]:
    return [
        [t, b"0", d, str((i * 7 + j) % 4).encode()]
        for i, t in enumerate(TOPICS)
        for j, d in enumerate(DOCS)
    ]


def prels() -> List[List[bytes]]:
    """The qrels as a sample: topic, docno, level and an inclusion probability."""
    return [[t, d, level, b"0.%d5" % (i % 9)] for i, (t, _, d, level) in enumerate(trec_qrels())]


def ntcir_qrels() -> List[List[bytes]]:
    return [
        [t, d, b"L" + str((i + j) % 3).encode()]
        for i, t in enumerate(TOPICS)
        for j, d in enumerate(DOCS)
    ]


SYSTEMS = [b"s1", b"s2", b"s3"]
SCORE_TOPICS = [str(t).encode() for t in range(1, 7)]


def score(system: int, topic: int) -> bytes:
    return f"{((system * 5 + topic * 3) % 10) / 10 + system / 100:.4f}".encode()


def long_scores() -> List[List[bytes]]:
    return [[b"run", b"measure", b"topic", b"value"]] + [
        [s, b"AP", t, score(i, j)]
        for i, s in enumerate(SYSTEMS)
        for j, t in enumerate(SCORE_TOPICS)
    ]


def wide_scores() -> List[List[bytes]]:
    return [[b"topic", *SYSTEMS]] + [
        [t, *(score(i, j) for i in range(len(SYSTEMS)))] for j, t in enumerate(SCORE_TOPICS)
    ]


def qa_gold() -> List[List[bytes]]:
    return [
        [t, a, b"L" + str(level).encode(), c]
        for t in TOPICS
        for a, level, c in ((b"tokyo", 2, b"c1"), (b"Tokyo city", 2, b"c1"), (b"kyoto", 1, b"c2"))
    ]


def qa_run() -> List[List[bytes]]:
    return [
        [t, b"0", a, str(i + 1).encode(), f"{3 - i}.0".encode(), b"qa"]
        for t in TOPICS
        for i, a in enumerate((b"kyoto", b"osaka", b"tokyo"))
    ]


# ------------------------------------------------------------------ TOML study configs

# a study's collections: lines of ``key = value`` (the header a line of one field)
STUDY_TOML = FileFormat(b" = ", id_fields=(0,), number_fields=(1,))
MISSING = "missing.txt"  # a path no collection holds
# values that qrels or runs may be given: a folder or a file where the other is wanted, a
# missing path, lists (empty, of numbers, of files), an empty path, a NUL, a huge path, and
# values of other TOML types
TOML_VALUES = [
    b'"runs"',
    b'"qrels.txt"',
    f'"{MISSING}"'.encode(),
    b'["run.txt", "run2.txt"]',
    b'["runs"]',
    b"[]",
    b"[1, 2]",
    b'""',
    b'"q\\u0000rels.txt"',
    b'"' + b"x" * 5000 + b'"',
    b'"' + b"x/" * 40_000 + b'"',
    b"{ a = 1 }",
    b"1979-05-27",
    b"true",
    b"1e308",
    b"nan",
]


def study_toml() -> List[List[bytes]]:
    return [[b"[collections.c1]"], [b"qrels", b'"qrels.txt"'], [b"runs", b'"runs"']]


@st.composite
def study_toml_lines(draw) -> List[List[bytes]]:
    """The valid config with up to two values replaced by TOML_VALUES."""
    lines = study_toml()
    for _ in range(draw(st.integers(0, 2))):
        lines[draw(st.sampled_from([1, 2]))][1] = draw(st.sampled_from(TOML_VALUES))
    return lines


# ------------------------------------------------------------------ Parquet and Arrow tables

# hostile values of a table's columns: ids (1 and '1' in one column, 'all', empty, with a
# space, huge), scores and levels that are null, NaN, infinite, huge or of the wrong type
TABLE_IDS = ["all", "1", "01", "", "a b", "é", "x" * 70_000, None, 1, 2**62, -1]
TABLE_NUMBERS = [None, float("nan"), float("inf"), -float("inf"), 1e308, -1e308, 2**62, -1, 1.5]
# a table's file beside its columns: a truncated or corrupt file, or not a table at all
TABLE_DAMAGES = ["", "", "", "cut", "flipped", "text", "empty file", "arrow"]


@dataclass(frozen=True)
class HostileTable:
    """A table's columns ({name: values}) and what is done to its file (TABLE_DAMAGES)."""

    columns: tuple  # ((name, values), ...)
    damage: str
    at: int  # where a file is cut or a byte flipped


def valid_run_table() -> dict:
    rows = trec_run()
    return {
        "query_id": [r[0].decode() for r in rows],
        "doc_id": [r[2].decode() for r in rows],
        "score": [float(r[4]) for r in rows],
    }


def valid_qrels_table() -> dict:
    rows = trec_qrels()
    return {
        "query_id": [r[0].decode() for r in rows],
        "doc_id": [r[2].decode() for r in rows],
        "relevance": [int(r[3]) for r in rows],
    }


@st.composite
def hostile_tables(draw, columns: dict) -> HostileTable:
    """``columns`` with up to three mutations: a value replaced, a row repeated, a column
    renamed, dropped, doubled (two names of one role) or made all integers."""
    columns = {name: list(values) for name, values in columns.items()}
    for _ in range(draw(st.integers(0, 3))):
        name = draw(st.sampled_from(sorted(columns)))
        values = columns[name]
        kind = draw(st.sampled_from(["value", "value", "repeat", "rename", "drop", "ints"]))
        if kind == "value" and values:
            pool = TABLE_IDS if name in ("query_id", "doc_id", "qid") else TABLE_NUMBERS
            values[draw(st.integers(0, len(values) - 1))] = draw(st.sampled_from(pool))
        elif kind == "repeat" and values:
            at = draw(st.integers(0, len(values) - 1))
            for other in columns.values():
                other.insert(at, other[at] if at < len(other) else None)
        elif kind == "rename":
            new = draw(st.sampled_from(["qid", "Doc_ID", "score ", "rel", "label", "x"]))
            columns[new if new not in columns else name + "_"] = columns.pop(name)
        elif kind == "drop" and len(columns) > 1:
            del columns[name]
        elif kind == "ints" and name in ("query_id", "doc_id"):
            columns[name] = [i % 3 + 1 for i in range(len(values))]
    if draw(st.integers(0, 9)) == 0:
        columns = {name: values[:0] for name, values in columns.items()}  # no rows
    damage = draw(st.sampled_from(TABLE_DAMAGES))
    at = draw(st.integers(0, 1 << 16))
    return HostileTable(tuple(columns.items()), damage, at)


def write_table(table: HostileTable, path) -> None:
    """Write the table as Parquet (Arrow IPC for the damage "arrow"), then damage it. A
    column whose values no Arrow type holds (ints beside strings) is written as strings,
    except the mixes kept on purpose: ids 1 and '1' become one string column."""
    import pyarrow as pa
    import pyarrow.feather
    import pyarrow.parquet

    arrays = {}
    lengths = {len(v) for _, v in table.columns}
    size = max(lengths) if lengths else 0
    for name, values in table.columns:
        values = list(values) + [None] * (size - len(values))
        try:
            arrays[name] = pa.array(values)
        except (pa.ArrowException, OverflowError):
            arrays[name] = pa.array([None if v is None else str(v) for v in values])
    frame = pa.table(arrays) if arrays else pa.table({"x": pa.array([], pa.int64())})
    if table.damage == "arrow":
        pa.feather.write_feather(frame, str(path))
    else:
        pa.parquet.write_table(frame, str(path), row_group_size=7)
    data = open(path, "rb").read()
    if table.damage == "cut":
        data = data[: table.at % max(len(data), 1)]
    elif table.damage == "flipped":
        at = table.at % len(data)
        data = data[:at] + bytes([data[at] ^ 0xFF]) + data[at + 1 :]
    elif table.damage == "text":
        data = b"1 Q0 d1 1 1.0 r\n"  # a text run named .parquet
    elif table.damage == "empty file":
        data = b""
    with open(path, "wb") as handle:
        handle.write(data)
