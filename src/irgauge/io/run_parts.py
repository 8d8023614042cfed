"""A run file read in parts of whole topics, so that evaluation holds one part at a time.

The file is read in groups of whole-line blocks of about ``part_bytes`` of text, and each
group is tokenized as the whole-file reader tokenizes it (same columns, same errors, same
line numbers). A part ends where its group's last topic begins: the lines of that topic
wait for the next group, which may continue it. So every part holds whole topics, in file
order, and the memory a part takes is bounded by ``part_bytes`` (and by its longest topic,
which has to be whole to be ranked).

A topic split over two places of the file (topics not contiguous) is left to the caller
to notice; :func:`partitioned_parts` then regroups the file by topic through temporary
files (external partitioning), within the same bound.
"""

from __future__ import annotations

import contextlib
import os
from dataclasses import dataclass, replace
from typing import Generator, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from irgauge.errors import InputError
from irgauge.io._source import (
    blocks_naming,
    BOM,
    MAX_LINE_BYTES,
    LineTooLong,
    count_line_ends,
    is_compressed,
    iter_blocks,
    read_twice,
    scratch_folder,
)
from irgauge.io._tokens import BLOCK_BYTES
from irgauge.io.arrow_tables import iter_arrow_run_chunks, table_format
from irgauge.io.heap import release_free_memory
from irgauge.io.ids import Ids
from irgauge.io.keys import comes_back, run_heads
from irgauge.io.line_scatter import (
    LINE_NUMBER,
    LineSpill,
    first_tokens,
    line_bounds,
    mixed,
    token_keys,
)
from irgauge.io.records import Run
from irgauge.io.runs import first_tag, run_from_table, tokenize_run
from irgauge.io.words import counted

TEXT_BYTES_PER_LINE = 40  # a TREC run line's typical length: a table's rows per part
PIECE_ARRAYS = 10  # arrays per piece of a spill file (see _write_piece)
MAX_PARTITIONS = 256  # spill files open at once (well under the usual limit of 1024); a byte


def iter_run_parts(
    path: str,
    name: Optional[str] = None,
    part_bytes: int = 1 << 28,
    threads=None,
    read_from: Optional[str] = None,
    span: Optional["Span"] = None,
) -> Generator[Run, None, None]:
    """The run in ``path`` as Runs of whole topics, in file order (see the module); a
    Parquet or Arrow table is read a row group at a time. ``read_from``: a copy of the
    file to read instead (``path`` still names the run and its errors). ``span``: only
    that stretch of the file (see :func:`topic_spans`)."""
    return whole_topics(_pieces_in_order(str(path), name, part_bytes, threads, read_from, span))


