"""A command's outputs commit together (io/staging.py): ``-o`` and ``--figures`` of agree,
discpower and every other command writing several outputs appear all at once or not at
all. A write that fails, a full disk or a stop signal before the commit leaves no new file
and the previous files as they were; a signal during the commit takes effect after it; an
error in it undoes it. Atomic writes fsync the file before the rename and the folder after.
"""

from __future__ import annotations

import argparse
import contextlib
import errno
import io
import os
import signal
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from irgauge import cli
from irgauge.errors import OutputError
from irgauge.io import atomic, staging, stops
from irgauge.report import style
from tests.conftest import console_stop_handlers, slow_after

META = ["scores.tsv", "--seed", "1", "--quiet"]
# every command with more than one output: its arguments, and its two output options
COMMANDS = {
    "agree": (
        ["agree", "col/qrels.txt", "q2.txt", "-B", "20", "--seed", "1", "--quiet"],
        "--figures",
    ),
    "discpower": (["discpower", *META, "-B", "20"], "--figures"),
    "swap": (["swap", *META, "--trials", "5"], "--figures"),
    "stability": (["stability", *META, "--trials", "5"], "--figures"),
    "correlate": (["correlate", "scores.tsv", "--quiet"], "--figures"),
    "predictive": (["predictive", *META, "-k", "2,3", "-P", "10"], "--figures"),
    "topics": (["topics", "scores.tsv", "--min-diff", "0.1", "--quiet"], "--figures"),
    "repro": (
        ["repro", "col/qrels.txt", "--original", "col/runs/run1.run", "col/runs/run2.run"]
        + ["--repeated", "col/runs/run3.run", "col/runs/run1.run", "-m", "P@5"]
        + ["--cutoffs", "2,5", "-B", "20", "--seed", "1", "--quiet"],
        "--figures",
    ),
    "incomplete": (
        ["incomplete", "col/qrels.txt", "RUNS", "-B", "20", "--seed", "1", "--rates", "50"],
        "--out",
    ),
}
# the report (a folder and -o), checked on its own below; study and demo take one --out
OWN_TEST = {"report"}
OUTPUT_DESTS = {"output", "out", "outdir", "figures"}


def state(folder: Path) -> dict:
    """{relative path: bytes, or 'dir'} of everything under ``folder``."""
    found = {}
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            found[os.path.relpath(os.path.join(root, name), folder)] = "dir"
        for name in files:
            path = os.path.join(root, name)
            found[os.path.relpath(path, folder)] = Path(path).read_bytes()
    return found


def run_cli(*args):
    """(exit code, stdout, stderr) of ``irgauge ARGS`` in this process."""
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        try:
            code = cli.main([str(a) for a in args])
        except SystemExit as exit_:
            code = exit_.code
    return code, out.getvalue(), err.getvalue()


def argv(name: str, d: Path, out: Path, second: Path) -> list:
    """The command line of ``name`` reading from ``d``, writing -o ``out`` and its second
    output ``second``."""
    arguments, option = COMMANDS[name]
    runs = sorted(str(p) for p in (d / "col" / "runs").iterdir())
    line = []
    for a in arguments:
        line += runs if a == "RUNS" else [str(d / a) if (d / a).exists() else a]
    return [*line, "-o", out, option, second]


@pytest.fixture
def old(tmp_path):
    """A folder holding the outputs of an earlier run: the table and a figures folder with
    one figure and a file of the user's."""
    (tmp_path / "out.txt").write_text("old table\n")
    (tmp_path / "figs").mkdir()
    (tmp_path / "figs" / "old.png").write_bytes(b"old figure")
    (tmp_path / "figs" / "mine.txt").write_text("the user's\n")
    return tmp_path


def test_every_multi_output_command_is_covered():
    """A command with two output options commits them together, so it is in COMMANDS: a
    new command is added here, and its outputs are then checked below."""
    parser = cli.build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    several = {
        name
        for name, command in sub.choices.items()
        if sum(a.dest in OUTPUT_DESTS for a in command._actions) > 1
    }
    assert several - OWN_TEST == set(COMMANDS), several


def _fail_on_second_figure_file(monkeypatch, fail):
    """Make the second figure file written fail with ``fail(path)`` (writing the first)."""
    written = []
    original = style.write_bytes

    def write(path, data):
        written.append(path)
        if len(written) == 2:
            fail(path)
        return original(path, data)

    monkeypatch.setattr(style, "write_bytes", write)
    return written


# every command over the outputs of an earlier run; two into new folders too
CASES = [(name, True) for name in sorted(COMMANDS)] + [("agree", False), ("incomplete", False)]
# the quick subset: a table with figures (discpower) and a new folder (agree)
CASES = slow_after(sorted(CASES, key=lambda c: c not in (("discpower", True), ("agree", False))), 2)


