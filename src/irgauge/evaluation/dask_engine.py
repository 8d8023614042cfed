"""``engine="dask"``: runs scored as tasks (:mod:`irgauge.evaluation.span_tasks`) on a Dask
cluster, with the local results. The plan (judgments and measures) reaches every worker
once: mapped from one file on this host (:mod:`irgauge.evaluation.mapped_plan`), else sent
to each. Dask reruns the tasks of a worker that is lost; tasks are pure, so the output
does not change.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from typing import Dict, List, Optional

from irgauge.errors import InputError
from irgauge.evaluation import mapped_plan
from irgauge.evaluation.run_scoring import ScoredRun, ScoringPlan
from irgauge.evaluation.span_tasks import score_tasks, task_plan
from irgauge.io.threads import available_cpus

DASK_MISSING = (
    'the dask engine needs Dask and its distributed scheduler: pip install "irgauge[dask]"'
)
# Dask starts workers with MALLOC_TRIM_THRESHOLD_=65536, which fixes glibc's mmap threshold
# at 128 KB: every array past it is mapped, faulted in page by page and unmapped anew, and
# a span took 2.2 times as long as in a plain process (measured: 4.5 s against 2.0 s CPU,
# 876,000 page faults against 30,000). The workers irgauge starts itself keep arrays on the
# heap, as its command line does, and numpy gives them no huge-page advice, as on the
# command line (cli/_process.py): with it, where the kernel compacts memory to find a huge
# page on a first touch, discpower's chunks took 1.05-1.3 s of CPU per worker against
# 0.6-0.9 s (8 workers on 2 CPUs, 400 systems). glibc and numpy read these only as a
# process starts.
WORKER_ENVIRON = {
    "MALLOC_TRIM_THRESHOLD_": str(32 << 20),
    "MALLOC_MMAP_THRESHOLD_": str(32 << 20),
    "NUMPY_MADVISE_HUGEPAGE": "0",
}
# The cluster irgauge starts itself (its scheduler and nannies in this process, a worker
# process per CPU) runs without what serves only Dask's dashboard: the worker profiler, which
# samples the running task's stack every 10 ms holding the GIL (without it the same spans
# took 6-7% less worker CPU), and the event-loop tick and system monitor at their default
# 20 ms and 500 ms (70-100 ms of CPU a second across the three processes while they wait
# for tasks, 15 ms with these; all measured on 2 CPUs, where every process shares them).
CLUSTER_SETTINGS = {
    "distributed.worker.profile.enabled": False,
    "distributed.admin.tick.interval": "1s",
    "distributed.admin.system-monitor.interval": "5s",
}

# Scattered inputs live only in the workers' memory: a worker lost before its copy was
# replicated takes them with it (the scheduler cancels the tasks that need them, "lost
# scattered data"); they are sent again, with the steps not done, this many times.
RESENDS = 3


def lost_inputs():
    """The exception of a task cancelled with the scattered inputs it needed."""
    from distributed.client import FutureCancelledError

    return FutureCancelledError


def connect(scheduler: Optional[str] = None, workers: Optional[int] = None):
    """(client, cluster): a client of the cluster at ``scheduler`` (``tcp://host:8786``;
    cluster None), or of a new LocalCluster of ``workers`` single-threaded worker processes
    (default: one per CPU).
    The client is not made the process's default one (a library leaves that to its host)."""
    require_dask()
    import dask
    from distributed import Client, LocalCluster

    if scheduler:
        # how long to try: Dask's own setting (30s unless configured, e.g. by
        # DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT)
        timeout = dask.config.get("distributed.comm.timeouts.connect", "30s")
        try:
            direct = _on_this_host(scheduler)
            client = Client(
                scheduler, timeout=timeout, set_as_default=False, direct_to_workers=direct
            )
            return client, None
        except (OSError, TimeoutError) as err:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    # read by each nanny as it is made, and used for every worker it (re)starts
    environ = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_ENVIRON.items()}
    with dask.config.set({**environ, **CLUSTER_SETTINGS}), host_state_kept():
        cluster = LocalCluster(
            n_workers=workers or available_cpus(),
            threads_per_worker=1,
            processes=True,
            dashboard_address=":0",  # any free port: 8787 may be another cluster's
            memory_limit=0,  # irgauge's own budget bounds each worker (Dask's would pause it)
        )
    try:
        # its workers are on this host: data goes to them straight, not through the
        # scheduler (the plan reached both workers in 0.39 s against 0.51, median of 4)
        return Client(cluster, set_as_default=False, direct_to_workers=True), cluster
    except BaseException:
        cluster.close()
        raise


def _on_this_host(scheduler: str) -> bool:
    """Whether the scheduler at ``scheduler`` runs on this host (its address names a
    loopback address or one of this host's): its workers are then reached as it reaches
    them, and data goes to them straight, not through the scheduler, which otherwise
    unpickles and pickles again what it passes on (on a cluster of 8 workers on 2 CPUs,
    discpower on 1,000 systems x 100 topics: 0.7 s of the scheduler's CPU against 1.3 s,
    and 98,000 fewer page faults). Elsewhere (a cluster the client may reach only
    through its scheduler) Dask's default stands."""
    import ipaddress
    import socket
    from urllib.parse import urlsplit

    host = urlsplit(scheduler if "://" in scheduler else f"tcp://{scheduler}").hostname
    if not host:
        return False
    try:
        try:
            address = ipaddress.ip_address(host)
        except ValueError:  # a name
            address = ipaddress.ip_address(socket.gethostbyname(host))
        if address.is_loopback:
            return True
        _, _, own = socket.gethostbyname_ex(socket.gethostname())
        return str(address) in own
    except (OSError, ValueError):  # (a name that does not resolve here: not this host)
        return False


