"""The comparison table (runs x measures, significance marks): against ranx's ``compare``,
against ``irgauge compare``'s own pairwise rows on the same seed, and its LaTeX structure."""

import json
import re
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings, strategies as hs

from irgauge import evaluate
from irgauge.cli import main
from irgauge.stats.comparison import compare_table, letters
from irgauge.scores import ScoreMatrix
from tests.conftest import examples

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "irgauge" / "data" / "sample"
QRELS = SAMPLE / "qrels.txt"
# runs whose scores have no ties within a topic: ranx and trec_eval order ties differently
RUNS = [SAMPLE / "runs" / f"run{k:02d}.run" for k in (1, 2, 3, 5, 6, 7, 8, 9, 11)]


def test_letters():
    assert letters(3) == ["a", "b", "c"]
    assert letters(28)[25:] == ["z", "aa", "ab"]


@pytest.mark.slow  # ranx, interpreted (tests/conftest.py): seconds
def test_same_means_and_marks_as_ranx():
    """ranx computes the paired Student's t-test deterministically (scipy's ttest_rel) and
    marks run x with y's letter when p <= max_p and x's mean is higher."""
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels.from_file(str(QRELS), kind="trec")
    runs = []
    for path in RUNS:
        run = ranx.Run.from_file(str(path), kind="trec")
        run.name = path.stem
        runs.append(run)
    metrics = {"precision@10": "P@10", "map": "AP"}
    with _quiet():
        report = ranx.compare(qrels, runs, list(metrics), stat_test="student", max_p=0.05)
    ours = compare_table(
        evaluate(QRELS, RUNS, list(metrics.values())), test="t", correction="none", alpha=0.05
    )
    assert ours.runs == [p.stem for p in RUNS]
    names = ours.runs
    checked = 0
    for k, (theirs, mine) in enumerate(metrics.items()):
        m = ours.measures.index(mine)
        for r, run in enumerate(names):
            assert ours.means[r, m] == pytest.approx(report.results[run][theirs], abs=1e-12)
            expected = sorted(
                ours.labels[o]
                for o, other in enumerate(names)
                if other != run
                and report.comparisons[run, other][theirs]["significant"]
                and report.results[run][theirs] > report.results[other][theirs]
            )
            assert ours.marks[r][m] == expected
            checked += len(expected)
    assert checked > 10  # the runs differ enough for many marks


class _quiet:
    """Silence numba's warnings from ranx (not ours to fix)."""

    def __enter__(self):
        import warnings

        self._w = warnings.catch_warnings()
        self._w.__enter__()
        warnings.simplefilter("ignore")

    def __exit__(self, *exc):
        self._w.__exit__(*exc)


def _json(capsys, argv):
    capsys.readouterr()
    assert main(argv) == 0
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    "test,correction",
    [("bootstrap", "holm"), ("randomisation", "bh"), ("tukey", "none"), ("t", "holm")],
)
def test_marks_agree_with_compare_rows(capsys, test, correction):
    inputs = [
        "--qrels",
        str(QRELS),
        "--run",
        *map(str, RUNS[:6]),
        "-m",
        "AP,P@10",
        "--seed",
        "11",
        "-B",
        "200",
        "--permutations",
        "500",
        "--tests",
        test,
        "--correction",
        correction,
    ]
    rows = _json(capsys, ["compare", *inputs, "--format", "json"])["results"]
    table = _json(capsys, ["compare", *inputs, "--table", "json"])
    meta = table["metadata"]
    assert meta["seed"] == 11 and meta["test"] == test
    column = meta["pvalue_column"]
    label = dict(zip(meta["runs"], meta["labels"]))
    expected = {}
    for row in rows:
        if row[column] < 0.05 and row["difference"] != 0:
            win, lose = (
                (row["system_a"], row["system_b"])
                if row["difference"] > 0
                else (row["system_b"], row["system_a"])
            )
            expected.setdefault((win, row["measure"]), []).append(label[lose])
    for rec in table["results"]:
        assert rec["marks"] == "".join(sorted(expected.get((rec["run"], rec["measure"]), [])))
    assert any(rec["marks"] for rec in table["results"])


