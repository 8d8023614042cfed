"""A whitespace tokenizer for whole files as numpy array operations.

Qrels and run files hold millions of lines; splitting them line by line in Python
dominates evaluation time and memory. This module finds token boundaries in the raw
bytes with vectorised comparisons. Id columns become :class:`~irgauge.io.ids.Ids` (the
tokens' bytes back to back plus offsets: memory O(bytes), whatever the longest token);
number columns are parsed from the bytes (:mod:`irgauge.io._numbers`). Exact line
numbers are kept for error messages.

Space, tab, LF, VT, FF and CR separate tokens, the bytes C's ``isspace`` tells trec_eval
are space; any other byte, a control byte such as 0x01 included, is part of a token (as
it is of trec_eval's ids). Lines end at LF, CRLF or a lone CR. A line whose first token
starts with ``#`` is a comment (as in trec_eval's test files); ``#`` elsewhere is
ordinary text, since document ids may contain it. Blank lines carry no data and are
skipped. A line longer than ``MAX_LINE_BYTES`` is refused.
"""

from __future__ import annotations

import contextlib
import functools
import itertools
import re
from dataclasses import dataclass
from typing import Dict, Iterable, List, Mapping, Optional, Union

import numpy as np

from irgauge.io.ids import Ids, offset_type
from irgauge.errors import InputError
from irgauge.io._numbers import parse_floats
from irgauge.io._source import MAX_LINE_BYTES, LineTooLong, count_line_ends
from irgauge.io.file_text import refuse_nul
from irgauge.io.words import counted

# tokenize 1 MB at a time: bounded memory, and a block's per-line arrays (256 KB each for
# a TREC run) stay in a core's cache (W2 evaluated with 1 MB blocks: 2% less CPU than 2 MB)
BLOCK_BYTES = 1 << 20
HASH = ord("#")
LF, CR = 10, 13
Column = Union[Ids, np.ndarray]
SEPARATORS = np.zeros(256, dtype=bool)
SEPARATORS[[9, 10, 11, 12, 13, 32]] = True  # C's isspace in the "C" locale


@dataclass
class TokenTable:
    """The data lines of a file split into columns."""

    path: str
    line_numbers: np.ndarray  # 1-based file line number of each data line
    columns: List[Optional[Column]]  # Ids, float64 arrays, or None for columns not kept
    n_columns: int = 0
    n_line_ends: int = 0  # line ends in the blocks (LF, CRLF, lone CR), data lines or not

    def __len__(self) -> int:
        return len(self.line_numbers)

    def ids(self, index: int) -> Ids:
        """Column ``index``, kept as ids: what the caller's ``keep`` asked for, so that a
        column that is not there is the caller's slip, not the file's."""
        column = self.columns[index]
        if not isinstance(column, Ids):
            raise TypeError(f"column {index} of {self.path} was not kept as ids")
        return column

    def numbers(self, index: int) -> np.ndarray:
        """Column ``index``, parsed as numbers (the caller's ``numbers``)."""
        column = self.columns[index]
        if not isinstance(column, np.ndarray):
            raise TypeError(f"column {index} of {self.path} was not parsed as numbers")
        return column


