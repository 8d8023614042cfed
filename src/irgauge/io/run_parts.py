"""A run file read in parts of whole topics, so that evaluation holds one part at a time.

The file is read in groups of whole-line blocks of about ``part_bytes`` of text, and each
group is tokenized as the whole-file reader tokenizes it (same columns, same errors, same
line numbers). A part ends where its group's last topic begins: the lines of that topic
wait for the next group, which may continue it. So every part holds whole topics, in file
order, and the memory a part takes is bounded by ``part_bytes`` (and by its longest topic,
which has to be whole to be ranked).

A topic split over two places of the file (topics not contiguous) is left to the caller
to notice; :func:`irgauge.io.run_partitions.partitioned_parts` then regroups the file by
topic through temporary files (external partitioning), within the same bound.
"""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING, Generator, Iterable, Iterator, List, Optional, Tuple

import numpy as np

from irgauge.errors import InputError
from irgauge.io._source import blocks_naming, LineTooLong, count_line_ends, iter_blocks
from irgauge.io._tokens import BLOCK_BYTES
from irgauge.io.arrow_tables import iter_arrow_run_chunks, table_format
from irgauge.io.ids import Ids
from irgauge.io.keys import run_heads
from irgauge.io.records import Run
from irgauge.io.runs import first_tag, run_from_table, tokenize_run
from irgauge.io.words import counted

if TYPE_CHECKING:  # (a reader of the whole file never loads the spans)
    from irgauge.io.run_spans import Span

TEXT_BYTES_PER_LINE = 40  # a TREC run line's typical length: a table's rows per part


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
    that stretch of the file (see :func:`irgauge.io.run_spans.topic_spans`)."""
    return whole_topics(pieces_in_order(str(path), name, part_bytes, threads, read_from, span))


def pieces_in_order(path: str, name, part_bytes: int, threads, read_from, span=None):
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
            waiting.append(taken(part, slice(None), own=True))
            del part  # not kept alive while the next piece is read
            continue
        begin = 0
        if waiting:  # the waiting topic ends in this piece
            begin = int(change[0]) if len(change) else len(part)
            waiting.append(taken(part, slice(0, begin), own=True))
            yield concat_runs(waiting)
            waiting = []
        end = len(part) if last else int(change[-1])
        if end > begin:
            yield part if end - begin == len(part) else taken(part, slice(begin, end))
        if not last:
            waiting = [taken(part, slice(end, None), own=True)]
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


def first_read_error(
    path: str, name, part_bytes: int, read_from: Optional[str] = None
) -> Optional[InputError]:
    """The error the reader of the whole file meets first (its first bad line), or None
    for a file whose every line reads. ``path`` is read in order, a part at a time."""
    # blocks of the whole reader's size: it checks a block's columns before its numbers
    part_bytes = max(part_bytes, BLOCK_BYTES)
    try:
        for _ in pieces_in_order(path, name, part_bytes, 1, read_from or path):
            pass
    except InputError as first:
        return first
    return None


def taken(run: Run, rows, own: bool = False) -> Run:
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
