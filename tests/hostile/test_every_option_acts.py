"""Every option of every command takes effect or is refused with a message (issue 19).

The commands and their options come from the parser itself: every command module's
sub-command, nested ones (``study NAME``, ``qa eval``) too, and every option of each. A new
command fails until it has a baseline in BASELINES; a new option fails until VALUES (or the
choices it offers) gives it a value other than its default. Each option is run against its
command's baseline, replacing what the baseline gave for it (an option given twice is
refused), and must change what a user gets: the exit status, stdout or stderr, the files
written or their content (manifests and '#' header lines hold the recorded parameters),
or be refused: exit 2 (1 for trec_eval's usage errors, as trec_eval) with a one-line
message.

Figures are recorded by their texts rather than drawn to PDF, SVG and PNG (drawing is most
of a study's time); the studies and the demo run for seconds to minutes each, so for them
the walk stops where the command hands its parameters to the study (or demo) function and
compares those, and test_a_study_records_the_parameters_it_is_given runs each study once
for real.

The quick subset (-m "not slow") walks one option of each command, each command's at a
different place in its list; the full suite walks them all.
"""

from __future__ import annotations

import argparse
import io
import json
import os
import re
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from irgauge.cli import build_parser, main
from tests.conftest import slow_but_one_each

SCORE_BASE = ["{scores}"]
# command -> its baseline arguments; {name} stands for a file of the `files` fixture
BASELINES = {
    "agree": ["{qrels}", "{qrels2}", "-B", "20", "--seed", "1", "--run", "{runs}", "-m", "AP"]
    + ["--format", "tsv"],  # the full metadata: a table header shows the first few
    "compare": SCORE_BASE
    + ["--seed", "1", "-B", "40", "--permutations", "200"]
    + ["--tests", "t,sign"],
    "correlate": SCORE_BASE,
    "demo": ["--out", "demo"],
    "discpower": SCORE_BASE + ["--seed", "1", "-B", "40"],
    "eval": ["{qrels}", "{runs}", "{partial}", "-m", "AP,P@10,nDCG@10", "--format", "tsv"],
    "incomplete": ["{qrels}", "{runs}", "-m", "AP,nDCG", "--rates", "50", "-B", "20"]
    + ["--seed", "1"],
    "measures": [],
    "pool": ["{runs}", "--strategy", "sample", "--budget", "3", "--seed", "1"],
    "predictive": SCORE_BASE + ["--seed", "1", "--halvings", "10"],
    "qa eval": ["{gold}", "{answers}", "--format", "tsv"],
    "qa label": ["{gold}", "{answer}"],
    "reduce": ["{qrels}", "--out", "reduced", "--seed", "1"],
    "repro": ["{qrels}", "--original", "{run}", "{run2}", "--repeated", "{run3}", "{run4}"]
    + ["-B", "20", "--seed", "1", "-m", "AP", "--format", "tsv"],
    "report": ["out", "{scores}"],
    "simulate": ["--out", "sim", "--topics", "4", "--runs", "3", "--depth", "10"],
    "stability": SCORE_BASE + ["--seed", "1", "--trials", "30"],
    "study onerel": ["{qrels}", "{runs}", "--out", "st", "--seed", "1"],
    "study incomplete": ["{qrels}", "{runs}", "--out", "st", "--seed", "1"],
    "study qa": ["{gold}", "{answers}", "--out", "st", "--seed", "1"],
    "study predictive": ["{qrels}", "{runs}", "--out", "st", "--seed", "1"],
    "study topicset": ["{qrels}", "{runs}", "--out", "st", "--seed", "1"],
    "study pooling": ["{qrels}", "{runs}", "--out", "st", "--seed", "1", "--budgets", "3,5"],
    "study reusability": ["{qrels}", "{runs}", "--out", "st", "--seed", "1", "--depth", "5"],
    "swap": SCORE_BASE + ["--seed", "1", "--trials", "30"],
    "topics": SCORE_BASE + ["-m", "AP", "--min-diff", "0.1"],
    "trec_eval": ["{qrels}", "{run}"],
}
# commands whose walk stops at the function they hand their parameters to (see above)
HANDED_ON = {"study", "demo"}
# option dest -> the arguments that set it to something other than its default; options
# with choices take the first choice that is not the default unless named here
VALUES = {
    # its default (None where it is refused without runs) reads as skip: zero is the change
    "empty_topics": ["--empty-topics", "zero"],
    "measure": ["-m", "P@10"],
    "measures": ["-m", "P@10"],
    "header": ["--headerless-scores"],
    "top_k": ["--top-k", "4"],
    "top_fraction": ["--top-fraction", "0.5"],
    "by": ["--by", "P@10"],
    "tests": ["--tests", "t"],
    "samples": ["-B", "30"],
    "permutations": ["--permutations", "300"],
    "correction": ["--correction", "holm"],
    "table": ["--table"],
    "baseline": ["--baseline", "run1"],
    "alpha": ["--alpha", "0.2"],
    "interval": ["--interval", "ci"],
    "effect": ["--effect"],
    "names": ["--names", "runs"],
    "collection": ["--collection", "X"],
    "digits": ["--digits", "2"],
    "seed": ["--seed", "2"],
    "no_header": ["--no-header"],
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
    "output": ["-o", "out.txt"],
    "figures": ["--figures", "figs"],
    "out": ["--out", "elsewhere"],
    "rel_level": ["--rel-level", "2"],
    "order": ["--order", "file"],  # "score" is what TREC runs imply
    "answer_order": ["--answer-order", "score"],
    "gains": ["--gains", "1:3:9"],
    "judged_only": ["-j"],
    "complete": ["-c"],
    "max_docs": ["-M", "5"],
    "per_topic": ["-q"],
    "explain": ["--explain", "AP"],
    "rates": ["--rates", "30"],
    "bootstrap_seed": ["--bootstrap-seed", "7"],
    "title": ["--title", "Another title"],
    "judgment_groups": ["-g", "{groups}"],
    "mixed_scales": ["--mixed-scales"],
    "normalise": ["--normalise", "case"],
    "repetitions": ["--repetitions", "3"],
    "topic_resamples": ["--topic-resamples", "50"],
    "reductions": ["--reductions", "2"],
    "second_size": ["--second-size", "4"],
    "list_task": ["--list-task"],
    "sign_alphas": ["--sign-alphas", "0.1"],
    "derive_qa": ["--derive-qa"],
    "all_systems": ["--all-systems"],
    "report": ["--report"],
    "collections": ["--collections", "{collections}"],
    "scores": ["--scores", "{scores}"],
    "overwrite": ["--overwrite"],
    # simulate's model
    "topics": ["--topics", "5"],
    "depth": ["--depth", "12"],
    "docs_per_topic": ["--docs-per-topic", "50"],
    "first_topic": ["--first-topic", "7"],
    "pool_depth": ["--pool-depth", "5"],
    "judged_per_topic": ["--judged-per-topic", "8"],
    "rel_median": ["--rel-median", "5"],
    "level_probs": ["--level-probs", "0.2:0.8"],
    "rel_spread": ["--rel-spread", "0.1"],
    "difficulty_spread": ["--difficulty-spread", "0.9"],
    "level_boost": ["--level-boost", "2"],
    "quality": ["--quality", "0.5:1"],
    "topic_noise": ["--topic-noise", "0.1"],
    "shared_weight": ["--shared-weight", "0.1"],
    "tie_fraction": ["--tie-fraction", "1"],
    "tie_decimals": ["--tie-decimals", "2"],
    "score_decimals": ["--score-decimals", "2"],
    # trec_eval's own options (its spelling)
    "query_eval_wanted": ["-q"],
    "complete_rel_info_wanted": ["-c"],
    "level_for_rel": ["-l", "2"],
    "nosummary": ["-n"],
    "Debug_level": ["-D", "1"],  # refused
    "Judged_docs_only": ["-J"],
    "Number_docs_in_coll": ["-N", "1000"],
    "Max_retrieved_per_topic": ["-M", "5"],
    "Rel_info_format": ["-R", "prefs"],  # refused
    "Results_format": ["-T", "tsv"],  # refused
    "Output_old_results_format": ["-o"],
    "Zscore": ["-Z", "{scores}"],  # refused
    "version": ["-v"],
}
# (command, dest) -> the arguments, where the command's option differs from the others'
SPECIAL = {
    ("agree", "run"): ["--run", "{run}", "{partial}"],
    ("agree", "measure"): ["-m", "nDCG@10"],
    ("agree", "test"): ["--test", "sign"],
    ("repro", "original"): ["--original", "{run2}", "{run}"],
    ("repro", "repeated"): ["--repeated", "{run}", "{run2}", "--repeated", "{run4}", "{run3}"],
    ("repro", "repeated_qrels"): ["--repeated-qrels", "{qrels2}"],
    ("repro", "cutoffs"): ["--cutoffs", "5,10"],
    ("repro", "rbo_p"): ["--rbo-p", "0.8"],
    ("qa eval", "complete"): ["--skip-unanswered"],
    ("trec_eval", "measure"): ["-m", "P.5"],
    ("simulate", "runs"): ["--runs", "4"],
    ("study topicset", "anova_systems"): ["--systems", "3"],
    ("study topicset", "measure"): ["-m", "AP,P@10"],
    ("study qa", "rel_level"): ["--rel-level", "2"],
    ("study onerel", "gains"): ["--gains", "3:2:1"],
    ("study qa", "gains"): ["--gains", "1:1:1"],
    ("topics", "anova_systems"): ["--systems", "3"],
    ("reduce", "runs"): ["--runs", "{run}"],
    ("study reusability", "depth"): ["--depth", "3"],
    ("study reusability", "groups"): ["--groups", "{run_groups}"],
    ("pool", "budget"): ["--budget", "4"],
    ("study pooling", "budgets"): ["--budgets", "4"],
    ("study pooling", "strategies"): ["--strategies", "depth,mtf"],
    ("study pooling", "depth"): ["--depth", "20"],
    ("pool", "qrels"): ["--qrels", "{qrels}"],
    ("pool", "strata"): ["--strata", "2"],  # statAP's design has none: refused
    ("compare", "pair"): ["--pair", "run1", "run2"],
    ("demo", "trials"): ["--trials", "30"],
    ("demo", "halvings"): ["--halvings", "30"],
    ("demo", "topic_resamples"): ["--topic-resamples", "30"],
    ("demo", "out"): ["--out", "elsewhere"],
    ("eval", "prels"): ["--prels", "{prels}"],
}
# (command, dest) -> a baseline of its own, for an option that acts on other inputs; its
# outcome may be a failure the option turns into a success
BASELINE_FOR = {
    # trec_eval stops (exit 4) at a qrels topic the run does not answer, unless -c
    ("trec_eval", "complete_rel_info_wanted"): ["{qrels}", "{partial}"],
    # the number of documents in the collection enters utility's d term only
    ("trec_eval", "Number_docs_in_coll"): ["{qrels}", "{run}", "-m", "utility.1,-1,0,1"],
    ("incomplete", "depth"): ["{qrels}", "{runs}", "-m", "AP,nDCG", "-B", "20", "--seed", "1"],
    # a pool-depth reduction's options act on one
    ("reduce", "depth"): ["{qrels}", "--out", "reduced", "--runs", "{runs}", "--depth", "3"],
    ("reduce", "runs"): ["{qrels}", "--out", "reduced", "--runs", "{runs}", "--depth", "3"],
    ("reduce", "order"): ["{qrels}", "--out", "reduced", "--runs", "{runs}", "--depth", "3"],
    # without qrels, the first argument is the qrels and no run is left: --prels turns it
    # into a run
    ("eval", "prels"): ["{run}", "-m", "statAP,AP", "--format", "tsv"],
    # replacing a collection needs one in the folder
    ("simulate", "overwrite"): ["--out", "{existing}", "--topics", "4", "--runs", "3"]
    + ["--depth", "10", "--seed", "9"],
}
SCORE_INPUTS = {  # the meta commands' alternative to score files: computed from qrels and runs
    "qrels": ["--qrels", "{qrels}", "--run", "{runs}", "-m", "AP"],
    "run": ["--qrels", "{qrels}", "--run", "{runs}", "-m", "AP"],
}
# options whose effect is elsewhere, each checked by its own test
ELSEWHERE = {
    "quiet": "progress bars appear on a terminal's stderr only (tests/test_cli_surface.py)",
    "jobs": "the same output on any number of threads is the contract "
    "(tests/test_local_jobs.py, tests/test_reader.py, tests/test_trec_eval_drop_in.py)",
    "memory": "the same output within any memory budget is the contract "
    "(tests/test_streaming.py counts the parts a budget gives)",
    "engine": "the Dask engine gives the local output (tests/test_dask_engine.py); "
    "it starts a cluster of processes",
    "scheduler": "a Dask scheduler address: refused without --engine dask "
    "(tests/test_dask_engine.py)",
}


