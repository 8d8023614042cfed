"""Several outputs under a signal: a command writing a table (-o) and a folder (--figures,
--out), or several studies and their report into one folder (``study --collection ...
--report``, ``demo``), over the outputs of an earlier run is stopped by SIGTERM, SIGHUP or
Ctrl-C at a moment Hypothesis picks, and leaves either every old output (exit 128 + the
signal, one line) or every new one (exit 0), never a mix, never a temporary file.

The moment is the k-th line that irgauge's own code runs (its commands, readers and
writers, figures and staging), counted in this process with ``sys.settrace``; there the
signal is raised, and the console script's handler takes it as it would from outside
(held while the outputs are renamed). k is drawn up to the number of lines of an
undisturbed run, so every moment of the command is a candidate, the commit's included."""

from __future__ import annotations

import pytest
import os
import signal
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import given, strategies as st

import irgauge
import irgauge.studies
import fuzz_strategies as fs
from fuzz_checks import run_cli, signal_at, snapshot
from test_fuzz_readers import collection
from tests.conftest import console_stop_handlers, quick_study_figures

pytestmark = pytest.mark.slow  # signals sent to commands at every moment of writing

SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGINT)
# command -> arguments; OUT is the table, DIR the folder
COMMANDS = {
    "agree": ["agree", "qrels.txt", "other.txt", "-B", "10", "--seed", "1", "--quiet"],
    "discpower": ["discpower", "scores.tsv", "-B", "10", "--seed", "1", "--quiet"],
    "incomplete": [
        "incomplete",
        "qrels.txt",
        "run.txt",
        "run2.txt",
        "-B",
        "10",
        "--rates",
        "50",
        "--seed",
        "1",
    ],
    "repro": [
        "repro",
        "qrels.txt",
        "--original",
        "run.txt",
        "--repeated",
        "run2.txt",
        "-B",
        "10",
        "--seed",
        "1",
    ],
    "pool": ["pool", "run.txt", "run2.txt", "--depth", "3"],
}
SECOND = {
    "agree": "--figures",
    "discpower": "--figures",
    "incomplete": "--out",
    "repro": "--figures",
    "pool": None,  # two outputs of one option: the pool and its manifest, POOL.json
}
# several studies, each reading back what the one before staged (the qa study the QA data
# derived for it, the report every study's folder), and their report, into --out DIR
STUDIES = {
    "study": [
        *("study", "topicset", "-m", "AP", "--topic-resamples", "5", "--report", "--quiet"),
        *("--collection", "a=qrels.txt:runs", "--collection", "b=qrels.txt:runs"),
    ],
    "demo": ["demo", "-B", "5", "--trials", "5", "-P", "5", "--topic-resamples", "2", "--quiet"],
}
COMMANDS.update(STUDIES)
DEMO_STUDIES = ("qa", "topicset")  # of the demo's studies, the one reading staged data
UNCLOSED = "warning: ResourceWarning: unclosed file"
_UNDISTURBED: dict = {}  # command -> (lines it runs, the files it writes)


USERS = os.path.join("dir", "old.png")  # a file in the output folder no command writes


def _old_outputs(folder: Path) -> None:
    (folder / "out.txt").write_text("old table\n")
    (folder / "dir").mkdir()
    (folder / "dir" / "old.png").write_bytes(b"old figure")
    for study in ("topicset", "a/topicset", "qa-data"):  # replaced whole by the studies
        (folder / "dir" / study).mkdir(parents=True)
        (folder / "dir" / study / "old.txt").write_bytes(b"old study")
        # an earlier run's folder: its manifest says irgauge wrote it (a folder without
        # one is the user's, and refused)
        (folder / "dir" / study / "manifest.json").write_text('{"study": "topicset"}')


def _argv(name: str) -> list:
    if name in STUDIES:
        return [*COMMANDS[name], "--out", "dir"]
    return [*COMMANDS[name], "-o", "out.txt", *([SECOND[name], "dir"] if SECOND[name] else [])]


def _run(folder: Path, name: str, line: int, signum: int):
    cwd = os.getcwd()
    os.chdir(folder)
    try:
        with quick_study_figures(), mock.patch.object(irgauge.studies, "PAPERS", DEMO_STUDIES):
            with console_stop_handlers(), signal_at(line, signum) as run:
                code, _, err = run_cli(*_argv(name))
    finally:
        os.chdir(cwd)
    # a file the signal caught between open() and its with-block is closed when collected
    # (at the process' exit, in a console script): no output of the command
    err = "".join(x for x in err.splitlines(True) if not x.startswith(UNCLOSED))
    # (lines run, the line where the first output was staged)
    return code, err, (run.lines, run.lines if run.staged is None else run.staged)


def _undisturbed(name: str):
    """(lines run, the line of the first output staged, the outputs) of the command
    without a signal."""
    if name not in _UNDISTURBED:
        with tempfile.TemporaryDirectory() as temporary:
            folder = Path(temporary)
            collection(folder)
            _old_outputs(folder)
            code, err, lines = _run(folder, name, 0, signal.SIGTERM)
            assert code == 0, err
            _UNDISTURBED[name] = (*lines, _outputs(snapshot(folder)))
    return _UNDISTURBED[name]


def _outputs(found: dict) -> dict:
    """The outputs in a snapshot: the table's bytes, the folder's names (figures differ
    byte for byte between runs: SVG ids)."""
    return {
        k: v[1] if k in ("out.txt", "out.txt.json") else v[0]
        for k, v in found.items()
        if k.split(os.sep)[0] in ("out.txt", "out.txt.json", "dir")
    }


@fs.fuzz_settings(4)
@given(
    name=st.sampled_from(sorted(COMMANDS)),
    writing=st.booleans(),
    moment=st.floats(0, 1),
    signum=st.sampled_from(SIGNALS),
)
def test_a_signal_leaves_all_old_outputs_or_all_new_ones(name, writing, moment, signum):
    """``writing``: the moment is drawn from the lines run once the first output is staged
    (the outputs written, the commit), else from all of them."""
    lines, staged, new = _undisturbed(name)
    first = staged if writing else 1
    line = first + int(moment * (lines + 1 - first))  # lines + 1: no signal at all
    with tempfile.TemporaryDirectory() as temporary:
        folder = Path(temporary)
        collection(folder)
        _old_outputs(folder)
        before = snapshot(folder)
        code, err, _ = _run(folder, name, line, signum)
        after = snapshot(folder)
        temporary_names = [k for k in after if os.path.basename(k).startswith(".")]
        assert not temporary_names, (line, temporary_names)
        assert "Traceback" not in err, err
        if code == 0:
            assert _outputs(after) == new, (line, err)
            # the inputs and the user's file among the outputs are left as they were (an
            # old study's folder is replaced whole: its files go, as _outputs says)
            left = [k for k in before if k not in _outputs(before)] + [USERS]
            assert {k: after.get(k) for k in left} == {k: before[k] for k in left}
        else:
            word = "interrupted" if signum == signal.SIGINT else signal.Signals(signum).name
            assert code == 128 + signum and err.splitlines()[-1].endswith(word), (line, err)
            assert after == before, (line, err)
