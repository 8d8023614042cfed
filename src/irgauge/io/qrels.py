"""Read relevance judgments: TREC (``qid iter docno rel``), NTCIR (``qid docno L2`` or
``S/A/B``), NTCIR per-topic rel files (``docno L2``; the topic is the file's stem),
pandas DataFrames and ``{qid: {docno: level}}`` dicts.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Mapping, Union

import numpy as np

from irgauge.collection import Qrels
from irgauge.errors import InputError
from irgauge.io._source import iter_blocks
from irgauge.io._tokens import BLOCK_BYTES, TokenTable, parse_ints, tokenize

NTCIR_LETTER_LEVELS = {b"S": 3, b"A": 2, b"B": 1}
QrelsSource = Union[str, Path, Qrels, Mapping[str, Mapping[str, Any]], Any]


def read_qrels(source: QrelsSource) -> Qrels:
    """Read judgments from a path, DataFrame, dict or Qrels.

    Levels: integers (negative = judged nonrelevant, as in TREC), ``L<k>``, or NTCIR's
    letters S, A, B (levels 3, 2, 1).
    """
    if isinstance(source, Qrels):
        return source
    if isinstance(source, Mapping):
        return _from_mapping(source)
    if hasattr(source, "columns"):
        return _from_frame(source)
    return _from_path(source)


def _from_path(path: Union[str, Path]) -> Qrels:
    name = str(path)
    table = tokenize(iter_blocks(path, BLOCK_BYTES), name, allowed_columns=(2, 3, 4), keep={4: (0, 2, 3)})
    if table.n_columns == 4:
        topics, docnos, level_tokens, fmt = table.columns[0], table.columns[2], table.columns[3], "trec"
    elif table.n_columns == 3:
        topics, docnos, level_tokens, fmt = table.columns[0], table.columns[1], table.columns[2], "ntcir"
    else:
        stem = Path(name[:-3] if name.endswith(".gz") else name).stem
        topics = np.full(len(table), stem.encode(), dtype=f"S{max(1, len(stem.encode()))}")
        docnos, level_tokens, fmt = table.columns[0], table.columns[1], "ntcir-topic"
    levels = parse_levels(level_tokens, table)
    return Qrels.from_arrays(topics, docnos, levels, source=name, fmt=fmt,
                             line_numbers=table.line_numbers)


def parse_levels(tokens: np.ndarray, table: TokenTable) -> np.ndarray:
    """Relevance levels from integers, ``L<k>`` labels or S/A/B letters."""
    first = tokens.view(np.uint8).reshape(len(tokens), -1)[:, 0]
    if (first == ord("L")).all():
        stripped = np.char.lstrip(tokens, b"L")
        return parse_ints(stripped, table, "relevance label")
    letters = np.isin(tokens, list(NTCIR_LETTER_LEVELS))
    if letters.any():
        levels = np.zeros(len(tokens), dtype=np.int64)
        for letter, level in NTCIR_LETTER_LEVELS.items():
            levels[tokens == letter] = level
        if not letters.all():
            numeric = ~letters
            levels[numeric] = parse_ints(tokens[numeric], _subset(table, numeric), "relevance level")
        return levels
    return parse_ints(tokens, table, "relevance level")


def _subset(table: TokenTable, mask: np.ndarray) -> TokenTable:
    return TokenTable(table.path, table.line_numbers[mask], [c[mask] for c in table.columns])


def _from_mapping(mapping: Mapping[str, Mapping[str, Any]]) -> Qrels:
    topics, docnos, levels = [], [], []
    for topic, judged in mapping.items():
        for docno, level in judged.items():
            topics.append(str(topic))
            docnos.append(str(docno))
            levels.append(_int_level(level, f"qrels[{topic!r}][{docno!r}]"))
    if not topics:
        raise InputError("qrels mapping holds no judgments", "<dict>")
    return Qrels.from_arrays(_encode(topics), _encode(docnos), np.asarray(levels, np.int64),
                             source="<dict>", fmt="dict")


def _from_frame(frame: Any) -> Qrels:
    columns = {c.lower(): c for c in frame.columns}

    def pick(*names: str) -> str:
        for n in names:
            if n in columns:
                return columns[n]
        raise InputError(f"qrels DataFrame needs one of the columns {', '.join(names)}",
                         "<DataFrame>")

    topic_col = pick("query_id", "qid", "topic")
    doc_col = pick("doc_id", "docno", "doc")
    level_col = pick("relevance", "rel", "level", "grade")
    if len(frame) == 0:
        raise InputError("qrels DataFrame is empty", "<DataFrame>")
    levels = [_int_level(v, f"row {i}") for i, v in enumerate(frame[level_col].tolist())]
    return Qrels.from_arrays(_encode(frame[topic_col].astype(str).tolist()),
                             _encode(frame[doc_col].astype(str).tolist()),
                             np.asarray(levels, np.int64), source="<DataFrame>", fmt="frame")


def _int_level(value: Any, where: str) -> int:
    if isinstance(value, (bytes, str)) and value in ("S", "A", "B"):
        return NTCIR_LETTER_LEVELS[value.encode() if isinstance(value, str) else value]
    try:
        level = int(value)
    except (TypeError, ValueError):
        raise InputError(f"relevance level {value!r} at {where} is not an integer") from None
    if level != value and not isinstance(value, str):
        raise InputError(f"relevance level {value!r} at {where} is not an integer")
    return level


def _encode(strings) -> np.ndarray:
    encoded = [s.encode("utf-8") for s in strings]
    return np.array(encoded, dtype=f"S{max(1, max((len(e) for e in encoded), default=1))}")