def leaf_commands(parser, words=()):
    """(command words, parser) of every command that runs, nested ones included."""
    subs = [a for a in parser._actions if isinstance(a, argparse._SubParsersAction)]
    if words and not subs:
        yield " ".join(words), parser
    for action in subs:
        for name, sub in action.choices.items():
            yield from leaf_commands(sub, (*words, name))


def all_commands():
    return dict(leaf_commands(build_parser()))


def options_of(parser):
    return [
        a for a in parser._actions if a.option_strings and not isinstance(a, argparse._HelpAction)
    ]


def cases():
    for command, parser in sorted(all_commands().items()):
        for action in options_of(parser):
            if action.dest not in ELSEWHERE:
                yield command, action.dest


def test_every_command_has_a_baseline():
    assert sorted(all_commands()) == sorted(BASELINES)


def setting(command, action):
    """The arguments that set ``action`` away from its default (and from the baseline)."""
    dest = action.dest
    if (command, dest) in SPECIAL:
        return SPECIAL[(command, dest)]
    if dest in SCORE_INPUTS and BASELINES[command][: len(SCORE_BASE)] == SCORE_BASE:
        return SCORE_INPUTS[dest]
    if dest in VALUES:
        return VALUES[dest]
    assert action.choices, f"{command} {action.option_strings}: give it a value in VALUES"
    given = BASELINES[command]
    flags = [at for at, word in enumerate(given) if word in action.option_strings]
    used = given[flags[-1] + 1] if flags else action.default
    other = [c for c in action.choices if c not in (action.default, used)]
    return [action.option_strings[-1], other[0]]


