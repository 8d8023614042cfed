"""The Python API names a concept as the command line does (issue 36).

``run_predictive(trials=)`` meant halvings where ``predictive_power`` and ``study predictive
-P/--halvings`` say ``halvings``, and ``trials`` counts topic-subset draws everywhere else.
Two checks, both derived from the parsers (tests/test_option_spellings.py):

- every option a study command hands to its study function arrives under its own
  destination's name (``--halvings`` as ``halvings=``), or under a reviewed other name;
- no public function takes a keyword spelled as an option's old spelling (``--B``,
  ``--mode``, ``--level``, ``--threads``) where that name is no option's concept now: such
  a keyword is the old name of the option's concept, and takes its name. An old name
  still works for a release, with a FutureWarning (``_checks.renamed_keywords``).
"""

from __future__ import annotations

import argparse
import functools
import inspect

import pytest

from irgauge.cli import build_parser
from irgauge.errors import InputError
from test_option_spellings import leaf_commands, options

# (study option's destination, keyword of the study function) -> why they differ
HANDED_AS = {
    ("depth", "depths"): "incomplete's --depth takes a list of depths; the Python keyword is "
    "plural, as reduce_to_depth(depths=) and incomplete_study(depths=) name it",
}


def public_functions() -> dict:
    """{name: function} of the package's public functions and the studies' functions."""
    import irgauge
    from irgauge.studies import STUDIES, study_function

    found = {name: getattr(irgauge, name) for name in irgauge.__all__}
    found.update({f"run_{name}": study_function(name) for name in STUDIES})
    return {name: f for name, f in found.items() if inspect.isfunction(f)}


class _Given:
    """The value of one option, to find under which keyword the command hands it on."""


def _paths(value, marker, path=()):
    """The keys (dotted, through nested mappings) under which ``marker`` lies in ``value``."""
    if value is marker:
        yield ".".join(path)
    elif isinstance(value, dict):
        for key, inner in value.items():
            yield from _paths(inner, marker, (*path, str(key)))
    elif isinstance(value, (list, tuple)) and any(item is marker for item in value):
        yield ".".join(path)


def handed_on():
    """(command, destination, keyword) of every study option handed to the study function
    as given: each option's value is replaced by a marker, the command's keyword builders
    (``cli._study_options``) run on the defaults, and the marker is looked for in their keywords."""
    from irgauge.cli import _study_options

    found = []
    for command, parser in leaf_commands(build_parser(["study"])):
        defaults = {a.dest: a.default for a in parser._actions if a.dest != "help"}
        defaults.update(parser._defaults)
        for action in parser._actions:
            if not action.option_strings or isinstance(action, argparse._HelpAction):
                continue
            marker = _Given()
            args = argparse.Namespace(**{**defaults, action.dest: marker})
            keywords: dict = {}
            for build in args.study_keywords:
                try:
                    keywords.update(build(args))
                # a value it converts (a list it splits, --rates read by parse_rates)
                except (TypeError, AttributeError, InputError):
                    pass
            if "study_selection" in defaults:
                keywords.update(_study_options._selection(args))
            for path in _paths(keywords, marker):
                found.append((command, action.dest, path.split(".")[-1]))
    return found


HANDED_ON = handed_on()


def test_the_walk_finds_the_study_options():
    dests = {dest for _, dest, _ in HANDED_ON}
    assert {"halvings", "samples", "trials", "topic_resamples", "subset_sizes"} <= dests
    assert len(HANDED_ON) >= 40, HANDED_ON


def test_a_study_option_is_handed_on_under_its_own_name():
    differ = sorted(
        f"{command} {dest} -> {keyword}="
        for command, dest, keyword in HANDED_ON
        if dest != keyword and (dest, keyword) not in HANDED_AS
    )
    assert not differ, differ


def test_every_reviewed_difference_is_still_there():
    found = {(dest, keyword) for _, dest, keyword in HANDED_ON}
    assert not [pair for pair in HANDED_AS if pair not in found]


# old spellings whose name is a Python keyword of another concept -> why
NOT_OLD_NAMES = {
    "systems": "compare --systems A B was retired for --pair A B because --systems M counts "
    "systems in topics and study topicset; in Python that count (the ANOVA's M) is "
    "anova_systems=, as the results record it, and systems= are the systems' names "
    "(compare_pairs, ScoreMatrix.systems), neither a pair to compare",
}


