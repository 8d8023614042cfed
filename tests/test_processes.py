"""Big run files on forked worker processes: the output of one core in every case, bad
input named as one core names it, a lost worker's runs scored here, and the cases
where processes are not used (one job asked for, another thread running, a watcher,
small or unsplittable files)."""

from __future__ import annotations

import gzip
import os
import threading
from pathlib import Path

import numpy as np
import pytest

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation import processes, span_tasks

pytestmark = pytest.mark.skipif(
    not processes._fork_is_safe(), reason="worker processes are forked on Linux only"
)

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "num_ret", "bpref"]


def _collection(tmp_path: Path, topics=60, docs=40, shuffled=False, seed=3, name="run"):
    rng = np.random.default_rng(seed)
    qrels = [f"{t} 0 d{d} {rng.integers(0, 3)}" for t in range(topics) for d in range(0, docs, 3)]
    run = [f"{t} Q0 d{d} 0 {rng.integers(0, 9)} tagged" for t in range(topics) for d in range(docs)]
    if shuffled:
        run = [run[i] for i in rng.permutation(len(run))]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    (tmp_path / name).write_text("\n".join(run) + "\n")
    return str(tmp_path / "qrels"), str(tmp_path / name)


@pytest.fixture
def small_files(monkeypatch):
    """Files of a few KB count as big and are cut into several spans (in a test process
    that an earlier test left a thread in, nothing is forked, by design: skipped)."""
    if threading.active_count() > 1:
        pytest.skip(f"{threading.active_count() - 1} other threads run in this process")
    monkeypatch.setattr(processes, "MIN_BYTES", 1000)
    monkeypatch.setattr(processes, "SPAN_BYTES", 2000)
    monkeypatch.setattr(span_tasks, "SPAN_BYTES", 2000)


@pytest.fixture
def forks(monkeypatch):
    """How many worker processes each evaluation forked."""
    counts = []
    real = processes.score_sources_forked

    def spy(sources, plan, count, budget, step):
        counts.append(count)
        return real(sources, plan, count, budget, step)

    monkeypatch.setattr("irgauge.evaluation.engine.score_sources_forked", spy)
    return counts


def _same(a, b) -> None:
    assert a.to_frame().equals(b.to_frame())
    assert a.to_frame(per_topic=False).equals(b.to_frame(per_topic=False))
    assert a.metadata == b.metadata


def test_processes_give_the_output_of_one_core(tmp_path, small_files, forks):
    qrels, run = _collection(tmp_path)
    _, scattered = _collection(tmp_path, shuffled=True, name="scattered")
    runs = [run, scattered, {"0": {"d1": 2.0, "d2": 1.0}}]
    for options in ({}, {"complete": True}, {"judged_only": True, "max_docs": 7}):
        one = irgauge.evaluate(qrels, runs, MEASURES, threads=1, **options)
        assert forks == []
        _same(one, irgauge.evaluate(qrels, runs, MEASURES, threads=3, **options))
        assert forks == [3]
        forks.clear()


def test_the_default_is_a_process_per_cpu(tmp_path, small_files, forks, monkeypatch):
    monkeypatch.setattr(processes, "available_cpus", lambda: 2)
    qrels, run = _collection(tmp_path)
    _same(
        irgauge.evaluate(qrels, [run], MEASURES, threads=1),
        irgauge.evaluate(qrels, [run], MEASURES),
    )
    assert forks == [2]


def test_bad_input_is_named_as_one_core_names_it(tmp_path, small_files):
    qrels, run = _collection(tmp_path)
    lines = Path(run).read_text().splitlines()
    lines[1500] = "37 Q0 d7 0 abc tagged"
    Path(run).write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as here:
        irgauge.evaluate(qrels, [run], ["AP"], threads=1)
    with pytest.raises(InputError) as forked:
        irgauge.evaluate(qrels, [run], ["AP"], threads=2)
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
    qrels, run = _collection(tmp_path)
    expected = irgauge.evaluate(qrels, [run], MEASURES, threads=1)
    monkeypatch.setattr(span_tasks, "_score_span", _dies_in_a_worker)
    _REAL.update(pid=os.getpid(), task=_REAL_SCORE_SPAN)
    _same(expected, irgauge.evaluate(qrels, [run], MEASURES, threads=2))


def test_where_processes_are_not_used(tmp_path, small_files, forks):
    qrels, run = _collection(tmp_path)
    packed = tmp_path / "run.gz"
    packed.write_bytes(gzip.compress(Path(run).read_bytes()))
    for runs, threads in (([run], 1), ([str(packed)], 2)):
        irgauge.evaluate(qrels, runs, ["AP"], threads=threads)
    # another thread running: its locks would be copied held
    stop = threading.Event()
    other = threading.Thread(target=stop.wait)
    other.start()
    try:
        irgauge.evaluate(qrels, [run], ["AP"], threads=2)
    finally:
        stop.set()
        other.join()
    assert forks == []


def test_small_files_stay_on_threads(tmp_path, forks):
    qrels, run = _collection(tmp_path)
    assert os.path.getsize(run) < processes.MIN_BYTES
    irgauge.evaluate(qrels, [run], ["AP"], threads=2)
    assert forks == []