@pytest.mark.parametrize("name, with_old", CASES)
def test_a_full_disk_in_the_figures_leaves_nothing_new(inputs, old, monkeypatch, name, with_old):
    d = old if with_old else old / "fresh"
    d.mkdir(exist_ok=True)
    before = state(old)

    def full(path):
        raise OutputError(path, os.strerror(errno.ENOSPC))

    written = _fail_on_second_figure_file(monkeypatch, full)
    code, out, err = run_cli(*argv(name, inputs, d / "out.txt", d / "figs"))
    assert len(written) == 2, err
    errors = [line for line in err.splitlines() if not line.startswith("irgauge: note: ")]
    assert code == 1 and len(errors) == 1 and "No space left on device" in errors[0], err
    assert f"cannot write {d / 'figs'}{os.sep}" in err and ".tmp" not in err, err
    assert state(old) == before


# the commands' outputs pass through one mechanism (the full disk above checks each):
# a figures folder and a table, an output folder and a table
@pytest.mark.parametrize("name", slow_after(["agree", "discpower", "incomplete"]))
def test_a_stop_signal_while_figures_are_drawn_leaves_nothing_new(inputs, old, monkeypatch, name):
    """The console script's handler, in this process: SIGTERM arrives as the second
    figure file is written."""
    before = state(old)
    written = _fail_on_second_figure_file(
        monkeypatch, lambda path: signal.raise_signal(signal.SIGTERM)
    )
    with console_stop_handlers():
        code, out, err = run_cli(*argv(name, inputs, old / "out.txt", old / "figs"))
    assert len(written) == 2
    assert code == 128 + signal.SIGTERM and err.splitlines()[-1] == "irgauge: stopped by SIGTERM", (
        err
    )
    assert state(old) == before


def test_the_report_page_and_its_figures_commit_together(inputs, tmp_path, monkeypatch):
    """The page and report-figures/ (drawn from an agree output) appear together: a full
    disk in the figures leaves the previous page and figures as they were."""
    agree = argv("agree", inputs, tmp_path / "agree.json", tmp_path / "unused")[:-4]
    assert run_cli(*agree, "--format", "json", "-o", tmp_path / "agree.json")[0] == 0
    rep = tmp_path / "rep"
    (rep / "report-figures" / "1-agree").mkdir(parents=True)
    (rep / "report-figures" / "1-agree" / "old.png").write_bytes(b"old figure")
    (rep / "report.html").write_text("old page")
    before = state(tmp_path)

    def full(path):
        raise OutputError(path, os.strerror(errno.ENOSPC))

    written = _fail_on_second_figure_file(monkeypatch, full)
    code, _, err = run_cli("report", rep, tmp_path / "agree.json")
    assert len(written) == 2 and code == 1 and "No space left on device" in err, err
    assert state(tmp_path) == before
    monkeypatch.undo()
    code, _, err = run_cli("report", rep, tmp_path / "agree.json")
    assert code == 0, err
    page = (rep / "report.html").read_text()
    assert 'href="report-figures/1-agree/agree_confusion.svg"' in page and ".tmp" not in page
    assert (rep / "report-figures" / "1-agree" / "agree_confusion.svg").is_file()


def test_complete_outputs_replace_the_old_ones_together(inputs, old):
    name = "agree"
    before = state(old)
    code, _, err = run_cli(*argv(name, inputs, old / "out.txt", old / "figs"))
    assert code == 0, err
    after = state(old)
    assert (
        after["out.txt"] != before["out.txt"] and after["figs/mine.txt"] == before["figs/mine.txt"]
    )
    assert any(k.endswith(".png") and k != "figs/old.png" for k in after)
    assert not [k for k in after if os.path.basename(k).startswith(".")]


def test_a_signal_during_the_commit_takes_effect_after_it(inputs, old, monkeypatch):
    """Held while the outputs are renamed: all are new, and the command, which has nothing
    left to stop, ends with its own status."""
    moved = []
    original = staging._move

    def move(*args):
        if not moved:
            signal.raise_signal(signal.SIGTERM)
        moved.append(args[0])
        return original(*args)

    monkeypatch.setattr(staging, "_move", move)
    with console_stop_handlers():
        code, _, err = run_cli(*argv("discpower", inputs, old / "out.txt", old / "figs"))
        assert signal.getsignal(signal.SIGTERM) == signal.SIG_IGN  # the handler ran
    assert code == 0 and err.count("irgauge: error") == 0, err
    assert len(moved) == 4  # three figure files and the table
    after = state(old)
    assert after["out.txt"] != b"old table\n" and {"figs/asl_curves.png", "figs/old.png"} <= set(
        after
    )


