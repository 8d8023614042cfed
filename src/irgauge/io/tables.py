"""Render a tidy result table with its metadata as table, TSV or JSON text.

Every output carries the conventions used: TSV as ``# key: value`` lines before the
header (in full: the meta-evaluation commands read them back), JSON as a ``metadata``
object, the text table as a short header block (:func:`table_header`).
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from itertools import repeat
from typing import Any, List, Mapping, Optional

import numpy as np

from irgauge import _checks


FORMATS = ("table", "tsv", "json")

# column names of result tables -> headers for people
HEADERS = {
    "effect_size": "Cohen's d_z (paired)",
    "effect_dz": "Cohen's d_z (paired)",
    "system_a": "system A",
    "system_b": "system B",
    "mean_a": "mean A",
    "mean_b": "mean B",
    "asl": "ASL",
    "p_t": "p (t-test)",
    "p_bootstrap": "p (bootstrap)",
    "p_sign": "p (sign test)",
    "p_randomisation": "p (randomisation)",
    "p_tukey": "p (Tukey HSD)",
    "judged_share": "share judged",
    "all_judged": "all judged",
    "required_difference": "required difference",
}


def header(column: Any) -> str:
    """A result column's name as a header for people (snake_case spelt out)."""
    name = str(column)
    if name in HEADERS:
        return HEADERS[name]
    match = re.fullmatch(r"p_(\w+?)_(holm|bh)", name)
    if match:
        return f"p ({match.group(1)}, {'Holm' if match.group(2) == 'holm' else 'BH'})"
    if re.fullmatch(r"[a-z]+(_[a-z]+)+", name):
        return name.replace("_", " ")
    return name


def _format_value(value: Any, digits: int) -> str:
    if isinstance(value, float):
        if math.isnan(value):
            return "nan"
        return f"{value:.{digits}f}"
    return str(value)


def metadata_lines(metadata: Mapping[str, Any]) -> str:
    """Every key on a ``# key: value`` line of its own, values in full (TSV)."""
    return "".join(f"# {key}: {_json_scalar(value)}\n" for key, value in metadata.items())


def _json_scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


# ------------------------------------------------ the header of a text table

# A text table is read on a terminal: its header must not push the table off the screen,
# whatever the number of runs, topics or measures (40 runs gave a 2,400-character line).
HEADER_LINES = 8  # '#' lines at most, the pointer to the full metadata included
HEADER_WIDTH = 100  # characters a line aims at ('# ' not counted)
LISTED = 3  # items of a long list or mapping shown before their count
ITEM_WIDTH = 40  # characters of one item of a list or mapping
ALONE = ("notes",)  # warnings: a line of their own, kept when lines must be dropped
FULL_DETAIL = "# full metadata: --format json or --format tsv\n"


def table_header(metadata: Mapping[str, Any]) -> str:
    """At most HEADER_LINES ``#`` lines summarising ``metadata`` for a text table.

    Values are summarised (:func:`brief`): file paths by their names, a mapping whose
    values are all equal as that value, a long list or mapping as its first LISTED items
    and a count; empty values are left out. The ``key: value`` pieces are packed, in the
    metadata's order, into the first line with room (HEADER_WIDTH characters); keys that
    find no line are named on an ``also:`` line. The last line points to the formats that
    carry everything.
    """
    pairs = [
        (key, _alone(value) if key in ALONE else brief(value)) for key, value in metadata.items()
    ]
    lines = _packed([(key, text) for key, text in pairs if text is not None])
    if not lines:
        return ""
    if len(lines) > HEADER_LINES - 1:
        lines = _within_budget(lines, HEADER_LINES - 1)
    return "".join(f"# {text}\n" for text, _ in lines) + FULL_DETAIL


def _clip(text: str, width: int) -> str:
    return text if len(text) <= width else text[: width - 3] + "..."


