"""The properties every command keeps, whatever its input: run it in this process
(``irgauge.cli.main``), then check that it either succeeded with a well-formed output or
refused with exit 2 and one line naming the file; that no traceback or warning was printed;
that the inputs were not touched; and that a failure left nothing behind. And the moment
of a stop signal: a line of irgauge's own code (:func:`signal_at`)."""

from __future__ import annotations

import contextlib
import gc
import io
import json
import os
import signal
import stat
import sys
import threading
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Dict, Iterable, Iterator, Optional

import irgauge
from irgauge.cli import main

OWN_CODE = str(Path(irgauge.__file__).parent) + os.sep
STAGING = os.path.join(OWN_CODE, "io", "staging.py")


@dataclass
class Outcome:
    code: int
    out: str
    err: str
    changed: set  # paths (relative to the folder) added, removed or modified


def run_cli(*args) -> tuple:
    """(exit code, stdout, stderr) of ``irgauge ARGS`` in this process; a Python warning is
    part of stderr (pytest would otherwise catch it silently).

    The cyclic garbage collector is paused meanwhile: where an earlier test left a file in
    a reference cycle (a command stopped by a signal, whose frames hold it), a collection
    that the command's allocations set off would close it with a ResourceWarning, counted
    as the command's. When that happens depends on what ran before in the process, so a
    test failed in a full, loaded run and passed alone. The command's own files, closed
    when their last reference goes, still warn here.

    The warnings and text counted are the command's threads' (:class:`CommandThreads`):
    the warnings state and ``sys.stdout``/``sys.stderr`` are the process's, so another
    thread's would otherwise count as the command's."""
    command = CommandThreads()
    out, err = CommandText(command, sys.stdout), CommandText(command, sys.stderr)
    with _command_warnings(command) as caught, contextlib.ExitStack() as stack:
        stack.enter_context(_collector_paused())
        stack.enter_context(contextlib.redirect_stdout(out))
        stack.enter_context(contextlib.redirect_stderr(err))
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:  # argparse
            code = exit_.code
    for warning in caught:
        err.write(f"warning: {warning.category.__name__}: {warning.message}\n")
    return code, out.getvalue(), err.getvalue()


class CommandThreads:
    """The threads of a command run in this process: this one and those started while it
    runs (its worker pools). The threads already running beside it are not its own: a
    named pipe's feeder, a pool or client an earlier test left running."""

    def __init__(self) -> None:
        # the Thread objects themselves: a thread's ident may be reused once it has ended
        self.beside = set(threading.enumerate()) - {threading.current_thread()}

    def own(self) -> bool:
        """Whether the calling thread is the command's."""
        return threading.current_thread() not in self.beside


class CommandText(io.StringIO):
    """What the command's threads write; another thread's text goes on to ``elsewhere``
    (where it went before the command)."""

    def __init__(self, command: CommandThreads, elsewhere) -> None:
        super().__init__()
        self._command, self._elsewhere = command, elsewhere

    def write(self, text: str) -> int:
        if self._command.own():
            return super().write(text)
        return self._elsewhere.write(text)


@contextlib.contextmanager
def command_warnings(category: type = Warning) -> Iterator[list]:
    """The warnings issued inside by this thread and the threads it starts meanwhile
    (:class:`CommandThreads`), those of ``category`` every one shown, for a test that runs
    a command or an API call itself: a warning of a thread an earlier test left running
    is not counted, as ``catch_warnings(record=True)`` would count it."""
    with _command_warnings(CommandThreads(), category) as caught:
        yield caught


@contextlib.contextmanager
def _command_warnings(command: CommandThreads, category: type = Warning) -> Iterator[list]:
    """The warnings the command's threads issue, those of ``category`` every one shown
    (filter "always"), the others as the filters before say, as
    ``warnings.WarningMessage``s; another thread's is written to the stderr in place
    before, as Python shows a warning. (``catch_warnings(record=True)`` recorded every
    thread's: it swaps the process's one warnings state.)"""
    caught: list = []
    elsewhere = sys.stderr

    def show(message, category, filename, lineno, file=None, line=None) -> None:
        if command.own():
            caught.append(warnings.WarningMessage(message, category, filename, lineno, file, line))
        else:
            elsewhere.write(warnings.formatwarning(message, category, filename, lineno, line))

    with warnings.catch_warnings():  # restores the filters and showwarning after
        warnings.simplefilter("always", category)
        warnings.showwarning = show
        yield caught


