"""Tables given as ``{column: values}`` rendered as TSV or aligned text without pandas, the
same text as :func:`irgauge.report.tables.render` makes from the equivalent DataFrame (so a
command that only prints a table starts without importing pandas). JSON goes through
pandas, for its exact number encoding."""
from __future__ import annotations

import csv
import io
import math
from typing import Any, Mapping

import numpy as np


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


def render_columns(columns: Mapping[str, Any], fmt: str, metadata: Mapping[str, Any],
                   digits: int, metadata_lines, format_value, name_of=str) -> str:
    """``name_of`` turns a column name into the text table's header."""
    if fmt == "tsv":
        out = io.StringIO()
        writer = csv.writer(out, delimiter="\t", lineterminator="\n")
        writer.writerow(list(columns))
        writer.writerows([_cell(v) for v in row] for row in _rows(columns))
        return metadata_lines(metadata) + out.getvalue()
    if fmt == "table":
        rows = [[format_value(v, digits) for v in row] for row in _rows(columns)]
        return aligned_table([name_of(c) for c in columns], rows,
                             [_numeric(v) for v in columns.values()], metadata_lines(metadata))
    import pandas as pd

    from irgauge.report.tables import render

    return render(pd.DataFrame(dict(columns)), fmt, metadata, digits)


def aligned_table(header, rows, numeric, preamble: str) -> str:
    """Columns padded to their widest cell, numbers right-aligned, after ``preamble``."""
    widths = [max([len(header[i])] + [len(r[i]) for r in rows]) for i in range(len(header))]

    def line(row):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(row, widths, numeric)).rstrip()

    out = ([preamble] if preamble else []) + [line(header), line(["-" * w for w in widths])]
    out += [line(r) for r in rows]
    return "\n".join(out) + "\n"
