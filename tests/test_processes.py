"""Big run files on forked worker processes: the output of one core in every case, bad
input named as one core names it, a lost worker's runs scored here, and the cases
where processes are not used (one job asked for, another thread running, a watcher,
small or unsplittable files)."""

from __future__ import annotations

import gzip
import os
import signal
import sys
import threading
import time
from pathlib import Path

import pytest

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation import engine, processes, span_tasks
from irgauge.io import scratch
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


@pytest.mark.parametrize(
    "bad_line, beside, forked_workers",
    [
        # in the first 64 KiB, where the file is cut: read whole, here
        (1501, False, []),
        # the same, beside a big run that is forked for: read whole by a worker, whose
        # message is the one given
        (1501, True, [2]),
        # far past them: met by the worker reading its span (and named as the file's
        # first error by reading the file here)
        (7001, False, [2]),
    ],
)
def test_bad_input_is_named_as_one_core_names_it(
    tmp_path, small_files, forks, monkeypatch, bad_line, beside, forked_workers
):
    failed = []  # the tasks' results that met bad input, as they come back from the workers
    real_merged = span_tasks._merged

    def merged(source, name, results, plan):
        failed.extend(r for r in results or () if isinstance(r, span_tasks.TaskFailure))
        return real_merged(source, name, results, plan)

    monkeypatch.setattr(span_tasks, "_merged", merged)
    good = collection(tmp_path, topics=200, name="good")[1]
    qrels, run = collection(tmp_path, topics=200)
    lines = Path(run).read_text().splitlines()
    assert (len("\n".join(lines[: bad_line - 1])) > 1 << 16) == (bad_line == 7001)
    topic = lines[bad_line - 1].split()[0]  # (its topic's lines stay together)
    lines[bad_line - 1] = f"{topic} Q0 d7 0 abc tagged"
    Path(run).write_text("\n".join(lines) + "\n")
    runs = [good, run] if beside else [run]
    with pytest.raises(InputError) as here:
        irgauge.evaluate(qrels, runs, ["AP"], jobs=1)
    with pytest.raises(InputError) as forked:
        irgauge.evaluate(qrels, runs, ["AP"], jobs=2)
    assert forks == forked_workers
    assert len(failed) == bool(forked_workers)  # a worker met it
    where = (run, bad_line)
    assert (forked.value.path, forked.value.line) == (here.value.path, here.value.line) == where
    assert forked.value.problem == here.value.problem  # the file's first error
    assert str(forked.value) == str(here.value)


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


def _read_ahead_first(monkeypatch, tmp_path, tasks: int = 1) -> None:
    """Each task forked before the plan exists marks that it has read ahead (a file in
    ``tmp_path``), and the qrels are read only once ``tasks`` have: the tasks' parts then
    wait for the plan, whatever the machine's speed. Parts of 500 bytes, a span's every
    part read ahead."""
    monkeypatch.setattr(processes, "_early_parts", lambda *_: (500, 10**6))
    real_ahead, real_qrels = span_tasks._read_ahead, engine.read_qrels
    marks = tmp_path / "marks"
    marks.mkdir()

    def marked(parts, coming):
        ahead = real_ahead(parts, coming)
        (marks / str(os.getpid())).touch()
        return ahead

    def after_a_task_read_ahead(*args, **kwargs):
        deadline = time.monotonic() + 60
        while len(list(marks.iterdir())) < tasks:
            assert time.monotonic() < deadline, "no task read ahead of the qrels"
            time.sleep(0.01)
        return real_qrels(*args, **kwargs)

    monkeypatch.setattr(span_tasks, "_read_ahead", marked)
    monkeypatch.setattr(engine, "read_qrels", after_a_task_read_ahead)


def test_tasks_forked_before_the_qrels_give_the_output_of_one_core(
    tmp_path, small_files, forks, monkeypatch
):
    qrels, run = collection(tmp_path)
    _, scattered = collection(tmp_path, shuffled=True, name="scattered")
    expected = irgauge.evaluate(qrels, [run, scattered], MEASURES, jobs=1, complete=True)
    _read_ahead_first(monkeypatch, tmp_path)
    same(expected, irgauge.evaluate(qrels, [run, scattered], MEASURES, jobs=2, complete=True))
    assert forks  # (the marks' wait fails where no task is forked before the qrels)


def test_bad_qrels_win_over_a_bad_run_read_ahead(tmp_path, monkeypatch):
    # two spans (the first 64 KiB must be sound for the file to be cut), each read ahead
    # whole by a task, the second with a bad line
    small_files_forked(monkeypatch, 40_000)
    qrels, run = collection(tmp_path, topics=120)
    lines = Path(run).read_text().splitlines()
    lines[4000] = "100 Q0 d7 0 abc tagged"
    Path(run).write_text("\n".join(lines) + "\n")
    assert processes.process_count([(run, None)], 2, None) == 2
    Path(qrels).write_text(Path(qrels).read_text() + "1 0 d1\n")
    with pytest.raises(InputError) as here:
        irgauge.evaluate(qrels, [run], ["AP"], jobs=1)
    _read_ahead_first(monkeypatch, tmp_path, tasks=2)
    with pytest.raises(InputError) as forked:
        irgauge.evaluate(qrels, [run], ["AP"], jobs=2)
    assert str(forked.value) == str(here.value)
    assert forked.value.path == qrels


