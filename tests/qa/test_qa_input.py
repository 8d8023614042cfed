"""QA readers: formats, bad input named by file and line, and the CLI."""

import json

import pytest

from irgauge.cli import main
from irgauge.errors import InputError
from irgauge.qa import qa_evaluate, read_answers, read_gold


def test_gold_formats_agree(write):
    eqrels = write("g.eqrels", "q1;New York;L2;c1\nq1;NYC;L1;c1\nq1;Boston;L1;c2\n")
    tsv = write(
        "g.tsv",
        "topic\tanswer\tlevel\tclass\nq1\tNew York\tA\tc1\nq1\tNYC\t1\tc1\nq1\tBoston\tL1\tc2\n",
    )
    js = write(
        "g.json",
        json.dumps(
            [
                {"topic": "q1", "answer": "New York", "level": 2, "class": "c1"},
                {"topic": "q1", "answer": "NYC", "level": "L1", "class": "c1"},
                {"topic": "q1", "answer": "Boston", "level": 1, "class": "c2"},
            ]
        ),
    )
    golds = [read_gold(p) for p in (eqrels, tsv, js)]
    assert [g.fmt for g in golds] == ["eqrels", "tsv", "json"]
    assert all(g.answers == golds[0].answers for g in golds)
    assert golds[0].classes == {"q1": {"c1": 2, "c2": 1}}


def test_run_formats_agree(write):
    gold = {
        "q1": {
            "c1": {"level": 1, "answers": ["New York"]},
            "c2": {"level": 1, "answers": ["Boston"]},
        }
    }
    runs = [
        write("r.semi", "q1;0;xx;1;0.9;tagA\nq1;0;New York;2;0.5;tagA\n"),
        write("r.trec", "q1 Q0 xx 1 0.9 tagA\nq1 Q0 New York 2 0.5 tagA\n"),
        write("q1.res", "xx\nNew York\n"),
        write("r.tsv", "topic\tanswer\nq1\txx\nq1\tNew York\n"),
        write("r.json", json.dumps({"q1": ["xx", "New York"]})),
    ]
    formats = [read_answers(p).fmt for p in runs]
    assert formats == ["semicolon", "trec", "list", "tsv", "json"]
    assert read_answers(runs[0]).name == "tagA"
    for path in runs:
        assert qa_evaluate(gold, path, ["RR"]).means["value"][0] == 0.5


def test_answer_order_by_rank_and_score(write):
    path = write("r.semi", "q1;0;B;2;0.1;t\nq1;0;A;1;0.9;t\n")
    assert read_answers(path).answers["q1"] == ["B", "A"]
    assert read_answers(path, answer_order="rank").answers["q1"] == ["A", "B"]
    assert read_answers(path, answer_order="score").answers["q1"] == ["A", "B"]


@pytest.mark.parametrize(
    "text, line, words",
    [
        ("q1;a;L1;c1\nq1;b;X;c2\n", 2, "unknown correctness level 'X'"),
        ("q1;a;L1;c1\nq1;b;L2;c2\nq1;a;L1;c3\n", 3, "in class 'c3' and in class 'c1' (line 1)"),
        ("q1;a;L1\n", 1, "4 fields"),
    ],
)
def test_bad_gold(write, text, line, words):
    path = write("bad.eqrels", text)
    with pytest.raises(InputError) as err:
        read_gold(path, "eqrels")
    assert err.value.line == line and err.value.path == str(path)
    assert words in err.value.problem


def test_string_in_two_classes_after_normalisation(write):
    path = write("g.eqrels", "q1;Paris;L1;c1\nq1;PARIS;L1;c2\n")
    assert read_gold(path).classes["q1"] == {"c1": 1, "c2": 1}
    with pytest.raises(InputError, match="after normalisation case") as err:
        read_gold(path, normalise="case")
    assert err.value.line == 2


def test_repeated_answer_string_is_a_duplicate(write):
    """QAC2 scores the second occurrence of a string as an incorrect duplicate."""
    from irgauge.qa.scoring import label_answers

    gold = write("g.eqrels", "q1;a;L1;c1\nq1;b;L2;c2\nq2;a;L1;c1\n")
    path = write("r.semi", "q1;0;a;1;0.9;t\nq2;0;a;1;0.9;t\nq1;0;b;2;0.5;t\nq1;0;a;3;0.1;t\n")
    run = read_answers(path)
    assert run.answers["q1"] == ["a", "b", "a"]
    labels = [row[3] for row in label_answers(read_gold(gold), run) if row[0] == "q1"]
    assert labels == ["correct", "correct", "duplicate"]


def test_cli_eval_formats_and_meta(samples, tmp_path, capsys):
    gold, run = str(samples / "e-test.eqrels"), str(samples / "e-testrun")
    other = tmp_path / "other.semi"
    other.write_text(
        "0001;0;酒井哲也;1;1;other\n0002;0;今天 明天 昨天;1;1;other\n", encoding="utf-8"
    )
    out = tmp_path / "qa.tsv"
    assert (
        main(
            [
                "qa",
                "eval",
                gold,
                run,
                str(other),
                "-m",
                "RR Q-measure NQcorrect5",
                "-q",
                "--format",
                "tsv",
                "-o",
                str(out),
            ]
        )
        == 0
    )
    text = out.read_text(encoding="utf-8")
    assert "# answer_normalisation: exact" in text
    assert "other\tQ-measure\t0001\t0.5\n" in text  # L1 answer, ideal L3: (1+1)/(3+1)
    assert main(["discpower", str(out), "--samples", "50", "--seed", "1"]) == 0
    capsys.readouterr()
    for fmt in ("table", "json", "trec"):
        assert main(["qa", "eval", gold, run, "--format", fmt]) == 0
        assert "Q-measure" in capsys.readouterr().out
    assert main(["qa", "label", gold, run]) == 0
    assert "0001\t3\t酒井哲也\tduplicate\t1\t1" in capsys.readouterr().out


def test_cli_bad_input_exit_2(write, capsys):
    gold = write("g.eqrels", "q1;a;L1;c1\nq1;b;Lx;c2\n")
    run = write("r.semi", "q1;0;a;1;0.9;t\n")
    assert main(["qa", "eval", str(gold), str(run)]) == 2
    assert f"{gold}:2: unknown correctness level 'Lx'" in capsys.readouterr().err
