"""Read relevance judgments: TREC (``qid iter docno rel``), NTCIR (``qid docno L2`` or
``S/A/B``), NTCIR per-topic rel files (``docno L2``; the topic is the file's stem),
Parquet and Arrow tables (:mod:`irgauge.io.arrow_tables`), pandas DataFrames and
``{qid: {docno: level}}`` dicts.
"""

from __future__ import annotations

from typing import Any, Dict, Iterator, Mapping, Optional

import numpy as np

from irgauge import _checks
from irgauge.io.adapters import adapted_frame
from irgauge.io.ids import Ids
from irgauge.io.records import IdKeys, Qrels
from irgauge.errors import InputError
from irgauge.io._numbers import INT64_MAX, INT64_MIN, parse_ints
from irgauge.io._source import blocks_naming, iter_blocks, size_hint
from irgauge.io.file_names import (
    PathLike,
    file_path,
    path_stem_and_suffix,
    strip_compression_suffix,
)
from irgauge.io._tokens import BLOCK_BYTES, TokenTable, first_unfit_id, tokenize
from irgauge.io.arrow_tables import read_arrow_qrels, table_format
from irgauge.types import QrelsLike

QRELS_KINDS = "a file path, a DataFrame, a {topic: {docno: level}} dict or Qrels"
NTCIR_LETTER_LEVELS = {b"S": 3, b"A": 2, b"B": 1}


LEVEL_COLUMN = {4: (3,), 3: (2,), 2: (1,)}  # by column count: the last column


@_checks.renamed_keywords(threads="jobs")
def read_qrels(
    source: QrelsLike,
    jobs: Optional[int] = None,
    read_from: Optional[str] = None,
    conflicting: str = "refuse",
) -> Qrels:
    """Read judgments from a path (``-`` for standard input), DataFrame, dict or Qrels.

    Levels: integers (negative = judged nonrelevant, as in TREC; any signed 64-bit value),
    ``L<k>``, or NTCIR's letters S, A, B (levels 3, 2, 1). A file uses one kind throughout.
    ``read_from``: a copy of the text file to read instead (a pipe copied to be read twice);
    the path still names the judgments and their errors. A judgment repeated with another
    level is refused at FILE:LINE, or with ``conflicting="record"`` listed in
    ``Qrels.repeats`` (see ``Qrels.from_arrays``). ``jobs``: threads a big file is read
    on, a block each (``threads=``, its old name, still works, deprecated).
    """
    if isinstance(source, Qrels):
        return source
    if source is None:  # a forgotten argument, not a file named "None"
        raise InputError("no qrels given", parameter="qrels")
    if isinstance(source, Mapping):
        return _from_mapping(source)
    if hasattr(source, "columns"):
        return _from_frame(source)
    return _from_path(source, jobs, read_from, conflicting)


def _from_path(
    path: PathLike,
    threads: Optional[int] = None,
    read_from: Optional[str] = None,
    conflicting: str = "refuse",
) -> Qrels:
    name = path = file_path(path, "qrels", "qrels", QRELS_KINDS)
    if table_format(name):
        return read_arrow_qrels(name, conflicting=conflicting)
    table = tokenize(
        _blocks(name, read_from),
        name,
        allowed_columns=(2, 3, 4),
        keep={4: (0, 2, 3)},
        unhashed=LEVEL_COLUMN,
        threads=threads,
        size_hint=size_hint(read_from or path),
    )
    if table.n_columns == 4:
        topics, docnos, level_tokens, fmt = table.ids(0), table.ids(2), table.ids(3), "trec"
    elif table.n_columns == 3:
        topics, docnos, level_tokens, fmt = table.ids(0), table.ids(1), table.ids(2), "ntcir"
    else:
        stem = path_stem_and_suffix(strip_compression_suffix(name))[0]
        topics = Ids.full(stem.encode(), len(table))
        docnos, level_tokens, fmt = table.ids(0), table.ids(1), "ntcir-topic"
    levels = parse_levels(level_tokens, table)
    return Qrels.from_arrays(
        topics,
        docnos,
        levels,
        source=name,
        fmt=fmt,
        line_numbers=table.line_numbers,
        conflicting=conflicting,
    )


