"""One spelling per option across all commands, one meaning per spelling (issue 36).

The commands and their options come from the parser itself, as in
tests/hostile/test_every_option_acts.py. An option's *concept* is its destination (two
destinations naming one thing are mapped to one in SAME_CONCEPT); its *meaning* is the
concept with the kind of value it takes. The audit fails when

- one concept is spelled two ways in two commands (``--B`` in one, ``-B/--samples`` in
  another), or two concepts are described alike (the first clause of their help, one a
  prefix of the other: ``bootstrap samples`` under two destinations);
- one spelling means two things in two commands (``--systems A B`` and ``--systems M``).

What differs on purpose is in the tables below, each with its reason and what the audit
found there; a test holds every entry to the parser, so that an entry goes when what it
excused goes (``--trials`` was excused as one meaning long after ``study topicset --trials``
had become a second one, which the table then hid). Old spellings kept for scripts
(``option_spellings.add_renamed``) are not counted as a second spelling of their concept (they must
say in the help that they are deprecated, and a note names the spelling to use), but they
are meanings like any spelling: ``study predictive --trials`` (halvings) and ``study
topicset --trials`` (topic resamples) were old spellings that the audit skipped while
``--trials`` counted topic-subset draws elsewhere. An old spelling with another meaning
elsewhere is retired (refused, with a hint naming the spelling to use).
"""

from __future__ import annotations

import argparse
import re
from collections import defaultdict

import pytest

from irgauge.cli import build_parser, main

# commands that follow another tool's option names rather than irgauge's
OWN_SPELLINGS = {
    "trec_eval": "the drop-in takes trec_eval 10.0's own flags and long names (-l, -c, -q, "
    "-M, -o meaning trec_eval's old output format), so that scripts written for "
    "trec_eval run unchanged",
}
# destinations that name one concept
SAME_CONCEPT = {
    "measures": "measure",  # -m/--measure: a list of measures, under either name
    "subset_sizes": "subset_size",  # -k/--subset-size; predictive takes several sizes
}
# concept -> (why it has more than one spelling, the spellings)
SPELLINGS = {
    "subset_size": (
        "predictive (and study predictive) take several sizes and accept the plural "
        "--subset-sizes besides -k/--subset-size",
        {("-k", "--subset-size"), ("-k", "--subset-size", "--subset-sizes")},
    ),
    "complete": (
        "qa eval scores unanswered questions 0 by default (NTCIREVAL's reading): its switch "
        "turns that off (--skip-unanswered), where eval's -c/--complete turns it on",
        {("-c", "--complete"), ("--skip-unanswered",)},
    ),
}
# spelling -> (why it has more than one meaning, the meanings: concept and kind of value)
MEANINGS = {
    "-k": (
        "topics per subset: one size, or several where a method draws a curve (predictive)",
        {("subset_size", "one"), ("subset_size", "several")},
    ),
    "--subset-size": ("as -k", {("subset_size", "one"), ("subset_size", "several")}),
    "--gains": (
        "eval takes one gain per level; a study compares several such variants (comma-separated)",
        {("gains", "one"), ("gains", "several")},
    ),
    "--depth": (
        "a pool's depth K: one where the command builds one pool (pool, the pooling and "
        "reusability studies; simulate's runs are that deep), a list where it writes or "
        "studies one reduction per depth (reduce, incomplete)",
        {("depth", "one"), ("depth", "several")},
    ),
    "--runs": (
        "the runs: the run files a depth reduction pools (reduce), or how many runs simulate "
        "writes",
        {("runs", "one"), ("runs", "several")},
    ),
}
# pairs of concepts whose help begins alike -> why they are different options
ALIKE: dict = {}


def leaf_commands(parser, words=()):
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if words and not subs:
        yield " ".join(words), parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from leaf_commands(sub, (*words, name))


def options():
    """(command, action) of every option of every command, trec_eval's own left out."""
    for command, parser in leaf_commands(build_parser()):
        if command in OWN_SPELLINGS:
            continue
        for action in parser._actions:
            if action.option_strings and not isinstance(action, argparse._HelpAction):
                yield command, action


def spellings(action) -> tuple:
    old = getattr(action, "old_spellings", ())
    return tuple(s for s in action.option_strings if s not in old)


