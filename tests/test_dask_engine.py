"""The dask engine gives the local output: runs and spans of whole topics scored as tasks on
a cluster (in-process for speed, and with worker processes), a worker lost mid-task,
a worker that cannot read a run, and Dask not installed."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation import dask_engine, mapped_plan, span_tasks

distributed = pytest.importorskip("distributed")
from dask_faults import DieOnce, cli_without_dask  # noqa: E402  (needs distributed)
from tests.engine_cases import collection, same  # noqa: E402

pytestmark = pytest.mark.slow  # each test starts a Dask cluster

MEASURES = ["AP", "nDCG@10", "P@5", "RR", "num_ret", "bpref"]


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as local:
        yield local


@pytest.fixture
def small_spans(monkeypatch):
    """Spans of a few KB, so that a test file is cut into several tasks."""
    monkeypatch.setattr(span_tasks, "SPAN_BYTES", 2000)


def test_runs_and_spans_as_tasks_give_the_local_output(tmp_path, cluster, small_spans):
    qrels, run = collection(tmp_path)
    _, scattered = collection(tmp_path, shuffled=True)
    spans = span_tasks._spans(run, 2)
    assert spans is not None and len(spans) >= 3  # the file is cut into several tasks
    runs = [run, scattered, {"0": {"d1": 2.0, "d2": 1.0}}]  # an object is a task of its own
    for options in ({}, {"complete": True}, {"judged_only": True, "max_docs": 7}):
        local = irgauge.evaluate(qrels, runs, MEASURES, **options)
        remote = irgauge.evaluate(
            qrels, runs, MEASURES, engine="dask", scheduler=cluster.scheduler_address, **options
        )
        same(local, remote)


def test_the_values_merged_from_tasks_spill_on_the_client(tmp_path, cluster, small_spans):
    from irgauge.evaluation import engine

    qrels, run = collection(tmp_path)
    local = irgauge.evaluate(qrels, [run], MEASURES)
    with pytest.MonkeyPatch.context() as patched:
        patched.setattr(engine, "values_in_memory", lambda budget: 0)
        patched.setenv("TMPDIR", str(tmp_path))
        remote = irgauge.evaluate(
            qrels, [run], MEASURES, engine="dask", scheduler=cluster.scheduler_address
        )
    assert remote.topic_values.stores[0].spilled  # read from the spill
    same(local, remote)


def test_bad_input_names_the_files_line_from_any_span(tmp_path, cluster, small_spans):
    qrels, run = collection(tmp_path)
    lines = Path(run).read_text().splitlines()
    lines[1500] = "45 Q0 three-fields"
    Path(run).write_text("\n".join(lines) + "\n")
    with pytest.raises(InputError) as local:
        irgauge.evaluate(qrels, [run], ["AP"])
    with pytest.raises(InputError) as remote:
        irgauge.evaluate(qrels, [run], ["AP"], engine="dask", scheduler=cluster.scheduler_address)
    assert remote.value.line == local.value.line == 1501
    assert remote.value.path == run
    assert remote.value.problem.startswith(local.value.problem)
    assert "on Dask worker" in remote.value.problem


def test_a_worker_that_cannot_read_a_run_is_named(tmp_path, cluster, monkeypatch):
    qrels, run = collection(tmp_path)
    monkeypatch.setattr(span_tasks, "_readable", lambda source: str(tmp_path / "elsewhere"))
    with pytest.raises(InputError) as err:
        irgauge.evaluate(qrels, [run], ["AP"], engine="dask", scheduler=cluster.scheduler_address)
    message = str(err.value)
    assert message.startswith(f"{run}: cannot read file")
    assert "on Dask worker" in message
    worker = message.split("on Dask worker ")[1].rstrip(")")
    assert worker in cluster.scheduler_info["workers"]


def test_a_worker_lost_mid_task_does_not_change_the_output(tmp_path, small_spans):
    qrels, run = collection(tmp_path)
    local = irgauge.evaluate(qrels, [run], MEASURES)
    marker = tmp_path / "died"
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as procs,
        distributed.Client(procs) as client,
    ):
        client.register_plugin(DieOnce(str(marker)))
        remote = irgauge.evaluate(
            qrels, [run], MEASURES, engine="dask", scheduler=procs.scheduler_address
        )
    assert marker.exists()  # a worker did die during a task
    same(local, remote)


def test_the_command_line_with_a_local_cluster_of_processes(tmp_path):
    qrels, run = collection(tmp_path)
    args = [sys.executable, "-m", "irgauge", "eval", qrels, run, "-q", "--format", "tsv"]
    local = subprocess.run(args, capture_output=True, check=True)
    remote = subprocess.run(args + ["--engine", "dask"], capture_output=True, check=True)
    assert remote.stdout == local.stdout


def test_without_dask_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    qrels, run = collection(tmp_path, topics=3)
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(InputError, match=r'pip install "irgauge\[dask\]"'):
        irgauge.evaluate(qrels, [run], ["AP"], engine="dask")
    done = cli_without_dask("eval", qrels, run, "--engine", "dask")
    assert done.returncode == 2
    assert done.stderr.strip().count("\n") == 0 and "irgauge[dask]" in done.stderr


def test_a_scheduler_without_the_dask_engine_is_refused(tmp_path):
    qrels, run = collection(tmp_path, topics=3)
    with pytest.raises(InputError, match="engine='dask'"):
        irgauge.evaluate(qrels, [run], ["AP"], scheduler="tcp://127.0.0.1:8786")


def test_the_host_process_keeps_its_environment_and_logger_level(tmp_path):
    """Dask's nannies set their workers' variables in their own process's os.environ and
    a LocalCluster sets the "distributed" logger's level: both are put back."""
    import logging

    qrels, run = collection(tmp_path, topics=5)
    environ = dict(os.environ)
    level = logging.getLogger("distributed").level
    irgauge.evaluate(qrels, [run], ["AP"], engine="dask")
    assert dict(os.environ) == environ
    assert logging.getLogger("distributed").level == level


