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