def tokenize(
    blocks: Iterable[bytes],
    path: str,
    allowed_columns: Iterable[int],
    keep: Optional[Mapping[int, Iterable[int]]] = None,
    trailing_after: Optional[int] = None,
    numbers: Optional[Mapping[int, Mapping[int, str]]] = None,
    unhashed: Optional[Mapping[int, Iterable[int]]] = None,
    threads: Optional[int] = None,
    size_hint: Optional[int] = None,
    first_line: int = 1,
    empty_ok: bool = False,
    n_columns: Optional[int] = None,
) -> TokenTable:
    """Split a file, given as blocks of whole lines, into whitespace-separated columns.

    Every data line must have the same number of columns, one of ``allowed_columns``;
    otherwise an InputError names the first offending line. ``keep`` maps a column count
    to the columns kept for it (default: all), as Ids; ``numbers`` maps a column count to
    {column: what} for columns returned as float64 instead (an InputError names a line
    whose ``what`` is not a finite decimal number). Kept columns after the first are
    document ids, hashed while in cache, unless ``unhashed`` (a column count to columns)
    lists them (relevance levels, parsed once the whole file is read).
    ``trailing_after=n``: on lines with more than n tokens the extra ones are free text
    and dropped (trec_eval reads six fields of a run line and ignores the rest; its test
    file results.trunc has such lines).
    ``size_hint``: the file's size in bytes, if known (the columns are reserved for it).
    ``first_line``: the file line number of the blocks' first line (a part of a file read
    in parts); ``empty_ok``: blocks without data lines give an empty table (n_columns 0)
    instead of an error (a part holding only comments); ``n_columns``: the file's column
    count, from a data line before the blocks (a later part of a file read in parts).

    Memory holds the kept columns and a few blocks, never the whole file. With
    ``threads`` > 1 that many blocks at a time are tokenized on threads (numpy releases
    the GIL); the default is one (see irgauge.evaluation.engine for why).
    """
    if isinstance(blocks, bytes):
        blocks = [blocks]
    allowed = sorted(set(allowed_columns))
    several_blocks = size_hint is None or size_hint > BLOCK_BYTES

    block = functools.partial(
        _split_block,
        path=path,
        allowed=allowed,
        keep=keep,
        trailing_after=trailing_after,
        numbers=numbers,
        unhashed=unhashed,
        several_blocks=several_blocks,
    )

    columns: Optional[_Columns] = None
    n_line_ends = 0
    parts = _split_blocks(blocks, block, threads or 1, first_line - 1)
    with contextlib.closing(parts):
        for lines, n_cols, cols, n_ends, error in parts:
            n_line_ends += n_ends
            if len(lines):
                line = int(lines[0])
                columns = _columns_for(columns, n_cols, allowed, path, line, size_hint, n_columns)
                columns.append(lines, cols)
            if error is not None:  # the lines before it are sound
                raise error
    if columns is None:
        if empty_ok:
            empty = np.zeros(0, np.int64)
            return TokenTable(path, empty, columns=[], n_line_ends=n_line_ends)
        raise InputError("no data lines (only comments or blank lines)", path)
    line_numbers, kept = columns.finish()
    return TokenTable(path, line_numbers, kept, columns.n_cols, n_line_ends)


def _split_blocks(blocks, block, workers: int, line_offset: int = 0):
    """``block`` applied to each block and its first line number, results (with the
    block's line ends) in file order; with ``workers`` > 1, that many blocks at a time on
    threads. ``line_offset``: the lines before the first block."""
    wave = []
    pool = None
    threads = contextlib.ExitStack()  # the workers' pool, made on the first wave of blocks
    try:
        for data in _numbered(itertools.chain(blocks, [None]), lambda: line_offset):
            if data is not None:
                wave.append((data, line_offset))
                if workers > 1:  # the next block's first line number, before this one is split
                    line_offset += count_line_ends(data)
            if wave and (data is None or len(wave) == workers):
                if len(wave) > 1 and pool is None:  # small files need no threads
                    from irgauge.io.threads import worker_pool

                    pool = threads.enter_context(worker_pool(workers))
                for result in pool.map(block, wave) if pool and len(wave) > 1 else map(block, wave):
                    if workers == 1:  # counted while splitting: no second pass over the bytes
                        line_offset += result[3]
                    yield result
                wave = []
    finally:
        threads.close()


def _columns_for(
    columns, n_cols: int, allowed, path: str, line: int, size_hint, n_columns=None
) -> "_Columns":
    """The columns to append a block of ``n_cols`` columns to: new ones for the first
    block; an InputError naming ``line`` when the count is not allowed or changes (from
    ``n_columns``, the count of a line before the first block, if given)."""
    expected = columns.n_cols if columns is not None else n_columns
    if expected is None and n_cols not in allowed:
        raise InputError(_column_problem(n_cols, allowed), path, line)
    if expected is not None and n_cols != expected:
        raise InputError(
            f"expected {counted(expected, 'column')} as on the first data line, found {n_cols}",
            path,
            line,
        )
    return _Columns(n_cols, size_hint) if columns is None else columns