def test_every_option_has_a_setting():
    """A new option fails here, in the quick subset too, until VALUES (or its choices) sets
    it; the walk below runs one option of each command there, every option in the full
    suite."""
    commands = all_commands()  # a parser is built in a fraction of a second, 400 in seconds
    for command, dest in cases():
        setting(command, next(a for a in options_of(commands[command]) if a.dest == dest))
    # an entry no option reads (a renamed option's) would set a new option of its old name
    # unreviewed
    pairs = {(c, a.dest) for c, parser in commands.items() for a in options_of(parser)}
    dests = {dest for _, dest in pairs}
    assert set(VALUES) - dests == set() and set(ELSEWHERE) - dests == set()
    assert set(SPECIAL) - pairs == set() and set(BASELINE_FOR) - pairs == set()


def values_taken(action, argv, at: int) -> int:
    """How many of the words after ``argv[at]`` are the values of option ``action``."""
    if action.nargs in (None, "?"):
        return 1 if action.nargs is None else int(at + 1 < len(argv))
    if isinstance(action.nargs, int):
        return action.nargs
    taken = 0
    while at + 1 + taken < len(argv) and not str(argv[at + 1 + taken]).startswith("-"):
        taken += 1
    return taken


def without(argv, parser, dests):
    """``argv`` without the options that set any of ``dests`` (and their values)."""
    kept, at = [], 0
    while at < len(argv):
        action = parser._option_string_actions.get(str(argv[at]))
        taken = 0 if action is None else values_taken(action, argv, at)
        if action is None or action.dest not in dests:
            kept.extend(argv[at : at + 1 + taken])
        at += 1 + taken
    return kept