def _packed(pairs) -> List[tuple]:
    """``key: value`` pieces packed first-fit into lines: [(text, keys)]."""
    lines: List[list] = []
    for key, value in pairs:
        piece = _clip(f"{key}: {value}", HEADER_WIDTH)
        line = None
        if key not in ALONE:
            fits = (
                ln
                for ln in lines
                if ln[1][0] not in ALONE and len(ln[0]) + 2 + len(piece) <= HEADER_WIDTH
            )
            line = next(fits, None)
        if line is None:
            lines.append([piece, [key]])
        else:
            line[0] += "; " + piece
            line[1].append(key)
    return [(text, keys) for text, keys in lines]


def _within_budget(lines, budget: int) -> List[tuple]:
    """``budget`` lines: the ALONE ones and the first others, then one naming the keys
    left out."""
    alone = sum(keys[0] in ALONE for _, keys in lines)
    room = max(budget - 1 - alone, 0)
    kept, dropped = [], []
    for text, keys in lines:
        if keys[0] in ALONE or room > 0:
            room -= keys[0] not in ALONE
            kept.append((text, keys))
        else:
            dropped += keys
    return kept + [(_clip("also: " + ", ".join(dropped), HEADER_WIDTH), dropped)]


def _empty(value: Any) -> bool:
    return value is None or (isinstance(value, (str, list, tuple, Mapping)) and len(value) == 0)


def brief(value: Any) -> Optional[str]:
    """A metadata value in a few words for a table header; None for an empty one."""
    if _empty(value):
        return None
    if isinstance(value, Mapping):
        return _brief_mapping(value)
    if isinstance(value, (list, tuple)):
        return _listed([_item(v) for v in value])
    if isinstance(value, str):  # a sentence may use the line (the line is clipped)
        return " ".join(_file_name(value).split())
    return _item(value)


def _alone(value: Any) -> Optional[str]:
    """A list of sentences (notes): the first, and how many more (all of them are on
    stderr too, and in the JSON and TSV output)."""
    if _empty(value) or not isinstance(value, (list, tuple)):
        return brief(value)
    more = f" (+{len(value) - 1} more)" if len(value) > 1 else ""
    return _clip(" ".join(str(value[0]).split()), HEADER_WIDTH - len(more) - 10) + more


def _item(value: Any) -> str:
    if isinstance(value, str):
        return _clip(_file_name(value), ITEM_WIDTH)
    if isinstance(value, (list, tuple, Mapping)):
        return f"({len(value)})"
    return _clip(_json_scalar(value), ITEM_WIDTH)


def _file_name(text: str) -> str:
    """A path's last part (a value with a slash and no space reads as a path)."""
    if ("/" in text or "\\" in text) and " " not in text.strip():
        return re.split(r"[/\\]", text.rstrip("/\\"))[-1] or text
    return text


def _listed(items: List[str]) -> str:
    if len(items) <= LISTED + 1:
        return ", ".join(items)
    return ", ".join(items[:LISTED]) + f", ... ({len(items)} in all)"


def _brief_mapping(mapping: Mapping[str, Any]) -> str:
    """Equal values as one; short values as key=value; long or nested ones by key."""
    values = list(mapping.values())
    first = _json_scalar(values[0])
    if len(values) > 1 and all(_json_scalar(v) == first for v in values[1:]):
        return f"{_item(values[0])} (each of {len(values)})"
    items = [_item(v) for v in values]
    if all(isinstance(v, (list, tuple, Mapping)) for v in values):
        return _listed([f"{k} {text}" for k, text in zip(mapping, items)])
    if all(isinstance(v, str) and _file_name(v) != v for v in values):
        if len(set(items)) == len(items):
            return _listed(items)  # {name: path}: the files' names say it
        # two files of one name in different folders: the names the output uses tell them apart
        return _listed([str(k) for k in mapping])
    if all(len(text) <= 12 for text in items):
        return _listed([f"{k}={text}" for k, text in zip(mapping, items)])
    return _listed([str(k) for k in mapping])


