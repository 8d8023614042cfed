"""Helpers of the hostile-input corpus: each case runs through the CLI (``main([...])``) and
states its expected exit code and message text."""

from __future__ import annotations

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