def concept(action) -> str:
    return SAME_CONCEPT.get(action.dest, action.dest)


def meaning(action) -> tuple:
    """The concept and the kind of value: none (a switch), one, or several."""
    if action.nargs == 0:
        kind = "switch"
    elif action.nargs in (None, "?"):
        kind = "several" if getattr(action.type, "__name__", "") in SEVERAL else "one"
    else:
        kind = "several"
    return concept(action), kind


# the types (_options) of an option taking a comma-separated list
SEVERAL = {"list", "rates", "_gain_list"}


def help_concept(action) -> str:
    """The first clause of the help: what the option is."""
    text = re.sub(r"\(s\)", "", (action.help or "").lower()).replace("%%", "%")
    return re.split(r"[;:(,]", text)[0].strip()


def spelled() -> dict:
    """{concept: {spellings: [commands]}} of the concepts spelled more than one way."""
    found = defaultdict(lambda: defaultdict(list))
    for command, action in options():
        found[concept(action)][spellings(action)].append(command)
    return {name: dict(ways) for name, ways in found.items() if len(ways) > 1}


def meant() -> dict:
    """{spelling: {meaning: [commands]}} of the spellings with more than one meaning, old
    spellings included: a script that gives one is read in that meaning."""
    found = defaultdict(lambda: defaultdict(list))
    for command, action in options():
        for flag in action.option_strings:
            found[flag][meaning(action)].append(command)
    return {flag: dict(meanings) for flag, meanings in found.items() if len(meanings) > 1}


def test_one_concept_has_one_spelling():
    twice = {
        name: {"/".join(flags): commands for flags, commands in ways.items()}
        for name, ways in spelled().items()
        if name not in SPELLINGS
    }
    assert not twice, f"one option, several spellings: {twice}"


def test_one_spelling_has_one_meaning():
    twice = {flag: meanings for flag, meanings in meant().items() if flag not in MEANINGS}
    assert not twice, f"one spelling, several meanings: {twice}"


def _prefix(a: str, b: str) -> bool:
    short, long = sorted((a.split(), b.split()), key=len)
    return bool(short) and long[: len(short)] == short


def described():
    """(concept, first clause of its help, command, spellings) of every described option of
    every command, each help once per concept: one concept's help in one command may begin
    like another concept's in another (``study topicset --trials``, "bootstrap resamples of
    the topics", was ``--topic-resamples`` of the other studies; only the first command's
    help of each concept was compared)."""
    seen = {}
    for command, action in options():
        if action.help and action.help != argparse.SUPPRESS:
            key = (concept(action), help_concept(action))
            seen.setdefault(key, (command, spellings(action)))
    return [(name, text, command, flags) for (name, text), (command, flags) in seen.items()]


def alike_pairs():
    """{frozenset of two concepts: [where they are described alike]}."""
    found = defaultdict(list)
    entries = sorted(described())
    for i, (a, text_a, cmd_a, flags_a) in enumerate(entries):
        for b, text_b, cmd_b, flags_b in entries[i + 1 :]:
            if a != b and _prefix(text_a, text_b):
                found[frozenset({a, b})].append(
                    f"{cmd_a} {'/'.join(flags_a)} and {cmd_b} {'/'.join(flags_b)}: "
                    f"{text_a!r} / {text_b!r}"
                )
    return found


def test_options_described_alike_are_one_option():
    alike = [
        where for pair, places in alike_pairs().items() if pair not in ALIKE for where in places
    ]
    assert not alike, "described alike, spelled apart: " + "; ".join(alike)


def test_every_reviewed_exception_is_what_the_parsers_say():
    """Each entry of the tables above excuses what the audit finds today, no more and no
    less: an entry whose spellings, meanings or alike pair the parsers no longer show (its
    options renamed, or a meaning gone) fails, as does an entry that a new meaning or
    spelling has outgrown, so that no entry hides a case its reason does not cover."""
    commands = {command for command, _ in leaf_commands(build_parser())}
    dests = {action.dest for _, action in options()}
    found_spellings, found_meanings, found_alike = spelled(), meant(), alike_pairs()
    stale = [f"OWN_SPELLINGS {c!r}: no such command" for c in OWN_SPELLINGS if c not in commands]
    stale += [
        f"SAME_CONCEPT {dest!r}: no option has that destination"
        for dest in SAME_CONCEPT
        if dest not in dests
    ]
    stale += [
        f"SPELLINGS {name!r} says {sorted(ways)}, the parsers {found_spellings.get(name, 'one')}"
        for name, (_, ways) in SPELLINGS.items()
        if set(found_spellings.get(name, {})) != ways
    ]
    stale += [
        f"MEANINGS {flag!r} says {sorted(kinds)}, the parsers {found_meanings.get(flag, 'one')}"
        for flag, (_, kinds) in MEANINGS.items()
        if set(found_meanings.get(flag, {})) != kinds
    ]
    stale += [f"ALIKE {sorted(pair)}: not alike" for pair in ALIKE if pair not in found_alike]
    assert not stale, "; ".join(stale)