@functools.lru_cache(maxsize=None)  # the walk of every parser, once for every function
def old_names() -> dict:
    """{old name as a Python keyword: (the option's concept, where)} of every old spelling
    (deprecated or retired) whose name is no option's concept now."""
    concepts = {action.dest for _, action in options()}
    found = {}
    for command, action in options():
        for old in (*getattr(action, "old_spellings", ()), *action_retired(action)):
            name = old.lstrip("-").replace("-", "_")
            if name not in concepts and name not in NOT_OLD_NAMES:
                found[name] = (action.dest, f"{command} {old}")
    return found


def action_retired(action) -> tuple:
    return getattr(action, "retired_spellings", ())


def test_the_old_names_are_found():
    assert {"B", "mode", "level", "threads"} <= set(old_names())


def test_every_name_excused_is_an_old_spelling_still():
    """An entry of NOT_OLD_NAMES goes when no old spelling of an option has its name, or
    when an option's concept has it again (the entry would then excuse nothing)."""
    concepts = {action.dest for _, action in options()}
    spelled = {
        old.lstrip("-").replace("-", "_")
        for _, action in options()
        for old in (*getattr(action, "old_spellings", ()), *action_retired(action))
    }
    assert not [name for name in NOT_OLD_NAMES if name not in spelled or name in concepts]


PUBLIC = sorted(public_functions().items())


@pytest.mark.parametrize("name, function", PUBLIC, ids=[name for name, _ in PUBLIC])
def test_no_public_keyword_is_an_old_option_name(name, function):
    old = old_names()
    stale = [
        f"{name}({keyword}=): the old name of {old[keyword][0]} ({old[keyword][1]})"
        for keyword in inspect.signature(function).parameters
        if keyword in old
    ]
    assert not stale, stale


@pytest.mark.parametrize(
    "call, old, new",
    [
        ("run_predictive", "trials", "halvings"),
        ("run_predictive", "sizes", "subset_sizes"),
        ("run_onerel", "B", "samples"),
        ("run_incomplete", "B", "samples"),
        ("swap_rates", "mode", "swap_mode"),
        ("compare_table", "level", "confidence"),
        ("evaluate", "threads", "jobs"),
        ("read_run", "threads", "jobs"),
        # order= is a run's document order (evaluate, --order); a drawn set of topic
        # indices is indices= in every other meta-evaluation function
        ("predictive_power", "order", "indices"),
        # as qa_evaluate, --gold-format, --run-format and --answer-order name them
        ("read_gold", "fmt", "gold_format"),
        ("read_answers", "fmt", "run_format"),
        ("read_answers", "order", "answer_order"),
        # a count of systems, where systems= are names (compare_pairs)
        ("topic_set_size", "systems", "anova_systems"),
        ("min_detectable_diff", "systems", "anova_systems"),
        ("run_topicset", "systems", "anova_systems"),
    ],
)
def test_an_old_keyword_warns_and_both_are_refused(call, old, new):
    """The old keyword still reaches the function, with a FutureWarning naming the new
    one; both at once are refused before anything runs."""
    from irgauge import InputError

    function = public_functions()[call]
    with pytest.raises(InputError, match=f"^{old}: the old name of {new}; give {new} only"):
        function(**{old: 1, new: 1})
    with pytest.warns(FutureWarning, match=rf"{call}\({old}=\.\.\.\) is the old name of {new}"):
        with pytest.raises(Exception):  # no inputs given: what matters is the warning
            function(**{old: 1})


def test_a_tables_old_format_keyword_warns():
    """ComparisonTable.render took its format as fmt=, where --format names it."""
    import numpy as np

    import irgauge
    from irgauge import InputError

    values = np.array([[0.1, 0.4, 0.3, 0.5], [0.2, 0.6, 0.2, 0.7], [0.3, 0.3, 0.4, 0.4]])
    table = irgauge.compare_table(
        {"AP": irgauge.ScoreMatrix(values, ["a", "b", "c"], ["1", "2", "3", "4"], "AP")},
        seed=1,
    )
    with pytest.warns(FutureWarning, match=r"render\(fmt=\.\.\.\) is the old name of format"):
        assert table.render(fmt="csv") == table.render(format="csv")
    with pytest.raises(InputError, match="^fmt: the old name of format; give format only"):
        table.render(fmt="csv", format="csv")
