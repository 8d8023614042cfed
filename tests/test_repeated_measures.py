"""A measure given twice to ``-m`` is refused by every command that takes ``-m``, in one line
naming the option and the measure, before anything is read: each measure names a column or
rows of the result, and eval and the meta commands kept one silently where the studies
refused. An alias is the measure it names (AP, MAP, map). The Python API refuses them
through the same check. The trec_eval drop-in takes a repeat, as trec_eval does (issue 36).

The commands come from the parser, so a command that takes ``-m`` is covered the day it
lands."""

from __future__ import annotations

import argparse
import re

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


def test_measures_given_once_each_are_taken():
    """Parameters written out are a measure of their own: trec_eval prints Rprec and
    Rprec_mult_1.00 as two lines, equal as they are."""
    args = build_parser(["eval"]).parse_args(["eval", "-m", "AP,P@10", "-m", "nDCG@10"])
    assert args.measures == ["AP,P@10", "nDCG@10"]
    args = build_parser(["eval"]).parse_args(["eval", "-m", "Rprec", "-m", "Rprec(mult=1.00)"])
    assert args.measures == ["Rprec", "Rprec(mult=1.00)"]


@pytest.mark.parametrize(
    "given, named",
    [
        (["-m", "AP,map"], "map (as AP)"),
        (["-m", "AP", "-m", "MAP"], "MAP (as AP)"),
        (["-m", "P@10", "-m", "P_10"], "P_10 (as P@10)"),
        (["-m", "P.5,10", "-m", "P@10"], "P@10 (as P.5,10)"),
    ],
)
def test_an_alias_is_the_measure_it_names(given, named, capsys):
    """AP and its aliases (MAP, trec_eval's map) are one measure, as score files read them
    (``scores.lookup``): two columns of one measure were written, and Python kept them
    while it refused ``["AP", "AP"]``."""
    assert main(["eval", *given]) == 2
    assert f"-m: measure given twice: {named}; give each once" in capsys.readouterr().err


def public_functions_taking_measures():
    """(name, function) of every public function with a ``measures`` parameter: the
    package's names and the studies' functions."""
    import inspect

    import irgauge
    from irgauge.studies import STUDIES, study_function

    functions = {name: getattr(irgauge, name) for name in irgauge.__all__}
    functions.update({f"run_{name}": study_function(name) for name in STUDIES})
    return [
        (name, function)
        for name, function in sorted(functions.items())
        if inspect.isfunction(function) and "measures" in inspect.signature(function).parameters
    ]


MEASURE_TAKERS = public_functions_taking_measures()


def test_the_walk_finds_the_functions_that_take_measures():
    names = {name for name, _ in MEASURE_TAKERS}
    assert {"evaluate", "score_matrices", "qa_evaluate", "agreement", "read_scores"} <= names
    assert len(names) >= 10, names


@pytest.mark.parametrize("name, function", MEASURE_TAKERS, ids=[n for n, _ in MEASURE_TAKERS])
@pytest.mark.parametrize(
    "measures, named",
    [(["AP", "AP"], "AP"), (["AP", "MAP"], "MAP (as AP)"), ("AP,AP", "AP")],
    ids=["repeat", "alias", "in one string"],
)
def test_every_public_function_refuses_a_measure_given_twice(name, function, measures, named):
    """``evaluate(measures=["AP", "AP"])`` kept one AP where ``-m AP -m AP`` is refused:
    every public function taking measures refuses them through the one check
    (``measures.parse.refuse_repeats``), naming the parameter, before any input is read
    (the inputs here do not exist)."""
    import inspect

    missing = "/nonexistent/irgauge-input"
    arguments = {
        parameter.name: [missing, missing] if parameter.name.endswith("_list") else missing
        for parameter in inspect.signature(function).parameters.values()
        if parameter.default is inspect.Parameter.empty
        and parameter.kind in (parameter.POSITIONAL_OR_KEYWORD, parameter.KEYWORD_ONLY)
    }
    with pytest.raises(InputError, match=f"^measure given twice: {re.escape(named)};") as err:
        function(**{**arguments, "measures": measures})
    assert err.value.parameter == "measures"


def test_measure_objects_and_strings_are_compared_as_measures():
    from irgauge import evaluate, parse_measure

    with pytest.raises(InputError, match=r"^measure given twice: MAP \(as AP\);"):
        evaluate({"1": {"a": 1}}, {"1": {"a": 1.0}}, [parse_measure("AP"), "MAP"])


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
