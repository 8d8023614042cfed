"""``engine="dask"``: runs scored as tasks on a Dask cluster, with the local results.

Each run file becomes one task per span of whole topics (:func:`~irgauge.io.run_parts.topic_spans`;
one task for a compressed file or a table); runs given as objects become one task each. The
spans of a big plain file shrink from the first to the last, so that the workers finish
together: a worker that falls behind (a slower share of a busy machine) leaves the others
small spans to take over, not half of its last big one. The plan (judgments and measures)
is scattered to every worker once. A task scores its span part by part, as the local
engine scores a file, and returns per-topic values only; they are merged in run order, and
the tables are built from them as locally, so that the output is the local output.

A span whose topics are not contiguous, or spans of one run that share a topic, send that
run back to the local engine (which regroups it by topic). A task that fails on bad input
reports the problem with the file's own line numbers and the worker it ran on. Dask reruns
the tasks of a worker that is lost; tasks are pure, so the output does not change.
"""

from __future__ import annotations

import contextlib
import logging
import os
import sys
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np

from irgauge.errors import InputError, MeasureError, UserCodeError
from irgauge.evaluation.topic_values import RunValues
from irgauge.evaluation.run_scoring import (
    ScoredRun,
    ScoringPlan,
    Scattered,
    in_natural_order,
    score_parts,
    score_source,
)
from irgauge.io._source import count_line_ends, iter_blocks, read_twice
from irgauge.io.run_parts import Span, iter_run_parts, topic_spans
from irgauge.io.threads import available_cpus

DASK_MISSING = (
    'the dask engine needs Dask and its distributed scheduler: pip install "irgauge[dask]"'
)
# A plain file is cut at topic changes into pieces of at least SPAN_BYTES, PIECES_PER_WORKER
# per worker at most; each span takes 1/(2 x workers) of the pieces left, so that the
# last spans are single pieces (on 2 workers, a 990 MB run: 10 spans, the last 4 of 31 MB).
SPAN_BYTES = 16 << 20
PIECES_PER_WORKER = 16
# Dask starts workers with MALLOC_TRIM_THRESHOLD_=65536, which fixes glibc's mmap threshold
# at 128 KB: every array past it is mapped, faulted in page by page and unmapped anew, and
# a span took 2.2 times as long as in a plain process (measured: 4.5 s against 2.0 s CPU,
# 876,000 page faults against 30,000). The workers irgauge starts itself keep arrays on the
# heap, as its command line does; glibc reads these only as a process starts.
WORKER_HEAP = {"MALLOC_TRIM_THRESHOLD_": str(32 << 20), "MALLOC_MMAP_THRESHOLD_": str(32 << 20)}
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
            return Client(scheduler, timeout=timeout, set_as_default=False), None
        except (OSError, TimeoutError) as err:
            raise InputError(f"cannot reach the Dask scheduler at {scheduler}: {err}") from None
    # read by each nanny as it is made, and used for every worker it (re)starts
    heap = {f"distributed.nanny.pre-spawn-environ.{k}": v for k, v in WORKER_HEAP.items()}
    with dask.config.set({**heap, **CLUSTER_SETTINGS}), host_state_kept():
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


@dataclass(frozen=True)
class TaskFailure:
    """Bad input met by a task, sent back to be raised by the client."""

    problem: str
    path: Optional[str]
    line: Optional[int]
    worker: str
    unit: str = "line"

    @classmethod
    def of(cls, err: InputError) -> "TaskFailure":
        """The failure of ``err``, raised on the worker running this task."""
        return cls(err.problem, err.path, err.line, worker_name(), err.unit)

    def error(self) -> InputError:
        """The error to raise on the client: the worker's, naming the worker."""
        problem = f"{self.problem} (on Dask worker {self.worker})"
        return InputError(problem, self.path, self.line, self.unit)


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
    # the judgments' lookup table built once here and shipped, not once per worker
    built = plan.judgments.with_lookup_built()
    shared = client.scatter(replace(plan, judgments=built, spill=None), broadcast=True, hash=False)
    workers = max(len(client.scheduler_info().get("workers", {})), 1)
    submitted: List[Tuple[Any, Any, Optional[List[Any]]]] = []
    for source, name in sources:
        local = _local_only(source)
        if local:
            submitted.append((source, name, None))
            continue
        spans = _spans(source, workers)
        if spans is None:  # one task reads the whole file (or object)
            task = client.submit(_score_whole, source, name, _readable(source), shared, pure=False)
            submitted.append((source, name, [task]))
        else:
            tasks = [
                client.submit(_score_span, source, name, _readable(source), s, shared, pure=False)
                for s in spans
            ]
            submitted.append((source, name, tasks))
    for source, name, tasks in submitted:
        results = [t.result() for t in tasks] if tasks is not None else None
        scored.append(_merged(source, name, results, plan))
        step()


def _local_only(source) -> bool:
    """Standard input and pipes are read here: a worker cannot read them (a path that is
    not here may be on the workers, which name the problem)."""
    return isinstance(source, (str, Path)) and not read_twice(source)