def test_every_option_is_described():
    """Every option of every command, the drop-in's included, has its help (``irgauge
    trec_eval --help`` left -l, -N, -M, -R and -T undescribed); the audit of help texts
    above sees every concept."""
    missing = [
        f"{command} {'/'.join(action.option_strings)}"
        for command, parser in leaf_commands(build_parser())
        for action in parser._actions
        if action.option_strings and not action.help
    ]
    assert not missing


OLD = [(command, action) for command, action in options() if getattr(action, "old_spellings", ())]


@pytest.mark.parametrize("command, action", OLD, ids=[f"{c} {a.dest}" for c, a in OLD])
def test_an_old_spelling_is_announced(command, action):
    assert "deprecated" in action.help
    for old in action.old_spellings:
        assert old in action.help


def test_deprecation_is_said_only_of_a_named_spelling():
    """``--jobs`` said "(: the old spellings, deprecated)" in every command but eval, which
    has no old spelling: the help speaks of old spellings only where it names them."""
    vague = [
        f"{command} {'/'.join(action.option_strings)}"
        for command, action in options()
        if "old spelling" in (action.help or "") and not getattr(action, "old_spellings", ())
    ]
    assert not vague, vague


def test_bootstrap_samples_are_B_everywhere(capsys):
    """``study onerel ... -B 200`` was refused (the studies and the demo took --B only)."""
    for command, action in options():
        if concept(action) == "samples":
            assert spellings(action) == ("-B", "--samples"), command
    with pytest.raises(SystemExit):
        main(["study", "onerel", "-B", "1", "--help"])
    assert "-B SAMPLES, --samples SAMPLES" in capsys.readouterr().out


def test_an_old_spelling_gives_a_note(tmp_path, capsys):
    scores = tmp_path / "s.tsv"
    scores.write_text(
        "run\tmeasure\ttopic\tvalue\n"
        + "".join(f"r{r}\tAP\t{t}\t0.{r}{t}\n" for r in range(3) for t in range(4))
    )
    argv = ["swap", str(scores), "--seed", "1", "--trials", "5", "--mode", "original"]
    assert main(argv) == 0
    err = capsys.readouterr().err
    assert "--mode is the old spelling of --swap-mode, deprecated; write --swap-mode" in err


RETIRED = [
    (command, action, old)
    for command, action in options()
    for old in getattr(action, "retired_spellings", ())
]


@pytest.mark.parametrize(
    "command, action, old", RETIRED, ids=[f"{c} {old}" for c, _, old in RETIRED]
)
def test_a_retired_spelling_is_refused_naming_the_new_one(command, action, old):
    """A retired spelling is no option of its command, and the refusal of it (argparse's
    "unrecognized arguments", through the shared hint) names the spelling to use."""
    from irgauge.cli._hints import hint

    parser = dict(leaf_commands(build_parser()))[command]
    assert old not in parser._option_string_actions
    for given in (f"{old} 5", f"{old}=5"):
        said = hint(parser, f"unrecognized arguments: {given}")
        assert f"{old} is retired here: write {'/'.join(spellings(action))}" in said


