"""Reading raw bytes from a path (plain, gzip, bz2 or xz, detected by magic bytes) or from
standard input (``-``), with errors that name the file: whole, or as a stream of blocks of
whole lines so that large files never sit in memory at once.

Lines end with LF, CRLF or a lone CR (old Mac files); a UTF-8 byte order mark at the start
is dropped. A line may hold at most ``MAX_LINE_BYTES`` bytes: a longer one is refused at
FILE:LINE as soon as it is seen, so a huge file without line breaks costs one block of
memory, not the whole file.

Every input opened here is noted in the current input scope
(:func:`irgauge.io.noted_inputs.input_scope`; the CLI opens one per command): the writers
of :mod:`irgauge.io.atomic` refuse to replace a file the command read (``eval -o RUN``),
through any link, and standard input cannot be read twice. Readers that do not open files
here call :func:`irgauge.io.noted_inputs.note_input` with the path.
"""

from __future__ import annotations

import bz2
import lzma
import contextlib
import os
import stat
import zlib
from typing import Any, BinaryIO, Generator, Iterator, Optional, Tuple

from irgauge.errors import InputError
from irgauge.io.file_names import PathLike
from irgauge.io.gzip_members import GZIP_MAGIC, GzipMembers
from irgauge.io.noted_inputs import STDIN, note_input, opened_stream, stream_opened

BZ2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
BOM = b"\xef\xbb\xbf"
MAX_LINE_BYTES = 1 << 20  # 1 MiB: far above any real run or qrels line
_DECODE_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)


def is_compressed(head: bytes) -> bool:
    """Whether content starting with ``head`` is gzip, bz2 or xz (the test :func:`open_input`
    makes by magic bytes to decompress it)."""
    return head.startswith((GZIP_MAGIC, BZ2_MAGIC, XZ_MAGIC))


@contextlib.contextmanager
def scratch_folder(prefix: str, parent: Optional[str] = None) -> Iterator[str]:
    """A new temporary folder (under ``parent``, default the system's), removed with all
    it holds when the context ends, on an error or an interrupt too; after a SIGKILL, by
    the next one made there (:func:`irgauge.io.scratch.made`). shutil is imported here,
    where a folder is made: loading it costs every start-up time."""
    import shutil

    from irgauge.io.scratch import made

    folder = made(prefix, parent)
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def blocks_naming(blocks: Iterator[bytes], read_from: str, path: str) -> Iterator[bytes]:
    """``blocks`` read from ``read_from``, a copy of ``path`` (standard input or a pipe
    copied to be read twice), with their errors naming ``path``, as the user gave it."""
    try:
        yield from blocks
    except LineTooLong as err:
        raise LineTooLong(path, ends_before=err.ends_before) from None
    except InputError as err:
        if read_from == path or err.path != read_from:
            raise
        raise InputError(err.problem, path, err.line, err.unit) from None


def read_twice(path: PathLike) -> bool:
    """Whether ``path`` can be read twice: a regular file, or a path that is not there
    (whose reader names the problem); not standard input, a pipe or a device."""
    if str(path) == STDIN:
        return False
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return True


def size_hint(path: PathLike) -> Optional[int]:
    """The file's size in bytes (of the compressed data, if compressed), or None."""
    try:
        return os.path.getsize(path) if str(path) != STDIN else None
    except OSError:
        return None


def open_input(path: PathLike) -> Tuple[Any, str]:
    """The decompressing reader and the format's name (for error messages). Standard input
    and other streams (a named pipe, a process substitution) are read once, from their
    start or from where :func:`first_bytes` left them; a regular file is sought back."""
    name = str(path)
    try:
        raw, magic = _raw(name)
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None
    if magic.startswith(GZIP_MAGIC):
        return GzipMembers(raw), "gzip"
    if magic.startswith(BZ2_MAGIC):
        return _Owning(bz2.BZ2File(raw, mode="rb"), raw), "bz2"
    if magic.startswith(XZ_MAGIC):
        return _Owning(lzma.LZMAFile(raw, mode="rb"), raw), "xz"
    return raw, "file"


def _raw(name: str) -> Tuple[Any, bytes]:
    """The file's bytes as stored (compressed ones too), opened and noted as an input, and
    its first 6 bytes, left to be read: a regular file from its start; a stream (standard
    input, a pipe) as the one reader of its path in the input scope
    (:func:`irgauge.io.noted_inputs.opened_stream`), from the bytes an earlier reader put
    back."""
    stream = opened_stream(name)
    if stream is None:
        raw = open(name, "rb")
        note_input(name, raw)
        if raw.seekable():
            magic = raw.read(6)
            raw.seek(0)
            return raw, magic
        stream = stream_opened(name, raw)
    return stream, stream.peek(6)


def copy_bytes(path: PathLike, out: BinaryIO) -> None:
    """The file's bytes as stored (compressed ones stay so) written to ``out``: a stream
    that cannot be read twice, copied to a file that can. Opened as the readers open it, a
    stream keeps the bytes an earlier reader of its path put back (:func:`first_bytes`)
    and is noted as an input of the scope."""
    import shutil  # (as scratch_folder: only where a copy is made)

    name = str(path)
    try:
        raw, _ = _raw(name)
        with raw:
            shutil.copyfileobj(raw, out, 1 << 20)
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None


class _Owning:
    """A decompressing reader that closes the file under it as well: BZ2File and LZMAFile
    leave a file object given to them open."""

    def __init__(self, reader, raw: BinaryIO):
        self.reader, self.raw = reader, raw

    def read(self, size: int = -1) -> bytes:
        return self.reader.read(size)

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        try:
            self.reader.close()
        finally:
            self.raw.close()