def expand(argv, files):
    """``argv`` with each {name} replaced by the file(s) of the fixture."""
    out = []
    for word in argv:
        match = re.fullmatch(r"\{(\w+)\}", str(word))
        value = files[match.group(1)] if match else word
        out.extend(map(str, value) if isinstance(value, list) else [str(value)])
    return out


def figure_texts(fig, directory, stem, formats=()):
    """In place of drawing a figure to files: its texts in ``directory/stem.figure``."""
    from irgauge.io.atomic import make_folders, write_text

    texts = [t.get_text() for t in fig.findobj(lambda a: hasattr(a, "get_text"))]
    make_folders(directory)
    write_text(Path(directory) / f"{stem}.figure", "\n".join(map(str, texts)) + "\n")
    return [str(Path(directory) / f"{stem}.figure")]


class HandedOn:
    """What a study (or demo) function was given, in place of its result."""

    report = None
    manifest: dict = {}
    directory = Path(".")
    summary: list = []

    def __init__(self, name, args, kwargs):
        kwargs = {k: v for k, v in kwargs.items() if k != "progress"}
        self.call = f"{name}{tuple(map(str, args))} {sorted(kwargs.items())!r}\n"

    def text(self, *width) -> str:
        return self.call


@pytest.fixture
def hand_on(monkeypatch):
    """The study and demo functions replaced by recorders of their arguments."""
    import irgauge.studies as studies
    from irgauge.cli import cmd_demo
    from irgauge.studies import collections as many

    monkeypatch.setattr(
        studies,
        "study_function",
        lambda name: lambda *a, **k: HandedOn(name, a, k),
    )
    monkeypatch.setattr(
        many,
        "run_on_collections",
        lambda name, chosen, *a, **k: ({}, HandedOn(name, (sorted(chosen.items()), *a), k)),
    )

    def demo(*a, **k):
        print(HandedOn("demo", a, k).call, end="")
        return Path("report.html"), []

    monkeypatch.setattr(cmd_demo, "run_demo", demo)


