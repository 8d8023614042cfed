"""``irgauge report OUT INPUT...``: evaluation outputs, comparison tables and other results,
with relative paths only and one-line errors for files that are none of these."""

import re
from pathlib import Path

import pytest

from irgauge import compare_table, evaluate
from irgauge.cli import main
from irgauge.report.inputs import comparison_from_json, read_input

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "irgauge" / "data" / "sample"
RUNS = [str(p) for p in sorted((SAMPLE / "runs").glob("*.run"))[:4]]
QRELS = str(SAMPLE / "qrels.txt")


def test_comparison_json_round_trips(tmp_path):
    table = compare_table(
        evaluate(QRELS, RUNS, ["AP", "P@10"]),
        interval="ci",
        effect=True,
        baseline=Path(RUNS[1]).stem,
    )
    path = tmp_path / "c.json"
    path.write_text(table.render("json"), encoding="utf-8")
    again = comparison_from_json(read_input(path))
    for fmt in ("html", "latex", "markdown"):
        assert again.render(fmt) == table.render(fmt)


def test_report_of_evaluations_and_results(tmp_path, capsys):
    ev_json, ev_tsv, dp = tmp_path / "e.json", tmp_path / "e.tsv", tmp_path / "dp.tsv"
    assert (
        main(
            [
                "eval",
                QRELS,
                *RUNS,
                "-m",
                "AP",
                "-m",
                "P@10",
                "-q",
                "--format",
                "json",
                "-o",
                str(ev_json),
            ]
        )
        == 0
    )
    assert main(["eval", QRELS, *RUNS, "-m", "AP", "--format", "tsv", "-o", str(ev_tsv)]) == 0
    assert (
        main(
            [
                "discpower",
                "--qrels",
                QRELS,
                "--run",
                *RUNS,
                "-m",
                "AP",
                "-B",
                "50",
                "--seed",
                "2",
                "--format",
                "tsv",
                "-o",
                str(dp),
            ]
        )
        == 0
    )
    out = tmp_path / "report"
    assert main(["report", str(out), str(ev_json), str(ev_tsv), str(dp)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count('<li><a href="#input-') == 3
    assert "paired Student&#x27;s t-test" in html  # comparison of the per-topic evaluation
    assert "Discriminative power: dp.tsv" in html and "required difference" in html
    assert "qrels.txt" in html and str(SAMPLE) not in html and str(tmp_path) not in html
    assert not re.search(r"<th>[a-z]+_[a-z_]+</th>", html)  # headers for people


def test_report_bad_inputs_exit_2(tmp_path, capsys):
    bad = tmp_path / "bad.json"
    bad.write_text("{not json", encoding="utf-8")
    assert main(["report", str(tmp_path / "r"), str(bad)]) == 2
    err = capsys.readouterr().err
    assert "bad.json" in err and "JSON" in err and len(err.strip().splitlines()) == 1
    assert main(["report", str(tmp_path / "r"), str(tmp_path / "missing.tsv")]) == 2
    assert "missing.tsv" in capsys.readouterr().err
    assert main(["report", str(tmp_path / "nothing")]) == 2


def test_trec_eval_layout_reads_as_the_tsv(tmp_path, capsys):
    trec, tsv = tmp_path / "e.trec", tmp_path / "e.tsv"
    for fmt, path in (("trec", trec), ("tsv", tsv)):
        assert (
            main(
                [
                    "eval",
                    QRELS,
                    *RUNS,
                    "-m",
                    "AP",
                    "-m",
                    "P@10",
                    "-q",
                    "--format",
                    fmt,
                    "-o",
                    str(path),
                ]
            )
            == 0
        )
    a, b = read_input(trec), read_input(tsv)
    assert a.kind == b.kind == "evaluation"
    keys = ["run", "measure", "topic"]
    merged = a.frame.merge(b.frame, on=keys, how="outer", indicator=True)
    assert (merged["_merge"] == "both").all() and len(merged) == len(b.frame)
    assert (abs(merged["value_x"] - merged["value_y"]) < 5e-5).all()  # 4 decimals printed
    bad = tmp_path / "bad.trec"
    bad.write_text("runid all x\nmap all oops\n", encoding="utf-8")
    assert main(["report", str(tmp_path / "r"), str(bad)]) == 2
    assert "bad.trec:2" in capsys.readouterr().err


@pytest.mark.slow  # runs a study
def test_study_folder_given_as_input_links_up_relatively(tmp_path, capsys):
    from irgauge.studies.predictive import run_predictive

    run_predictive(
        QRELS,
        [str(p) for p in sorted((SAMPLE / "runs").glob("*.run"))],
        tmp_path / "studies",
        halvings=20,
        seed=1,
    )
    out = tmp_path / "paper"
    assert (
        main(
            [
                "report",
                str(out),
                str(tmp_path / "studies"),
                str(tmp_path / "studies" / "predictive"),
            ]
        )
        == 0
    )  # folder and study: once
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count('<section id="predictive">') == 1
    links = re.findall(r'href="([^"#][^"]*)"', html)
    assert links and all(l.startswith("../studies/predictive/figures/") for l in links)
    assert all((out / l).is_file() for l in links)
    assert str(tmp_path) not in html


def test_a_file_given_as_the_report_folder_is_named_as_such(tmp_path, capsys, monkeypatch):
    """`irgauge report nul.tsv` once said 'no such output folder': the file exists; the
    message names it, says it is not a folder and what report takes first."""
    monkeypatch.chdir(tmp_path)
    Path("nul.tsv").write_bytes(b"\0" * 64)
    Path("other.tsv").write_text("run\tmeasure\ttopic\tvalue\nr\tAP\tall\t0.5\n")
    for argv in (["report", "nul.tsv"], ["report", "nul.tsv", "other.tsv"]):
        assert main(argv) == 2
        err = capsys.readouterr().err
        assert err.count("\n") == 1 and "nul.tsv is a file, not a folder" in err, err
        assert "irgauge report OUT [INPUT ...]" in err
    assert sorted(p.name for p in tmp_path.iterdir()) == ["nul.tsv", "other.tsv"]


def test_a_report_that_fails_leaves_no_folder_behind(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("bad.tsv").write_text("not a result\n")
    assert main(["report", "new/out", "bad.tsv"]) == 2
    assert sorted(p.name for p in tmp_path.iterdir()) == ["bad.tsv"]


def _scores_and_tables(tmp_path, corrections):
    """Per-topic scores of the sample runs and a comparison table of them per correction."""
    scores = tmp_path / "scores.tsv"
    evaluated = ["eval", QRELS, *RUNS, "-m", "AP", "-m", "P@10", "-q", "--format", "tsv"]
    assert main([*evaluated, "-o", str(scores)]) == 0
    tables = []
    for correction in corrections:
        table = tmp_path / f"table-{correction}.json"
        compared = ["compare", "--table", "json", str(scores), "--seed", "1"]
        assert main([*compared, "--correction", correction, "-o", str(table)]) == 0
        tables.append(table)
    return scores, tables


def test_a_comparison_given_replaces_the_reports_own(tmp_path, capsys):
    """A table given of an evaluation's scores is the one comparison of them: irgauge's own
    (Holm-corrected) is not drawn beside it, and the evaluation names the one given."""
    scores, (table,) = _scores_and_tables(tmp_path, ["none"])
    out = tmp_path / "report"
    assert main(["report", str(out), str(scores), str(table)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("A superscript letter marks") == 1
    assert "Holm" not in html
    assert (
        'Comparison of these scores: the table given, <a href="#input-2">table-none.json</a> '
        "(paired Student&#x27;s t-test, no correction for multiple comparisons, α = 0.05)"
    ) in html
    # without a table of them, irgauge's own is drawn and says so
    alone = tmp_path / "alone"
    assert main(["report", str(alone), str(scores)]) == 0
    html = (alone / "report.html").read_text(encoding="utf-8")
    assert html.count("A superscript letter marks") == 1
    assert "<h3>Comparison (paired Student&#x27;s t-test, Holm&#x27;s correction" in html
    assert "irgauge's own comparison of these scores" in html


def test_two_comparisons_of_the_same_scores_say_how_they_differ(tmp_path, capsys):
    scores, tables = _scores_and_tables(tmp_path, ["none", "holm"])
    out = tmp_path / "report"
    assert main(["report", str(out), str(scores), *map(str, tables)]) == 0
    html = (out / "report.html").read_text(encoding="utf-8")
    assert html.count("A superscript letter marks") == 2
    assert (
        'This table and <a href="#input-3">table-holm.json</a> compare the same scores; '
        "they differ in correction: none here, holm there."
    ) in html
    assert (
        'This table and <a href="#input-2">table-none.json</a> compare the same scores; '
        "they differ in correction: holm here, none there."
    ) in html
    assert "the tables given" in html


TOPICSET_TSV = "# method: topic_set_size\ndesign\tmeasure\tstatistic\tvalue\n"
EVAL_TSV = "run\tmeasure\ttopic\tvalue\n"


@pytest.mark.parametrize(
    "name, text, where",
    [
        ("t.tsv", TOPICSET_TSV + "all\tAP\tvariance\t0.1\nttest\tAP\tn_topics\n", ":4:"),
        ("e.tsv", EVAL_TSV + "a\tAP\tall\t0.5\nb\tAP\tall\n", ":3:"),
        ("e.tsv", EVAL_TSV + "a\tAP\n", ":2:"),
        (
            "e.json",
            '{"results": [{"run": "a", "measure": "AP", "topic": "all", "value": 0.5},'
            ' {"run": "b", "measure": "AP", "topic": "all"}]}',
            "row 2",
        ),
        ("r.json", '{"results": [{"a": 1}, 5]}', "list of rows"),
    ],
)
def test_a_result_row_short_of_a_field_is_refused_not_shown_as_missing(
    tmp_path, capsys, name, text, where
):
    """A row with fewer fields than the header (a file cut short, a cell lost) was read
    by pandas with NaN there, and the report showed the value as left out (-)."""
    given = tmp_path / name
    given.write_text(text)
    assert main(["report", str(tmp_path / "out"), str(given)]) == 2
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1 and where in err and str(given) in err, err
    assert not (tmp_path / "out").exists()
