"""Gzip data read member after member, as ``gzip.GzipFile`` reads it, with its NUL
padding skipped a chunk at a time."""

from __future__ import annotations

import zlib
from typing import BinaryIO

GZIP_MAGIC = b"\x1f\x8b"


class GzipMembers:
    """A gzip stream read as ``gzip.GzipFile`` reads it (members one after the other, NUL
    padding between or after them skipped), but the padding is skipped a chunk at a time:
    the standard reader takes it one byte per call (a 200 MB padded file took a minute).
    Only ``read`` and closing are offered, which is all the readers here use."""

    CHUNK = 1 << 20

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.inflate = zlib.decompressobj(wbits=31)  # 31: a gzip header and trailer
        self.compressed = b""  # read from the file, not yet given to the decompressor
        self.finished = False

    def __enter__(self) -> "GzipMembers":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        self.raw.close()

    def read(self, size: int = -1) -> bytes:
        out = []
        wanted = size if size is not None and size >= 0 else None
        have = 0
        while not self.finished and (wanted is None or have < wanted):
            room = 0 if wanted is None else wanted - have
            piece = self._next(room)
            out.append(piece)
            have += len(piece)
        return b"".join(out)

    def _next(self, room: int) -> bytes:
        """Some decompressed bytes (at most ``room``, 0 = no bound), or b"" at a member's
        end or the stream's end."""
        if self.inflate.eof:
            self._next_member(self.inflate.unused_data + self.compressed)
            return b""
        if not self.compressed:
            self.compressed = self.raw.read(self.CHUNK)
            if not self.compressed:
                raise EOFError("Compressed file ended before the end-of-stream marker was reached")
        data = self.inflate.decompress(self.compressed, room)
        # at a member's end what follows it is in unused_data; unconsumed_tail can still
        # hold the same bytes (CPython keeps it from an earlier call with a max_length)
        self.compressed = b"" if self.inflate.eof else self.inflate.unconsumed_tail
        return data

    def _next_member(self, rest: bytes) -> None:
        """After a member: skip NUL padding, then start the next member or finish."""
        rest = rest.lstrip(b"\0")
        while not rest:
            chunk = self.raw.read(self.CHUNK)
            if not chunk:
                self.finished = True
                return
            rest = chunk.lstrip(b"\0")
        if len(rest) < 2:
            rest += self.raw.read(1)
        if not rest.startswith(GZIP_MAGIC):
            raise zlib.error("trailing data after the gzip stream that is not gzip")
        self.inflate = zlib.decompressobj(wbits=31)
        self.compressed = rest
