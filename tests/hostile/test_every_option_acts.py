"""Every option of the meta commands takes effect or is refused with a message.

The test walks each command's parser (so a new option is walked too, and fails until it is
given a value below), runs the command once as a baseline and once with the option set
to a value other than its default, and requires a difference in what a user gets: the exit
status, stdout, or the files written. A refusal is exit 2 with a one-line message.
"""

from __future__ import annotations

import argparse
import io
import os
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irgauge.cli import build_parser, main

# command -> the arguments of its baseline run (after the score file)
COMMANDS = {
    "compare": ["--seed", "1", "-B", "40", "--permutations", "200", "--tests", "t,sign"],
    "discpower": ["--seed", "1", "-B", "40"],
    "swap": ["--seed", "1", "--trials", "30"],
    "stability": ["--seed", "1", "--trials", "30"],
    "correlate": [],
    "predictive": ["--seed", "1", "--halvings", "10"],
    "topics": ["-m", "AP", "--min-diff", "0.1"],
}
# option dest -> the arguments that set it to something other than its default
VALUES = {
    "measure": ["-m", "P@10"],
    "header": ["--headerless-scores"],
    "top_k": ["--top-k", "4"],
    "top_fraction": ["--top-fraction", "0.5"],
    "by": ["--by", "P@10"],
    "tests": ["--tests", "t"],
    "samples": ["-B", "60"],
    "permutations": ["--permutations", "300"],
    "correction": ["--correction", "holm"],
    "table": ["--table"],
    "baseline": ["--baseline", "run1"],
    "alpha": ["--alpha", "0.2"],
    "interval": ["--interval", "ci"],
    "level": ["--level", "0.9"],
    "effect": ["--effect"],
    "names": ["--names", "runs"],
    "collection": ["--collection", "X"],
    "digits": ["--digits", "2"],
    "seed": ["--seed", "2"],
    "format": ["--format", "json"],
    "no_header": ["--no-header"],
    "variant": None,  # a choice other than the default
    "mode": None,
    "pairs": ["--pairs"],
    "halvings": ["--halvings", "12"],
    "subset_sizes": ["-k", "4,6"],
    "curve": ["--curve"],
    "trials": ["--trials", "40"],
    "fuzziness": ["--fuzziness", "0.05"],
    "subset_size": ["-k", "4"],
    "replacement": ["--replacement"],
    "confidence": ["--confidence", "0.8"],
    "bins": ["--bins"],  # print the per-bin table
    "min_diff": ["--min-diff", "0.2"],
    "beta": ["--beta", "0.3"],
    "ci_width": ["--ci-width", "0.3"],
}
# options whose effect is elsewhere, each checked by its own test
ELSEWHERE = {
    "quiet": "progress bars appear on a terminal's stderr only (tests/test_cli_surface.py)",
}


def command_options(command: str):
    parser = build_parser([command])
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            sub = action.choices[command]
            return [a for a in sub._actions if a.option_strings and a.dest != "help"]
    raise AssertionError(command)


def cases():
    for command in COMMANDS:
        for action in command_options(command):
            if action.dest not in ELSEWHERE:
                yield command, action.dest


def setting(command, action, files):
    """The arguments that set ``action`` away from its default."""
    dest = action.dest
    if dest == "output":
        return ["-o", "out.txt"]
    if dest == "figures":
        return ["--figures", "figs"]
    if dest == "qrels":  # in place of the score file
        return ["--qrels", str(files["qrels"]), "--run", *map(str, files["runs"]), "-m", "AP"]
    if dest == "run":
        return ["--run", *map(str, files["runs"])]
    if dest == "systems":
        return ["--systems", "3"] if command == "topics" else ["--systems", "run1", "run2"]
    if VALUES.get(dest, "missing") is None or (dest not in VALUES and action.choices):
        other = [c for c in action.choices if c != action.default]
        return [action.option_strings[-1], other[0]]
    assert dest in VALUES, f"{command} {action.option_strings}: give it a value in VALUES"
    return VALUES[dest]


def outcome(argv, folder: Path):
    """(exit status, stdout, stderr, files written) of ``irgauge ARGV`` run in ``folder``."""
    folder.mkdir()
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            code = main([str(a) for a in argv])
    finally:
        os.chdir(here)
    written = sorted(str(p.relative_to(folder)) for p in folder.rglob("*"))
    return code, out.getvalue(), err.getvalue(), written


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("collection")
    assert (
        main(
            ["simulate", "--out", str(folder / "c"), "--topics", "16", "--runs", "6"]
            + ["--depth", "40", "--seed", "4", "--quiet"]
        )
        == 0
    )
    runs = sorted((folder / "c" / "runs").glob("*.run"))
    scores = folder / "scores.tsv"
    argv = ["eval", str(folder / "c" / "qrels.txt"), *map(str, runs), "-m", "AP,P@10,nDCG@10"]
    assert main(argv + ["-q", "--format", "tsv", "-o", str(scores)]) == 0
    return {"qrels": folder / "c" / "qrels.txt", "runs": runs, "scores": scores}


@pytest.mark.parametrize("command, dest", list(cases()))
def test_option_takes_effect_or_is_refused(command, dest, files, tmp_path):
    action = next(a for a in command_options(command) if a.dest == dest)
    base = [command, *COMMANDS[command]]
    scores = [files["scores"]]
    change = setting(command, action, files)
    if dest == "run":  # --run goes with --qrels: the baseline has both, the change more runs
        base += ["--qrels", files["qrels"], "-m", "AP", "--run", *files["runs"][:3]]
        scores, change = [], ["--run", *files["runs"][3:]]
    before = outcome(base + scores, tmp_path / "before")
    if dest == "qrels":
        scores = []
    after = outcome(base + scores + change, tmp_path / "after")
    assert before[0] == 0, before[2]
    if after[0] == 2:
        assert after[2].count("\n") == 1 and "error" in after[2], after[2]
        return
    assert after[0] == 0, after[2]
    assert after != before, f"{command} {change}: no effect"
