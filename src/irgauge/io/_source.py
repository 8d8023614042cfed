"""Reading raw bytes from a path (plain, gzip, bz2 or xz, detected by magic bytes) or from
standard input (``-``), with errors that name the file: whole, or as a stream of blocks of
whole lines so that large files never sit in memory at once.

Lines end with LF, CRLF or a lone CR (old Mac files); a UTF-8 byte order mark at the start
is dropped. A line may hold at most ``MAX_LINE_BYTES`` bytes: a longer one is refused at
FILE:LINE as soon as it is seen, so a huge file without line breaks costs one block of
memory, not the whole file.

Every input opened here is noted in the current :func:`input_scope` (the CLI opens one per
command): the writers of :mod:`irgauge.io.atomic` refuse to replace a file the command read
(``eval -o RUN``), through any link, and standard input cannot be read twice. Readers that
do not open files here call :func:`note_input` with the path.
"""

from __future__ import annotations

import bz2
import lzma
import contextlib
import os
import re
import stat
import sys
import zlib
from _thread import allocate_lock  # threading.Lock itself, without loading threading (1 ms)
from typing import Any, BinaryIO, Dict, Generator, Iterator, List, Optional, Tuple, Union

from irgauge.errors import InputError
from irgauge.io.words import counted

PathLike = Union[str, "os.PathLike[str]"]
GZIP_MAGIC = b"\x1f\x8b"
BZ2_MAGIC = b"BZh"
XZ_MAGIC = b"\xfd7zXZ\x00"
BOM = b"\xef\xbb\xbf"
MAX_LINE_BYTES = 1 << 20  # 1 MiB: far above any real run or qrels line
STDIN = "-"
_DECODE_ERRORS = (OSError, EOFError, zlib.error, lzma.LZMAError, ValueError)
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


# (st_dev, st_ino) -> path as given, of every input of the current scope; None: no scope
# open (library use), nothing is noted. A process-level value, not a ContextVar: runs are
# read in worker threads, which do not inherit a context.
_INPUTS: Optional[Dict[Tuple[int, int], str]] = None
_INPUTS_LOCK = allocate_lock()
_STDIN_KEY = (-1, -1)


@contextlib.contextmanager
def input_scope() -> Iterator[None]:
    """Note the inputs opened inside (the CLI opens one per command); the previous scope
    (or none) is restored on exit."""
    global _INPUTS
    with _INPUTS_LOCK:
        previous, _INPUTS = _INPUTS, {}
    with _STREAMS_LOCK:
        streams_before = dict(_STREAMS)
    try:
        yield
    finally:
        with _INPUTS_LOCK:
            _INPUTS = previous
        with _STREAMS_LOCK:
            _STREAMS.clear()
            _STREAMS.update(streams_before)


def note_input(path: PathLike, handle=None) -> None:
    """Record ``path`` (or an open ``handle``'s file) as an input of the current scope.
    Standard input (``-``) noted twice is an InputError: its data can be read once."""
    name = str(path)
    if _INPUTS is None:
        return
    if name == STDIN:
        key = _STDIN_KEY
    else:
        try:
            info = os.fstat(handle.fileno()) if handle is not None else os.stat(path)
        except (OSError, AttributeError, ValueError):
            return
        key = (info.st_dev, info.st_ino)
    with _INPUTS_LOCK:
        if _INPUTS is None:
            return
        if key == _STDIN_KEY and key in _INPUTS:
            raise InputError(
                "standard input ('-') is given as two inputs; it can be read only once "
                "(give one of them as a file)"
            )
        _INPUTS.setdefault(key, name)


def input_named_by(info: os.stat_result) -> Optional[str]:
    """The path of the current scope's input that is the file ``info`` describes, or None."""
    with _INPUTS_LOCK:
        return (_INPUTS or {}).get((info.st_dev, info.st_ino))


def inputs_noted() -> Dict[Tuple[int, int], str]:
    """A copy of the current scope's inputs ((st_dev, st_ino) -> path)."""
    with _INPUTS_LOCK:
        return dict(_INPUTS or {})


def file_path(
    path: object,
    what: str = "the input",
    parameter: Optional[str] = None,
    accepted: str = "a file path (str or os.PathLike)",
) -> str:
    """``path`` as text, where it is a path: a ``str``, an ``os.PathLike``
    (``pathlib.Path``) or bytes (decoded as os does). Anything else is an InputError
    saying what was given and what ``what`` accepts: ``str()`` of a list of paths would be
    a file named ``['q']``, and os reads a number as a file descriptor; every reader's
    path passes here before it is opened."""
    if isinstance(path, str):
        return path
    if isinstance(path, (bytes, os.PathLike)):
        return os.fsdecode(path)
    shown = type(path).__name__
    if isinstance(path, (list, tuple)) and path:
        shown += f" of {counted(len(path), 'item')}"
    raise InputError(f"{what} must be {accepted}; got {shown}", parameter=parameter)


def strip_compression_suffix(name: str) -> str:
    """The file name without a .gz/.bz2/.xz suffix (to name a topic or run by its stem)."""
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def path_name(path: str) -> str:
    """The last component of ``path``, as ``pathlib.PurePath(path).name`` gives it (empty
    and ``.`` components skipped). The readers name runs and topics by it without loading
    pathlib, which costs the drop-in's start-up about 5 ms."""
    rest = os.path.splitdrive(path)[1]
    if os.altsep:
        rest = rest.replace(os.altsep, os.sep)
    parts = [part for part in rest.split(os.sep) if part not in ("", ".")]
    return parts[-1] if parts else ""


