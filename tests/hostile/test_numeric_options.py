"""Every numeric option of every command, at the values a hostile user tries: 0, negative,
-0, 1e-300, the subnormal 1e-320, 1e308, NaN, inf and 2^63. Each either runs and gives a
finite output (no NaN or inf that its baseline does not print), or is refused with exit 2
and one line naming the option: never a traceback, another exit status, or a hang.

The commands and their options come from the parser (the walk of test_every_option_acts),
so a command or an option is covered the day it lands: an option must be classified as
numeric (by its type, one of cli/_options' checked types, or by name for the few parsed
as text by their command) or as text, and a test fails until it is. The drop-in
``trec_eval`` follows trec_eval's own domain: it is held only to no traceback, an exit
status of 0, 1 or 2 and one line of message.

By default each option is tried at one of the values (the next one for the next
option, so that every value is tried across the options); IRGAUGE_FUZZ_EXAMPLES set tries
every value of every option. The quick subset (-m "not slow") tries one option of each
command, the full suite every one.
"""

from __future__ import annotations

import os
import re
import signal
import sys
import threading
import warnings

import pytest

import test_every_option_acts as acts
from test_every_option_acts import (
    BASELINES,
    HANDED_ON,
    all_commands,
    expand,
    figure_texts,
    options_of,
    outcome,
    without,
)
from tests.conftest import slow_but_one_each
from tests.fuzz.fuzz_checks import command_warnings

files = acts.files  # the walk's small collection (a fixture)
hand_on = acts.hand_on  # the studies handed their parameters (a fixture)

EXTREMES = ["0", "-1", "-0", "1e-300", "1e-320", "1e308", "nan", "inf", str(2**63)]
# the option types of cli/_options (and the study's gain lists): each parses a number
NUMERIC_TYPES = {
    "integer",
    "number",
    "memory_size",
    "draws",
    "seed",
    "jobs",
    "alpha",
    "fraction",
    "probability",
    "confidence",
    "list",
    "_gain_list",
    "gains",
    "rates",
    "level_probs",
    "quality",
}
# options without a type whose text the command reads as numbers (the drop-in's, which
# follow trec_eval's own parsing)
NUMERIC_TEXT = {"Debug_level", "Max_retrieved_per_topic", "Number_docs_in_coll", "level_for_rel"}
# how a value is given to an option that takes several
FORMAT = {"gains": "1:2:{}", "level_probs": "0.5:{}", "quality": "0.5:{}"}
# options without a type that hold text: names, paths, measures, addresses
TEXT = {
    "Rel_info_format",
    "Results_format",
    "Zscore",
    "baseline",
    "by",
    "collection",
    "collections",
    "explain",
    "figures",
    "groups",
    "judgment_groups",
    "measure",
    "measures",
    "normalise",
    "original",
    "out",
    "output",
    "pair",
    "prels",
    "qrels",
    "repeated",
    "repeated_qrels",
    "run",
    "runs",
    "scheduler",
    "scores",
    "strategies",
    "tests",
    "title",
}
DROP_IN = "trec_eval"
# a hang: the work an option asks for must be bounded. Told by the CPU time the run takes
# (this process's, threads included), which a loaded machine does not stretch as it does
# the wall clock; a run that waits without running (a deadlock) takes none, and is told by
# a wall clock far past what load makes of the CPU limit
SECONDS = 60
WALL_SECONDS = 600
NOT_FINITE = re.compile(r"(?<![\w.])[-+]?(nan|inf|infinity)(?![\w.])", re.IGNORECASE)


def numeric(action) -> bool:
    """Whether ``action`` takes a number; AssertionError for one not classified."""
    if action.nargs == 0 or action.choices:
        return False
    if action.type is not None:
        name = getattr(action.type, "__name__", repr(action.type))
        assert name in NUMERIC_TYPES, f"{action.option_strings}: classify its type {name}"
        return True
    assert (action.dest in NUMERIC_TEXT) != (action.dest in TEXT), (
        f"{action.option_strings}: classify it in NUMERIC_TEXT or TEXT"
    )
    return action.dest in NUMERIC_TEXT


def numeric_options():
    """(command, dest) of every numeric option of every command."""
    for command, parser in sorted(all_commands().items()):
        for action in options_of(parser):
            if numeric(action):
                yield command, action.dest


def values_for(index: int):
    if os.environ.get("IRGAUGE_FUZZ_EXAMPLES", "").strip():
        return EXTREMES
    return [EXTREMES[index % len(EXTREMES)]]


