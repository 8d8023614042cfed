"""Reading raw bytes from a path (plain or gzip) with errors that name the file: whole, or
as a stream of blocks of whole lines so that large files never sit in memory at once."""
from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import BinaryIO, Iterator, Union

from irgauge.errors import InputError

PathLike = Union[str, "os.PathLike[str]"]
GZIP_MAGIC = b"\x1f\x8b"


def read_bytes(path: PathLike) -> bytes:
    """Return the file's content, decompressed when it is gzip (detected by its magic bytes)."""
    name = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as err:
            raise InputError(f"unreadable gzip data: {err}", name) from None
    if not data or data.isspace():  # isspace stops at the first visible byte
        raise InputError("file is empty", name)
    return data


def _open(path: PathLike) -> BinaryIO:
    name = str(path)
    try:
        handle = open(path, "rb")
        magic = handle.read(2)
        handle.seek(0)
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None
    return gzip.GzipFile(fileobj=handle, mode="rb") if magic == GZIP_MAGIC else handle


def iter_blocks(path: PathLike, block_bytes: int) -> Iterator[bytes]:
    """The file's content (decompressed when gzip) in blocks of about ``block_bytes``
    that end at a line break (the last block may end without one)."""
    name = str(path)
    handle = _open(path)
    carry, seen_text = b"", False
    try:
        with handle:
            while True:
                try:
                    chunk = handle.read(block_bytes)
                except (OSError, EOFError, zlib.error) as err:
                    raise InputError(f"unreadable gzip data: {err}", name) from None
                if not chunk:
                    break
                chunk = carry + chunk
                cut = chunk.rfind(b"\n") + 1
                if cut == 0:  # no line break yet: keep reading
                    carry = chunk
                    continue
                carry = chunk[cut:]
                block = chunk[:cut]
                seen_text = seen_text or not block.isspace()
                yield block
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None
    if carry:
        seen_text = seen_text or not carry.isspace()
        yield carry
    if not seen_text:
        raise InputError("file is empty", name)
