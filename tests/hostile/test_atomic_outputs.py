"""Outputs of simulate, reduce, incomplete, eval and qa: a failure or Ctrl-C in the middle of
writing leaves the previous state (no half file, no temporary left), exit 130 or 1 with
one line."""

from __future__ import annotations

import errno
import os

import pytest

from irgauge.collection import reduce as incomplete, simulate
from irgauge.io import atomic as _atomic
from irgauge.collection.simulate import simulate_collection, write_collection

SMALL = dict(n_topics=3, n_runs=3, depth=20, seed=1, pool_depth=10)


def snapshot(folder):
    """{relative path: bytes} of every file under ``folder``."""
    found = {}
    for root, _, files in os.walk(folder):
        for name in files:
            path = os.path.join(root, name)
            found[os.path.relpath(path, folder)] = open(path, "rb").read()
    return found


def interrupt_on_call(monkeypatch, module, name, call):
    """Make ``module.name`` raise KeyboardInterrupt on its ``call``-th use (1-based)."""
    original = getattr(module, name)
    calls = []

    def wrapped(*args, **kwargs):
        calls.append(1)
        if len(calls) == call:
            raise KeyboardInterrupt
        return original(*args, **kwargs)

    monkeypatch.setattr(module, name, wrapped)


def test_simulate_interrupted_keeps_previous_collection(tmp_path, monkeypatch):
    out = tmp_path / "col"
    write_collection(simulate_collection(**SMALL), out)
    (tmp_path / "col" / "notes.txt").write_text("mine")
    before = snapshot(out)
    other = simulate_collection(**{**SMALL, "seed": 2, "n_runs": 4})
    interrupt_on_call(monkeypatch, simulate, "write_run", 3)  # halfway through the runs
    with pytest.raises(KeyboardInterrupt):
        write_collection(other, out, overwrite=True)
    assert snapshot(out) == before
    assert sorted(os.listdir(out)) == ["manifest.json", "notes.txt", "qrels.txt", "runs"]
    monkeypatch.undo()
    write_collection(other, out, overwrite=True)
    after = snapshot(out)
    assert len([p for p in after if p.startswith("runs")]) == 4 and after["notes.txt"] == b"mine"


def test_simulate_cli_ctrl_c_exits_130_and_writes_nothing(tmp_path, monkeypatch, cli):
    interrupt_on_call(monkeypatch, simulate, "write_run", 2)
    code, out, err = cli(
        "simulate",
        "--out",
        tmp_path / "c",
        "--topics",
        "3",
        "--runs",
        "3",
        "--depth",
        "20",
        "--pool-depth",
        "10",
    )
    assert code == 130 and err.strip() == "irgauge: interrupted"
    assert not (tmp_path / "c").exists()  # the folder the command created is removed too


def test_reduce_interrupted_keeps_previous_files(tmp_path, monkeypatch, cli, collection):
    qrels, _ = collection
    out = tmp_path / "red"
    assert cli("reduce", qrels, "--rates", "50,10", "--seed", "1", "--out", out)[0] == 0
    before = snapshot(out)
    interrupt_on_call(monkeypatch, incomplete, "write_bytes", 2)
    code, _, err = cli("reduce", qrels, "--rates", "70,30", "--seed", "2", "--out", out)
    assert code == 130 and err.strip() == "irgauge: interrupted"
    assert snapshot(out) == before and sorted(os.listdir(out)) == sorted(before)


def test_incomplete_interrupted_writes_nothing(tmp_path, monkeypatch, cli, collection):
    from irgauge.report import incomplete_figures

    qrels, run = collection
    other = tmp_path / "run2.txt"
    other.write_text(open(run).read().replace(" r\n", " s\n").replace("3.0", "0.1"))
    interrupt_on_call(monkeypatch, incomplete_figures, "incomplete_figures", 1)
    out, table = tmp_path / "study", tmp_path / "table.txt"
    code, _, err = cli(
        "incomplete",
        qrels,
        run,
        other,
        "-m",
        "AP",
        "--seed",
        "1",
        "-B",
        "20",
        "--out",
        out,
        "-o",
        table,
    )
    assert code == 130 and err.strip() == "irgauge: interrupted"
    assert not out.exists() and not table.exists()


@pytest.mark.parametrize("command", ["eval", "qa"])
def test_output_file_interrupted_or_disk_full(tmp_path, monkeypatch, cli, collection, command):
    qrels, run = collection
    if command == "qa":
        qrels, run = tmp_path / "g.tsv", tmp_path / "r.tsv"
        qrels.write_text("1\tParis\tL1\tc1\n")
        run.write_text("1\tParis\n")
    args = ["qa", "eval"] if command == "qa" else ["eval"]
    target = tmp_path / "out.tsv"
    target.write_text("previous")
    real_replace = os.replace

    def interrupted(src, dst):
        raise KeyboardInterrupt

    monkeypatch.setattr(_atomic.os, "replace", interrupted)
    code, _, err = cli(*args, qrels, run, "-o", target)
    assert code == 130 and err.strip() == "irgauge: interrupted"
    assert target.read_text() == "previous" and sorted(os.listdir(tmp_path)) == sorted(
        p for p in os.listdir(tmp_path) if not p.startswith(".")
    )

    def full(src, dst):
        raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))

    monkeypatch.setattr(_atomic.os, "replace", full)
    code, _, err = cli(*args, qrels, run, "-o", target)
    assert code == 1
    assert err.strip() == f"irgauge: error: cannot write {target}: No space left on device"
    assert target.read_text() == "previous"
    monkeypatch.setattr(_atomic.os, "replace", real_replace)
    assert cli(*args, qrels, run, "-o", target)[0] == 0 and target.read_text() != "previous"


def test_output_folder_that_is_a_file_exits_1(tmp_path, cli, collection):
    (tmp_path / "file.txt").write_text("x")
    code, out, err = cli("reduce", collection[0], "--out", tmp_path / "file.txt")
    assert code == 1 and "exists and is not a folder" in err and "Traceback" not in err


@pytest.mark.parametrize("call", [1, 3])  # the gold answers; the last run's answers
def test_qa_data_derived_from_adhoc_data_appears_whole_or_not_at_all(tmp_path, monkeypatch, call):
    """QA data made from qrels and runs (study qa --derive-qa, the demo) is written through
    the output module: interrupted, it leaves neither its folder nor a part of its files."""
    from irgauge.studies import qa

    source = tmp_path / "col"
    write_collection(simulate_collection(**SMALL), source)
    runs = sorted((source / "runs").iterdir())
    out = tmp_path / "made" / "qa-data"
    interrupt_on_call(monkeypatch, qa, "write_text", call)
    with pytest.raises(KeyboardInterrupt):
        qa.qa_collection_from_adhoc(source / "qrels.txt", runs, out)
    assert sorted(os.listdir(tmp_path)) == ["col"]
    monkeypatch.undo()
    made = qa.qa_collection_from_adhoc(source / "qrels.txt", runs, out)
    assert sorted(snapshot(out)) == [
        "derived.json",
        "gold.tsv",
        *(f"runs/{r.stem}.tsv" for r in runs),
    ]
    assert [p.parent for p in made["runs"]] == [out / "runs"] * len(runs)
