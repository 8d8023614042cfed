"""The running command's outputs: the command line opens a scope around every command
(:func:`command_outputs`), and :mod:`irgauge.io.staging` makes its
:class:`~irgauge.io.staging.Outputs` there on first use. A module of its own, with no
imports beyond the standard library's lightest, so that a command that writes no file
(the trec_eval drop-in, one process per run) never loads the staging module."""

from __future__ import annotations

import contextlib
import contextvars
import functools
from typing import Callable, Iterator, List, Optional, TypeVar


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
    if slot:
        slot[0].abort()
