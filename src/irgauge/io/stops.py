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
import signal
import sys
from typing import Any, Dict, Iterator, List, Optional

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


@contextlib.contextmanager
def held_stop_signals() -> Iterator[List[int]]:
    """Hold SIGINT, SIGTERM and SIGHUP while the block runs, then deliver them (in the order
    they came) to the handlers they had. Only the main thread runs Python's signal handlers
    and can change them; elsewhere nothing is held, nor needs to be. A signal ignored, or
    handled outside Python, is left alone; one with the default action ends the process
    after the block instead of in it. A stop the console script kept back (see
    :mod:`irgauge.io.stops`) is raised at the block's end.

    The handlers are swapped one by one, so a signal can come while some are swapped and
    others not: each handler is noted before it is swapped, and the holding one, once the
    block has ended, passes a signal to the handler it replaced (one put back late, after
    another handler's exception cut the putting back short, still acts as it did)."""
    held: List[int] = []
    previous: Dict[int, Any] = {}
    holding = [True]

    def hold(signum: int, frame: Any) -> None:
        if holding[0]:
            held.append(signum)
        else:
            _deliver(previous[signum], signum, frame)

    try:
        for name in STOP_SIGNALS:
            number: Optional[int] = getattr(signal, name, None)
            handler = signal.getsignal(number) if number is not None else None
            if number is None or handler is None or handler == signal.SIG_IGN:
                continue
            previous[number] = handler
            try:
                signal.signal(number, hold)
            except ValueError:  # not the main thread, where no handler runs
                del previous[number]
                break
        yield held
    finally:
        holding[0] = False
        for number, handler in previous.items():
            signal.signal(number, handler)
        for number in dict.fromkeys(held):
            signal.raise_signal(number)
        checkpoint()


@contextlib.contextmanager
def held_lock(lock: Any) -> Iterator[None]:
    """``lock`` taken for the block, the stop signals held with it (:func:`held_stop_signals`)
    and raised once it is released. A with statement's exit is not safe from a signal
    handler's exception: a stop raised as the block ends, before the exit runs, leaves a
    plain lock taken, and the next taker on the stop's way out (an input scope's or a
    plan's own exit) waits for it forever. Every lock irgauge takes again on the way out is
    taken here."""
    with held_stop_signals(), lock:
        yield


def _deliver(handler: Any, signum: int, frame: Any) -> None:
    """Act on ``signum`` as ``handler`` (a function, or the default action) would."""
    if callable(handler):
        handler(signum, frame)
    elif handler == signal.SIG_DFL:
        signal.signal(signum, signal.SIG_DFL)
        signal.raise_signal(signum)
