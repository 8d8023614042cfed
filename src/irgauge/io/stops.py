"""Stop signals (Ctrl-C's SIGINT, SIGTERM, SIGHUP) in irgauge's console script: where one
is raised, and where it waits.

The console script's handler (:func:`irgauge.cli.install_signal_handlers`) hands the first
stop signal to :func:`request`; later ones are ignored while its cleanup runs. The signal
becomes :class:`Stopped`, a KeyboardInterrupt, so that every cleanup on the way out runs
(staged outputs removed). It is raised only where something catches it and cleans up:

- within :func:`running`, the block in which the console script runs a command: before it
  starts, a stop waits for it (and stops it at once); once it has ended, the exit status
  is decided and a stop changes nothing;
- in the main thread, the only one whose Python code a handler interrupts;
- not while an exception is being handled (an ``except`` block, a ``finally`` block or a
  context manager's exit on the way out of an error): that is where staged files and
  folders are removed, and a stop raised there would cut their removal short. (One the
  command's caller is handling, around the whole command, does not count.)

A stop that cannot be raised where it came waits, and is raised at the next
:func:`checkpoint` (each temporary file created, the commit of the outputs), or when the
command ends (:func:`requested`): the command then exits 128 + the signal, its outputs
removed. It is raised once: a stale "running" never outlives the command, so a stop after
it (or before the next one starts) raises where nothing would catch it.
"""

from __future__ import annotations

import _thread
import contextlib
import sys
from typing import Iterator, List, Optional

STOP_SIGNALS = ("SIGINT", "SIGTERM", "SIGHUP")  # what stops a command (Ctrl-C, kill, hang-up)

BEFORE, RUNNING, AFTER = "before", "running", "after"  # where the command is
_STATE = [BEFORE]
_MAIN: List[Optional[int]] = [None]  # the thread that runs the command
_REQUESTED: List[int] = []  # the stop signal that came (the first only)
_OUTSIDE: List[Optional[BaseException]] = [None]  # what the command's caller is handling


class Stopped(KeyboardInterrupt):
    """A stop signal raised in the command (Ctrl-C's included): the cleanup of Ctrl-C runs
    for SIGTERM and SIGHUP too. ``signum``: the signal."""

    def __init__(self, signum: int):
        super().__init__(signum)
        self.signum = signum


@contextlib.contextmanager
def running() -> Iterator[None]:
    """The block runs the command: a stop raises in it (one that came since the handlers
    were installed, at once; one of an earlier command in this process is forgotten)."""
    if _STATE[0] != BEFORE:
        _REQUESTED.clear()
    _MAIN[0] = _thread.get_ident()
    _OUTSIDE[0] = sys.exc_info()[1]
    _STATE[0] = RUNNING
    try:
        checkpoint()
        yield
    finally:
        _STATE[0] = AFTER


def request(signum: int) -> None:
    """A stop signal came (the handler's call): raised here if it may be, else kept for
    the next checkpoint; ignored once the command has ended."""
    if _STATE[0] == AFTER:
        return
    if not _REQUESTED:
        _REQUESTED.append(int(signum))
    checkpoint()


def checkpoint() -> None:
    """Raise the stop that came, where it may be raised (see the module)."""
    if (
        _REQUESTED
        and _STATE[0] == RUNNING
        and _thread.get_ident() == _MAIN[0]
        and sys.exc_info()[1] in (None, _OUTSIDE[0])
    ):
        _STATE[0] = AFTER  # raised once: what follows is its cleanup
        raise Stopped(_REQUESTED[0])


def requested() -> Optional[int]:
    """The stop signal that came before the command ended, None if none did."""
    return _REQUESTED[0] if _REQUESTED else None


def reset() -> None:
    """Forget any stop: the handlers are (re)installed, and no command has run since."""
    _STATE[0] = BEFORE
    _REQUESTED.clear()
