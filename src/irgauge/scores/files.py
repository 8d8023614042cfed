"""Score files: irgauge's long per-topic TSV or a wide CSV/TSV (one row per topic, one
column per system), read into ``{measure: ScoreMatrix}`` with every cell checked."""

from __future__ import annotations

import csv
from typing import Dict, List, Optional, Sequence

import numpy as np

from irgauge._checks import plain_number_text
from irgauge.errors import InputError
from irgauge.io.file_names import PathLike, file_path, file_stem
from irgauge.io.file_text import read_text, text_lines
from irgauge.scores.matrix import (
    LONG_HEADER,
    MAX_SCORE,
    TOPIC_COLUMNS,
    Matrices,
    ScoreMatrix,
    check_name,
    finite_score,
    long_matrices,
)
from irgauge.scores.other_layouts import (
    is_json,
    read_json_scores,
    refuse_headerless_long,
    refuse_trec_inputs,
    refuse_text_table,
)
from irgauge.io.words import counted


def read_scores(
    path: PathLike,
    measures: Optional[Sequence[str]] = None,
    name: Optional[str] = None,
    header: bool = True,
) -> Matrices:
    """Read a score file (long TSV or wide CSV/TSV) into ``{measure: ScoreMatrix}``.

    ``measures`` keeps only those measures of a long file (in that order). A wide file holds
    one measure, named ``name`` or else after the file's stem. Accepted: plain or gzipped
    UTF-8 (with or without a BOM); tab-, comma- or semicolon-separated (the header line
    decides, see :func:`_delimiter`); ``#`` lines before the header; a wide file's first
    column holds the topics when it is named topic/topics/qid/query/query_id or has an empty
    name (pandas ``to_csv()`` with its index), otherwise every column is a system and
    topics are numbered 1, 2, ... With ``header=False``
    (``--headerless-scores``) a wide file has no header line: its
    columns are systems named 1, 2, ... and its rows topics numbered 1, 2, ...
    """
    if measures is not None:  # refused before the file is read, as -m is
        from irgauge.measures.parse import measure_texts  # as _pick: measures on use

        measures = measure_texts(measures)  # one string is one measure, not its letters
    path = file_path(path, "a score file", "path")
    text = _read_text(path)
    lines = text_lines(text)
    first = 0
    while first < len(lines) and (lines[first].startswith("#") or not lines[first].strip()):
        first += 1
    if first == len(lines):
        raise InputError("score file has no header and no scores", path)
    if header:
        _refuse_trec_eval_output(lines[first], path, first + 1)
        refuse_text_table(lines, first, path)
        refuse_headerless_long(lines[first], path, first + 1)
        refuse_trec_inputs(lines[first], path, first + 1)
    delimiter = _delimiter(lines[first])
    columns = [c.strip().strip('"') for c in lines[first].split(delimiter)]
    long = header and [c.lower() for c in columns[:4]] == list(LONG_HEADER)
    if header and is_json(lines[first]) or long:
        if long and len(columns) != len(LONG_HEADER):
            raise InputError(
                f"the header names {counted(len(columns), 'column')}; irgauge's per-topic TSV "
                f"has the "
                f"4 columns {', '.join(LONG_HEADER)} (a further column would not be read)",
                path,
                first + 1,
            )
        found = _read_long(lines, first, path) if long else read_json_scores(text, path)
        if name is not None and len(found) == 1:
            found = {name: _renamed(next(iter(found.values())), name)}
    else:
        if measures is not None and name is None and len(measures) == 1:
            name = measures[0]
        label = name or file_stem(path)  # ap.csv.gz measures ap, as ap.csv does
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
    """The file's text: decompressed, UTF-8 with an optional BOM; anything else is refused
    at FILE:LINE (a Latin-1 score file would otherwise misname its systems), and so is a
    line over 1 MiB, as soon as it is read (``io.file_text.read_text``)."""
    return read_text(path)


def _renamed(matrix: ScoreMatrix, name: str) -> ScoreMatrix:
    return ScoreMatrix(matrix.values, matrix.systems, matrix.topics, name, matrix.source)


def _pick(found: Matrices, measures: Optional[Sequence[str]], source: Optional[str]) -> Matrices:
    if measures is None:
        return found
    from irgauge.scores.lookup import pick_measures

    return pick_measures(found, measures, source=source)


def _read_long(lines: List[str], first: int, path: str) -> Matrices:
    """Parse the tidy ``run measure topic value`` layout; ``all`` rows are skipped."""
    return long_matrices(_long_rows(lines, first, path), path)


def _long_rows(lines: List[str], first: int, path: str):
    for number in range(first + 1, len(lines)):
        raw = lines[number]
        if not raw.strip() or raw.startswith("#"):
            continue
        parts = raw.split("\t")
        if len(parts) != 4:
            raise InputError(
                f"expected 4 tab-separated fields (run, measure, topic, value), found {len(parts)}",
                path,
                number + 1,
            )
        yield (*(p.strip() for p in parts[:4]), number + 1)


