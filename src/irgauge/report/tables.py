"""Render a tidy result table with its metadata as table, TSV or JSON text.

Every output carries the conventions used: TSV as ``# key: value`` lines before the
header, JSON as a ``metadata`` object, the text table as a header block.
"""
from __future__ import annotations

import json
import math
import re
from typing import Any, Mapping


FORMATS = ("table", "tsv", "json")

# column names of result tables -> headers for people
HEADERS = {
    "effect_size": "Cohen's d_z (paired)", "effect_dz": "Cohen's d_z (paired)",
    "system_a": "system A", "system_b": "system B", "mean_a": "mean A", "mean_b": "mean B",
    "asl": "ASL", "p_t": "p (t-test)", "p_bootstrap": "p (bootstrap)",
    "p_sign": "p (sign test)", "p_randomisation": "p (randomisation)",
    "p_tukey": "p (Tukey HSD)",
    "judged_share": "share judged", "all_judged": "all judged",
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


def render(frame, fmt: str, metadata: Mapping[str, Any], digits: int = 4,
           people: bool = False) -> str:
    """Render ``frame`` (a DataFrame or ``{column: values}``) in ``fmt`` (one of FORMATS)
    with ``metadata``; ``people``: the text table spells column names out (:func:`header`),
    TSV and JSON keep them as they are."""
    name_of = header if people else str
    if isinstance(frame, Mapping):
        from irgauge.report.column_text import render_columns

        return render_columns(frame, fmt, metadata, digits, metadata_lines, _format_value,
                              name_of)
    if fmt == "tsv":
        body = frame.to_csv(sep="\t", index=False)
        return metadata_lines(metadata) + body
    if fmt == "json":
        records = json.loads(frame.to_json(orient="records", double_precision=15))
        return json.dumps({"metadata": dict(metadata), "results": records},
                          indent=2, default=str) + "\n"
    if fmt == "table":
        from pandas.api.types import is_numeric_dtype  # pandas only for the frame given

        from irgauge.report.column_text import aligned_table

        cells = [[_format_value(v, digits) for v in row] for row in frame.itertuples(index=False)]
        return aligned_table([name_of(c) for c in frame.columns], cells,
                             [is_numeric_dtype(frame[c]) for c in frame.columns],
                             metadata_lines(metadata))
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