class _Coming:
    ahead_parts = 3

    @staticmethod
    def turn() -> bool:
        return True

    @staticmethod
    def turn_done() -> None:
        pass


def test_a_read_error_met_ahead_comes_after_the_parts_before_it():
    bad = InputError("not a number", "run", 9)

    def parts():
        yield "first"
        yield "second"
        raise bad

    read = span_tasks._read_ahead(parts(), _Coming())
    assert next(read) == "first" and next(read) == "second"  # scored before the error
    with pytest.raises(InputError) as err:
        next(read)
    assert err.value is bad


@pytest.mark.parametrize(
    "moment, signum",
    [
        ("irgauge.evaluation.engine:read_qrels", signal.SIGINT),  # the workers read ahead
        ("irgauge.evaluation.mapped_plan:AwaitedPlan.publish", signal.SIGTERM),  # they score
    ],
)
def test_a_stop_leaves_no_worker_and_no_file(tmp_path, moment, signum):
    from tests.test_streaming import stopped_while_writing

    qrels, run = collection(tmp_path)
    pids, shared = tmp_path / "pids", tmp_path / "shm"
    shared.mkdir()
    setup = (
        "import sys\n"
        "from irgauge.evaluation import mapped_plan, processes, span_tasks\n"
        f"mapped_plan.MEMORY_FOLDER = {str(shared)!r}\n"
        "processes.MIN_BYTES = processes.SPAN_BYTES = span_tasks.SPAN_BYTES = 2000\n"
        "processes._fork_is_safe = lambda: True\n"
        "real = processes.submit_tasks\n"
        "def noted(sources, submit, *args):\n"
        "    submitted = real(sources, submit, *args)\n"
        f"    open({str(pids)!r}, 'w').write(' '.join(map(str, submit.__self__._processes)))\n"
        "    return submitted\n"
        "processes.submit_tasks = noted\n"
    )
    argv = ["eval", qrels, run, "--jobs", "3", "-q"]
    stopped_while_writing(
        argv,
        tmp_path / "spill",
        signum,
        # the early workers' folder, by the name scratch.made gives it on this machine
        f"irgauge-awaited-{scratch._machine()}-[0-9]*-[0-9]*-" + "?" * 8,
        after=moment,
        setup=setup,
    )
    forked = [int(pid) for pid in pids.read_text().split()]
    assert len(forked) >= 1
    for pid in forked:  # ended and reaped by the command before it exited
        assert not os.path.exists(f"/proc/{pid}")
    assert list(shared.iterdir()) == []  # the plan written there, removed


def test_a_command_killed_outright_leaves_no_worker(tmp_path):
    """SIGKILL runs no handler, so the command cannot end its workers: they end with it
    (else each would sleep for good, holding its map of the plan, whose memory in /dev/shm
    the sweep of the plan's folder could then not give back)."""
    import subprocess

    qrels, run = collection(tmp_path)
    pids = tmp_path / "pids"
    script = (
        "import os, signal, sys\n"
        "from irgauge.evaluation import mapped_plan, processes, span_tasks\n"
        f"mapped_plan.MEMORY_FOLDER = {str(tmp_path)!r}\n"
        "processes.MIN_BYTES = processes.SPAN_BYTES = span_tasks.SPAN_BYTES = 2000\n"
        "processes._fork_is_safe = lambda: True\n"
        "real = mapped_plan.AwaitedPlan.publish\n"
        "def publish(self):\n"  # the workers waiting for the plan, or scoring with it
        "    real(self)\n"
        f"    open({str(pids)!r}, 'w').write(' '.join(\n"
        "        str(p.pid) for p in __import__('multiprocessing').active_children()))\n"
        "    os.kill(os.getpid(), signal.SIGKILL)\n"
        "mapped_plan.AwaitedPlan.publish = publish\n"
        "import irgauge\n"
        f"irgauge.evaluate({qrels!r}, [{run!r}], ['AP'], jobs=2)\n"
    )
    # (no pipe: a worker left running would hold it open, and the test wait for good)
    with open(tmp_path / "stderr", "w") as stderr:
        killed = subprocess.run([sys.executable, "-c", script], stdout=stderr, stderr=stderr)
    assert killed.returncode == -signal.SIGKILL, (tmp_path / "stderr").read_text()
    workers = [int(pid) for pid in pids.read_text().split()]
    assert len(workers) == 2
    for _ in range(200):  # (they end as the kernel delivers their signal: at once)
        if not any(_running(pid) for pid in workers):
            break
        time.sleep(0.05)
    running = [pid for pid in workers if _running(pid)]
    for pid in running:  # (not left behind by a failing test)
        os.kill(pid, signal.SIGKILL)
    assert running == []


def _running(pid: int) -> bool:
    """Whether ``pid`` runs (an orphan that ended is reaped by init, or is a zombie)."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            return f.read().rsplit(")", 1)[1].split()[0] != "Z"
    except OSError:
        return False