@dataclass
class LinesRun:
    """What :func:`signal_at` counted: the lines run, and the count at the first line of
    the staging of outputs (None if no output was staged)."""

    lines: int = 0
    staged: Optional[int] = None


@contextlib.contextmanager
def signal_at(line: int, signum: int, where: Optional[Callable] = None) -> Iterator[LinesRun]:
    """Raise ``signum`` as irgauge's own code runs its ``line``-th line (or the ``line``-th
    of those whose frame ``where(frame)`` accepts; never, if fewer run; 0: never), counted
    in this process with ``sys.settrace``: the handler in place takes it there as it would
    a signal sent from outside. The :class:`LinesRun` yielded holds the count once the
    block has ended."""
    run = LinesRun()

    def local(frame, event, arg):
        if event == "line" and (where is None or where(frame)):
            run.lines += 1
            if run.staged is None and frame.f_code.co_filename == STAGING:
                run.staged = run.lines
            if run.lines == line:
                signal.raise_signal(signum)
        return local

    def trace(frame, event, arg):
        return local if frame.f_code.co_filename.startswith(OWN_CODE) else None

    previous = sys.gettrace()
    sys.settrace(trace)
    try:
        yield run
    finally:
        sys.settrace(previous)


@contextlib.contextmanager
def _collector_paused():
    """No cyclic garbage collection within (the collector's state is restored after)."""
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_enabled:
            gc.enable()


def snapshot(folder) -> Dict[str, tuple]:
    """{relative path: what it is} of everything under ``folder`` (links not followed)."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs + files:
            path = os.path.join(root, name)
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                what = ("link", os.readlink(path))
            elif stat.S_ISREG(info.st_mode):
                what = ("file", Path(path).read_bytes(), stat.S_IMODE(info.st_mode))
            else:
                what = (stat.S_IFMT(info.st_mode), stat.S_IMODE(info.st_mode))
            found[os.path.relpath(path, folder)] = what
    return found


def run_in(folder, *args) -> Outcome:
    """The command's outcome, with what it changed under ``folder``."""
    before = snapshot(folder)
    code, out, err = run_cli(*args)
    after = snapshot(folder)
    changed = {k for k in set(before) | set(after) if before.get(k) != after.get(k)}
    return Outcome(code, out, err, changed)


def check(outcome: Outcome, names: Iterable[str], outputs: Iterable[str] = ()) -> None:
    """The harness' property: success (exit 0) that changed only ``outputs`` (paths
    relative to the folder, a folder's entries included), or a refusal: exit 2, one line
    ``irgauge: error: ...`` naming one of ``names`` (the hostile files), nothing changed.
    Never a traceback, a warning or another exit code."""
    err = outcome.err
    assert "Traceback" not in err and "warning:" not in err, err
    assert outcome.code in (0, 2), (outcome.code, err)
    lines = err.splitlines()
    assert all(line.startswith("irgauge: ") for line in lines), err
    if outcome.code == 0:
        allowed = tuple(outputs)
        stray = [p for p in outcome.changed if not p.startswith(allowed) or not allowed]
        assert not stray, (stray, err)
        return
    errors = [line for line in lines if line.startswith("irgauge: error: ")]
    assert len(errors) == 1 and lines[-1] == errors[0], err
    assert any(str(name) in errors[0] for name in names), (errors[0], list(names))
    assert not outcome.changed, (outcome.changed, err)


@contextlib.contextmanager
def inside(folder):
    """The working directory is ``folder`` within (commands then name files relatively)."""
    before = os.getcwd()
    os.chdir(folder)
    try:
        yield
    finally:
        os.chdir(before)


def check_tsv(text: str, columns: int = 4) -> None:
    """Long TSV output: every line that is not a comment has ``columns`` fields, the last a
    number (the header aside)."""
    rows = [line.split("\t") for line in text.splitlines() if line and not line.startswith("#")]
    assert rows, text
    for row in rows:
        assert len(row) == columns, row
    for row in rows[1:] if rows[0][-1] in ("value", "inclusion") else rows:  # a pool's
        float(row[-1])


def check_json(text: str) -> Optional[object]:
    return json.loads(text)