def test_baseline_marks_agree_with_compare_of_each_pair(capsys):
    inputs = [
        "--qrels",
        str(QRELS),
        "--run",
        *map(str, RUNS[:5]),
        "-m",
        "AP",
        "--seed",
        "5",
        "--tests",
        "randomisation",
        "--permutations",
        "2000",
    ]
    table = _json(capsys, ["compare", *inputs, "--table", "json", "--baseline", "run03"])
    for rec in table["results"]:
        if rec["run"] == "run03":
            assert rec["marks"] == ""
            continue
        row = _json(
            capsys, ["compare", *inputs, "--format", "json", "--pair", "run03", rec["run"]]
        )["results"][0]
        mark = "" if row["p_randomisation"] >= 0.05 else ("+" if row["difference"] < 0 else "-")
        assert rec["marks"] == mark
    assert {rec["marks"] for rec in table["results"]} >= {"+", "-"}


def _matrices(values, names=("a_1", "b&2", "c%3", "d#4")):
    values = np.asarray(values, dtype=float)
    systems = list(names[: values.shape[1]])
    topics = [f"t{i}" for i in range(values.shape[2])]
    return {
        f"M{k}_x": ScoreMatrix(values[k], systems, topics, f"M{k}_x")
        for k in range(values.shape[0])
    }


def _strip_escaped(tex):
    return re.sub(r"\\[{}&%$#_]", "", tex)


def test_latex_is_well_formed():
    rng = np.random.default_rng(4)
    values = rng.random((2, 4, 25)) + np.array([0, 0.3, 0.1, 0.5])[None, :, None]
    table = compare_table(
        _matrices(values), test="t", interval="ci", effect=True, collection="Robust04 & friends_"
    )
    tex = table.render("latex")
    bare = _strip_escaped(tex)
    depth = 0
    for ch in bare:
        depth += {"{": 1, "}": -1}.get(ch, 0)
        assert depth >= 0
    assert depth == 0
    # special characters in names only escaped: no bare & outside the tabular, no bare _ % #
    assert not re.search(r"(?<!\\)[%#]", tex.split("\n", 1)[1])
    assert not re.search(r"(?<![\\$d])_", tex.split("\n", 1)[1])
    assert r"Robust04 \& friends\_" in tex
    lines = tex.splitlines()
    for begin, end in ((r"\begin{table}", r"\end{table}"), (r"\begin{tabular}", r"\end{tabular}")):
        assert sum(l.startswith(begin) for l in lines) == 1
        assert sum(l.startswith(end) for l in lines) == 1
    top, mid, bottom = (lines.index(r) for r in (r"\toprule", r"\midrule", r"\bottomrule"))
    assert top < mid < bottom
    assert all(tex.count(r) == 1 for r in (r"\toprule", r"\midrule", r"\bottomrule"))
    ncols = len(re.search(r"\\begin\{tabular\}\{([lrc]+)\}", tex).group(1))
    body = lines[top + 1 : bottom]
    body.remove(r"\midrule")
    assert len(body) == 1 + 4  # header and one row per run
    for line in body:
        assert line.endswith(r" \\") and len(re.findall(r"(?<!\\)&", line)) == ncols - 1
    caption = re.search(r"\\caption\{(.*)\}\n", tex).group(1)
    for needed in (
        "paired Student's t-test",
        "no correction",
        r"$\alpha$ = 0.05",
        "25 topics",
        "Robust04",
        r"Cohen's $d_z$ (paired)",
    ):
        assert needed in caption
    assert r"\textbf{" in tex and r"\textsuperscript{" in tex


def test_formats_carry_caption_and_bold():
    rng = np.random.default_rng(1)
    values = rng.random((1, 3, 30)) + np.array([0, 0.4, 0.2])[None, :, None]
    table = compare_table(
        _matrices(values), baseline="a_1", test="bootstrap", samples=300, seed=9, correction="holm"
    )
    md = table.render("markdown")
    assert "**" in md and "<sup>+</sup>" in md and "seed 9" in md
    html = table.render("html")
    assert "<strong>" in html and "<caption>" in html and "b&amp;2" in html
    text = table.render("table")
    assert "⁺" in text and "\x1b[" not in text and "in bold" not in text
    assert "\x1b[1m" in table.render("table", ansi=True)
    csv = table.render("csv")
    assert "# seed: 9" in csv and "label,run,measure,mean" in csv
    assert json.loads(table.render("json"))["metadata"]["baseline"] == "a_1"


