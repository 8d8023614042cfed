"""Start-up: nothing imports scipy.stats, pandas or matplotlib before a command needs it,
and tables printed without pandas read exactly as pandas prints them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from irgauge.meta import discriminative_power
from irgauge.io.tables import render
from irgauge.scores import ScoreMatrix

HEAVY = ("scipy.stats", "pandas", "matplotlib")
ROBUST = (
    Path(__file__).resolve().parents[1].parent
    / "shared"
    / "data"
    / "urbano-score-matrices"
    / "irj2015-reliability"
    / "robust2003.csv"
)


def loaded_after(code: str) -> list:
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            code + f"\nimport sys\nprint(' '.join(m for m in {HEAVY!r} if m in sys.modules))",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    return out.split()


def test_import_meta_and_stats_are_light():
    assert loaded_after("import irgauge.meta, irgauge.stats, irgauge.measures") == []


@pytest.mark.skipif(not ROBUST.is_file(), reason="no shared data")
def test_discpower_command_needs_none_of_them(tmp_path):
    lines = ROBUST.read_text().splitlines()[:12]
    path = tmp_path / "ap.csv"
    path.write_text("\n".join(",".join(line.split(",")[:8]) for line in lines) + "\n")
    code = (
        "from irgauge.cli import main\nimport contextlib, io\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert main(['discpower', 'ap={path}', '-B', '100', '--seed', '1', "
        "'--format', 'tsv', '--pairs']) == 0"
    )
    assert loaded_after(code) == []


def _commands(parser) -> list:
    return sorted(parser._subparsers._group_actions[0].choices)


def test_a_named_command_registers_alone_without_listing_the_others():
    """The module listing (pkgutil) is for the help only: ``irgauge-trec_eval`` starts
    without it."""
    out = subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys\nfrom irgauge.cli import build_parser\n"
            "p = build_parser(['trec_eval', 'q', 'r'])\n"
            "print(sorted(p._subparsers._group_actions[0].choices), 'pkgutil' in sys.modules)",
        ],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    assert out.split() == ["['trec_eval']", "False"]


@pytest.mark.parametrize("first", ["no_such_command", "--help", "a.b", "../eval", ""])
def test_any_other_first_word_registers_every_command(first):
    from irgauge.cli import build_parser

    every = _commands(build_parser())
    assert "trec_eval" in every and "eval" in every
    assert _commands(build_parser([first])) == every


def test_a_command_module_failing_to_import_is_not_taken_for_an_unknown_command(monkeypatch):
    import importlib

    from irgauge import cli

    real = importlib.import_module
    failed = []

    def broken(name, *args):
        if name == "irgauge.cli.cmd_eval" and not failed:  # once: a retry would succeed
            failed.append(name)
            raise ModuleNotFoundError("No module named 'missing_dependency'", name="missing")
        return real(name, *args)

    monkeypatch.setattr(cli.importlib, "import_module", broken)
    with pytest.raises(ModuleNotFoundError, match="missing_dependency"):
        cli.build_parser(["eval"])


@pytest.mark.parametrize("fmt", ["tsv", "table", "json"])
@pytest.mark.parametrize("detail", [None, "pairs"])
def test_column_tables_render_as_their_dataframes(fmt, detail):
    rng = np.random.default_rng(5)
    matrix = ScoreMatrix(
        rng.random((6, 20)),
        [f"s{i}" for i in range(6)],
        [str(t) for t in range(20)],
        "nDCG(dcg='exp-log2')@10",
    )
    result = discriminative_power({matrix.measure: matrix}, samples=200, seed=2)
    columns = result.columns(detail)
    assert isinstance(columns, dict)
    frame = result.table if detail is None else result.details[detail]
    meta = {"seed": 2}
    assert render(columns, fmt, meta) == render(frame, fmt, meta)


DROP_IN_UNLOADED = ("threading", "pkgutil", "concurrent.futures", "pathlib", "tempfile")


def test_the_trec_eval_drop_in_on_a_small_run_loads_no_thread_path_or_listing_module(tmp_path):
    """Each module is a share of the drop-in's start-up (one process per run): a small run
    is read on the main thread, the command's module is imported by its name, runs and
    topics are named without pathlib, and tempfile loads only when a folder is made."""
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n")
    run.write_text("1 Q0 d1 1 2.0 r\n1 Q0 d2 2 1.0 r\n")
    code = (
        "import contextlib, io, sys\nfrom irgauge.cli.cmd_trec_eval import console_main\n"
        "with contextlib.redirect_stdout(io.StringIO()):\n"
        f"    assert console_main([{str(qrels)!r}, {str(run)!r}]) == 0\n"
        f"print(' '.join(m for m in {DROP_IN_UNLOADED!r} if m in sys.modules))"
    )
    out = subprocess.run([sys.executable, "-c", code], check=True, capture_output=True, text=True)
    assert out.stdout.split() == []