def _split_block(item, **options):
    """One block's line numbers, column count, kept columns and line ends (see tokenize),
    and the error of its first bad line (None: every line is sound), the columns then
    being those of the lines before it.

    A block is checked a kind of fault at a time (NUL bytes, long lines, column counts,
    numbers), each finding its first; the first bad line of the block is found by
    checking again the lines before the one found, until they are sound. So the error
    named is the file's first bad line whatever the blocks' size: a file read in parts
    and read whole name the same line."""
    data, offset = item
    try:
        return _split_sound_block(item, **options) + (None,)
    except InputError as error:
        if error.line is None or error.path != options["path"]:
            raise
        before = _line_start(data, error.line - offset)
        if before <= 0:
            empty = np.zeros(0, np.int32)
            return empty, 0, {}, 0, error
        head = _split_block((data[:before], offset), **options)
        return head[:4] + (head[4] or error,)


def _line_start(data: bytes, line: int) -> int:
    """The offset of the start of ``data``'s line ``line`` (1-based; line ends LF, CRLF
    or a lone CR), or -1 for a line it does not hold."""
    if line <= 1:
        return 0 if line == 1 else -1
    for count, end in enumerate(_LINE_END.finditer(data), start=2):
        if count == line:
            return end.end()
    return -1


_LINE_END = re.compile(rb"\r\n|\r|\n")


def _split_sound_block(
    item, path, allowed, keep, trailing_after, numbers, unhashed, several_blocks
):
    """_split_block's work, an InputError at the first line of the first kind of fault."""
    data, offset = item
    refuse_nul(data, path, offset)
    pool = Ids.padded(data)
    lines, starts, ends, n_ends = _block_tokens(
        pool[: len(data)], path, offset, trailing_after, has_cr=b"\r" in data
    )
    lines = lines.astype(np.int32 if offset + len(lines) < (1 << 31) else np.int64)
    n_cols = starts.shape[1]
    if len(lines) == 0 or n_cols not in allowed:
        return lines, n_cols, {}, n_ends
    as_numbers = (numbers or {}).get(n_cols, {})
    not_ids = (unhashed or {}).get(n_cols, ())
    offsets = offset_type(pool)  # made in the type Ids keeps them in: no conversion after
    columns = {}
    for j in (keep or {}).get(n_cols, range(n_cols)):
        column_starts = starts[:, j].astype(offsets)
        column = Ids(pool, column_starts, np.subtract(ends[:, j], column_starts, dtype=offsets))
        if j in as_numbers:
            column = parse_floats(column, path, lines, as_numbers[j])
        elif j == 0 and n_cols > 1:  # the topic: one copy per run of equal lines
            column = column.compacted_runs()
        elif j in not_ids:  # compacted even in a lone block, which may not stay alone
            column = column.compacted()
        else:  # a document id: hashed here, on the block's thread, while in cache
            if several_blocks:  # (a lone block's columns are kept as they are)
                column = column.compacted(with_hashes=True)
            else:
                column.hashes()
        columns[j] = column
    return lines, n_cols, columns, n_ends


def _reserve(capacity: int, dtype) -> np.ndarray:
    """An empty array of ``capacity``: pages never written cost address space, not memory,
    so a generous first guess is free (a smaller one where address space is limited)."""
    try:
        return np.empty(capacity, dtype=dtype)
    except MemoryError:
        return np.empty(min(capacity, 1 << 16), dtype=dtype)


class _Growing:
    """An array appended to block by block (capacity doubles when exceeded)."""

    def __init__(self, dtype, capacity: int) -> None:
        self.data = _reserve(max(capacity, 16), dtype)
        self.n = 0

    def widen(self) -> None:
        """64-bit values from now on (offsets into a pool past 1 GiB)."""
        if self.data.dtype != np.int64:
            self.data = self.data.astype(np.int64)

    def append(self, values: np.ndarray, shift: int = 0) -> None:
        need = self.n + len(values)
        if need > len(self.data):
            grown = _reserve(max(need, 2 * len(self.data)), self.data.dtype)
            grown[: self.n] = self.data[: self.n]
            self.data = grown
        target = self.data[self.n : need]
        if shift:  # one pass: the values shifted as they are copied
            np.add(values, np.int64(shift), out=target, casting="same_kind")
        else:
            target[...] = values
        self.n = need

    def finish(self) -> np.ndarray:
        return self.data[: self.n]