def test_interval_matches_scipy():
    from scipy import stats as st

    rng = np.random.default_rng(2)
    values = rng.random((1, 3, 12))
    table = compare_table(_matrices(values), interval="ci", confidence=0.9)
    for r in range(3):
        low, high = st.t.interval(0.9, 11, loc=values[0, r].mean(), scale=st.sem(values[0, r]))
        assert table.low[r, 0] == pytest.approx(low) and table.high[r, 0] == pytest.approx(high)


@pytest.mark.parametrize("level", [1 - 1e-12, 1 - 2**-40, 1 - 2**-53])
def test_an_interval_near_certainty_keeps_its_tail(level):
    """The half-width's t quantile leaves (1 - level) / 2 in each tail, to the last digits:
    (1 + level) / 2 rounded the level 1 - 2^-53 to 1, an infinite interval."""
    from scipy import stats as st

    values = np.random.default_rng(4).random((1, 2, 6))
    table = compare_table(_matrices(values), interval="ci", confidence=level)
    se = values[0, 0].std(ddof=1) / np.sqrt(6)
    t = (table.high[0, 0] - table.means[0, 0]) / se
    assert np.isfinite(t) and 2 * st.t.sf(t, 5) == pytest.approx(1 - level, rel=1e-9)


@pytest.mark.parametrize(
    "level, said",
    [
        (0.95, "95%"),
        (0.999999, "99.9999%"),  # by hand: 100 * 0.999999 = 99.9999
        (0.975, "97.5%"),  # by hand: 100 * 0.975 = 97.5
        (1 - 2**-40, "100(1 - 9.09495e-13)%"),
    ],
)
def test_the_caption_gives_the_level_it_computed(level, said):
    """A level of 0.999999 was captioned "100% confidence interval", which no finite
    interval is; 2^-40 = 9.09495e-13 (by hand)."""
    values = np.random.default_rng(4).random((1, 2, 6))
    text = compare_table(_matrices(values), interval="ci", confidence=level).render("table")
    assert f"± gives the {said} confidence interval" in " ".join(text.split())


@settings(max_examples=examples(40), deadline=None)
@given(hs.integers(0, 10_000), hs.integers(2, 5), hs.integers(3, 15))
def test_letter_marks_point_one_way_and_to_lower_means(seed, m, n):
    rng = np.random.default_rng(seed)
    values = rng.random((1, m, n)) + rng.random((1, m, 1))
    names = [f"s{i}" for i in range(m)]
    table = compare_table(_matrices(values, names), test="t")
    for r in range(m):
        for label in table.marks[r][0]:
            o = table.labels.index(label)
            assert table.means[r, 0] > table.means[o, 0]
            assert table.labels[r] not in table.marks[o][0]


def test_cli_table_errors(capsys):
    base = ["compare", "--qrels", str(QRELS), "--run", *map(str, RUNS[:3]), "-m", "AP"]
    assert main([*base, "--table", "--tests", "t,bootstrap"]) == 2
    assert "one test" in capsys.readouterr().err
    assert main([*base, "--table", "--baseline", "nosuchrun"]) == 2
    assert "nosuchrun" in capsys.readouterr().err


def test_runs_on_different_topics_explain_how_to_pair(tmp_path):
    from irgauge.errors import InputError

    partial = tmp_path / "partial.run"
    partial.write_text(
        "".join(l for l in RUNS[0].read_text().splitlines(True) if not l.startswith("3 "))
    )
    with pytest.raises(InputError, match="complete=True"):
        compare_table(evaluate(QRELS, [partial, RUNS[1]], ["AP"]))
    table = compare_table(evaluate(QRELS, [partial, RUNS[1]], ["AP"], complete=True))
    assert table.parameters["n_topics"] == 20


def test_latex_escapes_run_names_used_as_marks():
    values = np.array([[[0.1] * 5 + [0.2] * 5, [0.9] * 5 + [0.8] * 5]])
    table = compare_table(_matrices(values, ("low_run", "high&run")), names="runs")
    tex = table.render("latex")
    assert r"\textsuperscript{low\_run}" in tex and r"high\&run" in tex
    assert "superscript name" in table.caption()
