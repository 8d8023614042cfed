"""Local parallelism by default: a big run file and a meta command's chunks use the CPUs
this process may run on, with the output of ``--jobs 1`` (the single-core path)."""

from __future__ import annotations

import os
import threading

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.evaluation import run_scoring, tasks
from irgauge.evaluation.tasks import local_jobs, run_steps, use_jobs
from irgauge.io import _tokens
from irgauge.io.ids import Ids
from irgauge.io.records import Run
from irgauge.io.run_parts import topic_blocks


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


# how long a thread waits at a barrier for the other: a guard against a hang (code that
# runs the steps one after the other never brings the other), not a measure of speed; on a
# loaded machine the other thread can wait for a core for seconds
BARRIER_SECONDS = 300


def _meet(item, barrier):
    # both steps must be running at once to pass the barrier
    barrier.wait()
    return item * 2, threading.current_thread() is threading.main_thread()


def _nested(item):
    return local_jobs()


def test_steps_run_on_threads_in_order_and_leave_none(two_cpus):
    before = threading.active_count()
    barrier = threading.Barrier(2, timeout=BARRIER_SECONDS)
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
    pools, rows = [], []
    real = tasks.on_threads

    def spy(step, items, *rest, **options):
        pools.append(len(items))
        # a chunk: (measure, its slice of pairs), made on its thread
        rows.append(max(part.stop - part.start for _, part in items))
        return real(step, items, *rest, **options)

    monkeypatch.setattr(tasks, "on_threads", spy)
    argv = ["discpower", scores, "-B", "1000", "--seed", "3", "--pairs", "--format", "tsv"]
    code, default, err = cli(capsys, *argv)
    assert code == 0, err
    # no --jobs: the chunks ran on the two CPUs, each of at most half the cells of the
    # single-core path's (4M cells: 4,194 pairs x 1,000 samples), so that the two in
    # flight hold what one holds there: 2,097 pairs, in whole blocks of 262 (the blocks'
    # grid: stats/bootstrap.py), 2,096
    assert pools == [3] and rows == [2096]
    code, single, err = cli(capsys, *argv, "--jobs", "1")
    assert code == 0, err
    assert pools == [3] and single == default
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


def test_one_parts_topic_blocks_are_scored_on_threads_at_once(
    tmp_path, capsys, two_cpus, monkeypatch
):
    qrels, run = _big_run(tmp_path)
    monkeypatch.setattr(run_scoring, "MIN_BLOCK_LINES", 1000)
    argv = ["eval", qrels, run, "-m", "AP", "-m", "nDCG@10", "-q", "--format", "tsv"]
    code, single, err = cli(capsys, *argv, "--jobs", "1")
    assert code == 0, err
    met, lines = [], []
    barrier = threading.Barrier(2, timeout=BARRIER_SECONDS)  # both blocks matched at once
    real = run_scoring.match_run

    def spy(part, *rest):
        lines.append(len(part))
        try:
            barrier.wait()
            met.append(True)
        except threading.BrokenBarrierError:
            met.append(False)
        return real(part, *rest)

    monkeypatch.setattr(run_scoring, "match_run", spy)
    code, default, err = cli(capsys, *argv)
    assert code == 0, err
    assert met == [True, True] and sum(lines) == 36000  # one part, two blocks
    assert default == single


def test_an_error_in_a_block_is_the_error_of_the_part_scored_whole(
    tmp_path, capsys, two_cpus, monkeypatch
):
    qrels, run = _big_run(tmp_path)
    lines = run.read_text().splitlines()
    lines[30000] = lines[29999].replace(" 0.", " 0.0")  # a document retrieved twice
    lines[10000] = lines[9999].replace(" 0.", " 0.0")  # and another, earlier, in block 1
    run.write_text("\n".join(lines) + "\n")
    monkeypatch.setattr(run_scoring, "MIN_BLOCK_LINES", 1000)
    argv = ["eval", qrels, run, "-m", "AP"]
    errors = [cli(capsys, *argv, *jobs)[::2] for jobs in ([], ["--jobs", "1"])]
    assert errors[0] == errors[1] and errors[0][0] == 2 and ":10001:" in errors[0][1]


def _run(topics, lines=None):
    n = len(topics)
    ids = Ids.from_list([t.encode() for t in topics])
    docs = Ids.from_list([f"d{k}".encode() for k in range(n)])
    return Run("r", ids, docs, np.arange(n, 0, -1.0), line_numbers=lines)


def test_topic_blocks_cut_between_topics_and_keep_the_line_numbers():
    run = _run(list("aaabbbbccd"))
    blocks = topic_blocks(run, 2, 1)
    assert [b.topics.decode() for b in blocks] == [list("aaabbbb"), list("ccd")]
    assert [b.line_numbers.tolist() for b in blocks] == [list(range(1, 8)), [8, 9, 10]]
    lines = np.arange(10) * 3 + 5  # a part's own line numbers
    third = topic_blocks(_run(list("aaabbbbccd"), lines), 3, 1)[2]
    assert third.topics.decode() == list("ccd") and third.line_numbers.tolist() == [26, 29, 32]
    assert [len(b) for b in topic_blocks(run, 4, 1)] == [3, 4, 3]  # cuts at topic changes
    assert topic_blocks(run, 2, 6) == [run]  # too small to give each block 6 lines
    scattered = _run(list("aabbaacc"))
    assert topic_blocks(scattered, 2, 1) == [scattered]  # a topic in two places: whole


def _reporting(item, progress=None):
    progress(item)
    return local_jobs()


def test_steps_with_progress_of_their_own_run_in_order_and_keep_the_threads(two_cpus):
    seen = []
    results = run_steps(_reporting, [1, 2, 3], step_progress=lambda k: seen.append)
    assert seen == [1, 2, 3] and results == [2, 2, 2]  # their own steps may use both CPUs


def _with_steps_of_its_own(item):
    return sum(run_steps(_nested, [item, item + 1]))


@pytest.mark.parametrize("jobs", [1, 2])
def test_the_heap_is_handed_back_once_after_the_outermost_steps(two_cpus, monkeypatch, jobs):
    # the steps' freed blocks stay on the heap (the console script keeps arrays there), where
    # a table's strings cannot reuse them: the outermost steps hand them back once at the
    # end, and a step's own steps leave that to them (each trim costs the next steps faults)
    released = []
    monkeypatch.setattr(tasks, "release_free_memory", lambda: released.append(True))
    with use_jobs(jobs):
        assert run_steps(_with_steps_of_its_own, [1, 3]) == [2, 2]
    assert released == [True]
    with pytest.raises(ValueError, match="bad step"):
        run_steps(_fails, [0, 1])
    assert released == [True]  # (an error leaves the heap to whatever handles it)
