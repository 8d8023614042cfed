"""Helpers of the hostile-input corpus: each case runs through the CLI (``main([...])``) and
states its expected exit code and message text."""
from __future__ import annotations

import pytest

from irgauge.cli import main

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n1 0 d4 3\n2 0 d1 1\n2 0 d5 2\n"
RUN = ("1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d4 3 1.5 r\n1 Q0 d9 4 1.0 r\n"
       "2 Q0 d5 1 1.0 r\n2 Q0 d1 2 0.5 r\n")


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
