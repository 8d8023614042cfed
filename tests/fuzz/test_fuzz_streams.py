"""Every reader that takes a file takes a stream: a named pipe, a process substitution
(``<(zcat run.gz)``) or standard input, compressed or not, gives the output of the regular
file. And the regressions the fuzz harness found, each failing on the code before its fix."""

from __future__ import annotations

import contextlib
import functools
import gc
import gzip
import os
import shutil
import struct
import subprocess
import sys
import threading
import time
import weakref
from pathlib import Path
from typing import Iterator

import pytest

import fuzz_checks
import fuzz_strategies as fs
from fuzz_checks import inside, run_cli, run_in
from test_fuzz_readers import READERS, collection, outcome_of


@contextlib.contextmanager
def fed(fifo: Path, data: bytes) -> Iterator[None]:
    """``data`` written into the named pipe by a thread, once a reader opens it, in two
    halves: the second once the reader has taken all of the first, so that every reader
    meets a pipe that has given part of its content (a line, a gzip stream cut) and has
    more to come, as a slow writer's does, whatever the machine's load. When the block
    ends the pipe is opened and drained here, so that the writer ends even where the
    command refused before reading. (The writer polled for a reader and gave up after
    20 s: under load the command could open the pipe later, and wait for ever.)"""
    half = len(data) // 2

    def write():
        try:
            with open(fifo, "wb", buffering=0) as pipe:  # blocks until a reader opens it
                pipe.write(data[:half])
                while unread(pipe.fileno()):  # a readiness condition, not a time
                    time.sleep(0.001)
                pipe.write(data[half:])
        except BrokenPipeError:  # the reader closed it early: what it read is checked
            pass

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    try:
        yield
    finally:
        # a writer waiting to open is let through, and what it writes read to its end
        drain = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
        os.set_blocking(drain, True)
        try:
            while os.read(drain, 1 << 16):
                pass
        finally:
            os.close(drain)
        writer.join(60)
        assert not writer.is_alive(), "the writer still waits: the pipe was kept open"


def unread(fd: int) -> int:
    """Bytes in the pipe that its reader has not taken yet."""
    import fcntl  # POSIX, as named pipes are: imported where one is used
    import termios

    return struct.unpack("i", fcntl.ioctl(fd, termios.FIONREAD, b"\0" * 4))[0]


@functools.lru_cache(maxsize=None)
def regular_file_outcome(reader: str):
    """(the reader's valid file, its outcome and output text as a regular file): the same
    for the plain and the compressed pipe, so it is run once per reader."""
    lines, fmt, _, _ = READERS[reader]
    content = fs.render(lines, fmt, fs.PLAIN)
    expected, expected_text, _ = outcome_of(reader, content)
    return content, expected, expected_text


@pytest.mark.parametrize("compressed", [False, True])
@pytest.mark.parametrize(  # the study's pipes are slow: it runs the study
    "reader",
    [
        pytest.param(r, marks=pytest.mark.slow) if r.startswith("study") else r
        for r in sorted(READERS)
    ],
)
def test_named_pipe_reads_as_the_file(tmp_path, reader, compressed):
    _, _, name, command = READERS[reader]
    content, expected, expected_text = regular_file_outcome(reader)
    assert expected.code == 0, expected.err
    with inside(tmp_path):
        here = Path()
        collection(here)
        os.remove(name)
        os.mkfifo(name)
        with fed(tmp_path / name, gzip.compress(content) if compressed else content):
            outcome = run_in(here, *command(here))
        study = "study/predictive-comparison/tables/phi.csv"  # as outcome_of reads it
        written = [p for p in ("out.tsv", "out.json", study) if Path(p).is_file()]
        text = Path(written[0]).read_text() if written else outcome.out
    assert (outcome.code, outcome.err, text) == (0, expected.err, expected_text), outcome.err


def test_garbage_of_earlier_tests_is_not_the_commands_warning(tmp_path, monkeypatch):
    """A file left open in a reference cycle before a command (a command stopped by a
    signal leaves one in its frames) was closed by a collection during the next command,
    and its ResourceWarning counted as that command's: the named-pipe test failed so in a
    full, loaded run. Here the cycle becomes garbage as the command starts, and the
    collector is set to run at every allocation."""
    collection(tmp_path)

    class Cycle:
        pass

    left = Cycle()
    left.itself, left.file = left, open(tmp_path / "qrels.txt", "rb")
    file = weakref.ref(left.file)
    kept = [left]
    del left
    command = fuzz_checks.main

    def main(argv):
        thresholds = gc.get_threshold()
        kept.clear()
        gc.set_threshold(1, 1, 1)
        try:
            return command(argv)
        finally:
            gc.set_threshold(*thresholds)
            if file() is not None:  # closed here, not by the collector, which would warn
                file().close()

    monkeypatch.setattr(fuzz_checks, "main", main)
    code, _, err = run_cli("eval", tmp_path / "qrels.txt", tmp_path / "run.txt", "-m", "AP")
    assert (code, err) == (0, ""), err


def test_a_thread_beside_the_command_is_not_the_command(tmp_path, monkeypatch):
    """The warnings state and sys.stderr are the process's: a warning or a line of text
    from a thread running beside the command (the named pipe's feeder, a pool an earlier
    test left) was counted as the command's, as catch_warnings(record=True) records every
    thread's. Here a thread started before the command warns and writes while it runs,
    and the command warns on a thread of its own: only that warning is the command's."""
    import warnings

    collection(tmp_path)
    running, written = threading.Event(), threading.Event()

    def beside():
        if running.wait(60):
            warnings.warn("the feeder's warning")
            print("the feeder's line", file=sys.stderr)
        written.set()

    feeder = threading.Thread(target=beside, daemon=True)
    feeder.start()
    command = fuzz_checks.main

    def main(argv):
        running.set()
        assert written.wait(60), "the thread beside the command did not run"
        own = threading.Thread(target=warnings.warn, args=("the command's warning",))
        own.start()
        own.join()
        return command(argv)

    monkeypatch.setattr(fuzz_checks, "main", main)
    code, _, err = run_cli("eval", tmp_path / "qrels.txt", tmp_path / "run.txt", "-m", "AP")
    feeder.join(60)
    assert (code, err) == (0, "warning: UserWarning: the command's warning\n"), err