def test_an_error_during_the_commit_undoes_it(inputs, old, monkeypatch):
    before = state(old)
    calls = []
    original = staging._replace_file

    def replace(source, target):
        calls.append(target)
        if len(calls) == 3:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return original(source, target)

    monkeypatch.setattr(staging, "_replace_file", replace)
    (old / "figs" / "asl_curves.pdf").write_bytes(b"old pdf")  # one replaced, one new
    before = state(old)
    code, _, err = run_cli(*argv("discpower", inputs, old / "out.txt", old / "figs"))
    assert code == 1 and "Input/output error" in err, err
    assert len(calls) == 3 and state(old) == before


def test_staged_outputs_outside_a_command_commit_on_their_own(tmp_path):
    with staging.staged_outputs(tmp_path / "col") as stage:
        (stage / "a.txt").write_text("a")
        assert staging.output_file(tmp_path / "x") == tmp_path / "x"  # no command running
    assert state(tmp_path) == {"col": "dir", "col/a.txt": b"a"}


# ------------------------------------------------------------------ signals in a process


def _stopped_child(script: str, *args):
    """A console-script process of ``irgauge ARGS`` after ``script`` (a hook) runs."""
    return "\n".join(
        [
            "import sys",
            script,
            "from irgauge.cli import console_main",
            f"sys.argv[1:] = {list(map(str, args))!r}",
            "sys.exit(console_main())",
        ]
    )