def _blocks(name: str, read_from: Optional[str]) -> Iterator[bytes]:
    """The text of ``name``, or of its copy ``read_from``, with errors naming ``name``."""
    if read_from is None or read_from == name:
        return iter_blocks(name, BLOCK_BYTES)
    return blocks_naming(iter_blocks(read_from, BLOCK_BYTES), read_from, name)


@_checks.renamed_keywords(threads="jobs")
def read_judgment_groups(
    path: PathLike,
    jobs: Optional[int] = None,
    read_from: Optional[str] = None,
    conflicting: str = "refuse",
) -> Dict[str, Qrels]:
    """Read trec_eval's multi-judge qrels (``qrels_jg``: ``qid jg docno rel``, the second
    column naming the judgment group, one assessor or user): one Qrels per group label,
    in byte order of the labels, each holding the lines of that group.

    A group label names a set of judgments within each topic; a topic judged by groups
    ``0`` and ``1`` is judged twice, and a document may have a level in each. Each group's
    lines are checked as any qrels' are (a conflicting repeat is an error at FILE:LINE,
    or with ``conflicting="record"`` listed in the group's ``Qrels.repeats``).
    ``read_from`` and ``jobs``: as for :func:`read_qrels`.
    """
    name = path = file_path(path, "judgment groups", "path")
    table = tokenize(
        _blocks(name, read_from),
        name,
        allowed_columns=(4,),
        unhashed={4: (1, 3)},  # the group labels and the levels
        threads=jobs,
        size_hint=size_hint(read_from or path),
    )
    topics, groups, docnos, level_tokens = (table.ids(i) for i in range(4))
    levels = parse_levels(level_tokens, table)
    labels, group_of_line = np.unique(np.array(groups.tolist(), dtype=object), return_inverse=True)
    order = np.argsort(group_of_line, kind="stable")
    bounds = np.searchsorted(group_of_line[order], np.arange(len(labels) + 1))
    out: Dict[str, Qrels] = {}
    for g, label in enumerate(labels.tolist()):
        rows = order[bounds[g] : bounds[g + 1]]
        out[label.decode("utf-8", "surrogateescape")] = Qrels.from_arrays(
            topics[rows],
            docnos[rows],
            levels[rows],
            source=name,
            fmt="trec",
            line_numbers=table.line_numbers[rows],
            conflicting=conflicting,
        )
    return out


def parse_levels(tokens: Ids, table: TokenTable) -> np.ndarray:
    """Relevance levels from integers, ``L<k>`` labels or S/A/B letters, one kind per file
    (the kind of the first data line)."""
    lines, path = table.line_numbers, table.path
    first = tokens.pool[tokens.starts]
    letter = (tokens.lens == 1) & np.isin(first, [ord(k) for k in "SAB"])
    if letter[0]:
        if not letter.all():
            i = int(np.argmin(letter))
            raise InputError(
                f"relevance level {tokens[i].decode(errors='backslashreplace')!r} "
                "is not S, A or B as on the first data line",
                path,
                int(lines[i]),
            )
        levels = np.zeros(len(tokens), dtype=np.int64)
        for key, level in NTCIR_LETTER_LEVELS.items():
            levels[first == key[0]] = level
        return levels
    if first[0] == ord("L") and tokens.lens[0] > 1:
        labelled = (first == ord("L")) & (tokens.lens > 1)
        if not labelled.all():
            i = int(np.argmin(labelled))
            raise InputError(
                f"relevance level {tokens[i].decode(errors='backslashreplace')!r} "
                "is not L<n> as on the first data line",
                path,
                int(lines[i]),
            )
        return parse_ints(
            Ids(tokens.pool, tokens.starts + 1, tokens.lens - 1), path, lines, "relevance label"
        )
    return parse_ints(
        tokens, path, lines, "relevance level", hint=" (the first data line's level is an integer)"
    )


