"""Spans of a plain run file that begin and end at a topic change, for readers that read
a file from the middle, each its own span (:func:`irgauge.io.run_parts.iter_run_parts`
with ``span``)."""

from __future__ import annotations

import os
from dataclasses import dataclass
from typing import BinaryIO, List, Optional

from irgauge.errors import InputError
from irgauge.io._source import BOM, MAX_LINE_BYTES, is_compressed, read_twice
from irgauge.io.arrow_tables import table_format
from irgauge.io.runs import first_tag, tokenize_run


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


def _next_topic_start(handle: BinaryIO, offset: int) -> Optional[int]:
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
