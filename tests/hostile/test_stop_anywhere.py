"""A stop signal at any line of the code around a command, or of the cleanup after an
error, never escapes the console script's handling and never leaves a staged file: the
command exits 0 with its outputs complete, or 128 + the signal (or, for a signal during
an error's cleanup, the error's status) with nothing new.

The moment is a line of irgauge's code, counted in this process with ``sys.settrace`` by
the signal fuzz's tracer (``fuzz_checks.signal_at``); the signal is raised there and the
console script's handler takes it as it would from outside. Every line is tried, not a
sample: the lines are few."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
from pathlib import Path

import pytest

import irgauge
from irgauge.cli import main

from hostile_data import RUN
from tests.conftest import console_stop_handlers
from tests.fuzz.fuzz_checks import signal_at

OWN_CODE = Path(irgauge.__file__).parent
# the code around every command: the command line's own functions, the outputs' scope and
# the stops' state (the commands' code is the signal fuzz's)
AROUND = {
    str(OWN_CODE / "cli" / "__init__.py"): {"main", "_main", "_run", "_stopped_first"},
    str(OWN_CODE / "io" / "output_scope.py"): None,
    str(OWN_CODE / "io" / "stops.py"): None,
}


def _around(frame) -> bool:
    names = AROUND.get(frame.f_code.co_filename, ())
    return names is None or frame.f_code.co_name in names


STAGING = {str(OWN_CODE / "io" / name) for name in ("output_scope.py", "staging.py")}
CLEANUP = {"command_outputs", "__exit__", "abort", "discard", "_staged"}  # their functions


def _cleaning_up(frame) -> bool:
    """A line of the outputs' cleanup run while an exception is handled (an except or
    finally block, an exit on an error): where staged files are removed."""
    code = frame.f_code
    return code.co_filename in STAGING and code.co_name in CLEANUP and sys.exc_info()[0] is not None


def _command(argv, line: int, signum: int, where) -> tuple:
    """(exit status, stderr, lines counted) of ``irgauge ARGV`` in this process, with the
    console script's handlers, signalled at ``line``; a stop that escapes is a status of
    its own ("escaped"), so that it fails the test instead of ending the test run."""
    import io

    err = io.StringIO()
    with console_stop_handlers(), contextlib.redirect_stdout(io.StringIO()):
        with contextlib.redirect_stderr(err):
            try:
                with signal_at(line, signum, where) as counted:
                    code = main([str(a) for a in argv])
            except SystemExit as exit_:
                code = exit_.code
            except KeyboardInterrupt as stop:
                code = f"escaped: {stop!r}"
    return code, err.getvalue(), counted.lines


@pytest.fixture
def folder(tmp_path, monkeypatch):
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "run2.txt").write_text(RUN.replace(" r\n", " r2\n"))
    monkeypatch.chdir(tmp_path)
    return tmp_path


POOL = ["pool", "run.txt", "run2.txt", "--depth", "3", "-o", "out.txt"]  # 2 staged files


def test_a_stop_at_any_line_around_the_command_never_escapes(folder, signum=signal.SIGINT):
    """Then the next command in the same process, signalled at its first line, is stopped
    cleanly: before, a signal on the line that said the command had ended left it
    "running", and the next signal outside any command raised where nothing caught it."""
    before = sorted(os.listdir(folder))
    code, err, lines = _command(POOL, 0, signum, _around)
    assert code == 0 and lines > 20, err
    for line in range(1, lines + 1):
        for name in ("out.txt", "out.txt.json"):
            with contextlib.suppress(FileNotFoundError):
                os.unlink(name)
        code, err, _ = _command(POOL, line, signum, _around)
        assert code in (0, 128 + signum), (line, code, err)
        left = sorted(os.listdir(folder))
        assert left == sorted(before + (["out.txt", "out.txt.json"] if code == 0 else [])), (
            line,
            err,
        )
        assert "Traceback" not in err, (line, err)
        code, err, _ = _command(["--version"], 1, signum, lambda frame: True)
        assert code == 128 + signum, (line, code, err)


def test_a_stop_while_an_error_is_cleaned_up_leaves_nothing(folder, signum=signal.SIGTERM):
    """The pool's file is staged, then its manifest's name is a folder: the error's cleanup
    removes the staged pool. A signal at any line of it waits until it is done (before,
    one raised in the cleanup cut it short and left the staged file)."""
    os.mkdir("out.txt.json")
    before = sorted(os.listdir(folder))
    code, err, lines = _command(POOL, 0, signum, _cleaning_up)
    assert code == 1 and lines > 5, err
    for line in range(1, lines + 1):
        code, err, _ = _command(POOL, line, signum, _cleaning_up)
        assert code in (1, 128 + signum), (line, code, err)
        assert sorted(os.listdir(folder)) == before, (line, err)
        assert "Traceback" not in err, (line, err)
