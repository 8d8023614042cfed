"""Helpers of the hostile-input corpus: each case runs through the CLI (``main([...])``) and
states its expected exit code and message text."""

from __future__ import annotations

import contextlib
import io
import random

import pytest

from irgauge.cli import main

from hostile_data import QRELS, RUN


@pytest.fixture
def cli(capsys):
    """``cli(*args)`` -> (exit code, stdout, stderr) of ``irgauge ARGS``."""

    def run(*args):
        try:
            code = main([str(a) for a in args])
        except SystemExit as exit_:  # argparse errors
            code = exit_.code
        captured = capsys.readouterr()
        return code, captured.out, captured.err

    return run


@pytest.fixture
def collection(tmp_path):
    """(qrels path, run path) of a small graded collection (levels 0 to 3)."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


@pytest.fixture(scope="session")
def inputs(tmp_path_factory):
    """The folder the commit tests read (test_outputs_commit.py, test_studies_commit.py):
    a score file (scores.tsv), a simulated collection (col/) and its qrels with every level
    shifted (q2.txt)."""
    d = tmp_path_factory.mktemp("inputs")
    rng = random.Random(1)
    rows = [
        f"{s}\t{m}\t{t}\t{rng.random():.4f}\n"
        for m in ("AP", "P@5")
        for s in "abcd"
        for t in range(1, 7)
    ]
    (d / "scores.tsv").write_text("run\tmeasure\ttopic\tvalue\n" + "".join(rows))
    sim = ["--topics", "6", "--runs", "3", "--depth", "10", "--pool-depth", "5", "--seed", "1"]
    with contextlib.redirect_stdout(io.StringIO()), contextlib.redirect_stderr(io.StringIO()):
        assert main(["simulate", "--out", str(d / "col"), *sim, "--quiet"]) == 0
    qrels = (d / "col" / "qrels.txt").read_text().splitlines()
    shifted = [
        " ".join(f[:3] + [str((int(f[3]) + 1) % 3)]) for f in (line.split() for line in qrels)
    ]
    (d / "q2.txt").write_text("\n".join(shifted) + "\n")
    return d
