"""Big run files on forked worker processes: the output of one core in every case, bad
input named as one core names it, a lost worker's runs scored here, and the cases
where processes are not used (one job asked for, another thread running, a watcher,
small or unsplittable files)."""

from __future__ import annotations

import gzip
import os
import sys
import threading
from pathlib import Path

import pytest

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation import processes, span_tasks
from tests.engine_cases import collection, counted_forks, same, small_files_forked

pytestmark = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="worker processes are forked on Linux only"
)

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "num_ret", "bpref"]
REAL_FORK_IS_SAFE = processes._fork_is_safe


@pytest.fixture
def small_files(monkeypatch):
    """Files of a few KB count as big and are cut into several spans."""
    small_files_forked(monkeypatch, 2000)


@pytest.fixture
def forks(monkeypatch):
    return counted_forks(monkeypatch)


def test_processes_give_the_output_of_one_core(tmp_path, small_files, forks):
    qrels, run = collection(tmp_path)
    _, scattered = collection(tmp_path, shuffled=True, name="scattered")
    runs = [run, scattered, {"0": {"d1": 2.0, "d2": 1.0}}]
    for options in ({}, {"complete": True}, {"judged_only": True, "max_docs": 7}):
        one = irgauge.evaluate(qrels, runs, MEASURES, jobs=1, **options)
        assert forks == []
        same(one, irgauge.evaluate(qrels, runs, MEASURES, jobs=3, **options))
        assert forks == [3]
        forks.clear()


def test_the_default_is_a_process_per_cpu(tmp_path, small_files, forks, monkeypatch):
    monkeypatch.setattr(processes, "available_cpus", lambda: 2)
    qrels, run = collection(tmp_path)
    same(
        irgauge.evaluate(qrels, [run], MEASURES, jobs=1),
        irgauge.evaluate(qrels, [run], MEASURES),
    )
    assert forks == [2]


def test_bad_input_is_named_as_one_core_names_it(tmp_path, small_files):
    qrels, run = collection(tmp_path)
    lines = Path(run).read_text().splitlines()
    lines[1500] = "37 Q0 d7 0 abc tagged"
    Path(run).write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as here:
        irgauge.evaluate(qrels, [run], ["AP"], jobs=1)
    with pytest.raises(InputError) as forked:
        irgauge.evaluate(qrels, [run], ["AP"], jobs=2)
    assert (
        (forked.value.path, forked.value.line) == (here.value.path, here.value.line) == (run, 1501)
    )
    assert forked.value.problem == here.value.problem  # the file's first error


_REAL_SCORE_SPAN = span_tasks._score_span
_REAL: dict = {}


def _dies_in_a_worker(*args):
    """A task that kills the worker process running it (as the system does when memory
    runs out), and scores its span when called in the test's own process."""
    if os.getpid() != _REAL["pid"]:
        os._exit(9)
    return _REAL["task"](*args)


def test_a_lost_worker_leaves_its_runs_to_this_process(tmp_path, small_files, monkeypatch):
    qrels, run = collection(tmp_path)
    expected = irgauge.evaluate(qrels, [run], MEASURES, jobs=1)
    monkeypatch.setattr(span_tasks, "_score_span", _dies_in_a_worker)
    _REAL.update(pid=os.getpid(), task=_REAL_SCORE_SPAN)
    same(expected, irgauge.evaluate(qrels, [run], MEASURES, jobs=2))


def test_where_processes_are_not_used(tmp_path, small_files, forks, monkeypatch):
    monkeypatch.setattr(processes, "_fork_is_safe", REAL_FORK_IS_SAFE)
    qrels, run = collection(tmp_path)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(Path(run).read_bytes()))
    for runs, threads in (([run], 1), ([str(packed)], 2)):
        irgauge.evaluate(qrels, runs, ["AP"], jobs=threads)
    # another thread running: its locks would be copied held
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        irgauge.evaluate(qrels, [run], ["AP"], jobs=2)
    finally:
        stop.set()
        other.join()
    assert forks == []


def test_small_files_stay_on_threads(tmp_path, forks):
    qrels, run = collection(tmp_path)
    assert os.path.getsize(run) < processes.MIN_BYTES
    irgauge.evaluate(qrels, [run], ["AP"], jobs=2)
    assert forks == []
