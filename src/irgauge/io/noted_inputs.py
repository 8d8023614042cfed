"""The inputs of a command (its input scope, which the CLI opens one per command): every
file opened is noted, so that the writers of :mod:`irgauge.io.atomic` refuse to replace
one (``eval -o RUN``), through any link; a stream (standard input, a pipe) is opened once
in a scope, and every reader of its path continues it, from the bytes an earlier reader
put back."""

from __future__ import annotations

import contextlib
import os
import sys
from _thread import allocate_lock  # threading.Lock itself, without loading threading (1 ms)
from typing import Any, BinaryIO, Dict, Iterator, List, Optional, Tuple

from irgauge.errors import InputError
from irgauge.io.file_names import PathLike
from irgauge.io.stops import held_lock

STDIN = "-"

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
    with held_lock(_INPUTS_LOCK):
        previous, _INPUTS = _INPUTS, {}
    with held_lock(_STREAMS_LOCK):
        streams_before = dict(_STREAMS)
    try:
        yield
    finally:
        with held_lock(_INPUTS_LOCK):
            _INPUTS = previous
        with held_lock(_STREAMS_LOCK):
            _STREAMS.clear()
            _STREAMS.update(streams_before)


def note_input(path: PathLike, handle: Any = None) -> None:
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
    with held_lock(_INPUTS_LOCK):
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
    with held_lock(_INPUTS_LOCK):
        return (_INPUTS or {}).get((info.st_dev, info.st_ino))


def inputs_noted() -> Dict[Tuple[int, int], str]:
    """A copy of the current scope's inputs ((st_dev, st_ino) -> path)."""
    with held_lock(_INPUTS_LOCK):
        return dict(_INPUTS or {})


# path -> the stream (standard input, a pipe) opened for it in the current input scope: a
# stream's bytes come once, so a second reader of the path (after first_bytes told the
# format) continues the same stream, from the bytes the first one put back
_STREAMS: Dict[str, "Stream"] = {}
_STREAMS_LOCK = allocate_lock()


def opened_stream(name: str) -> Optional["Stream"]:
    """The stream already opened for ``name``; for ``-`` a new one on standard input (noted
    as an input); None for a path not opened as a stream yet."""
    with held_lock(_STREAMS_LOCK):
        found = _STREAMS.get(name)
    if found is not None or name != STDIN:
        return found
    note_input(STDIN)
    return stream_opened(name, sys.stdin.buffer)


def stream_opened(name: str, raw: BinaryIO) -> "Stream":
    """``raw``, a stream that cannot seek, as the one reader of ``name`` in the scope."""
    stream = Stream(raw)
    with held_lock(_STREAMS_LOCK):
        _STREAMS[name] = stream
    return stream


class Stream:
    """A stream that cannot seek, with bytes given back: :meth:`peek` and the bytes read
    while ``keep`` is a list are read again by the next ``read``."""

    def __init__(self, raw: BinaryIO):
        self.raw = raw
        self.again = b""  # bytes given back, read before the rest of ``raw``
        self.keep: Optional[List[bytes]] = None

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

    def __enter__(self) -> "Stream":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        """Closes the stream; its path is no longer open (a later read of it starts anew)."""
        with held_lock(_STREAMS_LOCK):
            for name in [n for n, s in _STREAMS.items() if s is self]:
                del _STREAMS[name]
        self.raw.close()