def outcome(argv, folder: Path):
    """(exit status, stdout, stderr, {file written: content}) of ``irgauge ARGV`` run in
    ``folder``, with the folder's path and the creation times left out."""
    folder.mkdir()
    out, err = io.StringIO(), io.StringIO()
    here = os.getcwd()
    os.chdir(folder)
    try:
        with redirect_stdout(out), redirect_stderr(err):
            try:
                code = main([str(a) for a in argv])
            except SystemExit as exit_:  # --version, trec_eval's usage errors
                code = exit_.code
    finally:
        os.chdir(here)

    def plain(text: str) -> str:
        text = text.replace(str(folder.resolve()), "<dir>").replace(str(folder), "<dir>")
        return re.sub(r'"created": "[^"]*"', '"created": ""', text)

    written = {
        str(p.relative_to(folder)): plain(p.read_bytes().decode("utf-8", "replace"))
        for p in sorted(folder.rglob("*"))
        if p.is_file()
    }
    return code, plain(out.getvalue()), plain(err.getvalue()), written


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    """A small collection whose every convention matters: unjudged documents retrieved
    (pool depth 10 of 40), a topic without relevant documents, negative levels, a run
    that skips a topic; score files, a second qrels, judgment groups and QA data."""
    from irgauge.studies.qa import qa_collection_from_adhoc

    folder = tmp_path_factory.mktemp("collection")
    simulated = ["simulate", "--out", str(folder / "c"), "--topics", "16", "--runs", "6"]
    assert main(simulated + ["--depth", "40", "--pool-depth", "10", "--seed", "4", "--quiet"]) == 0
    runs = sorted((folder / "c" / "runs").glob("*.run"))
    lines = (folder / "c" / "qrels.txt").read_text().splitlines()
    qrels, qrels2, groups = folder / "qrels.txt", folder / "qrels2.txt", folder / "groups.txt"
    changed = []
    for n, line in enumerate(lines):
        topic, _, docno, level = line.split()
        if topic == "1":
            level = "0"
        elif topic == "2" and n % 3 == 0:
            level = "-1"
        changed.append(f"{topic} 0 {docno} {level}")
    qrels.write_text("\n".join(changed) + "\n")
    second = [f"{t} 0 {d} {int(v) % 3 if i % 4 == 0 else v}" for i, line in enumerate(lines)
              for t, _, d, v in [line.split()]]  # fmt: skip
    qrels2.write_text("\n".join(second) + "\n")
    groups.write_text(
        "".join(
            f"{t} {'ab'[i % 2]} {d} {v}\n"
            for i, line in enumerate(lines)
            for t, _, d, v in [line.split()]
        )  # fmt: skip
    )
    prels = folder / "prels.txt"  # the judgments as a sample: every one with probability 1/2
    prels.write_text("".join(f"{t} {d} {v} 0.5\n" for t, _, d, v in map(str.split, lines)))
    partial = folder / "partial.run"
    partial.write_text("".join(x + "\n" for x in runs[0].read_text().splitlines()
                               if x.split()[0] != "3"))  # fmt: skip
    scores = folder / "scores.tsv"
    argv = ["eval", str(folder / "c" / "qrels.txt"), *map(str, runs), "-m", "AP,P@10,nDCG@10"]
    assert main(argv + ["-q", "--format", "tsv", "-o", str(scores)]) == 0
    qa = qa_collection_from_adhoc(folder / "c" / "qrels.txt", runs, folder / "qa")
    first = qa["runs"][0]  # answers in lower case: matched only when the case is normalised
    first.write_text(first.read_text().lower())
    existing = folder / "existing"
    assert main(["simulate", "--out", str(existing), "--topics", "4", "--runs", "3", "--quiet"]
                + ["--depth", "10", "--seed", "9"]) == 0  # fmt: skip
    collections = folder / "collections.toml"
    collections.write_text(
        f'[collections.X]\nqrels = "{qrels}"\nruns = "{folder / "c" / "runs"}"\n'
    )
    run_groups = folder / "run-groups.tsv"  # the first two runs in one group
    run_groups.write_text("".join(f"{p.stem}\tteam\n" for p in runs[:2]))
    return {
        "qrels": qrels,
        "qrels2": qrels2,
        "prels": prels,
        "groups": groups,
        "run_groups": run_groups,
        "runs": runs,
        "run": runs[0],
        "run2": runs[1],
        "run3": runs[2],
        "run4": runs[3],
        "partial": partial,
        "scores": scores,
        "gold": qa["gold"],
        "answers": qa["runs"],
        "answer": qa["runs"][0],
        "collections": collections,
        "existing": existing,
    }


