"""Every option that takes a list (``5,10``, ``AP,P@10``, ``case,space``) refuses an empty
item (``,,5``, ``5,,10``, ``5,``) and an empty text, with exit 2 and one line: the value
left out between the commas is not guessed. Each list was split on its own, and most
dropped empty items (``--cutoffs 5,,10`` ran 5 and 10), while an empty ``--tests``,
``--normalise`` or ``--explain`` stood for the default or for nothing, exit 0. They now
read their text through one splitter (``irgauge._checks.items``; measure lists through
``measures.parse.split_list``), in Python as on the command line.

The options come from the parser (the walk of test_every_option_acts): a list type of
``cli/_options`` (``list_of``), a metavar showing a list (``K,K,...``), or one of the
options read as a list by their command (LISTS_READ_LATER); a new list option is tried
the day it lands. trec_eval's ``-m`` keeps trec_eval's own reading (``P.5,,10``)."""

from __future__ import annotations

import pytest

import test_every_option_acts as acts
from test_every_option_acts import (
    BASELINES,
    HANDED_ON,
    all_commands,
    expand,
    options_of,
    outcome,
    setting,
    without,
)
from irgauge import InputError, MeasureError
from tests.conftest import slow_but_one_each

files = acts.files  # the walk's small collection (a fixture)
hand_on = acts.hand_on  # the studies handed their parameters (a fixture)

# options whose text their command splits as a list after parsing
LISTS_READ_LATER = {"measure", "measures", "explain", "tests", "normalise", "rates"}
# handed to the study as given, split by the study (read_gold's normalise= below)
SPLIT_BY_THE_STUDY = {("study qa", "normalise")}
# where an empty item is left before the setting's value, between it and itself, after it
EMPTY = {"leading": ",,{v}", "between": "{v},,{v}", "trailing": "{v},"}


def list_options():
    for command, parser in sorted(all_commands().items()):
        if command == "trec_eval":
            continue
        for action in options_of(parser):
            kind = getattr(action.type, "__name__", "")
            if (
                kind in ("list", "_gain_list")
                or (isinstance(action.metavar, str) and "," in action.metavar)
                or action.dest in LISTS_READ_LATER
            ) and (command, action.dest) not in SPLIT_BY_THE_STUDY:
                yield command, action.dest


CASES = [
    (command, dest, where)
    for at, (command, dest) in enumerate(list_options())
    for where in [sorted(EMPTY)[at % len(EMPTY)]]
]


def test_the_walk_finds_the_lists():
    found = {(command, dest) for command, dest, _ in CASES}
    for listed in [("repro", "cutoffs"), ("pool", "strata"), ("compare", "tests"),
                   ("qa eval", "normalise"), ("measures", "explain"), ("eval", "measures"),
                   ("study pooling", "strategies"), ("reduce", "rates")]:  # fmt: skip
        assert listed in found


@pytest.mark.parametrize("command, dest, where", slow_but_one_each(CASES, lambda c: c[0]))
def test_an_empty_item_of_a_list_option_is_refused(command, dest, where, files, tmp_path, request):
    if command.split()[0] in HANDED_ON:
        request.getfixturevalue("hand_on")
    parser = all_commands()[command]
    action = next(a for a in options_of(parser) if a.dest == dest)
    flag, *values = setting(command, action)
    value = EMPTY[where].format(v=expand(values, files)[0])
    base = expand(BASELINES[command], files)
    code, _, err, written = outcome(
        [*command.split(), *without(base, parser, {dest}), flag, value], tmp_path / "run"
    )
    lines = [x for x in err.strip().splitlines() if not x.startswith(("usage:", " "))]
    assert code == 2, err
    assert len(lines) == 1 and "empty item" in lines[0], err
    assert written == {}


def text_options():
    """Every list option, and every colon list (``--gains 1:2:3``): an empty text is refused."""
    yield from list_options()
    for command, parser in sorted(all_commands().items()):
        if command != "trec_eval":
            yield from ((command, a.dest) for a in options_of(parser) if a.dest == "gains")


EMPTY_TEXT = sorted(set(text_options()))


@pytest.mark.parametrize("command, dest", slow_but_one_each(EMPTY_TEXT, lambda c: c[0]))
def test_an_empty_list_option_is_refused_not_read_as_the_default(
    command, dest, files, tmp_path, request
):
    if command.split()[0] in HANDED_ON:
        request.getfixturevalue("hand_on")
    parser = all_commands()[command]
    action = next(a for a in options_of(parser) if a.dest == dest)
    base = expand(BASELINES[command], files)
    code, _, err, written = outcome(
        [*command.split(), *without(base, parser, {dest}), action.option_strings[-1], " "],
        tmp_path / "run",
    )
    lines = [x for x in err.strip().splitlines() if not x.startswith(("usage:", " "))]
    assert code == 2 and len(lines) == 1, err
    assert action.option_strings[-1] in lines[0] or "given" in lines[0], err
    assert written == {}


def test_the_python_api_refuses_empty_gains():
    with pytest.raises(InputError, match="no gains given"):
        __import__("irgauge").evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, "nDCG", gains="")


@pytest.mark.parametrize(
    "call",
    [
        lambda: __import__("irgauge").reduce_qrels({"1": {"d": 1}}, rates="50,,70", seed=1),
        lambda: __import__("irgauge").reduce_to_depth({"1": {"d": 1}}, {"1": {"d": 1.0}}, "5,"),
        lambda: __import__("irgauge").read_gold({"q": {"a": ("c", 1)}}, normalise="case,,space"),
        lambda: __import__("irgauge").evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, "AP,,P@5"),
    ],
    ids=["reduce_qrels rates", "reduce_to_depth depths", "read_gold normalise", "evaluate"],
)
def test_the_python_api_refuses_an_empty_item_too(call):
    with pytest.raises((InputError, MeasureError), match="empty item"):
        call()