def _from_mapping(mapping: Mapping[str, Mapping[str, Any]]) -> Qrels:
    topics, docnos, levels = [], [], []
    topic_id = IdKeys("qrels dict", "<dict>", topics=True)
    for topic, judged in mapping.items():
        name = topic_id(topic)
        inner_mapping(judged, f"qrels[{topic!r}]", "{docno: level}")
        docno_id = IdKeys(f"judgments of topic {name!r}", "<dict>", topics=False)
        for docno, level in judged.items():
            topics.append(name)
            docnos.append(docno_id(docno))
            levels.append(_int_level(level, f"qrels[{topic!r}][{docno!r}]"))
    if not topics:
        raise InputError("qrels mapping holds no judgments", "<dict>")
    return Qrels.from_arrays(
        memory_ids(topics, "topic id", "<dict>"),
        memory_ids(docnos, "document id", "<dict>"),
        np.asarray(levels, np.int64),
        source="<dict>",
        fmt="dict",
    )


def inner_mapping(value: Any, where: str, shape: str) -> None:
    """Refuse a topic's entry that is not a mapping (a list of docnos, a set, a str)."""
    if not isinstance(value, Mapping):
        raise InputError(
            f"{where} must be a {shape} dict; got {type(value).__name__} {str(value)[:40]!r}",
            "<dict>",
        )


def _from_frame(frame: Any) -> Qrels:
    """Qrels from a DataFrame, its columns found and its ids checked by the adapter."""
    frame = adapted_frame(frame, "qrels")
    if len(frame) == 0:
        raise InputError("qrels DataFrame is empty", "<DataFrame>")
    levels = [_int_level(v, f"row {i}") for i, v in enumerate(frame["relevance"].tolist())]
    return Qrels.from_arrays(
        memory_ids(frame["query_id"].tolist(), "topic id", "<DataFrame>", rows=True),
        memory_ids(frame["doc_id"].tolist(), "document id", "<DataFrame>", rows=True),
        np.asarray(levels, np.int64),
        source="<DataFrame>",
        fmt="frame",
    )


def _int_level(value: Any, where: str) -> int:
    if isinstance(value, (bytes, str)) and value in ("S", "A", "B"):
        return NTCIR_LETTER_LEVELS[value.encode() if isinstance(value, str) else value]
    try:
        if isinstance(value, (bool, np.bool_)):
            raise TypeError(value)  # True is not level 1: a flag where a grade belongs
        level = int(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(f"relevance level {value!r} at {where} is not an integer") from None
    if level != value and not isinstance(value, str):
        raise InputError(f"relevance level {value!r} at {where} is not an integer")
    if not INT64_MIN <= level <= INT64_MAX:
        raise InputError(
            f"relevance level {value!r} at {where} is outside the 64-bit integer range"
        )
    return level


def _encode(strings) -> Ids:
    """Ids from str (UTF-8) or bytes values."""
    return Ids.from_list(list(strings))


def memory_ids(strings, what: str, source: str, rows: bool = False) -> Ids:
    """Ids of an in-memory input (dict keys, a DataFrame column), each held to what a text
    file's field can be, as a table's are: a field cannot be empty nor hold whitespace."""
    ids = _encode(strings)
    i = first_unfit_id(ids)
    if i >= 0:
        where = f" (row {i})" if rows else ""
        problem = "is empty" if ids.lens[i] == 0 else "holds whitespace or a NUL byte"
        raise InputError(
            f"{what} {ids[i].decode('utf-8', 'backslashreplace')!r}{where} {problem}, which "
            "an id cannot (a TREC file's field); give ids without them",
            source,
        )
    return ids