def render(
    frame, fmt: str, metadata: Mapping[str, Any], digits: int = 4, people: bool = False
) -> str:
    """Render ``frame`` (a DataFrame or ``{column: values}``) in ``fmt`` (one of FORMATS)
    with ``metadata``; ``people``: the text table spells column names out (:func:`header`),
    TSV and JSON keep them as they are."""
    name_of = header if people else str
    if isinstance(frame, Mapping):
        return render_columns(frame, fmt, metadata, digits, name_of)
    if fmt == "tsv":
        body = frame.to_csv(sep="\t", index=False)
        return metadata_lines(metadata) + body
    if fmt == "json":
        records = json.loads(frame.to_json(orient="records", double_precision=15))
        return (
            json.dumps({"metadata": dict(metadata), "results": records}, indent=2, default=str)
            + "\n"
        )
    if fmt == "table":
        from pandas.api.types import is_numeric_dtype  # pandas only for the frame given

        cells = [[_format_value(v, digits) for v in row] for row in frame.itertuples(index=False)]
        return aligned_table(
            [name_of(c) for c in frame.columns],
            cells,
            [is_numeric_dtype(frame[c]) for c in frame.columns],
            table_header(metadata),
        )
    _checks.choice(fmt, "format", FORMATS)  # refused: a ValueError escaped
    raise AssertionError(fmt)  # every format is rendered above


# ------------------------------------------------ {column: values} without pandas


def _cell(value: Any) -> str:
    """A value as pandas' to_csv writes it: floats by repr, NaN and None empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(float(value))
    if isinstance(value, np.floating):  # a narrower float: its own shortest digits
        return "" if np.isnan(value) else str(value)
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def _column_cells(values: Any) -> List[str]:
    """Each of a column's values as :func:`_cell` writes it (for TSV)."""
    return _texts(values, repr, "", _cell)


def _column_texts(values: Any, digits: int) -> List[str]:
    """Each of a column's values as :func:`_format_value` writes it (for the text table):
    ``"%.4f" % x`` is ``f"{x:.4f}"``, and "nan" for a NaN of either sign."""
    return _texts(values, f"%.{digits}f".__mod__, "nan", lambda v: _format_value(v, digits))


def _texts(values: Any, number, nan: str, cell) -> List[str]:
    """``cell(v)`` of each value, a whole column at a time where it is an array of doubles
    (``number(x)``, ``nan`` for a NaN), integers or names (a table of 500,000 pairs: the
    per-cell calls were most of the time a command spent on one core after its work ran
    on all)."""
    if isinstance(values, np.ndarray) and values.ndim == 1:
        if values.dtype == np.float64:
            texts = list(map(number, values.tolist()))
            for i in np.flatnonzero(np.isnan(values)).tolist():
                texts[i] = nan
            return texts
        if values.dtype.kind in "iub":
            return list(map(str, values.tolist()))
        if values.dtype == object:
            texts = values.tolist()
            if all(type(x) is str for x in texts):  # names: written as they are
                return texts
    return list(map(cell, values))


# a cell holding one of these is quoted by csv.writer (tab-delimited, minimal quoting)
_QUOTED = '\t"\r\n'


def _tsv_lines(names: List[Any], columns: List[List[str]]) -> str:
    """The lines csv.writer writes for ``columns`` (each a list of cells) under ``names``
    (tab-delimited, minimal quoting): joined a line at a time where no cell is quoted
    (writerows took over a second for 500,000 rows), else by csv.writer. (A line of one
    empty cell is quoted: one column goes to csv.writer.)"""
    if len(names) > 1 and all(type(name) is str for name in names):
        texts = map("\0".join, [names, *columns])  # a column at a time
        if not any(char in text for text in texts for char in _QUOTED):
            # ROWS_AT_ONCE lines at a time, as the text table's (aligned_columns)
            lines = ["\t".join(names) + "\n"]
            for part in row_blocks(len(columns[0])):
                rows = zip(*[cells[part] for cells in columns])
                lines.append("".join(line + "\n" for line in map("\t".join, rows)))
            return "".join(lines)
    out = io.StringIO()
    writer = csv.writer(out, delimiter="\t", lineterminator="\n")
    writer.writerow(names)
    writer.writerows(zip(*columns))
    return out.getvalue()


