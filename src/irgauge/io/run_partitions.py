"""A run file regrouped by topic through temporary files (external partitioning): every
line of a topic in one part, whatever the file's order, within the memory bound of a part
(see :mod:`irgauge.io.run_parts`)."""

from __future__ import annotations

import contextlib
import os
from typing import Iterable, Iterator, List, Optional

import numpy as np

from irgauge.errors import InputError
from irgauge.io._source import (
    MAX_LINE_BYTES,
    blocks_naming,
    is_compressed,
    iter_blocks,
    scratch_folder,
)
from irgauge.io._tokens import BLOCK_BYTES
from irgauge.io.arrow_tables import table_format
from irgauge.io.keys import comes_back
from irgauge.io.line_scatter import LINE_NUMBER, LineSpill, first_tokens, line_bounds, token_keys
from irgauge.io.records import Run
from irgauge.io.run_parts import concat_runs, first_read_error, pieces_in_order, taken
from irgauge.io.runs import first_tag, run_from_table, tokenize_run

MAX_PARTITIONS = 256  # spill files open at once (well under the usual limit of 1024); a byte


@contextlib.contextmanager
def partitioned_parts(
    path: str,
    name: Optional[str] = None,
    part_bytes: int = 1 << 28,
    threads: Optional[int] = None,
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
        # (imported here, as in _TextRun: most runs are never partitioned)
        from irgauge.io.table_spill import read_back_pieces, spill_pieces

        count = int(min(MAX_PARTITIONS, max(2, 2 * size // max(part_bytes, 1) + 1)))
        first: List[Run] = []

        def noted(parts: Iterable[Run]) -> Iterator[Run]:
            for part in parts:
                if not first:  # what names the run (one entry: the part itself is not kept)
                    first.append(taken(part, slice(0, 1), own=True))
                yield part

        # a topic cut between two pieces goes to one file all the same
        if read is None:
            read = (part for part, _ in pieces_in_order(path, name, part_bytes, threads, read_from))
        parts = noted(read)
        del read
        files = spill_pieces(parts, spill, "p", count, salt=0)
        by_score = (order or first[0].natural_order) == "score" and first[0].scores is not None
        yield read_back_pieces(files, first[0], spill, part_bytes, depth=1, by_score=by_score)


class _TextRun:
    """A text run partitioned as lines (see partitioned_parts): the file's lines are
    scattered, then each partition is tokenized and ranked. Any error in the file is
    reported as the reader in file order reports it (first in the file, same words)."""

    def __init__(
        self,
        path: str,
        name: Optional[str],
        read_from: str,
        part_bytes: int,
        order: Optional[str],
    ):
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
            run = taken(run, np.argsort(run.lines(), kind="stable"))
        return run

    def _ranked(self, run: Run) -> Run:
        from irgauge.io.topic_grouping import grouped_by_topic  # (see partitioned_parts)

        by_score = (self.order or run.natural_order) == "score" and run.scores is not None
        return grouped_by_topic(run, by_score, tokens=True)

    def _first_error(self, err: InputError) -> InputError:
        """The error a reader of the file in order meets first (``err`` if it meets none:
        a line of a partition cannot show where it was in the file)."""
        return first_read_error(self.path, self.name, self.part_bytes, self.read_from) or err


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