def test_spans_shrink_so_that_no_worker_waits_long_for_the_last_one(tmp_path, small_spans):
    _, run = collection(tmp_path, topics=200)
    size = os.path.getsize(run)
    spans = span_tasks._spans(run, 2)
    assert spans[0].start == 0 and spans[-1].end == size
    assert all(a.end == b.start for a, b in zip(spans, spans[1:]))  # the file, once
    sizes = [s.end - s.start for s in spans]
    # two equal spans per worker left a quarter of the file as the last task
    assert max(sizes[-2:]) <= 2 * size / (2 * span_tasks.PIECES_PER_WORKER)
    assert sizes[0] >= 3 * max(sizes[-2:])
    text = Path(run).read_bytes()
    for span in spans[1:]:  # each begins a topic
        before, first = text[: span.start].splitlines()[-1], text[span.start :].split(None, 1)[0]
        assert before.split(None, 1)[0] != first


def test_the_cluster_it_starts_runs_without_what_serves_only_the_dashboard(monkeypatch):
    """Dask's profiler samples each running task's stack every 10 ms, and its event-loop tick
    and system monitor wake every process 50 and 2 times a second: the cluster irgauge
    starts runs without the first and with the others slowed, its workers with the command
    line's heap and huge-page settings, the host's settings unchanged."""
    import dask

    settings = dask_engine.CLUSTER_SETTINGS
    # Dask lets a variable already set here win over its settings; a cluster started by an
    # earlier test leaves its nannies' MALLOC_TRIM_THRESHOLD_ in this process's environment
    for key in dask_engine.WORKER_ENVIRON:
        monkeypatch.delenv(key, raising=False)
    before = {key: dask.config.get(key) for key in settings}
    client, cluster = dask_engine.connect()
    try:
        profiled = client.run(lambda dask_worker: "profile" in dask_worker.periodic_callbacks)
        found = client.run(lambda: {key: dask.config.get(key) for key in settings})
        environs = client.run(
            lambda: {key: os.environ.get(key) for key in dask_engine.WORKER_ENVIRON}
        )
    finally:
        client.close()
        cluster.close()
    assert len(profiled) >= 1 and not any(profiled.values())
    assert all(values == settings for values in found.values())
    # glibc's heap and numpy's huge-page advice, as the command line sets them
    assert all(env == dask_engine.WORKER_ENVIRON for env in environs.values())
    assert all(env["NUMPY_MADVISE_HUGEPAGE"] == "0" for env in environs.values())
    assert {key: dask.config.get(key) for key in settings} == before


