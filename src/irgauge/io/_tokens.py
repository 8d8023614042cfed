"""A whitespace tokenizer for whole files as numpy array operations.

Qrels and run files hold millions of lines; splitting them line by line in Python
dominates evaluation time and memory. This module finds token boundaries in the raw
bytes with vectorised comparisons and returns each column as a fixed-width bytes
array (``S<n>``), keeping exact line numbers for error messages.

A line whose first token starts with ``#`` is a comment (as in trec_eval's test
files); ``#`` elsewhere is ordinary text, since document ids may contain it. Blank
lines carry no data and are skipped.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Iterable, List, Optional

import numpy as np

from irgauge.errors import InputError

_WHITESPACE = np.zeros(256, dtype=bool)
_WHITESPACE[[9, 10, 11, 12, 13, 32]] = True


@dataclass
class TokenTable:
    """The data lines of a file split into columns."""

    path: str
    line_numbers: np.ndarray  # 1-based file line number of each data line
    columns: List[np.ndarray]  # one S-array per column

    def __len__(self) -> int:
        return len(self.line_numbers)

    @property
    def n_columns(self) -> int:
        return len(self.columns)


def tokenize(data: bytes, path: str, allowed_columns: Iterable[int],
             trailing_after: Optional[int] = None) -> TokenTable:
    """Split ``data`` into lines and whitespace-separated columns.

    Every data line must have the same number of columns, one of ``allowed_columns``;
    otherwise an InputError names the first offending line. ``trailing_after=n``: on
    lines with more than n tokens the extra ones are free text and dropped (trec_eval
    reads six fields of a run line and ignores the rest; its test file results.trunc
    has such lines).
    """
    allowed = sorted(set(allowed_columns))
    buf = np.frombuffer(data, dtype=np.uint8)
    is_space = _WHITESPACE[buf]
    is_newline = buf == 10
    solid = ~is_space
    starts = np.flatnonzero(solid & np.concatenate(([True], is_space[:-1])))
    ends = np.flatnonzero(solid & np.concatenate((is_space[1:], [True]))) + 1
    newline_pos = np.flatnonzero(is_newline)
    token_line = np.searchsorted(newline_pos, starts)  # 0-based line of each token

    first_of_line = np.ones(len(starts), dtype=bool)
    first_of_line[1:] = token_line[1:] != token_line[:-1]
    comment_line_ids = token_line[first_of_line & (buf[starts] == ord("#"))]
    if len(comment_line_ids):
        keep = ~np.isin(token_line, comment_line_ids)
        starts, ends, token_line = starts[keep], ends[keep], token_line[keep]
        first_of_line = first_of_line[keep]
    if len(starts) == 0:
        raise InputError("no data lines (only comments or blank lines)", path)

    line_start_tokens = np.flatnonzero(first_of_line)
    counts = np.diff(np.append(line_start_tokens, len(starts)))
    if trailing_after is not None and (counts > trailing_after).any():
        position = np.arange(len(starts)) - np.repeat(line_start_tokens, counts)
        keep = position < trailing_after
        starts, ends, token_line = starts[keep], ends[keep], token_line[keep]
        first_of_line = first_of_line[keep]
        counts = np.minimum(counts, trailing_after)
        line_start_tokens = np.flatnonzero(first_of_line)
    data_lines = token_line[line_start_tokens]
    n_cols = int(counts[0])
    if n_cols not in allowed:
        raise InputError(_column_problem(n_cols, allowed), path, int(data_lines[0]) + 1)
    bad = np.flatnonzero(counts != n_cols)
    if len(bad):
        i = int(bad[0])
        raise InputError(f"expected {n_cols} columns as on the first data line, "
                         f"found {int(counts[i])}", path, int(data_lines[i]) + 1)
    starts = starts.reshape(-1, n_cols)
    ends = ends.reshape(-1, n_cols)
    columns = [_gather(buf, starts[:, j], ends[:, j]) for j in range(n_cols)]
    return TokenTable(path=path, line_numbers=data_lines + 1, columns=columns)


def _column_problem(found: int, allowed: List[int]) -> str:
    wanted = " or ".join(str(a) for a in allowed)
    return f"expected {wanted} whitespace-separated columns, found {found}"


def _gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Copy the byte ranges [starts, ends) into a fixed-width ``S`` array."""
    lengths = ends - starts
    width = int(lengths.max())
    out = np.zeros((len(starts), width), dtype=np.uint8)
    for offset in range(width):  # loop over character positions, not lines
        present = lengths > offset
        out[present, offset] = buf[starts[present] + offset]
    return out.view(f"S{width}").ravel()


def parse_floats(column: np.ndarray, table: TokenTable, what: str) -> np.ndarray:
    """Convert an S-array to float64; name the first line that is not a finite number."""
    try:
        values = column.astype(np.float64)
    except ValueError:
        values = None
    if values is not None and np.isfinite(values).all():
        return values
    for i, token in enumerate(column):
        try:
            ok = np.isfinite(float(token))
        except ValueError:
            ok = False
        if not ok:
            raise InputError(f"{what} {token.decode(errors='replace')!r} is not a finite number",
                             table.path, int(table.line_numbers[i]))
    raise AssertionError("unreachable")  # pragma: no cover


def parse_ints(column: np.ndarray, table: TokenTable, what: str) -> np.ndarray:
    """Convert an S-array of integers to int64; name the first line that is not an integer."""
    try:
        return column.astype(np.int64)
    except ValueError:
        pass
    for i, token in enumerate(column):
        try:
            int(token)
        except ValueError:
            raise InputError(f"{what} {token.decode(errors='replace')!r} is not an integer",
                             table.path, int(table.line_numbers[i])) from None
    raise AssertionError("unreachable")  # pragma: no cover
