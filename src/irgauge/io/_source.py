"""Reading raw bytes from a path (plain or gzip) with errors that name the file."""
from __future__ import annotations

import gzip
import os
import zlib
from pathlib import Path
from typing import Union

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