@pytest.mark.slow  # a bash process for each reader
@pytest.mark.skipif(shutil.which("bash") is None, reason="process substitution needs bash")
def test_process_substitution_of_gzipped_files(tmp_path):
    """``<(zcat run.gz)`` and ``<(gzip -c ...)`` for a qrels, a run, a score file and QA
    files, in a child process as a shell runs it."""
    collection(tmp_path)
    for name in ("qrels.txt", "run.txt", "scores.tsv", "gold.eqrels", "answers.txt"):
        (tmp_path / f"{name}.gz").write_bytes(gzip.compress((tmp_path / name).read_bytes()))
    irgauge = f"{sys.executable} -m irgauge"
    script = (
        f"set -e; {irgauge} eval qrels.txt run.txt -m AP > plain.txt; "
        f"{irgauge} eval <(zcat qrels.txt.gz) <(zcat run.txt.gz) -m AP > piped.txt; "
        f"{irgauge} discpower scores.tsv -B 20 --seed 1 --quiet > plain2.txt; "
        f"{irgauge} discpower <(gzip -dc scores.tsv.gz) -B 20 --seed 1 --quiet > piped2.txt; "
        f"{irgauge} qa eval gold.eqrels answers.txt -m RR --no-header > plain3.txt; "
        f"{irgauge} qa eval <(zcat gold.eqrels.gz) - -m RR --no-header < answers.txt.gz "
        "> piped3.txt"
    )
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    done = subprocess.run(["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr.decode()

    def body(name):  # the header names the inputs, which differ (/dev/fd/63)
        return [x for x in (tmp_path / name).read_text().splitlines() if not x.startswith("#")]

    assert body("piped.txt") == body("plain.txt")
    assert body("piped2.txt") == body("plain2.txt")
    assert body("piped3.txt") == body("plain3.txt")


# ------------------------------------------------------------------ found by the harness


def test_qa_gold_on_standard_input_is_read_once(tmp_path, monkeypatch):
    """The QA readers read a file to tell its format and again to parse it: standard input
    was refused as 'given as two inputs'."""
    collection(tmp_path)
    import io

    data = (tmp_path / "gold.eqrels").read_bytes()
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BufferedReader(io.BytesIO(data))))
    code, out, err = run_cli("qa", "eval", "-", tmp_path / "answers.txt", "-m", "RR")
    assert (code, err) == (0, ""), err


def test_qa_lone_cr_line_ends_and_topic_all(tmp_path):
    """QA files split lines at LF only (a CR-only file was one line), and a topic named
    ``all`` was taken as a topic."""
    collection(tmp_path)
    gold = fs.render(fs.qa_gold(), fs.QA_GOLD, fs.Layout("cr", True, False, ""))
    (tmp_path / "cr.eqrels").write_bytes(gold)
    plain = run_cli("qa", "eval", tmp_path / "gold.eqrels", tmp_path / "answers.txt", "-m", "RR")
    code, out, err = run_cli(
        "qa", "eval", tmp_path / "cr.eqrels", tmp_path / "answers.txt", "-m", "RR"
    )
    assert (code, err) == (0, "") and out.splitlines()[-2:] == plain[1].splitlines()[-2:]
    (tmp_path / "all.eqrels").write_bytes(b"all;tokyo;L1;c1\n")
    code, _, err = run_cli(
        "qa", "eval", tmp_path / "all.eqrels", tmp_path / "answers.txt", "-m", "RR"
    )
    assert code == 2 and f"{tmp_path / 'all.eqrels'}:1: topic id 'all'" in err, err


def test_wide_scores_with_cr_line_ends(tmp_path):
    """csv.reader refused a CR-only CSV ('new-line character seen in unquoted field')."""
    path = tmp_path / "m.csv"
    path.write_bytes(fs.render(fs.wide_scores(), fs.WIDE_SCORES, fs.Layout("cr", True, False, "")))
    code, out, err = run_cli("correlate", path, path, "--quiet")
    assert code != 2 or "cannot parse" not in err, err


def test_report_refuses_a_bad_value_and_leaves_no_folder(tmp_path):
    """A NUL in a value ended in a TypeError traceback; a value of 1e308 in an overflow
    warning; and a refused report left the folder it had made."""
    for value, problem in (
        (b"\x000.5", "a NUL byte at column"),  # binary data: refused as it is read
        (b"1e308", "row 1 is not a number"),
        (b"nan0", "row 1 is not a number"),
    ):
        rows = fs.long_scores()
        rows[1][3] = value
        (tmp_path / "scores.tsv").write_bytes(fs.render(rows, fs.LONG_SCORES, fs.PLAIN))
        outcome = run_in(tmp_path, "report", tmp_path / "new", tmp_path / "scores.tsv")
        assert outcome.code == 2 and problem in outcome.err, outcome.err
        assert not outcome.changed
    (tmp_path / "empty.tsv").write_bytes(b"")
    outcome = run_in(tmp_path, "report", tmp_path / "new", tmp_path / "empty.tsv")
    assert outcome.code == 2 and not outcome.changed
