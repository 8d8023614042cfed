"""The running command's outputs: the command line opens a scope around every command
(:func:`command_outputs`), and :mod:`irgauge.io.staging` makes its
:class:`~irgauge.io.staging.Outputs` there on first use. A module of its own, with no
imports beyond the standard library's lightest, so that a command that writes no file
(the trec_eval drop-in, one process per run) never loads the staging module."""

from __future__ import annotations

import contextlib
import contextvars
import functools
import sys
from typing import Any, Callable, Iterator, List, Optional, TypeVar


# [Outputs] once the command stages an output, [] before; None outside a command
_SCOPE: contextvars.ContextVar[Optional[list]] = contextvars.ContextVar(
    "irgauge_outputs", default=None
)


@contextlib.contextmanager
def command_outputs(slot: Optional[List] = None) -> Iterator[List]:
    """The outputs staged in this block are committed together when it ends, and removed
    if it raises (the block's exception, or an OutputError naming the output as given).
    ``slot``: the list to hold them, given by a caller that must find them even where a
    stop signal cut this block's end short (:func:`abandon`)."""
    slot = [] if slot is None else slot
    token = _SCOPE.set(slot)
    try:
        try:
            yield slot
        except BaseException as err:
            if slot:
                slot[0].__exit__(type(err), err, err.__traceback__)
            raise
        if slot:
            slot[0].__exit__(None, None, None)
    finally:
        _SCOPE.reset(token)


Function = TypeVar("Function", bound=Callable)


def one_commit(function: Function) -> Function:
    """``function`` (a study, the demo: several outputs, each step reading what the one
    before wrote) run within the running command's outputs, or, called from Python outside
    a command, within a scope of its own: its outputs commit together when it returns."""

    @functools.wraps(function)
    def within(*args, **kwargs):
        if current() is not None:
            return function(*args, **kwargs)
        with command_outputs():
            return function(*args, **kwargs)

    return within  # type: ignore[return-value]


def current() -> Optional[list]:
    """The running command's slot (see :data:`_SCOPE`), None outside a command."""
    return _SCOPE.get()


def committed(slot: List) -> bool:
    """Whether the command's staged outputs are all in place."""
    return bool(slot) and slot[0].committed


def abandon(slot: List) -> None:
    """Remove the command's staged outputs unless they are committed or already removed: a
    stop raised between the command's end and the start of the commit (or of the removal
    after an error) skips both, and the command line calls this once it has caught it."""
    if slot and not slot[0].committed:
        slot[0].abort()


class SummaryStream:
    """Standard output while a command runs (:func:`summary_stdout`), where it carries the
    command's summary and log, or the result it prints when no ``-o`` is given: a closed
    pipe (the reader, ``head``, has gone) does not stop the command. The write that finds
    it closed, and every later one, is dropped, and ``broken`` says so; the command's
    files commit, and it exits 0. Its ``buffer`` (bytes) is guarded the same way.

    An output written to ``-`` (``-o -``) takes the stream itself
    (:func:`stdout_as_output`): there a closed pipe means the output is incomplete, and
    the command fails with nothing committed (see docs/conventions.md)."""

    def __init__(self, stream: Any, broken: Optional[List[bool]] = None) -> None:
        self.stream = stream
        self._broken = [False] if broken is None else broken  # shared with the buffer's

    @property
    def broken(self) -> bool:
        return self._broken[0]

    def write(self, data: Any) -> int:
        if not self._broken[0]:
            try:
                return int(self.stream.write(data))
            except BrokenPipeError:
                self._broken[0] = True
        return len(data)

    def writelines(self, lines: Any) -> None:
        for line in lines:
            self.write(line)

    def flush(self) -> None:
        if not self._broken[0]:
            try:
                self.stream.flush()
            except BrokenPipeError:
                self._broken[0] = True

    @property
    def buffer(self) -> "SummaryStream":
        return SummaryStream(self.stream.buffer, self._broken)

    def __getattr__(self, name: str) -> Any:
        return getattr(self.stream, name)


@contextlib.contextmanager
def summary_stdout() -> Iterator[SummaryStream]:
    """``sys.stdout`` guarded against a closed pipe (:class:`SummaryStream`) within the
    block, and put back as it was at its end."""
    guarded = SummaryStream(sys.stdout)
    sys.stdout = guarded
    try:
        yield guarded
    finally:
        if sys.stdout is guarded:
            sys.stdout = guarded.stream


def stdout_as_output() -> Any:
    """Standard output for an output written to ``-``: unguarded, so that a closed pipe
    fails the output (and so the command) rather than being dropped."""
    stream = sys.stdout
    return stream.stream if isinstance(stream, SummaryStream) else stream