def require_dask() -> None:
    """InputError saying how to install Dask, unless it can be imported."""
    try:
        import dask  # noqa: F401
        import distributed  # noqa: F401
    except ImportError:
        raise InputError(DASK_MISSING) from None


def _distributed_loggers() -> Dict[str, tuple]:
    """(level, handlers) of the "distributed" logger and of each logger below it."""
    names = ["distributed"] + [
        name for name in list(logging.Logger.manager.loggerDict) if name.startswith("distributed.")
    ]
    return {
        name: (logging.getLogger(name).level, list(logging.getLogger(name).handlers))
        for name in names
    }


@contextlib.contextmanager
def host_state_kept():
    """The calling process's environment and the "distributed" loggers as they were: a
    nanny sets its workers' variables (OMP_NUM_THREADS, MALLOC_*, PYTHONHASHSEED) in its
    own process's os.environ before it spawns one, a LocalCluster sets the level of the
    "distributed" logger, and its scheduler gives the "distributed.scheduler" logger a
    handler that outlives the cluster; a library leaves its host's settings as it found
    them (irgauge never reads the scheduler's log)."""
    environ = dict(os.environ)
    loggers = _distributed_loggers()
    try:
        yield
    finally:
        for name in set(os.environ) - set(environ):
            del os.environ[name]
        for name, value in environ.items():
            if os.environ.get(name) != value:
                os.environ[name] = value
        for name, (level, handlers) in loggers.items():
            logger = logging.getLogger(name)
            logger.setLevel(level)
            logger.handlers[:] = handlers
        for name in set(_distributed_loggers()) - set(loggers):
            logging.getLogger(name).handlers[:] = []


def score_sources_dask(sources, plan: ScoringPlan, client, step) -> List[ScoredRun]:
    """Each (source, name) scored on the cluster of ``client``; ``step()`` after each run.
    A worker lost with the only copy of the plan cancels the tasks that need it: the runs
    not yet merged are then sent again (:data:`RESENDS` times at most)."""
    scored: List[ScoredRun] = []
    for attempt in range(RESENDS + 1):
        try:
            _score_on_cluster(sources[len(scored) :], plan, client, step, scored)
            return scored
        except lost_inputs():
            if attempt == RESENDS:
                raise
    return scored  # (not reached)


def _score_on_cluster(sources, plan: ScoringPlan, client, step, scored: List[ScoredRun]) -> None:
    """The runs of ``sources`` scored as tasks, each appended to ``scored`` once merged."""
    # hash=False: a key of its own, not one hashed from the plan's bytes (tokenizing
    # 160 MB of judgments held up every task by 0.2-0.4 s, measured)
    # (the spill of the values is this process's: a worker keeps its span's values)
    with _sendable(task_plan(plan), client) as sendable:
        shared = client.scatter(sendable, broadcast=True, hash=False)
        workers = max(len(client.scheduler_info().get("workers", {})), 1)

        def submit(task, *arguments):
            return client.submit(task, *arguments, pure=False)

        score_tasks(sources, plan, submit, workers, step, scored, shared)


@contextlib.contextmanager
def _sendable(plan: ScoringPlan, client):
    """The plan as the workers get it: mapped from one file where every worker sees the
    folder it is written in (a cluster on this machine; :func:`mapped_plan.parents`, in
    turn), else sent whole to each."""

    def seen(folder: str, token: str) -> bool:
        by_worker = client.run(mapped_plan.sees, folder, token)
        return bool(by_worker) and all(by_worker.values())

    handle = mapped_plan.placed(mapped_plan.packed(plan), seen)
    if handle is None:
        yield plan
        return
    try:
        yield handle
    finally:
        mapped_plan.remove(handle.folder)


class BackgroundClient:
    """A client of the cluster at ``scheduler`` (a new LocalCluster when None), made on a
    thread while the caller reads the qrels (starting worker processes takes seconds), and
    closed with its cluster when the context ends."""

    def __init__(self, scheduler: Optional[str], workers: Optional[int] = None):
        self.this_machine = scheduler is None  # a LocalCluster of irgauge's own
        self._threads_before = set(threading.enumerate())
        self._pool = ThreadPoolExecutor(1)
        self._future = self._pool.submit(connect, scheduler, workers)

    def __enter__(self) -> "BackgroundClient":
        return self

    def client(self):
        """The client, once made (an error in making it is raised here)."""
        return self._future.result()[0]

    def size(self) -> int:
        """The cluster's workers now (at least 1)."""
        return max(len(self.client().scheduler_info().get("workers", {})), 1)

    def __exit__(self, *exc) -> None:
        try:
            error = self._future.exception()  # waits until made
            if error is None:
                client, cluster = self._future.result()
                with host_state_kept():  # (a nanny that restarted a worker set them again)
                    client.close()
                    if cluster is not None:
                        cluster.close()
                        _join_watchers(self._threads_before)
            elif exc[0] is None:
                # no step needed the cluster, so the work was all done here: said, as the
                # cluster asked for was not used
                print(f"irgauge: note: every step ran here: {error}", file=sys.stderr)
        finally:
            self._pool.shutdown()


WATCHER_PREFIX = "AsyncProcess"  # distributed's threads watching a nanny's worker process
WATCHERS_GRACE_S = 10.0  # a bound: they end within milliseconds of the process's exit


def _join_watchers(before: set) -> None:
    """Wait for the threads that watched the closed cluster's worker processes: they end
    just after the processes exit, which on a loaded machine is after ``close`` returns,
    and the caller's process is to be left with the threads it had (tests/guest)."""
    deadline = time.monotonic() + WATCHERS_GRACE_S
    for thread in threading.enumerate():
        if thread not in before and thread.name.startswith(WATCHER_PREFIX):
            thread.join(max(deadline - time.monotonic(), 0.0))