def _readable(source):
    """The path a worker opens: absolute, as the workers' working folder may differ."""
    return os.path.abspath(source) if isinstance(source, (str, Path)) else None


def _spans(source, workers: int) -> Optional[List[Span]]:
    if not isinstance(source, (str, Path)):
        return None
    try:
        size = os.path.getsize(source)
    except OSError:
        return None
    count = int(min(workers * PIECES_PER_WORKER, max(1, size // SPAN_BYTES)))
    pieces = topic_spans(str(source), count) if count > 1 else None
    return shrinking_spans(pieces, workers) if pieces else None


def shrinking_spans(pieces: List[Span], workers: int) -> List[Span]:
    """Consecutive ``pieces`` joined into spans, each of 1/(2 x ``workers``) of the pieces
    left (rounded up): big spans first, single pieces last, so that no worker waits long
    for another's last span (a span's size is the time it keeps a worker busy)."""
    spans = []
    begin = 0
    while begin < len(pieces):
        end = begin - (-(len(pieces) - begin) // (2 * workers))
        first, last = pieces[begin], pieces[end - 1]
        spans.append(Span(first.start, last.end, first.n_columns, first.tag, first.first_line))
        begin = end
    return spans


def worker_name() -> str:
    try:
        from distributed import get_worker

        return get_worker().address
    except (ImportError, ValueError):
        return "(not on a worker)"


def _score_whole(source, name, readable, plan: ScoringPlan):
    """Task: one run whole (a file part by part, or an object)."""
    try:
        if readable is None:
            return score_source(source, name, plan)
        parts = iter_run_parts(str(source), name, plan.part_bytes, 1, readable)
        return score_parts(parts, plan, contiguous=True)
    except Scattered:
        return None
    except InputError as err:
        return TaskFailure.of(err)
    except MeasureError as err:
        return _measure_failure(err)


def _measure_failure(err: MeasureError) -> MeasureError:
    """A measure's failure on a worker (a registered measure's function refused by its
    guard, say), sent back as the task's result to be raised by the client: raised on the
    worker, it would be logged there with a traceback."""
    if isinstance(err, UserCodeError):
        err.problem += f" (on Dask worker {worker_name()})"
    return err


def _score_span(source, name, readable, span: Span, plan: ScoringPlan):
    """Task: one span of a run file; on bad input, read again with the span's true first
    line number so that every line number in the message is the file's."""
    try:
        parts = iter_run_parts(str(source), name, plan.part_bytes, 1, readable, span)
        return score_parts(parts, plan, contiguous=True)
    except Scattered:
        return None
    except InputError as err:
        if span.start > 0 and span.first_line == 1 and err.line is not None:
            before = sum(
                count_line_ends(b) for b in iter_blocks(readable, 1 << 21, (0, span.start))
            )
            counted = Span(span.start, span.end, span.n_columns, span.tag, before + 1)
            return _score_span(source, name, readable, counted, plan)
        return TaskFailure.of(err)
    except MeasureError as err:
        return _measure_failure(err)


def _merged(source, name, results, plan: ScoringPlan) -> ScoredRun:
    """One run's ScoredRun from its tasks' (in span order); the local engine's when a span
    or two spans found the topics not contiguous, or for a source read here."""
    if results is None:
        return score_source(source, name, plan)
    failures = [r for r in results if isinstance(r, TaskFailure)]
    if failures and len(results) > 1:
        # a span's first error need not be the file's (a bad line in a later span comes
        # before a document retrieved twice): read here, the error is the local one
        return score_source(source, name, plan)
    for result in failures:
        raise result.error()
    for result in results:
        if isinstance(result, MeasureError):
            raise result
    if any(r is None for r in results):
        return score_source(source, name, plan)
    answered = np.zeros(plan.judgments.n_topics, np.int64)
    for result in results:
        answered += result.answered
    if (answered > 1).any():  # a topic in two spans
        return score_source(source, name, plan)
    first = results[0]
    values = RunValues(len(plan.measures), plan.spill)
    for result in results:
        values.add_store(result.values)
    return ScoredRun(
        first.name,
        str(source) if isinstance(source, (str, Path)) else first.source,
        first.order,
        values=values,
        answered=answered > 0,
        unknown_topics=in_natural_order(t for r in results for t in r.unknown_topics),
    )


class BackgroundClient:
    """A client of the cluster at ``scheduler`` (a new LocalCluster when None), made on a
    thread while the caller reads the qrels (starting worker processes takes seconds), and
    closed with its cluster when the context ends."""

    def __init__(self, scheduler: Optional[str], workers: Optional[int] = None):
        self.this_machine = scheduler is None  # a LocalCluster of irgauge's own
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
            elif exc[0] is None:
                # no step needed the cluster, so the work was all done here: said, as the
                # cluster asked for was not used
                print(f"irgauge: note: every step ran here: {error}", file=sys.stderr)
        finally:
            self._pool.shutdown()