def test_every_option_is_classified():
    """Every option with a value is numeric or text: a new one fails here until it is; and
    every name classified is an option's, so that a renamed option's old entry cannot
    stand in for a new option of that name unchecked."""
    dests = set()
    for parser in all_commands().values():
        for action in options_of(parser):
            numeric(action)
            dests.add(action.dest)
    assert (TEXT | NUMERIC_TEXT) - dests == set()


class Hang(Exception):
    pass


def bounded(argv, folder):
    """outcome() of ``argv``, or Hang past SECONDS of CPU time or WALL_SECONDS."""

    def stop(*_):
        raise Hang(" ".join(argv))

    timers = {signal.ITIMER_PROF: signal.SIGPROF, signal.ITIMER_REAL: signal.SIGALRM}
    previous = {number: signal.signal(number, stop) for number in timers.values()}
    signal.setitimer(signal.ITIMER_PROF, SECONDS)
    signal.setitimer(signal.ITIMER_REAL, WALL_SECONDS)
    try:
        return outcome(argv, folder)
    finally:
        for timer in timers:
            signal.setitimer(timer, 0)
        for number, handler in previous.items():
            signal.signal(number, handler)


def warned(argv, folder) -> tuple:
    """(bounded(), the messages of the warnings from irgauge's code that the command's
    threads issued, every RuntimeWarning shown): another thread's, as a pool an earlier
    test left running, is not the command's (:func:`fuzz_checks.command_warnings`)."""
    with command_warnings(RuntimeWarning) as caught:
        after = bounded(argv, folder)
    return after, [str(w.message) for w in caught if "irgauge" in w.filename]


def test_a_warning_from_a_thread_beside_the_command_is_not_the_commands(monkeypatch):
    """A thread started before the command warns from irgauge's code while the command
    runs: not counted; the command's own warnings, on its thread or one it starts, are."""
    running, written = threading.Event(), threading.Event()

    def warn(message: str) -> None:
        warnings.warn_explicit(message, RuntimeWarning, "irgauge/meta/x.py", 1)

    def beside():
        if running.wait(60):
            warn("the thread beside's")
        written.set()

    def run(argv, folder):
        running.set()
        assert written.wait(60), "the thread beside the command did not run"
        warn("the command's")
        own = threading.Thread(target=warn, args=("the command's thread's",))
        own.start()
        own.join()
        return 0, "", "", {}

    feeder = threading.Thread(target=beside, daemon=True)
    feeder.start()
    monkeypatch.setattr(sys.modules[__name__], "outcome", run)
    after, unguarded = warned(["eval"], None)
    feeder.join(60)
    assert unguarded == ["the command's", "the command's thread's"]


def test_the_hang_guard_tells_a_spin_by_cpu_time_and_a_wait_by_the_clock(monkeypatch):
    """A run spinning in a loop is stopped once it has taken SECONDS of CPU time; one
    waiting without running, at WALL_SECONDS. Each loop ends on its own well after its
    limit, so a guard that never fires fails here instead of hanging."""
    import time

    def spin(argv, folder):
        start = time.monotonic()
        while time.monotonic() - start < 120:
            pass
        return "ran out"

    def wait(argv, folder):
        for _ in range(1200):
            time.sleep(0.1)
        return "ran out"

    this = sys.modules[__name__]
    for seconds, wall, run in ((0.2, 1000, spin), (1000, 0.2, wait)):
        monkeypatch.setattr(this, "SECONDS", seconds)
        monkeypatch.setattr(this, "WALL_SECONDS", wall)
        monkeypatch.setattr(this, "outcome", run)
        with pytest.raises(Hang, match=run.__name__):
            bounded([run.__name__], None)


def not_finite(result) -> int:
    """How many NaN or inf words the outcome prints or writes."""
    _, out, _, written = result
    return len(NOT_FINITE.findall(out)) + sum(len(NOT_FINITE.findall(t)) for t in written.values())


CASES = slow_but_one_each(
    [
        pytest.param(command, dest, value, id=f"{command}-{dest}-{value}")
        for index, (command, dest) in enumerate(numeric_options())
        for value in values_for(index)
    ],
    lambda case: case[0],
)


@pytest.fixture(scope="module")
def baselines():
    return {}