def test_the_budget_is_the_commands_on_this_machine_and_each_workers_on_a_cluster(
    tmp_path, cluster, capsys, monkeypatch
):
    from irgauge.evaluation import engine

    qrels, run = collection(tmp_path, topics=5)
    shares = []
    real = engine.part_bytes
    monkeypatch.setattr(engine, "part_bytes", lambda b, n: shares.append(b) or real(b, n))
    address = cluster.scheduler_address
    irgauge.evaluate(qrels, [run], ["AP"], memory="64M", engine="dask", scheduler=address)
    err = capsys.readouterr().err
    assert "memory budget 64M per worker: each of the cluster's 2 workers" in err
    assert shares[-1] == 64 << 20
    # a cluster irgauge starts on this machine (here: the test's, in this process)
    client = distributed.Client(address, set_as_default=False)
    asked = []
    monkeypatch.setattr(dask_engine, "connect", lambda *a: asked.append(a) or (client, None))
    irgauge.evaluate(qrels, [run], ["AP"], memory="64M", engine="dask", jobs=3)
    assert asked == [(None, 3)]  # threads: the LocalCluster's workers
    err = capsys.readouterr().err
    assert "memory budget 64M for the whole command: 32M for each of 2 workers" in err
    assert shares[-1] == 32 << 20  # the workers' shares add up to the budget


def _scattered_plans(monkeypatch) -> list:
    """What each scatter of a plan sent: the plan, or the handle of a mapped one."""
    sent = []
    real = distributed.Client.scatter

    def spy(self, data, **kw):
        if hasattr(data, "judgments") or isinstance(data, mapped_plan.MappedPlan):
            sent.append(data)
        return real(self, data, **kw)

    monkeypatch.setattr(distributed.Client, "scatter", spy)
    return sent


def test_the_judgments_lookup_is_built_once_here_and_shipped(tmp_path, cluster, monkeypatch):
    qrels, run = collection(tmp_path, topics=5)
    sent = _scattered_plans(monkeypatch)
    address = cluster.scheduler_address
    remote = irgauge.evaluate(qrels, [run], ["AP"], engine="dask", scheduler=address)
    assert len(sent) == 1
    # (a mapped plan is read back as a worker reads it)
    assert mapped_plan.plan_of(sent[0]).judgments._table is not None
    same(irgauge.evaluate(qrels, [run], ["AP"]), remote)


def _plan_folders(tmp_path, monkeypatch):
    """The memory folder and the temporary folder, both new, and where each plan went."""
    for name in ("shm", "temp"):
        (tmp_path / name).mkdir()
    monkeypatch.setattr(mapped_plan, "MEMORY_FOLDER", str(tmp_path / "shm"))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path / "temp"))
    written = []
    real = mapped_plan.written
    monkeypatch.setattr(
        mapped_plan, "written", lambda p, f, t: written.append(Path(f).parent.name) or real(p, f, t)
    )
    return written


def test_workers_on_this_host_map_the_plan_and_its_folder_goes(tmp_path, cluster, monkeypatch):
    qrels, run = collection(tmp_path, topics=9)
    written = _plan_folders(tmp_path, monkeypatch)
    sent = _scattered_plans(monkeypatch)
    remote = irgauge.evaluate(
        qrels, [run], MEASURES, engine="dask", scheduler=cluster.scheduler_address
    )
    assert [type(p) for p in sent] == [mapped_plan.MappedPlan]
    assert len(sent[0].pickled) < 200_000  # the arrays lie in the mapped file, not here
    assert written == ["shm"]  # in memory, where there is room: not to a disk
    # the plan's folder is removed
    assert list((tmp_path / "shm").iterdir()) == list((tmp_path / "temp").iterdir()) == []
    same(irgauge.evaluate(qrels, [run], MEASURES), remote)


