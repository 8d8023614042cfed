"""One concept, one declaration: an option that several commands take is declared alike in
each (issue 36).

tests/test_option_spellings.py holds each concept to one spelling; this audit holds what
the spelling declares. ``--order`` (document order) was declared in four places with four
help texts (``irgauge eval --help`` and ``irgauge incomplete --help`` explained it in
different words) and a fix to one declaration missed the others. Each concept that two or
more commands take is now declared by one adder in ``cli/_options.py`` (or in the option
modules beside it: ``output_options``, ``topic_design_options``, ``answer_options``).

The audit walks every command's parser, as the spelling audit does (the drop-in, which keeps
trec_eval's own flags, left out), and compares each *meaning* (a concept and the kind of
value it takes: ``--depth K`` and ``--depth K[,K...]`` are two meanings, excused there) across
the commands that take it: help, choices, type, metavar, nargs, action, const, default.
Where a command truly differs (``reduce --order`` only applies with ``--depth``; the demo's
smaller default ``-B``), the adder takes the difference as a parameter and records the words
that state it (``option_spellings.stated``): the help is compared with those words taken out, and a
default stated in the help may differ. What differs on purpose otherwise is in DECLARATIONS,
each with its reason; a test holds every entry to the parsers.
"""

from __future__ import annotations

import argparse
from collections import defaultdict

from test_option_spellings import meaning, options

from irgauge.cli import _options, option_spellings

# (read so, the audit also runs on code from before the stated words, and fails there)
STATED = getattr(option_spellings, "STATED", "stated")

# concept -> (why its declarations differ across commands, the fields that differ)
DECLARATIONS = {
    "format": (
        "each command offers the formats of what it writes (pool writes qrels and prels, "
        "measures no tsv, eval and qa eval trec's)",
        {"choices", "default"},
    ),
    "complete": (
        "two spellings, excused in the spelling audit: qa eval scores unanswered questions "
        "0 by default, so its switch (--skip-unanswered) turns that off",
        {"help", "option_strings", "default", "const", "action"},
    ),
    "collection": (
        "compare's --collection NAME names the collection in the table's caption; the "
        "studies' --collection NAME=QRELS:RUNDIR (repeatable) gives a collection to run on",
        {"help", "metavar", "action"},
    ),
    "alpha": (
        "discpower reports every level given (repeatable, default 0.01 and 0.05); the "
        "other commands test at one",
        {"action"},
    ),
    "gold_format": (
        "the qa study also reads TREC QA answer patterns (trec-patterns), which qa eval "
        "and qa label do not read",
        {"choices"},
    ),
    "run_format": (
        "the qa study also reads TREC QA runs (qid tag docid answer), which qa eval and "
        "qa label do not read",
        {"choices"},
    ),
    "digits": (
        "compare --table's --digits takes 0 to 12 decimals, the shared type 0 to 15: "
        "widening compare's is a change of behaviour, not of declaration, left to decide",
        {"type"},
    ),
    "run": (
        "agree scores each run under every qrels and takes --run repeated, each with "
        "several runs; the meta-evaluation commands take the runs after one --run",
        {"action"},
    ),
}

FIELDS = ("help", "option_strings", "choices", "type", "metavar", "nargs", "action", "const")


def _fixed(action) -> str:
    """The help without the words its adder states per command (a command that states
    nothing where another states a detail says the same without it)."""
    text = action.help or ""
    for words in sorted(getattr(action, STATED, {}).values(), key=len, reverse=True):
        text = text.replace(words, "")
    return text


def _value(action, field: str):
    if field == "help":
        return _fixed(action)
    if field == "option_strings":
        old = getattr(action, "old_spellings", ())
        return tuple(s for s in action.option_strings if s not in old)
    if field == "choices":
        return None if action.choices is None else tuple(action.choices)
    if field == "type":  # one adder, one type object: two alike objects are two places
        return action.type
    if field == "action":
        return type(action).__name__
    if field == "default":
        return (repr(action.default), action.required)
    return getattr(action, field)


def _shown(value) -> str:
    return getattr(value, "__name__", None) or repr(value)


def declarations() -> dict:
    """{concept: {field: {value: [commands]}}} of each field that differs among the
    commands taking one meaning of the concept (a default only where some command's help
    does not state it)."""
    by_meaning = defaultdict(list)
    for command, action in options():
        by_meaning[meaning(action)].append((command, action))
    found = defaultdict(dict)
    for (concept, _), uses in by_meaning.items():
        if len({command for command, _ in uses}) < 2:
            continue
        fields = list(FIELDS)
        if not all("default" in getattr(a, STATED, {}) for _, a in uses):
            fields.append("default")
        for field in fields:
            values = defaultdict(list)
            for command, action in uses:
                values[_value(action, field)].append(command)
            if len(values) > 1:
                found[concept].setdefault(field, {}).update(
                    {_shown(v): c for v, c in values.items()}
                )
    return dict(found)


def test_one_concept_is_declared_alike_in_every_command():
    differ = {
        concept: {
            field: values
            for field, values in fields.items()
            if field not in DECLARATIONS.get(concept, ("", set()))[1]
        }
        for concept, fields in declarations().items()
    }
    differ = {concept: fields for concept, fields in differ.items() if fields}
    assert not differ, "one concept, declared differently: " + "; ".join(
        f"{concept} {field}: "
        + " / ".join(f"{value!r} in {', '.join(commands)}" for value, commands in values.items())
        for concept, fields in sorted(differ.items())
        for field, values in fields.items()
    )


def test_every_excused_declaration_is_what_the_parsers_say():
    """Each entry excuses the fields that differ today, no more and no less: an entry whose
    concept went, or whose fields no longer differ (or differ in one more), fails."""
    found = declarations()
    stale = [
        f"DECLARATIONS {concept!r} says {sorted(fields)}, "
        f"the parsers {sorted(found.get(concept, {}))}"
        for concept, (_, fields) in DECLARATIONS.items()
        if set(found.get(concept, {})) != fields
    ]
    assert not stale, "; ".join(stale)


def test_stated_words_are_in_the_help():
    """The words an adder states per command are in that command's help, and the help says
    more than them: a help made only of stated words would compare equal to any other."""
    wrong = []
    for command, action in options():
        stated = getattr(action, STATED, {})
        for name, words in stated.items():
            if not words or words not in (action.help or ""):
                wrong.append(f"{command} {action.dest}: {name}={words!r} not in its help")
        if stated and len(_fixed(action).split()) < 2:
            wrong.append(f"{command} {action.dest}: nothing but stated words")
    assert not wrong, wrong


def test_the_audit_finds_a_declaration_in_other_words(monkeypatch):
    """A second command declaring a shared option by hand, in its own words (as ``reduce
    --order`` did), is found; one that states its difference through the adder is not."""
    import sys

    first, second, third = (argparse.ArgumentParser() for _ in range(3))
    _options.add_order(first)
    second.add_argument("--order", choices=("score", "file"), help="document order")
    _options.add_order(third, detail="; only with --depth, for the pooled runs")
    module = sys.modules[__name__]
    for parsers, differ in (((first, second), {"order": {"help"}}), ((first, third), {})):
        found = [(f"cmd{i}", parser._actions[-1]) for i, parser in enumerate(parsers)]
        monkeypatch.setattr(module, "options", lambda: iter(found))
        assert {c: set(fields) for c, fields in declarations().items()} == differ
