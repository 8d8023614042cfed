"""A measure given twice to ``-m`` is refused by every command that takes ``-m``, in one line
naming the option and the measure, before anything is read: each measure names a column or
rows of the result, and eval and the meta commands kept one silently where the studies
refused. The trec_eval drop-in takes a repeat, as trec_eval does (issue 36).

The commands come from the parser, so a command that takes ``-m`` is covered the day it
lands."""

from __future__ import annotations

import argparse

import pytest

from irgauge import InputError
from irgauge.cli import build_parser, main
from irgauge.measures.parse import measure_texts

DROP_IN = ("trec_eval",)  # trec_eval's getopt takes -m P -m P: the drop-in keeps its reading


def measure_commands():
    """The words of every command, nested ones (study X) included, that takes -m."""
    found = []

    def walk(parser, words):
        if any("-m" in a.option_strings for a in parser._actions):
            found.append(tuple(words))
        for action in parser._actions:
            if isinstance(action, argparse._SubParsersAction):
                for name, sub in action.choices.items():
                    walk(sub, [*words, name])

    walk(build_parser(), [])
    return [words for words in found if words != DROP_IN]


def test_the_walk_finds_the_commands_that_take_measures():
    found = measure_commands()
    assert {("eval",), ("compare",), ("agree",), ("study", "topicset")} <= set(found)
    assert len(found) >= 10, found


@pytest.mark.parametrize("words", measure_commands(), ids=" ".join)
@pytest.mark.parametrize(
    "given, option, named",
    [
        (["-m", "AP,AP"], "-m", "measure given twice: AP;"),
        (["-m", "AP", "-m", "P@10", "-m", "AP"], "-m", "measure given twice: AP;"),
        (
            ["--measure", "AP P@10", "--measure", "P@10,AP"],
            "--measure",
            "measures given twice: P@10, AP;",
        ),
    ],
    ids=["one value", "two values", "long spelling"],
)
def test_a_measure_given_twice_is_refused_naming_it(words, given, option, named, capsys):
    code = main([*words, *given])  # refused as the option is read: no input is needed
    err = capsys.readouterr().err
    assert code == 2, err
    assert err.count("\n") == 1 and err.startswith(f"irgauge: error: {option}: "), err
    assert named in err, err


def test_measures_given_once_each_are_taken(capsys):
    """The refusal counts spellings: AP and its alias map are two columns, as before."""
    args = build_parser(["eval"]).parse_args(["eval", "-m", "AP,map", "-m", "P@10"])
    assert args.measures == ["AP,map", "P@10"]


def test_the_python_api_names_the_measure_given_twice():
    with pytest.raises(InputError, match=r"^measures given twice: AP, P@10; give each once$"):
        measure_texts(["AP", "P@10", "AP", "P@10", "AP"])
    assert measure_texts("AP") == ["AP"]


def test_the_drop_in_takes_a_measure_twice_as_trec_eval_does(tmp_path, capsys):
    qrels, run = tmp_path / "qrels", tmp_path / "run"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run.write_text("1 Q0 a 1 2 r\n1 Q0 b 2 1 r\n")
    once = main(["trec_eval", "-m", "map", str(qrels), str(run)]), capsys.readouterr()
    twice = main(["trec_eval", "-m", "map", "-m", "map", str(qrels), str(run)]), capsys.readouterr()
    assert once[0] == twice[0] == 0
    assert once[1].out == twice[1].out and "map" in once[1].out