def _read_wide(
    text: str, first: int, delimiter: str, path: str, measure: str, has_header: bool = True
) -> ScoreMatrix:
    """Parse one-row-per-topic, one-column-per-system CSV/TSV."""
    try:
        rows = list(csv.reader(text_lines(text), delimiter=delimiter, strict=True))
    except csv.Error as err:
        raise InputError(
            f"cannot parse the {'TSV' if delimiter == chr(9) else 'CSV'}: {err}", path
        ) from None
    if has_header:
        header = [c.strip() for c in rows[first]]
        _refuse_numeric_header(header, path, first + 1)
        # pandas to_csv() writes its index under an empty name
        has_topic = header[0].lower() in TOPIC_COLUMNS or (header[0] == "" and len(header) > 1)
        start = first + 1
    else:
        header = [str(k + 1) for k in range(len(rows[first]))]
        has_topic, start = False, first
    systems = header[1:] if has_topic else header
    _check_system_names(systems, path, first + 1)
    values: List[List[float]] = []
    topics: List[str] = []
    first_line: Dict[str, int] = {}
    for number in range(start, len(rows)):
        row = rows[number]
        if not row or all(not c.strip() for c in row) or row[0].startswith("#"):
            continue
        if len(row) != len(header):
            raise InputError(
                f"expected {len(header)} fields, found {len(row)} (missing cell?)", path, number + 1
            )
        topic = row[0].strip() if has_topic else str(len(topics) + 1)
        check_name("topic", topic, path, number + 1)
        if topic in first_line:
            raise InputError(
                f"topic {topic!r} appears twice (also on line {first_line[topic]})",
                path,
                number + 1,
            )
        first_line[topic] = number + 1
        cells = row[1:] if has_topic else row
        values.append(_row_scores(cells, systems, topic, path, number + 1))
        topics.append(topic)
    if not topics:
        raise InputError("score file holds no topics", path)
    return ScoreMatrix(np.array(values).T, systems, topics, measure, path)


def _row_scores(cells: List[str], systems: List[str], topic: str, path: str, line: int):
    """A row's scores, as ``finite_score`` reads each cell. Read whole first (one float per
    cell, one check per row); only a row that fails is read cell by cell, for the message
    naming the first bad cell (10,000 systems: 2 s a file faster)."""
    try:
        numbers = np.array([float(c) for c in cells])
        if (np.abs(numbers) <= MAX_SCORE).all() and plain_number_text("".join(cells)):
            return numbers  # (the comparison is False for nan and inf too)
    except ValueError:
        pass
    for system, cell in zip(systems, cells):
        if not cell.strip() or cell.strip().upper() in ("NA", "NAN"):
            raise InputError(f"missing score for system {system} on topic {topic}", path, line)
    return [
        finite_score(c, path, line, f"system {s} on topic {topic}") for s, c in zip(systems, cells)
    ]


def _refuse_trec_eval_output(line: str, path: str, number: int) -> None:
    """trec_eval's ``measure  topic  value`` lines (``runid  all  NAME`` among them) are no
    score matrix: read as a wide file, its measure names became systems and the message
    spoke of a non-numeric score. Refused, saying what the file is and what to give."""
    fields = line.split()
    if len(fields) != 3 or "\t" not in line or fields[0].lower() in TOPIC_COLUMNS:
        return
    if fields[0] != "runid" and (_is_number(fields[0]) or not _is_number(fields[2])):
        return
    raise InputError(
        "this is trec_eval output (measure, topic, value), not a score matrix: give "
        "irgauge's per-topic TSV (irgauge eval -q --format tsv) or a wide CSV/TSV",
        path,
        number,
    )


def _is_number(text: str) -> bool:
    try:
        float(text)
    except ValueError:
        return False
    return True


def _refuse_numeric_header(header: List[str], path: str, line: int) -> None:
    """A header line whose every field is a number is a row of scores: read as a header, it
    would lose its topic and name the systems after its scores. Refused, not guessed."""
    try:
        [float(cell) for cell in header]
    except ValueError:
        return
    raise InputError(
        "the first line holds only numbers, so it looks like scores, not a header naming "
        "the systems; give --headerless-scores (header=False) if the file has no header",
        path,
        line,
    )


def _check_system_names(systems: List[str], path: str, line: int) -> None:
    """Every system named, once (a duplicate would silently merge two columns), and none
    a column of means (:func:`~irgauge.scores.matrix.check_name`)."""
    seen = set()
    for k, system in enumerate(systems):
        if not system:
            raise InputError(f"column {k + 1} of the header has no system name", path, line)
        check_name("system", system, path, line)
        if system in seen:
            raise InputError(f"system {system!r} appears twice in the header", path, line)
        seen.add(system)