@pytest.mark.parametrize(
    "study, new", [("predictive", "-P/--halvings"), ("topicset", "--topic-resamples")]
)
def test_trials_is_one_meaning(study, new, tmp_path, capsys):
    """``study predictive --trials`` (halvings) and ``study topicset --trials`` (topic
    resamples) were deprecated spellings, accepted, while ``--trials`` counts topic-subset
    draws in swap, stability and the other studies: one spelling, three meanings. Each is
    refused in one line that names the spelling to use."""
    argv = ["study", study, "--scores", "s.tsv", "--out", str(tmp_path), "--trials", "5"]
    with pytest.raises(SystemExit) as refused:
        main(argv)
    assert refused.value.code == 2
    err = capsys.readouterr().err.splitlines()
    assert err[-1].startswith(f"irgauge study {study}: error: unrecognized arguments: --trials")
    assert f"write {new} (" in err[-1]
    assert not list(tmp_path.iterdir())
    meanings = meant().get("--trials", {})
    assert not meanings, meanings


# Python keywords that take an option's value under another name -> why. A keyword whose
# default is one of the words an option offers (``render(fmt="table")``, where --format
# offers table) takes that option's value, and so its name: ``fmt=`` beside ``--format``
# was one concept spelled two ways. The test below holds each entry to the code.
API_NAMES = {
    ("Measure.aggregate", "default"): "the aggregate (--aggregate, evaluate(aggregate=)) of a "
    "measure that declares none: the keyword says that the measure's own wins",
    ("Measure.aggregation", "default"): "as Measure.aggregate",
    ("Qrels.from_arrays", "fmt"): "the format the judgments were read in, kept as the "
    "record's field Qrels.fmt (trec, ntcir, arrow, prels, ...): where they came from, not "
    "an output that --format chooses",
}


def option_words() -> dict:
    """{word: {destinations of the options that offer it}} over every option whose value
    is one of a set of words."""
    found = defaultdict(set)
    for _, action in options():
        words = action.choices or ()
        if len(words) > 1 and all(isinstance(word, str) for word in words):
            for word in words:
                found[word].add(concept(action))
    return found


def public_callables() -> dict:
    """{name: function} of the public functions (tests/test_keyword_names.py) and the
    public methods of the public classes and of the classes the functions return."""
    import inspect
    import sys

    import irgauge
    from test_keyword_names import public_functions

    found = public_functions()
    classes = {n: getattr(irgauge, n) for n in irgauge.__all__}
    classes = {n: c for n, c in classes.items() if inspect.isclass(c)}
    for function in list(found.values()):
        returned = inspect.signature(function).return_annotation
        if isinstance(returned, str):  # (postponed: resolved where the function lives)
            namespace = {**vars(irgauge), **vars(sys.modules[function.__module__])}
            returned = namespace.get(returned.split(".")[-1].strip("'\""))
        if inspect.isclass(returned) and returned.__module__.startswith("irgauge"):
            classes[returned.__name__] = returned
    for class_name, cls in classes.items():
        for name in dir(cls):
            method = inspect.getattr_static(cls, name)
            method = getattr(method, "__func__", method)  # a static or class method
            if not name.startswith("_") and inspect.isfunction(method):
                found[f"{class_name}.{name}"] = method
    return found


def keywords_taking_option_words() -> list:
    """(callable, keyword, default, destinations) of every public keyword whose default is
    a word an option offers."""
    import inspect

    words = option_words()
    return [
        (name, p.name, p.default, words[p.default])
        for name, function in sorted(public_callables().items())
        for p in inspect.signature(function).parameters.values()
        if isinstance(p.default, str) and p.default in words
    ]


def test_the_walk_finds_the_keywords_of_options():
    found = {(name, keyword) for name, keyword, _, _ in keywords_taking_option_words()}
    assert {("ComparisonTable.render", "format"), ("evaluate", "aggregate")} <= found
    assert ("qa_evaluate", "gold_format") in found and len(found) >= 25, found


def test_a_keyword_taking_an_options_value_has_its_name():
    """``ComparisonTable.render(fmt=)`` took what --format (and compare --table FORMAT)
    takes, under another name."""
    drift = [
        f"{name}({keyword}={default!r}): {default!r} is a value of "
        + " or ".join(f"--{d.replace('_', '-')}" for d in sorted(dests))
        for name, keyword, default, dests in keywords_taking_option_words()
        if keyword not in dests and (name, keyword) not in API_NAMES
    ]
    assert not drift, drift


def test_every_reviewed_keyword_name_is_still_there():
    differ = {
        (name, keyword)
        for name, keyword, _, dests in keywords_taking_option_words()
        if keyword not in dests
    }
    assert not [entry for entry in API_NAMES if entry not in differ]