def count_line_ends(data: bytes) -> int:
    """Line ends in ``data``: LF, CRLF (one end) and lone CR."""
    lf = data.count(b"\n")
    if data.find(b"\r") < 0:  # the usual file: one pass to count, one (memchr) to look
        return lf
    return lf + data.count(b"\r") - data.count(b"\r\n")


class LineTooLong(InputError):
    """A line longer than MAX_LINE_BYTES; the tokenizer, which counts lines, adds the
    line number."""

    def __init__(self, path: str, line=None, ends_before: int = 0):
        # line ends read with the long line's text but before it (a lone CR that ended
        # the last block, held back in case an LF followed): the counter adds them
        self.ends_before = ends_before
        super().__init__(
            f"line longer than {MAX_LINE_BYTES} bytes (the longest line irgauge "
            "reads); is this a text file of whitespace-separated columns?",
            path,
            line,
        )


def _last_cut(chunk: bytes) -> int:
    """Offset just past the last line end that cannot be the CR of a CRLF split by the
    block boundary (a CR as the chunk's last byte waits for the next chunk); 0 if none."""
    return max(chunk.rfind(b"\n"), chunk.rfind(b"\r", 0, len(chunk) - 1)) + 1


def _held_cr(pieces) -> int:
    """1 when the text waiting for its line end begins with a CR held back from the
    block before (a line end of its own), else 0."""
    return int(bool(pieces) and bytes(pieces[0][:1]) == b"\r")


def _line_end_in(chunk: bytes) -> int:
    """Offset of the chunk's first line end (LF or CR; len(chunk) if none)."""
    ends = [at for at in (chunk.find(b"\n"), chunk.find(b"\r")) if at >= 0]
    return min(ends) if ends else len(chunk)


def iter_blocks(
    path: PathLike, block_bytes: int, span: Optional[Tuple[int, int]] = None, own: bool = False
) -> Generator[bytes, None, None]:
    """The file's content (decompressed) in blocks of about ``block_bytes`` that end at a
    line end (the last block may end without one). ``span=(start, end)``: bytes start..end
    of an uncompressed file only (both at line starts), as a part of it to read.
    ``own``: a file irgauge wrote itself (lines of an input spilled to disk), read as its
    bytes are: a line of it may begin with what would be a byte order mark or a
    compressor's magic bytes at the start of a user's file, and is data there."""
    name = str(path)
    handle, kind = _open_own(name) if own else open_input(path)  # a file, stream or decompressor
    if span is not None:
        handle = _Stretch(handle, kind, name, span)
    pieces, pending, seen_text = [], 0, span is not None
    first = not own and (span is None or span[0] == 0)
    try:
        with handle:
            while True:
                with reading(kind, name):
                    # the first read holds a whole BOM, whatever the block size
                    chunk = handle.read(max(block_bytes, len(BOM)) if first else block_bytes)
                if not chunk:
                    break
                if first:
                    first = False
                    chunk = without_bom(chunk)
                    if not chunk:  # the BOM alone: the text follows
                        continue
                cut = _last_cut(chunk)
                if cut == 0:  # no line end yet: keep the pieces (joined once, not per read)
                    pieces.append(chunk)
                    pending += len(chunk)
                    if pending > MAX_LINE_BYTES + 1:  # (+1: a CR waiting for its LF)
                        raise LineTooLong(name, ends_before=_held_cr(pieces))
                    continue
                if pending and _line_end_in(chunk) + pending > MAX_LINE_BYTES + 1:
                    # the line begun in earlier reads ends here, too long all the same
                    # (read_text has no tokenizer to count it)
                    raise LineTooLong(name, ends_before=_held_cr(pieces))
                pieces.append(memoryview(chunk)[:cut])  # joined straight from the read
                block = b"".join(pieces)
                pieces, pending = [chunk[cut:]], len(chunk) - cut
                seen_text = seen_text or not block.isspace()
                yield block
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None
    carry = b"".join(pieces)
    if carry:
        seen_text = seen_text or not carry.isspace()
        yield carry
    if not seen_text:
        raise InputError("file is empty", name)


def _open_own(name: str) -> Tuple[Any, str]:
    """A file irgauge wrote, opened as stored, not noted as an input."""
    try:
        return open(name, "rb"), "file"
    except OSError as err:
        raise InputError(f"cannot read file: {err.strerror or err}", name) from None


class _Stretch:
    """Bytes start..end of an uncompressed file, read as a file."""

    def __init__(self, handle, kind: str, name: str, span: Tuple[int, int]):
        if kind != "file":
            handle.close()
            raise InputError(f"a {kind} file cannot be read from the middle", name)
        handle.seek(span[0])
        self.handle, self.left = handle, span[1] - span[0]

    def read(self, size: int) -> bytes:
        data = self.handle.read(min(size, self.left))
        self.left -= len(data)
        return data

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.handle.close()


@contextlib.contextmanager
def reading(kind: str, name: str) -> Iterator[None]:
    """Read and decompression errors within as InputErrors naming the file (every read
    error is one of _DECODE_ERRORS, OSError included)."""
    try:
        yield
    except _DECODE_ERRORS as err:
        raise InputError(f"unreadable {kind} data: {err}", name) from None


def without_bom(data: bytes) -> bytes:
    return data[len(BOM) :] if data.startswith(BOM) else data
