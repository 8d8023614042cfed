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

import itertools
import os
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass
from typing import Dict, Iterable, List, Optional

import numpy as np

from irgauge.errors import InputError

BLOCK_BYTES = 1 << 22  # tokenize 4 MB at a time: bounded memory, arrays that stay in cache
MAX_THREADS = 4
HASH = ord("#")
NEWLINE = 10


@dataclass
class TokenTable:
    """The data lines of a file split into columns."""

    path: str
    line_numbers: np.ndarray  # 1-based file line number of each data line
    columns: List[np.ndarray]  # one S-array per column kept (others are empty arrays)
    n_columns: int = 0

    def __len__(self) -> int:
        return len(self.line_numbers)


def tokenize(blocks: Iterable[bytes], path: str, allowed_columns: Iterable[int],
             keep: Optional[Dict[int, Iterable[int]]] = None,
             trailing_after: Optional[int] = None,
             numbers: Optional[Dict[int, Dict[int, str]]] = None) -> TokenTable:
    """Split a file, given as blocks of whole lines, into whitespace-separated columns.

    Every data line must have the same number of columns, one of ``allowed_columns``;
    otherwise an InputError names the first offending line. Bytes <= 32 (space, tab,
    CR, ...) separate columns. ``keep`` maps a column count to the columns copied out
    for it (default: all); ``numbers`` maps a column count to {column: what} for columns
    returned as float64 (an InputError names a line whose ``what`` is not a finite
    number). ``trailing_after=n``: on lines with more than n tokens the extra ones are
    free text and dropped (trec_eval reads six fields of a run line and ignores the
    rest; its test file results.trunc has such lines).

    A few blocks at a time are tokenized on threads (numpy releases the GIL), so memory
    holds the kept columns and a few blocks, never the whole file.
    """
    if isinstance(blocks, bytes):
        blocks = [blocks]
    allowed = sorted(set(allowed_columns))
    workers = max(1, min(os.cpu_count() or 1, MAX_THREADS))

    def block(item):
        data, offset = item
        buf = np.frombuffer(data, dtype=np.uint8)
        lines, starts, ends = _block_tokens(buf, path, offset, trailing_after)
        n_cols = starts.shape[1]
        if len(lines) == 0 or n_cols not in allowed:
            return lines, n_cols, {}
        as_numbers = (numbers or {}).get(n_cols, {})
        columns = {}
        for j in (keep or {}).get(n_cols, range(n_cols)):
            column = _gather(buf, starts[:, j], ends[:, j])
            if j in as_numbers:
                column = parse_floats(column, TokenTable(path, lines, []), as_numbers[j])
            columns[j] = column
        return lines, n_cols, columns

    blocks_done, wave, line_offset = [], [], 0
    pool = None
    try:
        for data in itertools.chain(blocks, [None]):
            if data is not None:
                wave.append((data, line_offset))
                line_offset += data.count(b"\n")
            if wave and (data is None or len(wave) == workers):
                if len(wave) > 1 and pool is None:  # small files need no threads
                    pool = ThreadPoolExecutor(workers)
                done = pool.map(block, wave) if len(wave) > 1 else map(block, wave)
                blocks_done.extend(r for r in done if len(r[0]))
                wave = []
    finally:
        if pool:
            pool.shutdown()
    blocks = blocks_done
    if not blocks:
        raise InputError("no data lines (only comments or blank lines)", path)
    n_cols = blocks[0][1]
    if n_cols not in allowed:
        raise InputError(_column_problem(n_cols, allowed), path, int(blocks[0][0][0]))
    for lines, cols, _ in blocks:
        if cols != n_cols:
            raise InputError(f"expected {n_cols} columns as on the first data line, "
                             f"found {cols}", path, int(lines[0]))
    line_numbers = np.concatenate([lines for lines, _, _ in blocks])
    # one column at a time, releasing the blocks' pieces as they are joined
    columns = [np.concatenate([c.pop(j) for _, _, c in blocks]) if j in blocks[0][2]
               else np.zeros(0, dtype="S1") for j in range(n_cols)]
    return TokenTable(path=path, line_numbers=line_numbers, columns=columns, n_columns=n_cols)


def _block_tokens(buf: np.ndarray, path: str, line_offset: int,
                  trailing_after: Optional[int]):
    """Token (start, end) offsets of a block of whole lines, as (lines x columns) arrays."""
    space = buf <= 32
    # a token starts where space turns solid and ends where solid turns space
    edges = np.flatnonzero(space[1:] != space[:-1]) + 1
    if not space[0]:
        edges = np.concatenate(([0], edges))
    if not space[-1]:
        edges = np.concatenate((edges, [len(buf)]))
    starts, ends = edges[0::2], edges[1::2]
    newlines = np.flatnonzero(buf == NEWLINE)
    # tokens before each line's end; a last line without newline ends at the block end
    line_ends = np.concatenate((newlines, [len(buf)])) if (len(newlines) == 0 or
                                                          newlines[-1] != len(buf) - 1) \
        else newlines
    before = np.searchsorted(starts, line_ends)
    counts = np.diff(np.concatenate(([0], before)))
    first = before - counts
    filled = counts > 0
    comment = np.zeros(len(counts), dtype=bool)
    comment[filled] = buf[starts[first[filled]]] == HASH
    data_lines = filled & ~comment
    long_lines = trailing_after is not None and (counts > trailing_after).any()
    if comment.any() or long_lines:
        keep_tokens = np.repeat(~comment, counts)
        if long_lines:
            keep_tokens &= np.arange(len(starts)) - np.repeat(first, counts) < trailing_after
            counts = np.minimum(counts, trailing_after)
        starts, ends = starts[keep_tokens], ends[keep_tokens]
    line_numbers = (np.flatnonzero(data_lines) + line_offset + 1).astype(np.int32)
    counts = counts[data_lines]
    if len(counts) == 0:
        return line_numbers, starts.reshape(0, 1), ends.reshape(0, 1)
    n_cols = int(counts[0])
    bad = np.flatnonzero(counts != n_cols)
    if len(bad):
        i = int(bad[0])
        raise InputError(f"expected {n_cols} columns as on the first data line, "
                         f"found {int(counts[i])}", path, int(line_numbers[i]))
    return line_numbers, starts.reshape(-1, n_cols), ends.reshape(-1, n_cols)


def _column_problem(found: int, allowed: List[int]) -> str:
    wanted = " or ".join(str(a) for a in allowed)
    return f"expected {wanted} whitespace-separated columns, found {found}"


def _gather(buf: np.ndarray, starts: np.ndarray, ends: np.ndarray) -> np.ndarray:
    """Copy the byte ranges [starts, ends) into a fixed-width ``S`` array."""
    lengths = ends - starts
    width = int(lengths.max())
    shortest = int(lengths.min())
    out = np.zeros((len(starts), width), dtype=np.uint8)
    for offset in range(width):  # a loop over character positions, not lines
        if offset < shortest:
            out[:, offset] = buf[starts + offset]
        else:
            present = np.flatnonzero(lengths > offset)
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
