"""A file's content read whole, its start or some of its lines (decompressed, without a
byte order mark, through :func:`irgauge.io._source.iter_blocks` or its opener), and decoded
as UTF-8 text with errors at FILE:LINE."""

from __future__ import annotations

import re
from typing import Iterable, List, Optional

from irgauge.errors import InputError
from irgauge.io._source import (
    BOM,
    LineTooLong,
    count_line_ends,
    iter_blocks,
    open_input,
    read_twice,
    reading,
    without_bom,
)
from irgauge.io.file_names import PathLike
from irgauge.io.noted_inputs import opened_stream
from irgauge.io.words import counted

_LINE_END = re.compile(rb"\r\n|\r|\n")


def pick_lines(path: PathLike, numbers: Iterable[int]) -> List[bytes]:
    """The lines numbered ``numbers`` (1-based, ascending) of a file already read, without
    their line ends, read again through :func:`iter_blocks`: the same decompression, byte
    order mark and line ends (LF, CRLF, lone CR) as the tokenizer's line numbers count, one
    block at a time. A file with fewer lines than asked changed since it was read."""
    wanted = iter(numbers)
    picked: List[bytes] = []
    following = next(wanted, None)
    seen = 0
    for block in iter_blocks(path, 1 << 20):
        if following is None:
            break
        lines = _LINE_END.split(block)
        if lines and lines[-1] == b"":  # the block ends with a line end
            lines.pop()
        while following is not None and following <= seen + len(lines):
            picked.append(lines[following - seen - 1])
            following = next(wanted, None)
        seen += len(lines)
    if following is not None:
        raise InputError(
            f"has {counted(seen, 'line')}, not {following}: changed since it was read", str(path)
        )
    return picked


def read_text(path: PathLike) -> str:
    """The whole content of a line-oriented text file as UTF-8 (decompressed, without a
    byte order mark), read through :func:`iter_blocks`: a line over ``MAX_LINE_BYTES`` (a
    file of NUL bytes, a binary file) is refused as soon as it is seen, before the rest is
    read, and bytes that are not UTF-8 are refused at FILE:LINE."""
    name = str(path)
    blocks: List[bytes] = []
    try:
        for block in iter_blocks(path, 1 << 20):
            blocks.append(block)
    except LineTooLong as err:
        ends = sum(count_line_ends(b) for b in blocks) + err.ends_before
        raise LineTooLong(name, ends + 1) from None
    return decode_text(b"".join(blocks), name)


LINE_END = re.compile(r"\r\n|\r|\n")


def text_lines(text: str) -> List[str]:
    """The lines of decoded text, split where the readers split them: at LF, CRLF and a
    lone CR only (``str.splitlines`` would split at form feeds, U+0085 and U+2028 as well,
    and number the lines differently from the line numbers of the messages)."""
    lines = LINE_END.split(text)
    return lines[:-1] if lines and lines[-1] == "" else lines


def refuse_nul(data: bytes, name: str, lines_before: int = 0) -> None:
    """An InputError at the FILE:LINE of the first NUL byte of ``data`` (text that follows
    ``lines_before`` lines). No text file holds one: a file of NUL bytes, left by a crash or
    a preallocating copy, would otherwise read as one odd name, or an id ``d1\\0`` as a
    document of its own."""
    nul = data.find(b"\0")
    if nul >= 0:
        column = nul - max(data.rfind(b"\n", 0, nul), data.rfind(b"\r", 0, nul))
        raise InputError(
            f"a NUL byte at column {column}: binary data, not text",
            name,
            lines_before + count_line_ends(data[:nul]) + 1,
        )


def decode_text(data: bytes, name: str) -> str:
    """``data`` as UTF-8; a byte that is not UTF-8 is an InputError at its FILE:LINE, and
    so is a NUL byte (:func:`refuse_nul`)."""
    refuse_nul(data, name)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        line = count_line_ends(data[: err.start]) + 1
        column = err.start - max(data.rfind(b"\n", 0, err.start), data.rfind(b"\r", 0, err.start))
        raise InputError(
            f"not UTF-8 text (byte 0x{data[err.start]:02x} at column {column}); "
            "convert the file to UTF-8",
            name,
            line,
        ) from None


def _read_start(path: PathLike, size: int) -> bytes:
    """Up to ``size`` bytes of the content (-1: all), decompressed, without a byte order
    mark; read and decompression errors are InputErrors naming the file."""
    handle, kind = open_input(path)
    with reading(kind, str(path)), handle:
        data = handle.read(size)
    return without_bom(data)


def starts_with_bom(path: PathLike) -> bool:
    """Whether the content (decompressed) starts with a UTF-8 byte order mark, which the
    readers here drop. False for a stream, whose first bytes are its reader's."""
    if not read_twice(path):
        return False
    handle, kind = open_input(path)
    with reading(kind, str(path)), handle:
        return bool(handle.read(len(BOM)) == BOM)


def first_bytes(path: PathLike, count: int = 4096) -> bytes:
    """The first ``count`` bytes of the content, to tell a format by its start without
    reading the file. A stream (standard input, a pipe) keeps the bytes this reads for the
    next reader of the same path."""
    name = str(path)
    if read_twice(path):
        return _read_start(path, count)
    handle, kind = open_input(path)
    stream = opened_stream(name)
    if stream is None:  # pragma: no cover - open_input registers every stream
        return b""
    stream.keep = []
    try:
        with reading(kind, name):
            data = handle.read(count)
    finally:
        stream.give_back()
    return without_bom(data)


def read_bytes(path: PathLike, limit: Optional[int] = None) -> bytes:
    """The whole content (decompressed, without a byte order mark), with no line limit
    (for JSON and other formats read whole); content beyond ``limit`` bytes is refused as
    soon as it is read."""
    name = str(path)
    data = _read_start(path, -1 if limit is None else limit + 1)
    if limit is not None and len(data) > limit:
        raise InputError(f"file larger than {limit} bytes", name)
    if not data or data.isspace():  # isspace stops at the first visible byte
        raise InputError("file is empty", name)
    return data
