"""User-facing text cites papers (authors, year, short title) or names the convention; it never
points at internal files ("SPEC 6", "seed 002, Table 3") or shows raw column names meant for
code (``significant_pairs``). Checked on every command's help, on every string literal of the
source (docstrings become help and ``help()``), and on rendered captions, LaTeX and HTML."""

import argparse
import ast
import re
from pathlib import Path

import numpy as np

from irgauge.cli import build_parser

SRC = Path(__file__).resolve().parents[1] / "src" / "irgauge"
INTERNAL = re.compile(r"\bSPEC\b|\bseeds? 0\d\d\b|\bseed-0\d\d\b|\bsignificant_pairs\b")


def _help_texts(parser, prefix="irgauge"):
    """(command path, help text) of the parser and every sub-parser, recursively."""
    yield prefix, parser.format_help()
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                yield from _help_texts(sub, f"{prefix} {name}")


def _all_help():
    return list(_help_texts(build_parser()))


def test_help_of_every_command_has_no_internal_reference():
    texts = _all_help()
    assert len(texts) > 15  # every command (and nested ones such as qa's) was built
    bad = [(name, m.group(0)) for name, text in texts for m in INTERNAL.finditer(text)]
    assert not bad, bad


def _string_literals(paths):
    for path in paths:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for node in ast.walk(tree):
            if isinstance(node, ast.Constant) and isinstance(node.value, str):
                yield path, node.lineno, node.value


def _hits(paths):
    return [
        f"{p.relative_to(SRC)}:{line}: {m.group(0)}"
        for p, line, text in _string_literals(paths)
        for m in INTERNAL.finditer(text)
    ]


def test_source_strings_have_no_internal_reference():
    paths = list(SRC.rglob("*.py"))
    assert len(paths) > 50
    hits = _hits(paths)
    assert not hits, hits


def test_the_scan_finds_an_internal_reference(tmp_path):
    """The scanner itself: a planted reference is found, a citation is not."""
    planted = tmp_path / "x.py"
    planted.write_text(
        '"""Doc (SPEC 6)."""\nA = "see seed 002, Table 3"\n'
        "B = 'Sakai (2007), \"Alternatives to bpref\"'\n",
        encoding="utf-8",
    )
    found = [
        m.group(0) for _, _, text in _string_literals([planted]) for m in INTERNAL.finditer(text)
    ]
    assert found == ["SPEC", "seed 002"]


def test_rendered_comparison_cites_conventions_not_files():
    from irgauge.stats.comparison import compare_table
    from irgauge.scores import ScoreMatrix

    values = np.random.default_rng(0).random((3, 20)) + np.array([[0], [0.2], [0.4]])
    matrices = {"AP": ScoreMatrix(values, ["x", "y", "z"], [str(i) for i in range(20)], "AP")}
    for test in ("t", "bootstrap", "tukey"):
        table = compare_table(matrices, test=test, effect=True, samples=100, seed=1)
        for fmt in ("table", "markdown", "latex", "html", "csv", "json"):
            text = table.render(fmt)
            assert not INTERNAL.search(text), (test, fmt)
            assert "_" not in table.caption().replace("d_z", "")  # no raw column names
        assert "Cohen's d_z (paired)" in table.caption()


def test_rendered_report_of_evaluations_and_comparisons(tmp_path, capsys):
    from irgauge.cli import main
    from irgauge.collection.simulate import sample_paths

    qrels, runs = sample_paths()
    runs = [str(r) for r in runs[:4]]
    ev, cmp = tmp_path / "e.json", tmp_path / "c.json"
    assert (
        main(["eval", str(qrels), *runs, "-m", "AP", "-q", "--format", "json", "-o", str(ev)]) == 0
    )
    assert (
        main(
            [
                "compare",
                "--qrels",
                str(qrels),
                "--run",
                *runs,
                "-m",
                "AP",
                "--table",
                "json",
                "--tests",
                "bootstrap",
                "--seed",
                "1",
                "--effect",
                "-o",
                str(cmp),
            ]
        )
        == 0
    )
    assert main(["report", str(tmp_path / "out"), str(ev), str(cmp)]) == 0
    html = (tmp_path / "out" / "report.html").read_text(encoding="utf-8")
    assert not INTERNAL.search(html)
    assert not re.search(r"<th>[a-z]+(_[a-z]+)+</th>", html)  # headers for people


def test_terminal_tables_spell_column_names_out(capsys):
    from irgauge.cli import main
    from irgauge.collection.simulate import sample_paths

    qrels, runs = sample_paths()
    argv = [
        "compare",
        "--qrels",
        str(qrels),
        "--run",
        *map(str, runs[:3]),
        "-m",
        "AP",
        "--seed",
        "1",
        "-B",
        "50",
        "--permutations",
        "50",
        "--correction",
        "holm",
    ]
    assert main(argv) == 0
    head = [l for l in capsys.readouterr().out.splitlines() if l and l[0] != "#"][0]
    assert "Cohen's d_z (paired)" in head and "p (bootstrap, Holm)" in head
    assert not re.search(r"\b[a-z]+_[a-z_]+\b", head.replace("d_z", ""))
    assert main(argv + ["--format", "tsv"]) == 0  # machine formats keep the names
    assert "\tp_bootstrap_holm\t" in capsys.readouterr().out
