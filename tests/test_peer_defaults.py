"""Where irgauge's default differs from trec_eval's, the note names the option that gives
trec_eval's number, and ``irgauge eval --like trec_eval`` sets them all (issue 36)."""

from __future__ import annotations

import pytest

from irgauge.cli import main

# topic 2 has no relevant document; topic 1 a negative level (pooled but unjudged for
# trec_eval, judged nonrelevant for irgauge), which bpref tells apart
QRELS = "1 0 a 1\n1 0 b -1\n1 0 f 0\n2 0 c 0\n3 0 d 2\n3 0 g 1\n"
RUN = "1 Q0 b 1 3 r\n1 Q0 a 2 2 r\n1 Q0 f 3 1 r\n2 Q0 c 1 1 r\n3 Q0 e 1 2 r\n3 Q0 d 2 1 r\n"


@pytest.fixture()
def files(tmp_path):
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    return str(qrels), str(run)


def run_cli(capsys, argv):
    code = main(argv)
    out, err = capsys.readouterr()
    assert code == 0, err
    return out, err


def means(out: str) -> dict:
    """{measure: mean} of tsv output."""
    rows = [line.split("\t") for line in out.splitlines() if not line.startswith("#")]
    return {m: float(v) for _, m, topic, v in rows[1:] if topic == "all"}


def test_each_difference_is_announced_with_its_option(files, capsys):
    _, err = run_cli(capsys, ["eval", *files, "-m", "AP,bpref"])
    notes = [line for line in err.splitlines() if line.startswith("irgauge: note:")]
    empty = next(n for n in notes if "without relevant documents" in n)
    assert "--empty-topics zero (or --like trec_eval) gives its number" in empty
    negative = next(n for n in notes if "negative level" in n)
    assert "--negative unjudged (or --like trec_eval) gives its number" in negative


def test_like_trec_eval_gives_trec_eval_numbers(files, capsys):
    out, err = run_cli(capsys, ["eval", *files, "-m", "AP,bpref", "--like", "trec_eval"])
    assert out.startswith("# like: trec_eval: --empty-topics zero, --negative unjudged")
    assert "without relevant documents" not in err and "negative level" not in err
    tsv, _ = run_cli(
        capsys, ["eval", *files, "-m", "AP,bpref", "--like", "trec_eval", "--format", "tsv"]
    )
    trec, _ = run_cli(capsys, ["trec_eval", "-m", "map", "-m", "bpref", *files])
    expected = {line.split()[0]: float(line.split()[2]) for line in trec.splitlines()}
    got = means(tsv)
    assert got["AP"] == pytest.approx(expected["map"], abs=5e-5)
    assert got["bpref"] == pytest.approx(expected["bpref"], abs=5e-5)
    plain, _ = run_cli(capsys, ["eval", *files, "-m", "AP,bpref", "--format", "tsv"])
    assert means(plain) != got  # the defaults do differ here: the test can fail


def test_an_option_given_with_like_wins(files, capsys):
    argv = ["eval", *files, "-m", "AP", "--like", "trec_eval", "--empty-topics", "skip"]
    out, err = run_cli(capsys, argv)
    assert out.startswith("# like: trec_eval: --empty-topics skip (given), --negative unjudged")
    assert "--empty-topics zero (or --like trec_eval)" in err


def test_meta_commands_scoring_runs_announce_the_difference_with_its_option(files, capsys):
    """compare, discpower and the other meta-evaluation commands score --qrels/--run through
    the same evaluation: topic 2, without relevant documents, was dropped without a word,
    and their means were not trec_eval's. The note names --empty-topics zero, which keeps
    it; the negative level's note says how to get trec_eval's scores."""
    qrels, run = files
    other = run.replace("run.txt", "run2.txt")
    with open(other, "w") as handle:
        handle.write(RUN.replace(" r\n", " s\n").replace("b 1 3", "b 1 1"))
    argv = ["compare", "--qrels", qrels, "--run", run, other, "-m", "AP", "--tests", "t"]
    out, err = run_cli(capsys, [*argv, "--format", "tsv"])
    assert "# n_topics: 2" in out
    notes = [line for line in err.splitlines() if line.startswith("irgauge: note:")]
    empty = next(n for n in notes if "without relevant documents" in n)
    assert "--empty-topics zero gives its number" in empty
    negative = next(n for n in notes if "negative level" in n)
    assert "irgauge eval -q --format tsv --negative unjudged" in negative
    out, err = run_cli(capsys, [*argv, "--format", "tsv", "--empty-topics", "zero"])
    assert "# n_topics: 3" in out and "without relevant documents" not in err


def test_empty_topics_without_qrels_is_refused(tmp_path, capsys):
    scores = tmp_path / "s.tsv"
    scores.write_text(
        "run\tmeasure\ttopic\tvalue\n"
        + "".join(f"r{r}\tAP\t{t}\t0.{r}{t}\n" for r in range(3) for t in range(4))
    )
    assert main(["discpower", str(scores), "-B", "5", "--empty-topics", "zero"]) == 2
    err = capsys.readouterr().err
    assert "--empty-topics applies to scores computed with --qrels/--run" in err
