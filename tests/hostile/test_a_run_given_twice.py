"""A run file given twice where runs are compared as groups (reusability's leave-one-out,
the pooling study, pool): refused in one line naming the file, since the twin left in the
pool would keep every document of the run left out (io.runs.read_runs(distinct=True))."""

from __future__ import annotations

import os

import pytest

from irgauge.cli import main
from irgauge.errors import InputError

QRELS = "1 0 a 1\n1 0 b 0\n1 0 c 1\n2 0 d 1\n"
RUNS = {
    "r1.txt": "1 Q0 a 1 3 r1\n1 Q0 b 2 2 r1\n2 Q0 d 1 1 r1\n",
    "r2.txt": "1 Q0 c 1 3 r2\n1 Q0 a 2 2 r2\n2 Q0 d 1 1 r2\n",
}


@pytest.fixture
def folder(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "q.txt").write_text(QRELS)
    for name, text in RUNS.items():
        (tmp_path / name).write_text(text)
    os.symlink("r1.txt", tmp_path / "alias.txt")
    return tmp_path


@pytest.mark.parametrize("twin", ["r1.txt", "alias.txt", "./r1.txt"])
@pytest.mark.parametrize(
    "argv",
    [
        ["study", "reusability", "--out", "OUT", "--depth", "2", "q.txt"],
        ["pool", "--depth", "2"],
    ],
)
def test_a_run_file_given_twice_is_refused_naming_it(folder, capsys, argv, twin):
    assert main([*argv, "r1.txt", twin, "r2.txt"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"irgauge: error: {twin}: this run file is given twice: runs compared as groups "
        "must differ (a twin stays in the pool when the other is left out)"
    ]
    assert not (folder / "OUT").exists()


def test_the_apis_refuse_it_too(folder):
    import irgauge
    from irgauge.studies.pooling import compute_pooling

    with pytest.raises(InputError) as caught:
        irgauge.reusability("q.txt", ["r1.txt", "r1.txt", "r2.txt"], 2)
    assert caught.value.parameter == "runs"
    with pytest.raises(InputError) as caught:
        compute_pooling(
            "q.txt", ["r2.txt", "alias.txt", "r1.txt"], ["depth"], [2], ["AP"], 2,
            None, 1, {}, 5,
        )  # fmt: skip
    assert str(caught.value).startswith("r1.txt: this run file is given twice")


def test_distinct_run_files_and_runs_given_as_data_are_read(folder):
    import irgauge

    irgauge.reusability("q.txt", ["r1.txt", "r2.txt"], 2)
    run = {"1": {"a": 1.0}, "2": {"d": 1.0}}
    irgauge.reusability("q.txt", {"x": run, "y": run}, 2)  # not files: two runs, as given


# Commands that take several runs and do not compare them as systems, and why.
NOT_SYSTEMS = {
    "eval": "a table of scores: a run given twice is shown twice, as asked",
    "qa eval": "a table of scores, as eval's",
    "pool": "runs compared as groups: refused above, for the pool's reason",
    "study pooling": "runs compared as groups: refused above, for the pool's reason",
    "study reusability": "runs compared as groups: refused above, for the pool's reason",
    "reduce": "--runs are pooled to a depth: a twin adds no document and changes nothing",
}
QA = {"study qa"}  # QA systems: gold answers and answer files in place of qrels and runs
REQUIRED = {"topics": ["--min-diff", "0.1"]}  # options a command cannot run without
SYSTEMS_WHY = (
    "systems compared must differ (a run paired with itself, no difference on any topic, "
    "would enter every statistic)"
)


def _runs_action(parser):
    """The action taking several runs (``--run RUN...``, ``RUN...``), or None."""
    for action in parser._actions:
        if action.dest in ("run", "runs") and action.nargs in ("+", "*"):
            return action
    return None


def _system_commands():
    from tests.hostile.test_every_option_acts import all_commands

    found = {}
    for command, parser in sorted(all_commands().items()):
        action = _runs_action(parser)
        if action is not None and command not in NOT_SYSTEMS:
            found[command] = parser
    return found


def _argv(command, parser, runs):
    words = command.split()
    options = parser._option_string_actions
    action = _runs_action(parser)
    if not action.option_strings:  # QRELS RUN... (study qa: GOLD ANSWERS...)
        argv = [*words, "gold.tsv" if command in QA else "q.txt", *runs]
    elif "--qrels" in options:  # the meta commands: --qrels QRELS --run RUN...
        argv = [*words, "--qrels", "q.txt", action.option_strings[0], *runs]
    else:  # agree: QRELS QRELS --run RUN...
        argv = [*words, "q.txt", "q2.txt", action.option_strings[0], *runs]
    if "--out" in options:
        argv += ["--out", "OUT"]
    elif "-o" in options:
        argv += ["-o", "OUT"]
    if "-m" in options:
        argv += ["-m", "AP"]
    return argv + REQUIRED.get(command, [])


def test_every_command_taking_runs_is_classified():
    """A new command taking runs compares them as systems (below) unless it says why not."""
    from tests.hostile.test_every_option_acts import all_commands

    taking = {c for c, p in all_commands().items() if _runs_action(p) is not None}
    assert set(NOT_SYSTEMS) <= taking  # no stale exclusion
    assert len(_system_commands()) >= 10


@pytest.mark.parametrize("twin", ["r1.txt", "alias.txt"])
@pytest.mark.parametrize("command", sorted(_system_commands()))
def test_a_run_file_given_twice_to_compare_systems_is_refused(folder, capsys, command, twin):
    (folder / "q2.txt").write_text(QRELS)
    if command in QA:  # r1.txt and r2.txt become the answers of QA systems
        from irgauge.studies.qa import qa_collection_from_adhoc

        qa = qa_collection_from_adhoc("q.txt", ["r1.txt", "r2.txt"], "qa")
        os.replace(qa["gold"], "gold.tsv")
        for path in qa["runs"]:
            os.replace(path, path.stem + ".txt")
    argv = _argv(command, _system_commands()[command], ["r1.txt", twin, "r2.txt"])
    assert main(argv) == 2, argv
    captured = capsys.readouterr()
    assert captured.err.strip().splitlines() == [
        f"irgauge: error: {twin}: this run file is given twice: {SYSTEMS_WHY}"
    ]
    assert captured.out == ""
    assert not (folder / "OUT").exists()


def test_the_system_apis_refuse_it_too(folder):
    import irgauge

    for call in (
        lambda: irgauge.score_matrices("q.txt", ["r1.txt", "alias.txt"], ["AP"]),
        lambda: irgauge.agreement(["q.txt", "q.txt"], runs=["r1.txt", "r2.txt", "r1.txt"]),
    ):
        with pytest.raises(InputError) as caught:
            call()
        assert caught.value.parameter == "runs"
        assert str(caught.value).startswith(("alias.txt: this run", "r1.txt: this run"))
    irgauge.score_matrices("q.txt", ["r1.txt", "r2.txt"], ["AP"])  # distinct: read