def _pieces_in_order(path: str, name, part_bytes: int, threads, read_from, span=None):
    """The file's entries in pieces of about ``part_bytes`` of text, cut anywhere."""
    if table_format(path):
        chunks = iter_arrow_run_chunks(path, max(1, part_bytes // TEXT_BYTES_PER_LINE), name)
        return ((chunk, False) for chunk in chunks)  # (the last topic comes as a part alone)
    return _tokenized_groups(path, name, part_bytes, threads, read_from or path, span)


def whole_topics(pieces: Iterable[Tuple[Run, bool]]) -> Generator[Run, None, None]:
    """Consecutive pieces of one run, each with whether it is the file's last, regrouped so
    that no topic is cut between two Runs (a topic split over two places of the file stays
    split). A file read in one piece is one Run."""
    waiting: List[Run] = []  # pieces of the topic the last piece ended in
    for part, last in pieces:
        change = _topic_changes(part)
        if waiting and part.topics[0] != waiting[-1].topics[0]:
            yield concat_runs(waiting)
            waiting = []
        if len(change) == 0 and not last:  # one topic, maybe continued
            waiting.append(_taken(part, slice(None), own=True))
            del part  # not kept alive while the next piece is read
            continue
        begin = 0
        if waiting:  # the waiting topic ends in this piece
            begin = int(change[0]) if len(change) else len(part)
            waiting.append(_taken(part, slice(0, begin), own=True))
            yield concat_runs(waiting)
            waiting = []
        end = len(part) if last else int(change[-1])
        if end > begin:
            yield part if end - begin == len(part) else _taken(part, slice(begin, end))
        if not last:
            waiting = [_taken(part, slice(end, None), own=True)]
        del part
    if waiting:
        yield concat_runs(waiting)


def _tokenized_groups(
    path: str, name, part_bytes: int, threads, read_from, span: Optional["Span"] = None
) -> Iterator[Tuple[Run, bool]]:
    """Groups of whole-line blocks of about ``part_bytes``, each tokenized as a Run, with
    whether it ends the file; the same checks as the whole-file reader, with the file's line
    numbers (a group of comments alone gives nothing)."""
    refused: Optional[InputError] = None  # the run's ids, refused where its text is sound
    for table, tag, last in _group_tables(path, part_bytes, threads, read_from, span):
        run = None  # once the ids are refused, the rest of the file is only checked
        if refused is None:
            run, refused = _built(table, path, name, tag)
        del table  # not kept alive while the next group is read
        if run is not None:
            yield run, last
            del run
    if refused is not None:
        raise refused


def _group_tables(path: str, part_bytes: int, threads, read_from, span: Optional["Span"]):
    """The tables of _tokenized_groups' groups, with the run's tag and whether each ends
    the file."""
    block_bytes = max(min(BLOCK_BYTES, part_bytes), 1)
    group: List[bytes] = []
    size, lines_before, n_columns, tag = 0, 0, None, None
    if span is not None:  # (its line numbers count from its first line)
        n_columns, tag = span.n_columns, span.tag
    where = None if span is None else (span.start, span.end)
    blocks = blocks_naming(iter_blocks(read_from, block_bytes, where), read_from, path)
    while True:
        try:
            block = next(blocks, None)
        except LineTooLong as err:
            if group:  # a bad line before the long one is named first
                tokenize_run(
                    group, path, first_line=lines_before + 1, n_columns=n_columns, empty_ok=True
                )
            line = lines_before + _lines(group) + err.ends_before + 1
            raise InputError(err.problem, err.path, line) from None
        if block is not None:
            group.append(block)
            size += len(block)
            if size < part_bytes:
                continue
        if not group:
            break
        if tag is None and n_columns is None:
            tag = first_tag(group)  # its first data line may follow blocks of comments
        table = tokenize_run(
            group,
            path,
            threads=threads,
            size_hint=size,
            first_line=lines_before + 1,
            empty_ok=True,
            n_columns=n_columns,
        )
        lines_before += table.n_line_ends  # counted by the tokenizer: no second pass
        group, size = [], 0
        if table.n_columns:
            n_columns = _same_columns(table, n_columns, path)
            tag = tag if n_columns == 6 else None
            yield table, tag, block is None
        del table
        if block is None:
            break
    if n_columns is None:
        raise InputError("no data lines (only comments or blank lines)", path)


def _built(table, path: str, name, tag) -> Tuple[Optional[Run], Optional[InputError]]:
    """The Run of a group's table, or the error its ids raise: kept until the rest of the
    file is read, as the reader of the whole file reads every line before it builds the
    run (a bad line after this one is named instead)."""
    try:
        return run_from_table(table, path, name, tag, table.line_numbers), None
    except InputError as err:
        return None, err


def _same_columns(table, n_columns: Optional[int], path: str) -> int:
    """The file's column count: the first part's, which every later part must have."""
    if n_columns is not None and table.n_columns != n_columns:
        raise InputError(
            f"expected {counted(n_columns, 'column')} as on the first data line, found "
            f"{table.n_columns}",
            path,
            int(table.line_numbers[0]),
        )
    return table.n_columns


def _lines(group: List[bytes]) -> int:
    return sum(count_line_ends(block) for block in group)


def _topic_changes(run: Run) -> np.ndarray:
    """Entries whose topic differs from the entry before."""
    if len(run) < 2:
        return np.zeros(0, np.intp)
    # bytes compared only where neighbours are stored apart (a block's topic column keeps
    # one copy per run of lines): a few thousand pairs instead of every line
    return run_heads(run.topics)[1:]


def topic_blocks(run: Run, blocks: int, min_lines: int) -> List[Run]:
    """``run`` cut into at most ``blocks`` Runs of consecutive whole topics (views of its
    arrays), each cut at the topic change nearest an equal share of the lines and each of
    at least about ``min_lines`` lines; ``[run]`` when it is too small to cut, or when a
    topic comes in two places of it (such a topic's lines must be matched together).

    A topic's value depends on its own lines alone, so the blocks scored one by one give
    the values of the run scored whole."""
    n = min(blocks, len(run) // max(min_lines, 1))
    if n < 2 or not isinstance(run.topics, Ids):
        return [run]
    heads = run_heads(run.topics)
    if len(heads) < 2 or len(run.topics[heads].unique()[0]) < len(heads):
        return [run]
    at = np.searchsorted(heads, np.arange(1, n) * len(run) // n)
    cuts = np.unique(heads[at[at < len(heads)]])
    bounds = [0, *(int(c) for c in cuts if c > 0), len(run)]
    return [_block(run, begin, end) for begin, end in zip(bounds[:-1], bounds[1:])]


def _block(run: Run, begin: int, end: int) -> Run:
    """Entries begin..end-1 of ``run``, views of its arrays, with their line numbers."""
    rows = slice(begin, end)
    lines = run.line_numbers
    return replace(
        run,
        topics=run.topics[rows],
        docnos=run.docnos[rows],
        scores=None if run.scores is None else run.scores[rows],
        # without line numbers, entry i is on line i + 1
        line_numbers=np.arange(begin + 1, end + 1) if lines is None else lines[rows],
    )


def concat_runs(parts: List[Run]) -> Run:
    """One Run of several pieces of one run file, in order."""
    if len(parts) == 1:
        return parts[0]
    head = parts[0]
    return replace(
        head,
        topics=Ids.concat([p.topics for p in parts]),
        docnos=Ids.concat([p.docnos for p in parts]),
        scores=None if head.scores is None else np.concatenate([p.scores for p in parts]),
        line_numbers=np.concatenate([p.line_numbers for p in parts]),
    )


# ------------------------------------------------------------------ spans of whole topics


@dataclass(frozen=True)
class Span:
    """Bytes start..end of a plain run file, beginning and ending at a topic change, with
    what a reader of the span alone cannot see: the file's column count and tag (from its
    first data line). A reader of a span counts lines from the span's first."""

    start: int
    end: int
    n_columns: int
    tag: Optional[str]


def topic_spans(path: str, count: int) -> Optional[List[Span]]:
    """About ``count`` spans of ``path`` of equal size, each cut where a line starts a new
    topic, for separate readers; None for a file that cannot be read from the middle
    (compressed, a table, not a regular file), whose lines end at lone CRs, or whose first
    64 KiB hold no data line."""
    path = str(path)
    try:
        if not read_twice(path) or table_format(path):
            return None
        size = os.path.getsize(path)
        with open(path, "rb") as handle:
            head = handle.read(1 << 16)
            if not _plain_text(head):
                return None
            whole_lines = head[: head.rfind(b"\n") + 1] if len(head) < size else head
            table = tokenize_run(whole_lines, path, empty_ok=True)
            if not table.n_columns:
                return None
            tag = first_tag(head) if table.n_columns == 6 else None
            cuts = [0]
            for k in range(1, count):
                cut = _next_topic_start(handle, size * k // count)
                if cut is not None and cut > cuts[-1]:
                    cuts.append(cut)
    except (OSError, InputError):
        return None  # the reader of the whole file names the problem
    cuts.append(size)
    return [Span(a, b, table.n_columns, tag) for a, b in zip(cuts, cuts[1:])]


def _plain_text(head: bytes) -> bool:
    """Not compressed, no byte-order mark, lines ending at LF or CRLF."""
    if not head or is_compressed(head) or head.startswith(BOM):
        return False
    return b"\r" not in head.replace(b"\r\n", b"")


def _next_topic_start(handle, offset: int) -> Optional[int]:
    """The offset of the first line at or after ``offset``'s next line whose first token
    differs from the data line before it; None at the end of the file."""
    handle.seek(max(offset - 1, 0))
    if offset > 0:
        handle.readline()  # the rest of the line ``offset`` falls in
    position = handle.tell()
    previous = None
    for line in iter(handle.readline, b""):
        if len(line) > MAX_LINE_BYTES:
            return None
        fields = line.split(None, 1)
        # blank and comment lines belong to no topic: no cut before them
        token = fields[0] if fields and not fields[0].startswith(b"#") else None
        if token is not None and previous is not None and token != previous:
            return position
        previous = token if token is not None else previous
        position += len(line)
    return None


# ------------------------------------------------------------------ external partitioning


@contextlib.contextmanager
def partitioned_parts(
    path: str,
    name: Optional[str] = None,
    part_bytes: int = 1 << 28,
    threads=None,
    folder: Optional[str] = None,
    read_from: Optional[str] = None,
    order: Optional[str] = None,
    read: Optional[Iterable[Run]] = None,
) -> Iterator[Iterator[Run]]:
    """The run in ``path`` regrouped by topic: Runs each holding every line of its topics
    (in file order within a topic), a topic in one Run only. With ``order`` "score" (or
    None for a run whose natural order that is), each topic's lines come by score
    descending instead, ties in file order: the order a ranking is built in, sorted here
    once instead of once by topic here and again by score when the run is matched.

    The file is read once; each line goes to one of K temporary files by a hash of its
    topic (K from the file's size and ``part_bytes``), then each file is read back as one
    Run. A text file's lines go as bytes, found by their first token alone, and are
    tokenized when read back (:mod:`irgauge.io.line_scatter`); a table's rows go
    tokenized. A file that comes back larger than twice ``part_bytes`` with more than
    one topic is partitioned again, by another hash. The temporary folder (under
    ``folder``, default the system's) is removed when the context ends, on an error or an
    interrupt too. ``read``: the table's parts already being read (the first ones read
    but not used, then the rest), to take instead of reading it from its start (a text
    file is read from its start: its lines are tokenized once, after the partitioning).
    """
    with scratch_folder("irgauge-partition-", folder) as spill:
        size = _text_size(read_from or path)
        if not table_format(path):
            del read  # (parts tokenized already are not written as text again)
            # two files a partition (lines and line numbers): as many open as the spill
            count = int(max(2, min(MAX_PARTITIONS // 2, size // max(part_bytes, 1) + 1)))
            text = _TextRun(path, name, read_from or path, part_bytes, order)
            yield text.partitions(spill, count)
            return
        count = int(min(MAX_PARTITIONS, max(2, 2 * size // max(part_bytes, 1) + 1)))
        first: List[Run] = []

        def noted(parts):
            for part in parts:
                if not first:  # what names the run (one entry: the part itself is not kept)
                    first.append(_taken(part, slice(0, 1), own=True))
                yield part

        # a topic cut between two pieces goes to one file all the same
        if read is None:
            read = (
                part for part, _ in _pieces_in_order(path, name, part_bytes, threads, read_from)
            )
        parts = noted(read)
        del read
        files = _spill(parts, spill, "p", count, salt=0)
        by_score = (order or first[0].natural_order) == "score" and first[0].scores is not None
        yield _read_back(files, first[0], spill, part_bytes, depth=1, by_score=by_score)


class _TextRun:
    """A text run partitioned as lines (see partitioned_parts): the file's lines are
    scattered, then each partition is tokenized and ranked. Any error in the file is
    reported as the reader in file order reports it (first in the file, same words)."""

    def __init__(self, path: str, name, read_from: str, part_bytes: int, order):
        self.path, self.name, self.read_from = path, name, read_from
        self.part_bytes, self.order = part_bytes, order
        self.n_columns = 0  # and the tag: of the first data line, once read
        self.tag: Optional[str] = None

    def partitions(self, folder: str, count: int) -> Iterator[Run]:
        """The partitions as Runs (the file is scattered before the first comes)."""
        try:
            stems = self._scatter(folder, count)
        except InputError as err:
            raise self._first_error(err) from None
        return self._read_back(stems, folder, depth=1)

    def _scatter(self, folder: str, count: int) -> List[str]:
        spill = LineSpill(folder, "p", count, salt=0, flush_bytes=self.part_bytes)
        lines_before, done = 0, False
        try:
            blocks = blocks_naming(
                iter_blocks(self.read_from, BLOCK_BYTES), self.read_from, self.path
            )
            for block in blocks:
                lines_before += spill.add(block, None, lines_before + 1)
            done = True
        finally:
            stems = spill.close(write=done)
        if spill.first_line is None:
            raise InputError("no data lines (only comments or blank lines)", self.path)
        line, number = spill.first_line
        table = tokenize_run(line, self.path, first_line=number)
        self.n_columns = table.n_columns
        self.tag = first_tag(line) if table.n_columns == 6 else None
        return stems

    def _read_back(self, stems: List[str], folder: str, depth: int) -> Iterator[Run]:
        """Each partition as one Run, ranked; its files deleted once read. One over twice
        the part size is partitioned again first (a few times at most: a single topic
        larger than that cannot be split)."""
        if self.n_columns == 1:  # one topic (named by the file): never split by docno
            yield self._ranked(self._partition(stems))
            return
        for stem in stems:
            size = os.path.getsize(stem + ".txt")
            if size > 2 * self.part_bytes and depth < 4:
                more = self._rescatter(stem, folder, depth)
                yield from self._read_back(more, folder, depth + 1)
            elif size:
                yield self._ranked(self._partition([stem]))
            _remove(stem)

    def _rescatter(self, stem: str, folder: str, salt: int) -> List[str]:
        numbers = np.fromfile(stem + ".lines", dtype=LINE_NUMBER)
        prefix = f"{os.path.basename(stem)}_"
        spill = LineSpill(folder, prefix, 8, salt=salt, flush_bytes=self.part_bytes)
        done, at = False, 0
        try:
            for block in iter_blocks(stem + ".txt", BLOCK_BYTES, own=True):
                at += spill.add(block, numbers[at:], 0)
            done = True
        finally:
            stems = spill.close(write=done)
        _remove(stem)
        return stems

    def _partition(self, stems: List[str]) -> Run:
        """The lines of partition files, tokenized, with the file's line numbers; lines
        of several files (one topic) in file order."""
        runs = []
        for stem in stems:
            numbers = np.fromfile(stem + ".lines", dtype=LINE_NUMBER)
            size = os.path.getsize(stem + ".txt")
            try:
                blocks = iter_blocks(stem + ".txt", BLOCK_BYTES, own=True)
                table = tokenize_run(blocks, self.path, size_hint=size, empty_ok=True)
                if table.n_columns and table.n_columns != self.n_columns:
                    raise InputError("columns differ", self.path)
            except InputError as err:
                raise self._first_error(err) from None
            if table.n_columns:
                lines = numbers[table.line_numbers - 1]
                runs.append(run_from_table(table, self.path, self.name, self.tag, lines))
        run = concat_runs(runs)
        if len(stems) > 1:
            run = _taken(run, np.argsort(run.lines(), kind="stable"))
        return run

    def _ranked(self, run: Run) -> Run:
        by_score = (self.order or run.natural_order) == "score" and run.scores is not None
        return _topic_order(run, by_score, tokens=True)

    def _first_error(self, err: InputError) -> InputError:
        """The error a reader of the file in order meets first (``err`` if it meets none:
        a line of a partition cannot show where it was in the file)."""
        return first_read_error(self.path, self.name, self.part_bytes, self.read_from) or err


def first_read_error(
    path: str, name, part_bytes: int, read_from: Optional[str] = None
) -> Optional[InputError]:
    """The error the reader of the whole file meets first (its first bad line), or None
    for a file whose every line reads. ``path`` is read in order, a part at a time."""
    # blocks of the whole reader's size: it checks a block's columns before its numbers
    part_bytes = max(part_bytes, BLOCK_BYTES)
    try:
        for _ in _pieces_in_order(path, name, part_bytes, 1, read_from or path):
            pass
    except InputError as first:
        return first
    return None


def _remove(stem: str) -> None:
    for suffix in (".txt", ".lines"):
        with contextlib.suppress(FileNotFoundError):
            os.remove(stem + suffix)


def starts_scattered(path: str, read_from: Optional[str] = None, part_bytes: int = 0) -> bool:
    """Whether the first block of a text run of more than one part (``part_bytes``)
    already shows a topic in two places, by the hash of each line's first token: a
    shuffled file, partitioned from the start instead of after its first parts were read.
    False for a table or a file that cannot be read (its reader reports why)."""
    if table_format(path) or _text_size(read_from or path) <= part_bytes:
        return False
    blocks = iter_blocks(read_from or path, BLOCK_BYTES)
    try:
        block = next(blocks, b"")
    except InputError:
        return False
    finally:
        blocks.close()
    pool = np.zeros(len(block) + 8, dtype=np.uint8)
    pool[: len(block)] = np.frombuffer(block, np.uint8)
    _, token, token_lens = first_tokens(pool, len(block), *line_bounds(pool[: len(block)]))
    return comes_back(token_keys(pool, token, token_lens))


def _text_size(path: str) -> int:
    """The file's size, times a typical compression ratio for compressed files."""
    try:
        with open(path, "rb") as handle:
            head = handle.read(8)
        size = os.path.getsize(path)
    except OSError:
        return MAX_LINE_BYTES
    return size * 6 if is_compressed(head) else size


def _spill(parts, folder: str, prefix: str, count: int, salt: int) -> List[str]:
    """Write the parts' entries to ``count`` files by topic hash; the files' paths."""
    paths = [os.path.join(folder, f"{prefix}{k}.bin") for k in range(count)]
    handles = [open(p, "wb") for p in paths]
    try:
        for part in parts:
            # bytes (count <= 256): numpy's stable sort of small integers is a radix sort
            bucket = (mixed(part.topics.hashes(), salt) % np.uint64(count)).astype(np.uint8)
            order = np.argsort(bucket, kind="stable")
            bounds = np.zeros(count + 1, dtype=np.intp)
            np.cumsum(np.bincount(bucket, minlength=count), out=bounds[1:])
            # the pieces one after the other; each piece's ids are copied out of the part's
            # pools once, as it is written (compact_range), not compacted here first
            part = _taken(part, order)
            for k in np.flatnonzero(np.diff(bounds)):
                _write_piece(handles[k], part, int(bounds[k]), int(bounds[k + 1]))
            del part, bucket, order  # not kept alive while the next part is read
            release_free_memory()
    finally:
        for handle in handles:
            handle.close()
    return paths


def _taken(run: Run, rows, own: bool = False) -> Run:
    """The entries ``rows`` (an index array, or a slice for views) of a run, in that order.
    With ``own``, in arrays of their own (ids compacted, views copied), so that the arrays
    they were taken from can be freed."""
    topics, docnos = run.topics[rows], run.docnos[rows]
    scores = None if run.scores is None else run.scores[rows]
    lines = run.lines()[rows]
    if own:
        topics, docnos, lines = topics.compacted(), docnos.compacted(), _owned(lines)
        scores = None if scores is None else _owned(scores)
    return replace(run, topics=topics, docnos=docnos, scores=scores, line_numbers=lines)


def _owned(array: np.ndarray) -> np.ndarray:
    """``array``, copied if it is a view of another."""
    return array if array.base is None else array.copy()


def _write_piece(handle, part: Run, begin: int, end: int) -> None:
    """Entries begin..end-1 of a part (ids compact) as ten arrays: topic pool, starts and
    lengths, the same for the docnos, scores (empty for a run without), line numbers, and
    the hashes of the topics and of the docnos. The hashes are computed anyway (the topics'
    to choose the file, the docnos' as they are read); read back, they are not computed
    again, from ids then scattered over the pool, to match the run."""
    arrays = []
    for ids in (part.topics.compact_range(begin, end), part.docnos.compact_range(begin, end)):
        arrays += [ids.pool, ids.starts, ids.lens]
    arrays.append(part.scores[begin:end] if part.scores is not None else np.zeros(0))
    arrays.append(part.lines()[begin:end])
    arrays += [ids.hashes()[begin:end] for ids in (part.topics, part.docnos)]
    # a header of (type code, length) per array, then their bytes: the files live only
    # while the run is read, and .npy headers (text, parsed back) cost more than the data
    header = np.array([[ord(a.dtype.char), len(a)] for a in arrays], dtype=np.int64)
    header.tofile(handle)
    for array in arrays:
        np.ascontiguousarray(array).tofile(handle)


def _read_back(
    paths: List[str], like: Run, folder: str, part_bytes: int, depth: int, by_score: bool
) -> Iterator[Run]:
    """Each spill file as one Run (named as ``like``), deleted once read; one over twice
    ``part_bytes`` is partitioned again first (a few times at most: a single topic larger
    than that cannot be split)."""
    for path in paths:
        size = os.path.getsize(path)
        if size and size > 2 * part_bytes and depth < 4:
            prefix = f"{os.path.basename(path)[:-4]}_"
            more = _spill(_pieces(path, like), folder, prefix, 8, salt=depth)
            os.remove(path)
            yield from _read_back(more, like, folder, part_bytes, depth + 1, by_score)
            continue
        pieces = list(_pieces(path, like)) if size else []
        os.remove(path)
        if pieces:
            run = concat_runs(pieces)
            del pieces
            yield _topic_order(run, by_score)


def _topic_order(run: Run, by_score: bool, tokens: bool = False) -> Run:
    """The run's entries with each topic's together (matched as a contiguous run), in
    file order within a topic, or by score descending with ties in file order; topics
    sharing their bytes (see _topics_shared). ``tokens``: the topics are a text file's
    tokens (no byte <= 32 in them)."""
    topics = run.topics
    exact = tokens and len(topics) > 0 and int(topics.lens.max()) <= 8
    # tokens of up to 8 bytes are told apart by their key exactly: no check of their bytes
    keys = token_keys(topics.pool, topics.starts, topics.lens) if exact else topics.hashes()
    if by_score and run.scores is not None:  # a run without scores keeps its file order
        by_score_order = np.argsort(-run.scores, kind="stable")
        order = by_score_order[grouped_by_hash(keys[by_score_order])]
    else:
        order = grouped_by_hash(keys)
    # the topics are not taken with the rest: _topics_shared builds them in this order
    return replace(
        run,
        topics=_topics_shared(topics, order, keys, exact),
        docnos=run.docnos[order],
        scores=None if run.scores is None else run.scores[order],
        line_numbers=run.lines()[order],
    )


SLOT_BITS = 16  # a radix sort of 16-bit keys is one pass over the data (numpy's stable sort)


def grouped_by_hash(hashes: np.ndarray) -> np.ndarray:
    """A stable order of ``hashes`` in which equal hashes are together (groups in no
    particular order): by their top 16 bits (a radix sort), then, where two different
    hashes share those bits, by the whole hash (a sort of those entries only)."""
    slots = (hashes >> np.uint64(64 - SLOT_BITS)).astype(np.uint16)
    order = np.argsort(slots, kind="stable")
    last_in_slot = np.zeros(1 << SLOT_BITS, dtype=np.uint64)
    last_in_slot[slots] = hashes
    shared = last_in_slot[slots] != hashes  # some entries of slots of several hashes
    if shared.any():
        mixed_slot = np.zeros(1 << SLOT_BITS, dtype=bool)
        mixed_slot[slots[shared]] = True
        at = np.flatnonzero(mixed_slot[slots[order]])
        # a hash's top bits are its slot: sorted by hash, these entries stay in their slots
        order[at] = order[at][np.argsort(hashes[order[at]], kind="stable")]
    return order


def _topics_shared(topics: Ids, order: np.ndarray, keys: np.ndarray, exact: bool) -> Ids:
    """``topics[order]`` (grouped by ``keys``), each group's ids pointing at the bytes of
    the group's first: a matcher finds where topics change by comparing offsets, not
    bytes, which after the sort lie scattered over the pool. Groups of keys that are not
    ``exact`` (hashes) are checked byte for byte; on a collision, plainly
    ``topics[order]``."""
    grouped = keys[order]
    if len(grouped) == 0:
        return topics[order]
    starts = np.concatenate(([True], grouped[1:] != grouped[:-1]))
    first_row = order[np.flatnonzero(starts)][np.cumsum(starts) - 1]
    if exact:
        return topics[first_row]
    head_of = np.empty_like(first_row)
    head_of[order] = first_row  # each row's group head, by row in file order
    if not topics.equal(topics[head_of]).all():
        return topics[order]
    return topics[first_row]


def _pieces(path: str, like: Run) -> Iterator[Run]:
    """The pieces written to one spill file, in order."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        while handle.tell() < size:
            header = np.fromfile(handle, dtype=np.int64, count=2 * PIECE_ARRAYS)
            arrays = [
                np.fromfile(handle, dtype=np.dtype(chr(code)), count=int(length))
                for code, length in header.reshape(PIECE_ARRAYS, 2)
            ]
            topic_pool, topic_starts, topic_lens, pool, starts, lens, scores, lines = arrays[:8]
            topics = Ids(topic_pool, topic_starts, topic_lens, compact=True)
            docnos = Ids(pool, starts, lens, compact=True)
            topics._hashes, docnos._hashes = arrays[8:]
            yield replace(
                like,
                topics=topics,
                docnos=docnos,
                scores=scores if like.scores is not None else None,
                line_numbers=lines,
            )
