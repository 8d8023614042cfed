"""Names work wherever measures are named, refusals list what there is, common slips get a
hint, and counts agree with their nouns (issue 36)."""

from __future__ import annotations


import re
from pathlib import Path

import pytest

from irgauge.cli import main


@pytest.fixture()
def scores(tmp_path):
    """A score file of 4 runs x 6 topics holding AP and nDCG@10."""
    lines = ["run\tmeasure\ttopic\tvalue"]
    for r in range(4):
        for t in range(6):
            for m, base in (("AP", 0.1), ("nDCG@10", 0.2)):
                lines.append(f"run{r}\t{m}\t{t}\t{base + 0.1 * r + 0.01 * ((r * 7 + t) % 5)}")
    path = tmp_path / "scores.tsv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def run(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("name", ["MAP", "map", "AP"])
def test_an_alias_finds_the_scores_of_its_measure(scores, capsys, name):
    """``compare -m MAP`` on score files said "no scores for measure(s) MAP"."""
    code, out, err = run(capsys, ["compare", scores, "-m", name, "--tests", "t", "--format", "tsv"])
    assert code == 0, err
    assert "run0" in out and "nDCG" not in out.split("# measures")[0]


def test_an_alias_ranks_the_systems(scores, capsys):
    argv = ["discpower", scores, "-m", "map,ndcg_cut_10", "--by", "AP", "--top-k", "3"]
    code, out, err = run(capsys, [*argv, "-B", "20", "--seed", "1", "--format", "tsv"])
    assert code == 0, err
    assert "select_top_k: 3" in out


def test_a_measure_not_there_is_refused_listing_those_there(scores, capsys):
    code, out, err = run(capsys, ["compare", scores, "-m", "RR", "--tests", "t"])
    assert code == 2 and out == ""
    assert "no scores for measure(s) RR in the score files (they hold: AP, nDCG@10)" in err


def test_the_api_finds_a_measure_by_its_alias(tmp_path):
    import irgauge

    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 a 1\n1 0 b 0\n2 0 c 1\n")
    runs = {
        "x": {"1": {"a": 2.0, "b": 1.0}, "2": {"c": 1.0}},
        "y": {"1": {"b": 2.0}, "2": {"c": 0.5, "d": 1.0}},
    }
    result = irgauge.evaluate(str(qrels), runs, ["AP"])
    assert list(result.score_matrices(["MAP"])) == ["AP"]
    with pytest.raises(irgauge.InputError, match=r"RR \(they hold: AP\)"):
        result.score_matrices(["RR"])


def test_a_system_not_there_is_refused_listing_those_there(scores, capsys):
    code, out, err = run(capsys, ["compare", scores, "--pair", "run0", "runX"])
    assert code == 2
    assert "--pair: no scores for runX (measure AP; the systems are run0, run1, run2, run3)" in err


@pytest.mark.parametrize(
    "argv, hint",
    [
        (["compare", "{s}", "--table", "FILE.md"], "(--table markdown -o FILE.md)"),
        (["compare", "{s}", "--table", "out/t.tex"], "(--table latex -o out/t.tex)"),
        (["eval", "{s}", "{s}", "--format", "out.tsv"], "(--format tsv -o out.tsv)"),
    ],
)
def test_a_file_given_for_a_format_gets_a_hint(scores, capsys, argv, hint):
    argv = [scores if a == "{s}" else a for a in argv]
    with pytest.raises(SystemExit) as stop:
        main(argv)
    err = capsys.readouterr().err
    assert stop.value.code == 2
    assert "looks like a file" in err and hint in err


def test_a_wrong_choice_that_is_no_file_gets_no_hint(scores, capsys):
    with pytest.raises(SystemExit):
        main(["compare", scores, "--table", "xyz"])
    assert "looks like a file" not in capsys.readouterr().err


def test_a_count_agrees_with_its_noun():
    from irgauge.io.words import counted, plural

    assert counted(1, "run") == "1 run" and counted(2, "run") == "2 runs"
    assert counted(0, "topic") == "0 topics" and counted("1", "system") == "1 system"
    assert plural("query") == "queries" and plural("pass") == "passes"


# a count written before a plural noun in an f-string: "{n} runs" says "1 runs" for one
COUNTED_NOUN = re.compile(
    r"\{[^{}:!]+\} (runs|systems|topics|measures|pairs|questions|rows|columns|collections|"
    r"trials|samples|repetitions|documents|files|levels|values|lines|judgments)\b"
)
# where the word before the noun is no count
NOT_COUNTS = {"{what} values": "the kind of values (per-topic, per-question)",
              "{answer.dtype} values": "a dtype"}  # fmt: skip


def test_every_count_in_the_source_goes_through_counted():
    """ "1 runs": every output's counts go through irgauge.io.words.counted."""
    source = Path(__file__).parents[1] / "src" / "irgauge"
    found = [
        f"{path.relative_to(source)}:{number}: {match.group(0)}"
        for path in sorted(source.rglob("*.py"))
        for number, line in enumerate(path.read_text().splitlines(), 1)
        for match in COUNTED_NOUN.finditer(line)
        if match.group(0) not in NOT_COUNTS
    ]
    assert not found, "counts without counted(): " + "; ".join(found)


def test_one_run_is_one_run():
    """A result of one run said "<EvalResult: 1 runs x 1 measures, 1 topics averaged>"."""
    import irgauge

    result = irgauge.evaluate({"1": {"a": 1}}, {"x": {"1": {"a": 1.0}}}, ["AP"])
    assert repr(result).startswith("<EvalResult: 1 run x 1 measure, 1 topic averaged>")
