"""Render a tidy result table with its metadata as table, TSV or JSON text.

Every output carries the conventions used: TSV as ``# key: value`` lines before the
header, JSON as a ``metadata`` object, the text table as a header block.
"""
from __future__ import annotations

import json
import math
from typing import Any, Mapping


FORMATS = ("table", "tsv", "json")


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


def render(frame, fmt: str, metadata: Mapping[str, Any], digits: int = 4) -> str:
    """Render ``frame`` (a DataFrame or ``{column: values}``) in ``fmt`` (one of FORMATS)
    with ``metadata``."""
    if isinstance(frame, Mapping):
        from irgauge.report.column_text import render_columns

        return render_columns(frame, fmt, metadata, digits, metadata_lines, _format_value)
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
        return aligned_table([str(c) for c in frame.columns], cells,
                             [is_numeric_dtype(frame[c]) for c in frame.columns],
                             metadata_lines(metadata))
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")