def test_a_signal_after_the_command_ended_is_ignored(inputs, tmp_path):
    """A stop signal during the interpreter's shutdown printed "Exception ignored" and a
    traceback, with exit status 0; once the outputs are complete it has nothing to stop."""
    hook = (
        "import atexit, os, signal, time\n"
        "atexit.register(lambda: (os.kill(os.getpid(), signal.SIGTERM), time.sleep(0.2)))"
    )
    run = sorted((inputs / "col" / "runs").iterdir())[0]
    evaluate = ["eval", inputs / "col" / "qrels.txt", run, "-o", tmp_path / "out.txt"]
    proc = subprocess.run(
        [sys.executable, "-c", _stopped_child(hook, *evaluate)],
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert proc.returncode == 0 and proc.stderr == "", proc.stderr
    assert (tmp_path / "out.txt").read_text().startswith("#")


# ------------------------------------------------------------------ fsync


def test_a_file_is_synced_before_its_rename_and_its_folder_after(tmp_path, monkeypatch):
    monkeypatch.setenv(atomic.FSYNC_VARIABLE, "1")
    events = []
    real_fsync, real_replace = os.fsync, os.replace

    def fsync(fd):
        info = os.fstat(fd)
        events.append(("fsync", "folder" if stat.S_ISDIR(info.st_mode) else "file", info.st_ino))
        real_fsync(fd)

    def replace(a, b):
        events.append(("replace", os.stat(a).st_ino))
        real_replace(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "replace", replace)
    atomic.write_text(tmp_path / "x.txt", "new")
    inode = os.stat(tmp_path / "x.txt").st_ino
    assert events == [
        ("fsync", "file", inode),
        ("replace", inode),
        ("fsync", "folder", os.stat(tmp_path).st_ino),
    ]


def test_a_staged_folder_is_synced_before_its_rename_and_its_folder_after(tmp_path, monkeypatch):
    monkeypatch.setenv(atomic.FSYNC_VARIABLE, "1")
    events = []
    real_fsync, real_rename = os.fsync, os.rename

    def fsync(fd):
        events.append(("fsync", os.readlink(f"/proc/self/fd/{fd}")))
        real_fsync(fd)

    def rename(a, b):
        events.append(("rename", str(a), str(b)))
        real_rename(a, b)

    monkeypatch.setattr(os, "fsync", fsync)
    monkeypatch.setattr(os, "rename", rename)
    monkeypatch.setattr(atomic, "exchange", lambda a, b: False)
    out = tmp_path / "col"
    with staging.staged_outputs(out) as stage:
        (stage / "runs").mkdir()
        (stage / "runs" / "r.run").write_text(
            "1 Q0 d 1 1 r\n"
        )  # not through atomic: synced at the commit
        staged = str(stage)
    rename_at = next(i for i, e in enumerate(events) if e[0] == "rename")
    synced_before = {e[1] for e in events[:rename_at]}
    assert {f"{staged}/runs/r.run", f"{staged}/runs"} <= synced_before
    assert events[rename_at] == ("rename", f"{staged}/runs", str(out / "runs"))
    assert ("fsync", str(out)) in events[rename_at + 1 :]


def test_no_fsync_when_the_environment_says_so(tmp_path, monkeypatch):
    monkeypatch.setenv(atomic.FSYNC_VARIABLE, "0")
    monkeypatch.setattr(os, "fsync", lambda fd: pytest.fail("synced"))
    atomic.write_text(tmp_path / "x.txt", "new")
    with staging.staged_outputs(tmp_path / "col") as stage:
        (stage / "a").write_text("a")


def test_an_undo_without_a_backup_keeps_the_new_file(tmp_path, monkeypatch):
    """Where no hard link can keep the replaced file, the undo cannot put it back: it keeps
    the new one (it removed it, leaving neither)."""
    (tmp_path / "a").write_text("old a")

    def no_links(*args):
        raise OSError(errno.EPERM, os.strerror(errno.EPERM))

    calls = []
    original = staging._replace_file

    def replace(source, target):
        calls.append(target)
        if len(calls) == 2:
            raise OSError(errno.EIO, os.strerror(errno.EIO))
        return original(source, target)

    monkeypatch.setattr(os, "link", no_links)
    monkeypatch.setattr(staging, "_replace_file", replace)
    with pytest.raises(OutputError, match="Input/output error"):
        with staging.Outputs() as outputs:
            atomic.write_text(outputs.file(tmp_path / "a"), "new a")
            atomic.write_text(outputs.file(tmp_path / "b"), "new b")
    assert state(tmp_path) == {"a": b"new a"}


def test_a_failed_write_leaves_no_temporary_file_when_closing_fails_too(tmp_path, monkeypatch):
    real_fdopen = os.fdopen

    def full():
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    class Handle:  # a file whose buffer cannot be written, at a write or at its close
        def __init__(self, inner):
            self.inner = inner

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self.close()

        def write(self, text):
            full()

        def close(self):
            self.inner.close()
            full()

    monkeypatch.setattr(os, "fdopen", lambda fd, *a, **k: Handle(real_fdopen(fd, *a, **k)))
    with pytest.raises(OutputError, match="No space left"):
        atomic.write_text(tmp_path / "x.txt", "text")
    assert os.listdir(tmp_path) == []


def test_held_signals_reach_the_hosts_handler_after_the_block():
    """In a user's program the host's handler is put back and gets the signal once the
    outputs are renamed."""
    got = []

    def host(signum, frame):
        got.append(signum)

    previous = signal.signal(signal.SIGHUP, host)
    try:
        with stops.held_stop_signals():
            signal.raise_signal(signal.SIGHUP)
            assert got == []
        assert got == [signal.SIGHUP] and signal.getsignal(signal.SIGHUP) is host
    finally:
        signal.signal(signal.SIGHUP, previous)


# ------------------------------------------------------------------ standard output


@pytest.mark.parametrize("name", slow_after(["discpower", "agree", "incomplete", "topics"]))
def test_dash_is_standard_output_for_the_table(inputs, tmp_path, monkeypatch, name):
    """``-o -`` writes the table to standard output, as without -o, and the second output
    to its folder; it wrote a file named ``-``."""
    monkeypatch.chdir(tmp_path)
    line = argv(name, inputs, Path("-"), tmp_path / "second")
    code, out, err = run_cli(*line)
    assert code == 0, err
    assert not os.path.lexists(tmp_path / "-")
    code, expected, err = run_cli(*line[:-4], *line[-2:])  # without -o
    assert code == 0 and out.splitlines()[1:] == expected.splitlines()[1:], err


def test_dash_is_standard_output_for_eval_and_the_report(inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    run = sorted((inputs / "col" / "runs").iterdir())[0]
    code, out, err = run_cli("eval", inputs / "col" / "qrels.txt", run, "-o", "-")
    assert code == 0 and out.startswith("# irgauge") and not os.path.lexists("-"), err
    code, out, err = run_cli("report", inputs / "col", "-o", "-")
    assert code == 0 and out.startswith("<!DOCTYPE html>") and not os.path.lexists("-"), err


def test_dash_as_a_folder_or_twice_is_refused(inputs, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    code, out, err = run_cli(*argv("discpower", inputs, tmp_path / "t.txt", Path("-")))
    assert code == 1 and err.splitlines() == [
        "irgauge: error: cannot write -: is standard output, which takes one file, and this "
        "output is a folder"
    ]
    assert os.listdir(tmp_path) == []
    with pytest.raises(OutputError, match="standard output already takes another output"):
        with staging.Outputs() as outputs:
            outputs.file("-")
            outputs.file("-")