@pytest.mark.parametrize("command, dest, value", CASES)
def test_numeric_option_runs_finite_or_is_refused(
    command,
    dest,
    value,
    files,
    baselines,
    tmp_path,
    monkeypatch,
    request,
):
    from irgauge.report import style

    monkeypatch.setattr(style, "save", figure_texts)
    if command.split()[0] in HANDED_ON:
        request.getfixturevalue("hand_on")
    parser = all_commands()[command]
    action = next(a for a in options_of(parser) if a.dest == dest)
    flag = action.option_strings[-1]
    text = FORMAT.get(dest, "{}").format(value)
    base = expand(BASELINES[command], files)
    argv = [*command.split(), *without(base, parser, {dest}), flag, text]
    after, unguarded = warned(argv, tmp_path / "after")
    code, _, err, _ = after
    assert "Traceback" not in err, err
    # numpy's floating-point warning from irgauge, shown or noted, is a computation
    # unguarded at this value (repro --rbo-p 1e-320 overflowed (1-p)/p into NaN RBOs,
    # noted as "undefined")
    assert not unguarded and "RuntimeWarning" not in err, (unguarded, err)
    # (argparse's usage lines precede its message, as trec_eval's do)
    lines = [
        x for x in err.splitlines() if x and not x.startswith(("usage:", " ", "irgauge: note:"))
    ]
    if command == DROP_IN:  # trec_eval's domain
        assert code in (0, 1, 2) and len(lines) <= 1, (code, err)
        return
    if code != 0:
        assert code == 2, (code, err)
        assert len(lines) == 1 and lines[0].startswith("irgauge"), err
        named = [s for s in action.option_strings if s in lines[0]]
        assert named, f"the error names no option of {action.option_strings}: {err}"
        return
    if command not in baselines:
        baselines[command] = bounded([*command.split(), *base], tmp_path / "before")
    assert not_finite(after) <= not_finite(baselines[command]), f"{argv}: {after[1][-2000:]}"


# found by the walk: options whose text the command read after parsing, refused naming the
# parameter or the file (a rate named the qrels file) instead of the option, or passed on
@pytest.mark.parametrize(
    "command, flag, value",
    [
        ("eval", "--gains", "1:inf"),
        ("incomplete", "--gains", "1:-1"),
        ("incomplete", "--rates", "nan"),
        ("reduce", "--rates", "0"),
        ("simulate", "--level-probs", "0.5:1e308"),
        ("simulate", "--quality", "0.5:nan"),
        ("study onerel", "--gains", "3:2:nan"),
        ("discpower", "--top-fraction", "1e-300"),
        ("compare", "--top-k", "1"),
    ],
)
def test_a_value_read_later_is_refused_naming_its_option(
    command, flag, value, files, tmp_path, monkeypatch, request
):
    request.getfixturevalue("hand_on")
    parser = all_commands()[command]
    dest = parser._option_string_actions[flag].dest
    base = without(expand(BASELINES[command], files), parser, {dest})
    code, _, err, written = bounded([*command.split(), *base, flag, value], tmp_path / "run")
    lines = [x for x in err.splitlines() if x and not x.startswith(("usage:", " "))]
    assert code == 2 and len(lines) == 1 and flag in lines[0], err
    assert not written


# text float() and int() read that no option means: 0_5 is 5.0 to float() where 0.5 was
# meant, and full-width digits read as ASCII ones (the score files refuse both too)
NOT_PLAIN = ["0_5", "\uff10.\uff15"]


@pytest.mark.parametrize(
    "command, dest, value",
    slow_but_one_each(
        [
            pytest.param(c, d, NOT_PLAIN[k % len(NOT_PLAIN)], id=f"{c}-{d}")
            for k, (c, d) in enumerate(numeric_options())
            if c != DROP_IN  # trec_eval's atol and strtod read their own way
        ],
        lambda case: case[0],
    ),
)
def test_a_number_no_option_means_is_refused_naming_the_option(
    command, dest, value, files, tmp_path, request
):
    if command.split()[0] in HANDED_ON:
        request.getfixturevalue("hand_on")
    parser = all_commands()[command]
    action = next(a for a in options_of(parser) if a.dest == dest)
    text = FORMAT.get(dest, "{}").format(value)
    base = without(expand(BASELINES[command], files), parser, {dest})
    code, _, err, written = bounded(
        [*command.split(), *base, action.option_strings[-1], text], tmp_path / "run"
    )
    lines = [x for x in err.splitlines() if x and not x.startswith(("usage:", " "))]
    assert code == 2 and len(lines) == 1, err
    assert any(s in lines[0] for s in action.option_strings), err
    assert not written