@pytest.fixture(scope="module")
def baselines():
    """Each command's baseline outcome, once."""
    return {}


@pytest.mark.parametrize("command, dest", slow_but_one_each(cases(), lambda case: case[0]))
def test_option_takes_effect_or_is_refused(
    command, dest, files, baselines, tmp_path, monkeypatch, request
):
    from irgauge.report import style

    monkeypatch.setattr(style, "save", figure_texts)
    if command.split()[0] in HANDED_ON:
        request.getfixturevalue("hand_on")
    parser = all_commands()[command]
    action = next(a for a in options_of(parser) if a.dest == dest)
    base = expand(BASELINES[command], files)
    change = expand(setting(command, action), files)
    if (command, dest) in BASELINE_FOR:
        base = expand(BASELINE_FOR[(command, dest)], files)
        before = outcome([*command.split(), *base], tmp_path / "before")
    else:
        if command not in baselines:
            baselines[command] = outcome([*command.split(), *base], tmp_path / "before")
        before = baselines[command]
        assert before[0] == 0, before[2]
    changed = {parser._option_string_actions[w].dest for w in change
               if w in parser._option_string_actions}  # fmt: skip
    if dest in SCORE_INPUTS and SCORE_INPUTS[dest] == setting(command, action):
        base = base[len(SCORE_BASE) :]  # the score file gives way to --qrels and --run
    if dest in ("collection", "collections", "scores") and command.startswith("study"):
        base = [w for w in base if w not in expand(["{qrels}", "{runs}", "{gold}",
                                                    "{answers}"], files)]  # fmt: skip
    after = outcome(
        [*command.split(), *without(base, parser, changed), *change], tmp_path / "after"
    )
    if after[0] != 0:  # refused: exit 2 (trec_eval's usage errors: 1) and one line
        lines = after[2].strip().splitlines()
        if command == "trec_eval":  # its usage lines precede the message, as trec_eval's
            lines = [x for x in lines if not x.startswith(("usage:", " "))]
        assert after[0] == 2 or (command == "trec_eval" and after[0] == 1), after[2]
        assert len(lines) == 1 and lines[0].startswith(("irgauge", "trec_eval")), after[2]
        return
    assert after[0] == 0, after[2]
    assert after != before, f"{command} {change}: no effect"


@pytest.mark.slow
def test_a_study_records_the_parameters_it_is_given(files, tmp_path, monkeypatch):
    """The walk stops where a study is handed its parameters; each study run for real
    records in its manifest the seed and the sample sizes it was given."""
    from irgauge.report import style

    monkeypatch.setattr(style, "save", figure_texts)
    small = {
        "onerel": ["-B", "20", "--trials", "20", "--repetitions", "2", "--topic-resamples", "2"],
        "incomplete": ["-B", "20", "--reductions", "2", "--topic-resamples", "2"],
        "qa": ["--trials", "20", "--repetitions", "2", "--topic-resamples", "2"],
        "predictive": ["-P", "20", "--topic-resamples", "2"],
        "topicset": ["--topic-resamples", "20"],
        "reusability": ["--topic-resamples", "2"],
    }
    for study, sizes in small.items():
        argv = ["study", study, *expand(BASELINES[f"study {study}"], files), *sizes]
        argv[argv.index("--seed") + 1] = "5"
        code, _, err, written = outcome([*argv, "--quiet"], tmp_path / study)
        assert code == 0, err
        manifest = json.loads(written[f"st/{study}/manifest.json"])
        assert manifest["seeds"]["seed"] == 5
        recorded = json.dumps(manifest["parameters"])
        for value in sizes[1::2]:
            assert value in recorded, (study, value, recorded[:500])