def _numeric(values: Any) -> bool:
    array = np.asarray(values)
    if array.dtype.kind in "biuf":
        return True
    return len(array) > 0 and all(isinstance(v, (int, float, np.number)) for v in values)


def render_columns(
    columns: Mapping[str, Any],
    fmt: str,
    metadata: Mapping[str, Any],
    digits: int,
    name_of=str,
) -> str:
    """``name_of`` turns a column name into the text table's header."""
    if fmt == "tsv":
        cells = [_column_cells(v) for v in columns.values()]
        return metadata_lines(metadata) + _tsv_lines(list(columns), cells)
    if fmt == "table":
        return aligned_columns(
            [name_of(c) for c in columns],
            [_column_texts(v, digits) for v in columns.values()],
            [_numeric(v) for v in columns.values()],
            table_header(metadata),
        )
    import pandas as pd

    return render(pd.DataFrame(dict(columns)), fmt, metadata, digits)


def aligned_table(header, rows, numeric, preamble: str) -> str:
    """Columns padded to their widest cell, numbers right-aligned, after ``preamble``;
    ``rows``: lists of cells (see :func:`aligned_columns`)."""
    if not header:  # (no column: a header, a rule and each row, all empty)
        return "\n".join(([preamble] if preamble else []) + [""] * (2 + len(rows))) + "\n"
    columns = [list(c) for c in zip(*rows)] if rows else [[] for _ in header]
    return aligned_columns(header, columns, numeric, preamble)


def aligned_columns(header, columns, numeric, preamble: str) -> str:
    """The table of ``columns`` (each a list of cells, under its ``header``) padded to
    their widest cell, numbers right-aligned, after ``preamble``; each line's trailing
    spaces dropped. Padded a column at a time, as joining a line's cells one by one took
    seconds for 500,000 rows, and :data:`ROWS_AT_ONCE` rows at a time (:func:`row_blocks`),
    so that the padded copies of a block's cells are all it holds beside the cells."""
    widths = [
        max(len(name), max(map(len, cells), default=0)) for name, cells in zip(header, columns)
    ]
    pads = [str.rjust if number else str.ljust for number in numeric]
    head = [[pad(name, width), "-" * width] for name, width, pad in zip(header, widths, pads)]
    blocks = [_padded_lines(head, widths, pads)] if header else ["\n\n"]
    for part in row_blocks(len(columns[0]) if columns else 0):
        cut = [cells[part] for cells in columns]
        blocks.append(_padded_lines(cut, widths, pads))
    return ((preamble + "\n") if preamble else "") + "".join(blocks)


# Rows a table is made of at a time: its lines (a block's padded cells) are let go before the
# next block's are made (compare --tests randomisation on 400 systems, 79,800 rows: all of
# them padded at once took 35 MB over the cells, the peak of the command)
ROWS_AT_ONCE = 8192


def row_blocks(rows: int) -> List[slice]:
    """Slices of ``rows`` rows, ROWS_AT_ONCE at a time (none for no row)."""
    return [slice(start, min(rows, start + ROWS_AT_ONCE)) for start in range(0, rows, ROWS_AT_ONCE)]


def _padded_lines(columns, widths, pads) -> str:
    """The lines of ``columns`` (lists of cells), each padded to its width, joined by two
    spaces, trailing spaces dropped, each line ending in a newline."""
    padded = [
        list(map(pad, cells, repeat(width))) for cells, width, pad in zip(columns, widths, pads)
    ]
    return "".join(line.rstrip() + "\n" for line in map("  ".join, zip(*padded)))
