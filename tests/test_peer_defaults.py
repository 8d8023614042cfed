"""Where irgauge's default differs from trec_eval's, the note names the option that gives
trec_eval's number, and ``irgauge eval --like trec_eval`` sets them all (issue 36)."""

from __future__ import annotations

import os

import pytest

from irgauge.cli import main

# topic 2 has no relevant document; topic 1 a negative level (pooled but unjudged for
# trec_eval, judged nonrelevant for irgauge), which bpref tells apart
QRELS = "1 0 a 1\n1 0 b -1\n1 0 f 0\n2 0 c 0\n3 0 d 2\n3 0 g 1\n"
# the same with every difference gone: no note
JUDGED = QRELS.replace("b -1", "b 0").replace("2 0 c 0", "2 0 c 1")
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


# Every command that scores qrels and runs, found in the parser: one with a qrels argument
# and runs. These take both and score nothing, or are the peer itself.
NOT_SCORING = {
    ("pool",): "builds a pool from the runs",
    ("reduce",): "writes reduced qrels",
    ("trec_eval",): "is the peer: its numbers are trec_eval's",
    ("study", "qa"): "scores answers with the QA measures, which trec_eval does not compute",
}
RUN_DESTS = {"run", "runs", "original"}
# commands that score only topics with a relevant document, whatever the option: their
# note names eval's --empty-topics zero instead (none now: the leave-out takes it too)
NO_OPTION: dict = {}


def scoring_commands():
    """(command words, its parser) of every command, nested ones (study X) included,
    that takes qrels and runs."""
    import argparse

    from irgauge.cli import build_parser

    found = []

    def walk(parser, words):
        dests = {a.dest for a in parser._actions}
        if "qrels" in dests and dests & RUN_DESTS:
            found.append((tuple(words), parser))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])

    walk(build_parser(), [])
    return [(words, p) for words, p in found if words not in NOT_SCORING]


def _three_runs(files):
    qrels, run = files
    runs = []
    for tag, swap in (("r", ("", "")), ("s", ("b 1 3", "b 1 1")), ("t", ("e 1 2", "e 1 5"))):
        path = run.replace("run.txt", f"run_{tag}.txt")
        with open(path, "w") as handle:
            handle.write(RUN.replace(" r\n", f" {tag}\n").replace(*swap))
        runs.append(path)
    return qrels, runs


def _meta(words, qrels, runs, tmp):
    return [*words, "--qrels", qrels, "--run", *runs, "-m", "AP"]


def _agree(words, qrels, runs, tmp):
    other = os.path.join(tmp, "other.txt")
    with open(other, "w") as handle:
        handle.write(QRELS.replace("3 0 g 1", "3 0 g 0"))
    return [*words, qrels, other, "--run", *runs, "-m", "AP", "-B", "5", "--seed", "1"]


def _repro(words, qrels, runs, tmp):
    return [*words, qrels, "--original", *runs[:2], "--repeated", runs[2], runs[0]]


def _positional(*extra):
    return lambda words, qrels, runs, tmp: [*words, qrels, *runs, "-m", "AP", *extra]


def _study(*extra):
    def argv(words, qrels, runs, tmp):
        return [*words, qrels, *runs, "--out", os.path.join(tmp, "out"), *extra]

    return argv


# how each command is run on the files above; a new command fails the walk until it is
# given here (and prints the note)
INVOCATIONS = {
    ("agree",): _agree,
    ("compare",): _meta,
    ("correlate",): _meta,
    ("discpower",): lambda *a: [*_meta(*a), "-B", "5", "--seed", "1"],
    ("eval",): _positional(),
    ("incomplete",): _positional("-B", "5", "--seed", "1", "--rates", "50"),
    ("predictive",): lambda *a: [*_meta(*a), "--seed", "1"],
    ("repro",): _repro,
    ("stability",): lambda *a: [*_meta(*a), "--seed", "1", "--trials", "5"],
    ("swap",): lambda *a: [*_meta(*a), "--seed", "1", "--trials", "5"],
    ("topics",): lambda *a: [*_meta(*a), "--min-diff", "0.1"],
    ("study", "onerel"): _study("--seed", "1", "--quiet"),
    ("study", "incomplete"): _study("--seed", "1", "--quiet"),
    ("study", "predictive"): _study("--seed", "1", "--quiet", "-P", "20", "--topic-resamples", "2"),
    ("study", "topicset"): _study("--seed", "1", "--quiet", "-m", "AP"),
    ("study", "pooling"): _study("--seed", "1", "--quiet", "--budgets", "1"),
    ("study", "reusability"): _study("--seed", "1", "--quiet", "--depth", "2"),
}


def _cases():
    """The commands, the studies but one (the quickest, the shared mechanism's witness in
    the quick subset) slow: each writes a study folder in seconds."""
    for words, _ in scoring_commands():
        slow = words[0] == "study" and words != ("study", "predictive")
        yield pytest.param(words, marks=[pytest.mark.slow] if slow else [])


