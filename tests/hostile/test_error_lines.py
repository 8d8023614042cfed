"""Errors are one line naming the file or the option: an unknown option is refused by the
command it follows, with that command's usage; too little data, counted below the layer
that read the files, names the files; an option that leaves nothing to score names itself."""

from __future__ import annotations

import argparse
import re
from pathlib import Path

import pytest

from irgauge.cli import build_parser

BOGUS = "--no-such-option"


def _commands(parser, path=()):
    """(command words, parser) of every command that runs, nested ones included."""
    nested = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if path and not nested:
        yield path, parser
    for action in nested:
        for name, sub in action.choices.items():
            yield from _commands(sub, path + (name,))


def _required(parser):
    """Values for the command's required arguments, so that the unknown option is the
    only fault (a choice where one is required, else a number, which every type takes)."""
    argv = []
    for action in parser._actions:
        if action.option_strings and action.required:
            value = list(action.choices)[0] if action.choices else "1"
            argv += [action.option_strings[-1], str(value)]
        elif not action.option_strings and action.nargs not in ("?", "*"):
            argv += ["x"] * (action.nargs if isinstance(action.nargs, int) else 1)
    return argv


COMMANDS = list(_commands(build_parser()))


@pytest.mark.parametrize("words, parser", COMMANDS, ids=[" ".join(w) for w, _ in COMMANDS])
def test_an_unknown_option_gets_its_commands_usage(cli, words, parser):
    code, out, err = cli(*words, *_required(parser), BOGUS)
    assert code in (1, 2) and out == ""  # 1: the trec_eval drop-in exits as trec_eval does
    assert err.startswith(f"usage: {parser.prog} "), err
    assert err.splitlines()[-1] == f"{parser.prog}: error: unrecognized arguments: {BOGUS}"


def test_the_walk_reaches_nested_commands():
    names = {" ".join(words) for words, _ in COMMANDS}
    assert {"discpower", "study onerel", "qa eval", "trec_eval"} <= names


ONE_TOPIC = "topic,a,b,c\nt1,0.1,0.5,0.9\n"


@pytest.mark.parametrize(
    "argv",
    [
        ["discpower"],
        ["compare"],
        ["compare", "--table"],
        ["swap"],
        ["stability"],
        ["predictive", "--top-fraction", "1"],
        ["topics", "--min-diff", "0.1"],
    ],
    ids=lambda argv: " ".join(argv),
)
def test_too_little_data_names_the_score_file(cli, tmp_path, argv):
    path = tmp_path / "one-topic.csv"
    path.write_text(ONE_TOPIC)
    code, out, err = cli(argv[0], path, *argv[1:])
    assert code == 2 and out == ""
    assert err.startswith(f"irgauge: error: {path}: ") and err.count("\n") == 1, err


def test_too_little_data_names_the_qrels(cli, tmp_path, collection):
    qrels, run = collection
    one = tmp_path / "one.qrels"
    one.write_text("".join(l + "\n" for l in open(qrels).read().splitlines() if l.startswith("1 ")))
    other = tmp_path / "other.run"
    other.write_text(open(run).read().replace(" r\n", " other\n"))
    code, _, err = cli("discpower", "--qrels", one, "--run", run, other, "-m", "AP", "-B", "10")
    assert code == 2 and err.startswith(f"irgauge: error: {one}: "), err


def test_agree_with_one_judgment_group_names_the_file(cli, tmp_path):
    path = tmp_path / "groups.qrels"
    path.write_text("1 g1 d1 1\n1 g1 d2 0\n")
    code, _, err = cli("agree", "-g", path)
    assert code == 2
    assert err == f"irgauge: error: {path}: agree needs at least 2 qrels; got 1\n"


def test_a_level_no_document_reaches_names_the_option_and_the_level(cli, tmp_path, collection):
    qrels, run = collection
    other = tmp_path / "other.run"
    other.write_text(open(run).read().replace(" r\n", " other\n"))
    code, _, err = cli("agree", qrels, qrels, "--run", run, other, "-l", "99", "-B", "10")
    assert code == 2 and err.count("\n") == 1, err
    assert "-l/--rel-level" in err and ">= 99" in err and "complete=True" not in err
    assert err.startswith(f"irgauge: error: {qrels}: ")


def test_a_study_on_too_little_data_names_the_file(cli, tmp_path):
    path = tmp_path / "one-topic.csv"
    path.write_text(ONE_TOPIC)
    out = tmp_path / "out"
    code, _, err = cli(
        "study", "topicset", "--scores", f"A={path}", "--out", out, "--min-diff", "0.1", "--quiet"
    )
    assert code == 2 and err.startswith(f"irgauge: error: {path}: "), err
    assert not out.exists()


@pytest.mark.parametrize(
    "argv",
    [
        ["topics", "--min-diff", "0.1"],
        ["discpower", "-B", "10"],
        ["study", "pooling", "--budgets", "2", "--out", "st", "--quiet"],
    ],
    ids=lambda argv: " ".join(argv[:2]),
)
def test_one_run_names_the_inputs_and_the_system(cli, tmp_path, collection, monkeypatch, argv):
    """Scores computed from qrels and one run: the error names the command's input and
    the one system, where it named a made-up file "evaluate" and "1 system(s)"."""
    monkeypatch.chdir(tmp_path)
    qrels, run = collection
    words = argv[:2] if argv[0] == "study" else argv[:1]
    inputs = [qrels, run] if argv[0] == "study" else ["--qrels", qrels, "--run", run, "-m", "AP"]
    code, out, err = cli(*words, *inputs, *argv[len(words) :])
    assert code == 2 and out == ""
    assert err == f"irgauge: error: {qrels}: measure AP: 1 system (r); at least 2 are needed\n"


SOURCE = Path(__file__).resolve().parents[2] / "src" / "irgauge"
# a formatted count, then a noun written for both numbers: "{n} topic(s)", "{n} qrels topic(s)"
COUNT_S = re.compile(r"\{[^{}]*\}\s+(?:\w+\s+)?\w+\(s\)")


def test_counts_in_messages_go_through_counted():
    """ "1 topic", "3 topics": every count of a message is counted() (io.words), where
    notes and errors said "1 topic(s)", "2 worker(s)", "1 system(s)". The source is read
    with its implicit string concatenations joined, as the message is."""
    found = []
    for path in sorted(SOURCE.rglob("*.py")):
        text = re.sub(r'"\s*\n\s*f?"', "", path.read_text(encoding="utf-8"))
        found += [f"{path.relative_to(SOURCE)}: {m.group(0)}" for m in COUNT_S.finditer(text)]
    assert not found, found