def path_stem_and_suffix(path: str) -> Tuple[str, str]:
    """``(PurePath(path).stem, PurePath(path).suffix)``: the name split at its last dot,
    unless the dot leads or ends the name."""
    name = path_name(path)
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        return name[:dot], name[dot:]
    return name, ""


def file_stem(path: PathLike) -> str:
    """The file's name without its compression suffix (.gz, .bz2, .xz) and its extension:
    how a run or a topic is named after its file, and files written after an input."""
    return path_stem_and_suffix(strip_compression_suffix(path_name(str(path))))[0]


def is_compressed(head: bytes) -> bool:
    """Whether content starting with ``head`` is gzip, bz2 or xz (the test :func:`_open`
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


def _open(path: PathLike) -> Tuple[Any, str]:
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
    input, a pipe) as the one reader of its path in the input scope (:data:`_STREAMS`),
    from the bytes an earlier reader put back."""
    stream = _stream(name)
    if stream is None:
        raw = open(name, "rb")
        note_input(name, raw)
        if raw.seekable():
            magic = raw.read(6)
            raw.seek(0)
            return raw, magic
        stream = _Stream(raw)
        with _STREAMS_LOCK:
            _STREAMS[name] = stream
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


# path -> the stream (standard input, a pipe) opened for it in the current input scope: a
# stream's bytes come once, so a second reader of the path (after first_bytes told the
# format) continues the same stream, from the bytes the first one put back
_STREAMS: Dict[str, "_Stream"] = {}
_STREAMS_LOCK = allocate_lock()


def _stream(name: str) -> Optional["_Stream"]:
    """The stream already opened for ``name``; for ``-`` a new one on standard input (noted
    as an input); None for a path not opened as a stream yet."""
    with _STREAMS_LOCK:
        found = _STREAMS.get(name)
    if found is not None or name != STDIN:
        return found
    note_input(STDIN)
    stream = _Stream(sys.stdin.buffer)
    with _STREAMS_LOCK:
        _STREAMS[name] = stream
    return stream


class _Stream:
    """A stream that cannot seek, with bytes given back: :meth:`peek` and the bytes read
    while ``keep`` is a list are read again by the next ``read``."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.again = b""  # bytes given back, read before the rest of ``raw``
        self.keep: Optional[list] = None

    def read(self, size: int = -1) -> bytes:
        if size is None or size < 0:
            data, self.again = self.again + self.raw.read(), b""
        elif self.again:
            data, self.again = self.again[:size], self.again[size:]
            if len(data) < size:
                data += self.raw.read(size - len(data))
        else:
            data = self.raw.read(size)
        if self.keep is not None:
            self.keep.append(data)
        return data

    def peek(self, size: int) -> bytes:
        """The next ``size`` bytes (fewer at the end), left to be read."""
        keep, self.keep = self.keep, None
        data = self.read(size)
        self.again, self.keep = data + self.again, keep
        return data

    def give_back(self) -> None:
        """Everything read since ``keep`` was set is read again."""
        self.again = b"".join(self.keep or []) + self.again
        self.keep = None

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Closes the stream; its path is no longer open (a later read of it starts anew)."""
        with _STREAMS_LOCK:
            for name in [n for n, s in _STREAMS.items() if s is self]:
                del _STREAMS[name]
        self.raw.close()


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

    def __enter__(self):
        return self

    def __exit__(self, *exc) -> None:
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
    handle, kind = _open_own(name) if own else _open(path)  # a file, stream or decompressor
    if span is not None:
        handle = _Stretch(handle, kind, name, span)
    pieces, pending, seen_text = [], 0, span is not None
    first = not own and (span is None or span[0] == 0)
    try:
        with handle:
            while True:
                with _reading(kind, name):
                    # the first read holds a whole BOM, whatever the block size
                    chunk = handle.read(max(block_bytes, len(BOM)) if first else block_bytes)
                if not chunk:
                    break
                if first:
                    first = False
                    chunk = _without_bom(chunk)
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


_LINE_END = re.compile(rb"\r\n|\r|\n")


def pick_lines(path: PathLike, numbers) -> List[bytes]:
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
    blocks: list = []
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
    handle, kind = _open(path)
    with _reading(kind, str(path)), handle:
        data = handle.read(size)
    return _without_bom(data)


@contextlib.contextmanager
def _reading(kind: str, name: str) -> Iterator[None]:
    """Read and decompression errors within as InputErrors naming the file (every read
    error is one of _DECODE_ERRORS, OSError included)."""
    try:
        yield
    except _DECODE_ERRORS as err:
        raise InputError(f"unreadable {kind} data: {err}", name) from None


def starts_with_bom(path: PathLike) -> bool:
    """Whether the content (decompressed) starts with a UTF-8 byte order mark, which the
    readers here drop. False for a stream, whose first bytes are its reader's."""
    if not read_twice(path):
        return False
    handle, kind = _open(path)
    with _reading(kind, str(path)), handle:
        return handle.read(len(BOM)) == BOM


def _without_bom(data: bytes) -> bytes:
    return data[len(BOM) :] if data.startswith(BOM) else data


def first_bytes(path: PathLike, count: int = 4096) -> bytes:
    """The first ``count`` bytes of the content, to tell a format by its start without
    reading the file. A stream (standard input, a pipe) keeps the bytes this reads for the
    next reader of the same path."""
    name = str(path)
    if read_twice(path):
        return _read_start(path, count)
    handle, kind = _open(path)
    stream = _stream(name)
    if stream is None:  # pragma: no cover - _open registers every stream
        return b""
    stream.keep = []
    try:
        with _reading(kind, name):
            data = handle.read(count)
    finally:
        stream.give_back()
    return _without_bom(data)


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
