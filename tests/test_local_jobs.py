"""Local parallelism by default: a big run file and a meta command's chunks use the CPUs
this process may run on, with the output of ``--jobs 1`` (the single-core path)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.evaluation import tasks
from irgauge.evaluation.tasks import local_jobs, run_steps, use_jobs
from irgauge.io import _tokens


def cli(capsys, *argv):
    code = main([str(a) for a in argv])
    out, err = capsys.readouterr()
    return code, out, err


@pytest.fixture
def two_cpus(monkeypatch):
    """A process allowed two CPUs (as taskset or a container's CPU set would say)."""
    monkeypatch.delenv("IRGAUGE_THREADS", raising=False)
    monkeypatch.setattr(os, "sched_getaffinity", lambda pid: {0, 5}, raising=False)


def test_default_is_the_cpus_allowed(two_cpus):
    assert local_jobs() == 2
    with use_jobs(1):
        assert local_jobs() == 1
    assert local_jobs() == 2


def _meet(item, barrier):
    # both steps must be running at once to pass the barrier
    barrier.wait()
    return item * 2, threading.current_thread() is threading.main_thread()


def _nested(item):
    return local_jobs()


def test_steps_run_on_threads_in_order_and_leave_none(two_cpus):
    before = threading.active_count()
    barrier = threading.Barrier(2, timeout=30)
    results = run_steps(_meet, [1, 2], (barrier,))
    assert [r for r, _ in results] == [2, 4]
    assert not any(on_main for _, on_main in results)
    assert threading.active_count() == before  # the pool is shut down
    assert run_steps(_nested, [1, 2]) == [1, 1]  # a step's own steps: one after the other
    with use_jobs(1):
        assert run_steps(_meet, [1, 2], (threading.Barrier(1),)) == [(2, True), (4, True)]


def _fails(item):
    if item == 1:
        raise ValueError("bad step")
    return item


def test_a_failing_step_raises_and_leaves_no_thread(two_cpus):
    before = threading.active_count()
    with pytest.raises(ValueError, match="bad step"):
        run_steps(_fails, [0, 1, 2, 3])
    assert threading.active_count() == before


def test_discpower_chunks_on_threads_same_output(tmp_path, capsys, two_cpus, monkeypatch):
    rng = np.random.default_rng(5)
    systems, topics = 100, 8  # 4,950 pairs x 1,000 samples: two chunks of pairs
    values = rng.random((topics, systems)) * np.linspace(0.5, 1, systems)
    scores = tmp_path / "AP.csv"
    header = "topic," + ",".join(f"s{k}" for k in range(systems))
    rows = [f"t{t}," + ",".join(repr(float(v)) for v in values[t]) for t in range(topics)]
    scores.write_text("\n".join([header] + rows) + "\n")
    pools = []
    real = tasks._on_threads
    monkeypatch.setattr(tasks, "_on_threads", lambda *a: pools.append(len(a[1])) or real(*a))
    argv = ["discpower", scores, "-B", "1000", "--seed", "3", "--pairs", "--format", "tsv"]
    code, default, err = cli(capsys, *argv)
    assert code == 0, err
    assert pools == [2]  # no --jobs: the two chunks ran on the two CPUs
    code, single, err = cli(capsys, *argv, "--jobs", "1")
    assert code == 0, err
    assert pools == [2] and single == default
    assert default.count("\n") > 4950


def _big_run(tmp_path):
    """A run of 3 MB (three reader blocks), topics contiguous, and its qrels."""
    topics, depth = 300, 120
    rng = np.random.default_rng(1)
    lines = []
    for t in range(topics):
        scores = np.sort(rng.random(depth))[::-1].tolist()
        lines += [f"{t} Q0 doc{t}-{d}-{'x' * 40} {d + 1} {s!r} run" for d, s in enumerate(scores)]
    run = tmp_path / "run.txt"
    run.write_text("\n".join(lines) + "\n")
    assert run.stat().st_size > 2 * _tokens.BLOCK_BYTES
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(
        "".join(
            f"{t} 0 doc{t}-{d}-{'x' * 40} {d % 3}\n"
            for t in range(topics)
            for d in range(0, depth, 7)
        )
    )
    return qrels, run


def test_one_big_run_split_over_threads_same_output(tmp_path, capsys, two_cpus, monkeypatch):
    qrels, run = _big_run(tmp_path)
    workers = []
    real = _tokens._split_blocks

    def spy(blocks, block, n, *rest):
        workers.append(n)
        return real(blocks, block, n, *rest)

    monkeypatch.setattr(_tokens, "_split_blocks", spy)
    argv = ["eval", qrels, run, "-m", "AP", "-m", "nDCG@10", "-q", "--format", "tsv"]
    code, default, err = cli(capsys, *argv)
    assert code == 0, err
    assert max(workers) == 2  # no option: the file's blocks on the two CPUs
    outs = []
    for option in ("--jobs", "--threads"):  # --threads: the old spelling, deprecated
        workers.clear()
        code, out, err = cli(capsys, *argv, option, "1")
        assert code == 0, err
        assert max(workers) == 1
        outs.append(out)
    assert outs == [default, default]
    assert default.count("\n") > 600


def _reporting(item, progress=None):
    progress(item)
    return local_jobs()


def test_steps_with_progress_of_their_own_run_in_order_and_keep_the_threads(two_cpus):
    seen = []
    results = run_steps(_reporting, [1, 2, 3], step_progress=lambda k: seen.append)
    assert seen == [1, 2, 3] and results == [2, 2, 2]  # their own steps may use both CPUs