def test_workers_that_do_not_see_the_memory_folder_map_the_temporary_one(
    tmp_path, cluster, monkeypatch
):
    qrels, run = collection(tmp_path, topics=9)
    written = _plan_folders(tmp_path, monkeypatch)
    real = mapped_plan.sees
    # as workers in containers of their own, which share this host's /tmp alone
    monkeypatch.setattr(mapped_plan, "sees", lambda f, t: "shm" not in f and real(f, t))
    sent = _scattered_plans(monkeypatch)
    remote = irgauge.evaluate(
        qrels, [run], MEASURES, engine="dask", scheduler=cluster.scheduler_address
    )
    assert [type(p) for p in sent] == [mapped_plan.MappedPlan]
    assert written == ["temp"]
    assert list((tmp_path / "shm").iterdir()) == list((tmp_path / "temp").iterdir()) == []
    same(irgauge.evaluate(qrels, [run], MEASURES), remote)


def test_workers_that_do_not_see_the_folder_get_the_whole_plan(tmp_path, cluster, monkeypatch):
    qrels, run = collection(tmp_path, topics=9)
    # as on workers of another host: the token is not there
    monkeypatch.setattr(mapped_plan, "sees", lambda folder, token: False)
    sent = _scattered_plans(monkeypatch)
    remote = irgauge.evaluate(
        qrels, [run], MEASURES, engine="dask", scheduler=cluster.scheduler_address
    )
    assert len(sent) == 1 and not isinstance(sent[0], mapped_plan.MappedPlan)
    same(irgauge.evaluate(qrels, [run], MEASURES), remote)


def test_the_measures_tables_are_built_once_here_and_shipped(tmp_path, cluster, monkeypatch):
    """nDCG's ideal DCG of every topic (a table derived from the judgments) travels in the
    plan, built here, rather than being built again by every worker."""
    qrels, run = collection(tmp_path, topics=5)
    packed = []  # the judgments' tables as the plan is packed, before any worker has it
    real = mapped_plan.packed
    monkeypatch.setattr(
        mapped_plan, "packed", lambda p: packed.append(list(p.judgments._memo)) or real(p)
    )
    address = cluster.scheduler_address
    remote = irgauge.evaluate(qrels, [run], MEASURES, engine="dask", scheduler=address)
    assert len(packed) == 1
    assert any(isinstance(key, tuple) and key[0] == "ideal_dcg" for key in packed[0])
    same(irgauge.evaluate(qrels, [run], MEASURES), remote)


def test_a_registered_measure_is_not_called_on_the_tables_document(tmp_path, cluster):
    """The tables are built by scoring one made-up document here: irgauge's own measures
    only. A registered measure's function (code irgauge did not write) is called on the
    runs' rows alone, by the workers' threads."""
    import threading

    qrels, run = collection(tmp_path, topics=5)
    calls = tmp_path / "calls"  # (the function travels pickled: a list would be a copy's)

    def counted(ranked):
        with open(calls, "a") as log:
            log.write(f"{threading.current_thread() is threading.main_thread()}\n")
        return ranked.isrel[:, :1].sum(axis=1).astype(float)

    irgauge.register_measure("first_relevant_counted", counted, cutoff=False, replace=True)
    try:
        measures = ["first_relevant_counted", "nDCG@10"]
        address = cluster.scheduler_address
        remote = irgauge.evaluate(qrels, [run], measures, engine="dask", scheduler=address)
        assert calls.read_text().split() and "True" not in calls.read_text().split()
        same(irgauge.evaluate(qrels, [run], measures), remote)
    finally:
        irgauge.unregister_measure("first_relevant_counted")


@pytest.mark.parametrize(
    "address, here",
    [("tcp://127.0.0.1:8786", True), ("localhost:8786", True), ("tcp://[::1]:8786", True)]
    + [("tcp://192.0.2.7:8786", False), ("tcp://no-such-host.invalid:8786", False)],
)
def test_a_scheduler_on_this_host_gets_data_to_its_workers_straight(address, here, monkeypatch):
    made = {}

    class Client:
        def __init__(self, scheduler, **options):
            made.update(options)

    monkeypatch.setattr(distributed, "Client", Client)
    dask_engine.connect(address)
    assert made["direct_to_workers"] is here
