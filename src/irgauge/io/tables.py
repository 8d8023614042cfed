"""Render a tidy result table with its metadata as table, TSV or JSON text.

Every output carries the conventions used: TSV as ``# key: value`` lines before the
header, JSON as a ``metadata`` object, the text table as a header block.
"""

from __future__ import annotations

import csv
import io
import json
import math
import re
from typing import Any, Mapping

import numpy as np


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
    return "".join(f"# {key}: {_json_scalar(value)}\n" for key, value in metadata.items())


def _json_scalar(value: Any) -> str:
    if isinstance(value, str):
        return value
    return json.dumps(value, default=str)


def render(
    frame, fmt: str, metadata: Mapping[str, Any], digits: int = 4, people: bool = False
) -> str:
    """Render ``frame`` (a DataFrame or ``{column: values}``) in ``fmt`` (one of FORMATS)
    with ``metadata``; ``people``: the text table spells column names out (:func:`header`),
    TSV and JSON keep them as they are."""
    name_of = header if people else str
    if isinstance(frame, Mapping):
        return render_columns(frame, fmt, metadata, digits, metadata_lines, _format_value, name_of)
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
            metadata_lines(metadata),
        )
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


# ------------------------------------------------ {column: values} without pandas


def _cell(value: Any) -> str:
    """A value as pandas' to_csv writes it: floats by repr, NaN and None empty."""
    if value is None:
        return ""
    if isinstance(value, float):
        return "" if math.isnan(value) else repr(float(value))
    if isinstance(value, np.integer):
        return str(int(value))
    return str(value)


def _rows(columns: Mapping[str, Any]):
    return zip(*(list(v) for v in columns.values()))


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
    metadata_lines,
    format_value,
    name_of=str,
) -> str:
    """``name_of`` turns a column name into the text table's header."""
    if fmt == "tsv":
        out = io.StringIO()
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(list(columns))
        writer.writerows([_cell(v) for v in row] for row in _rows(columns))
        return metadata_lines(metadata) + out.getvalue()
    if fmt == "table":
        rows = [[format_value(v, digits) for v in row] for row in _rows(columns)]
        return aligned_table(
            [name_of(c) for c in columns],
            rows,
            [_numeric(v) for v in columns.values()],
            metadata_lines(metadata),
        )
    import pandas as pd

    return render(pd.DataFrame(dict(columns)), fmt, metadata, digits)


def aligned_table(header, rows, numeric, preamble: str) -> str:
    """Columns padded to their widest cell, numbers right-aligned, after ``preamble``."""
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(len(header))]

    def line(row):
        return "  ".join(
            v.rjust(w) if num else v.ljust(w) for v, w, num in zip(row, widths, numeric)
        ).rstrip()

    out = ([preamble] if preamble else []) + [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"