class _Columns:
    """The kept columns of a file, filled block by block in file order: no list of
    per-block pieces to join at the end (which would double the peak memory). A file of
    one block keeps that block's columns as they are (no copy)."""

    def __init__(self, n_cols: int, size_hint: Optional[int]):
        self.n_cols = n_cols
        self.size_hint = size_hint
        self.alone: Optional[tuple] = None  # (lines, columns) of the first block, until a second
        self.lines: Optional[_Growing] = None
        self.parts: Dict[int, tuple] = {}

    def _start_growing(self, first: Dict[int, Column]) -> None:
        size_hint = self.size_hint
        rows = (size_hint // (2 * self.n_cols) + 1) if size_hint else 1 << 16
        n_bytes = (size_hint + 64) if size_hint else 1 << 20
        wide = np.int32 if n_bytes < (1 << 30) else np.int64
        self.lines = _Growing(np.int32 if rows < (1 << 31) else np.int64, rows)
        for j, column in first.items():
            if isinstance(column, Ids):
                hashes = _Growing(np.uint64, rows) if column._hashes is not None else None
                self.parts[j] = (
                    _Growing(np.uint8, n_bytes),
                    _Growing(wide, rows),
                    _Growing(wide, rows),
                    hashes,
                )
            else:
                self.parts[j] = (_Growing(column.dtype, rows),)

    def append(self, lines: np.ndarray, columns: Dict[int, Column]) -> None:
        if self.alone is None and self.lines is None:
            self.alone = (lines, columns)
            return
        if self.alone is not None:  # a second block: the first one's columns move over
            first_lines, first_columns = self.alone
            self.alone = None
            for j, column in first_columns.items():
                # document ids (the hashed columns) still in the block's bytes, where the
                # file's size promised one block (a compressed file's, say)
                if isinstance(column, Ids) and column._hashes is not None:
                    first_columns[j] = column.compacted()
            self._start_growing(first_columns)
            self._grow(first_lines, first_columns)
        self._grow(lines, columns)

    def _grow(self, lines: np.ndarray, columns: Dict[int, Column]) -> None:
        assert self.lines is not None  # made by the first block
        self.lines.append(lines)
        for j, parts in self.parts.items():
            column = columns.pop(j)
            if isinstance(column, Ids):
                pool, starts, lens, hashes = parts
                if pool.n + len(column.pool) >= 1 << 30:
                    starts.widen()
                    lens.widen()
                starts.append(column.starts, shift=pool.n)
                pool.append(column.pool)
                lens.append(column.lens)
                if hashes is not None:
                    hashes.append(column.hashes())
            else:
                parts[0].append(column)

    def finish(self):
        kept: List[Optional[Column]] = [None] * self.n_cols
        if self.alone is not None:
            lines, columns = self.alone
            for j, column in columns.items():
                kept[j] = column
            return lines, kept
        for j, parts in self.parts.items():
            if len(parts) == 1:
                kept[j] = parts[0].finish()
                continue
            pool, starts, lens, hashes = parts
            ids = Ids(pool.finish(), starts.finish(), lens.finish())
            ids._hashes = hashes.finish() if hashes is not None else None
            kept[j] = ids
        return self.lines.finish(), kept


def _numbered(blocks, lines_so_far):
    """The blocks; a line too long for the reader is named by its number."""
    try:
        yield from blocks
    except LineTooLong as err:
        raise InputError(err.problem, err.path, lines_so_far() + err.ends_before + 1) from None


def _block_tokens(
    buf: np.ndarray,
    path: str,
    line_offset: int,
    trailing_after: Optional[int],
    has_cr: bool = True,
):
    """Token (start, end) offsets of a block of whole lines, as (lines x columns) arrays,
    and the number of line ends in the block (LF, CRLF, lone CR). ``has_cr``: False when
    the block holds no CR byte (every line ends at LF)."""
    # a token starts where space turns solid and ends where solid turns space; with a
    # space before and after the block, the index of each change is the edge's offset
    # (one pass, no shifted copy or concatenation of the edges)
    space = np.empty(len(buf) + 2, dtype=bool)
    space[0] = space[-1] = True
    separator_mask(buf, out=space[1:-1])
    edges = np.flatnonzero(space[1:] != space[:-1])
    starts, ends = edges[0::2], edges[1::2]
    at_lf = None if has_cr else _lines_at_lf(buf, starts, ends, trailing_after)
    if at_lf is None:
        line_ends = _line_ends(buf, has_cr)
        fast = None
    else:
        fast, line_ends = at_lf
    n_ends = len(line_ends) - int(line_ends[-1] == len(buf))  # not the unended last line
    _refuse_long_lines(line_ends, path, line_offset)
    if fast is None:
        fast = _uniform_lines(buf, starts, line_ends, trailing_after)
    if fast is not None:
        return (
            np.arange(1, len(line_ends) + 1) + line_offset,
            starts.reshape(-1, fast),
            ends.reshape(-1, fast),
            n_ends,
        )
    before = np.searchsorted(starts, line_ends)
    counts = np.diff(before, prepend=0)
    first = before - counts
    filled = counts > 0
    comment = np.zeros(len(counts), dtype=bool)
    comment[filled] = buf[starts[first[filled]]] == HASH
    data_lines = filled & ~comment
    long_lines = trailing_after is not None and (counts > trailing_after).any()
    if comment.any() or long_lines:
        keep_tokens = np.repeat(~comment, counts)
        if long_lines and trailing_after is not None:
            keep_tokens &= np.arange(len(starts)) - np.repeat(first, counts) < trailing_after
            counts = np.minimum(counts, trailing_after)
        starts, ends = starts[keep_tokens], ends[keep_tokens]
    line_numbers = np.flatnonzero(data_lines) + line_offset + 1
    counts = counts[data_lines]
    if len(counts) == 0:
        return line_numbers, starts.reshape(0, 1), ends.reshape(0, 1), n_ends
    n_cols = int(counts[0])
    bad = np.flatnonzero(counts != n_cols)
    if len(bad):
        i = int(bad[0])
        raise InputError(
            f"expected {counted(n_cols, 'column')} as on the first data line, found "
            f"{int(counts[i])}",
            path,
            int(line_numbers[i]),
        )
    return line_numbers, starts.reshape(-1, n_cols), ends.reshape(-1, n_cols), n_ends


def first_unfit_id(ids: Ids) -> int:
    """Index of the first id a TREC text file cannot hold as one field (empty, or holding a
    separator or a NUL byte), -1 when every id fits. In-memory and table inputs are held to
    it so that they evaluate exactly as the same data written as text."""
    lens = np.asarray(ids.lens, dtype=np.int64)
    starts = np.asarray(ids.starts, dtype=np.int64)
    unfit = separator_mask(ids.pool) | (ids.pool == 0)
    # unfit bytes inside each id: a difference of running counts at its two ends
    running = np.concatenate(([0], np.cumsum(unfit, dtype=np.int64)))
    bad = (lens == 0) | (running[starts + lens] > running[starts])
    return int(np.argmax(bad)) if bad.any() else -1


def separator_mask(buf: np.ndarray, out: Optional[np.ndarray] = None) -> np.ndarray:
    """Whether each byte of ``buf`` separates tokens (SEPARATORS)."""
    out = np.less_equal(buf, 32, out=out)
    if _other_control_bytes(buf):  # rare: a lookup per byte costs 30x the comparison
        np.take(SEPARATORS, buf, out=out)
    return out


def _other_control_bytes(buf: np.ndarray) -> bool:
    """Whether the block holds a byte below 32 that is not a separator (0-8, 14-31): the
    smallest byte, then the smallest byte less 14 (wrapping, 14-31 become 0-17), two
    reductions where counting each range took five passes (a 5M-line run: 0.06 s, not
    0.14 s)."""
    if not len(buf):
        return False
    if buf.min() < 9:
        return True
    return bool(np.subtract(buf, 14, dtype=np.uint8).min() < 18)


def _refuse_long_lines(line_ends: np.ndarray, path: str, line_offset: int) -> None:
    lengths = np.diff(line_ends, prepend=-1)
    if len(lengths) and lengths.max() > MAX_LINE_BYTES + 1:
        line = int(np.argmax(lengths > MAX_LINE_BYTES + 1)) + line_offset + 1
        raise InputError(
            f"line longer than {MAX_LINE_BYTES} bytes (the longest line irgauge "
            "reads); is this a text file of whitespace-separated columns?",
            path,
            line,
        )


def _lines_at_lf(buf, starts, ends, trailing_after):
    """(k, line ends) when every line of the block holds k tokens, none a comment, and
    ends at an LF right after its last token (machine-written files); else None. The
    block's n LF bytes are then the bytes after tokens k, 2k, ... kn: a count of them and
    a look at those n bytes replace a search of the whole block for its line ends."""
    n_tokens = len(starts)
    tail = len(buf) - int(ends[-1]) if n_tokens else 0  # the last line's LF, or none
    if n_tokens == 0 or tail > 1:
        return None
    n_lf = int(np.count_nonzero(buf == LF))
    n_lines = n_lf + (tail == 0)
    k = n_tokens // n_lines if n_lines else 0
    if k == 0 or k * n_lines != n_tokens or (trailing_after is not None and k > trailing_after):
        return None
    line_ends = ends[k - 1 :: k]  # the byte after each line's last token
    # n_lf distinct bytes are LF, and the block holds n_lf LF bytes: there is no other
    if not (buf[line_ends[:n_lf]] == LF).all() or (buf[starts[::k]] == HASH).any():
        return None
    return k, line_ends


def _uniform_lines(buf, starts, line_ends, trailing_after) -> Optional[int]:
    """k when every line holds exactly k tokens and none is a comment (the usual file),
    checked with two comparisons per line instead of a search per line; else None."""
    n_lines = len(line_ends)
    k = len(starts) // n_lines if n_lines else 0
    if k == 0 or k * n_lines != len(starts) or (trailing_after is not None and k > trailing_after):
        return None
    firsts, lasts = starts[::k], starts[k - 1 :: k]
    # line i's tokens are [ik, ik + k) iff its first starts after the previous line's end
    # and its last starts before its own end
    if (lasts >= line_ends).any() or (firsts[1:] <= line_ends[:-1]).any():
        return None
    if (buf[firsts] == HASH).any():
        return None
    return k


def _line_ends(buf: np.ndarray, has_cr: bool = True) -> np.ndarray:
    """Offsets of the byte ending each line: LF, the CR of a lone CR (CRLF ends at its LF),
    and the block's end when the last line has no line end."""
    cr = buf == CR if has_cr else None
    if cr is not None and cr.any():
        ending = buf == LF
        ending[:-1] |= cr[:-1] & (buf[1:] != LF)
        ending[-1] |= cr[-1]
        ends = np.flatnonzero(ending)
    else:
        ends = np.flatnonzero(buf == LF)
    if len(ends) == 0 or ends[-1] != len(buf) - 1:
        ends = np.append(ends, len(buf))
    return ends


def _column_problem(found: int, allowed: List[int]) -> str:
    """What is wrong with a line of ``found`` columns, and, where the count is another
    TREC file's, which file it looks like: qrels given for a run (``eval RUN QRELS``,
    ``eval QRELS RUN --prels P``) or a run for qrels."""
    wanted = " or ".join(str(a) for a in allowed)
    hint = ""
    if found == 4 and 6 in allowed:
        hint = " (a qrels line, topic 0 docno level? a run line is topic Q0 docno rank score tag)"
    elif found == 6 and 6 not in allowed:
        hint = " (a run line, topic Q0 docno rank score tag? this file is read as judgments)"
    return f"expected {wanted} whitespace-separated columns, found {found}{hint}"