@pytest.mark.parametrize("words", list(_cases()), ids=lambda w: " ".join(w))
@pytest.mark.usefixtures("undrawn_figures")  # the notes are the test's, not the figures
def test_every_command_scoring_runs_notes_trec_eval_number(words, files, tmp_path, capsys):
    """Topic 2 has no relevant document: every command that scores the runs leaves it out
    of the mean by default, as trec_eval does not; each says so, names --empty-topics zero,
    which it takes, and records the note in its output."""
    parser = dict(scoring_commands())[words]
    takes = "--empty-topics" in {s for a in parser._actions for s in a.option_strings}
    assert takes != (words in NO_OPTION)
    assert words in INVOCATIONS, f"give {' '.join(words)}'s invocation in INVOCATIONS"
    qrels, runs = _three_runs(files)
    argv = INVOCATIONS[words](words, qrels, runs, str(tmp_path))
    if "--format" in {s for a in parser._actions for s in a.option_strings}:
        argv += ["--format", "tsv"]  # the table's header shortens the notes
    out, err = run_cli(capsys, argv)
    notes = [line for line in err.splitlines() if line.startswith("irgauge: note:")]
    empty = [n for n in notes if "without relevant documents" in n]
    assert empty and all("--empty-topics zero" in n for n in empty), err
    recorded = out
    manifest = tmp_path / "out" / words[-1] / "manifest.json"
    if manifest.exists():  # a study records its notes in its manifest
        recorded = manifest.read_text()
    # eval's header records the topics themselves; the others record the note
    assert "without relevant documents left out of the mean" in recorded or (
        words == ("eval",) and 'topics_without_relevant: ["2"]' in recorded
    )
    if takes and (words[0] != "study" or words == ("study", "predictive")):
        # the option the note names does give trec_eval's reading (the studies share it)
        _, err = run_cli(capsys, [*argv, "--empty-topics", "zero"])
        assert "without relevant documents" not in err


# ---------------------------------------------------------------- a study's notes, gathered
# where the study runs: in its own context, which its steps' threads share


def test_a_study_called_from_python_records_its_notes(files, tmp_path):
    """run_<name> itself gathers the notes, not only the command line's way to it, and
    two studies running at once in two threads of one process keep theirs apart: one
    qrels has a topic without relevant documents, the other none."""
    import json
    import threading

    from irgauge.studies.predictive import run_predictive
    from tests.conftest import quick_study_figures

    qrels, runs = _three_runs(files)
    judged = os.path.join(str(tmp_path), "judged.txt")
    with open(judged, "w") as handle:
        handle.write(JUDGED)
    errors = []

    def study(q, out):
        try:
            run_predictive(q, runs, out, seed=1, halvings=5, topic_resamples=5)
        except BaseException as err:  # the test's thread reports it to the test
            errors.append(err)

    outs = [tmp_path / "empty", tmp_path / "judged"]
    threads = [threading.Thread(target=study, args=a) for a in zip((qrels, judged), outs)]
    with quick_study_figures():  # (the notes are the test's, not the figures)
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
    assert not errors, errors
    notes = [json.loads((o / "predictive" / "manifest.json").read_text())["notes"] for o in outs]
    assert any("without relevant documents left out of the mean" in n for n in notes[0])
    # the other's notes: only its tables' values that are not finite, none of the peer's
    assert [n for n in notes[1] if " not finite: " not in n] == []


BARRIER_SECONDS = 300  # a hang guard, not a measure of speed


def test_two_gatherings_in_two_threads_keep_their_notes_apart(files):
    """The first thread's evaluation comes after the second thread began gathering: its
    note is the first thread's alone. The evaluations of a gathering's steps, on threads
    of a worker pool, reach it."""
    import threading

    import irgauge
    from irgauge.evaluation.peers import collecting
    from irgauge.io.threads import worker_pool

    qrels, run = files
    judged = qrels.replace("qrels.txt", "judged.txt")
    with open(judged, "w") as handle:
        handle.write(JUDGED)
    both_gathering = threading.Barrier(2, timeout=BARRIER_SECONDS)
    second_done = threading.Event()
    found = {}

    def first():
        with collecting() as notes:
            both_gathering.wait()
            second_done.wait(BARRIER_SECONDS)
            with worker_pool(2) as pool:  # on a thread of the pool, within the gathering
                pool.submit(irgauge.evaluate, qrels, run, ["AP"]).result()
            found["first"] = list(notes)

    def second():
        with collecting() as notes:
            both_gathering.wait()
            irgauge.evaluate(judged, run, ["AP"])
            found["second"] = list(notes)
        second_done.set()

    threads = [threading.Thread(target=first), threading.Thread(target=second)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert found["second"] == []
    assert [n.split(";")[0] for n in found["first"]] == [
        "1 qrels topic without relevant documents left out of the mean",
        "1 qrels line with a negative level read as judged nonrelevant",
    ]
