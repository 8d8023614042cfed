"""Independent steps of a computation, run here or as tasks on a Dask cluster.

The meta-evaluation methods and the studies cut their work into independent, pure steps
(the chunks of system pairs of a bootstrap test, the measures of a swap or stability
experiment, the repetitions, reductions and topic resamples of a study) and hand them to
:func:`run_steps`. Here they run on a pool of threads, one per CPU this process may use
(``use_jobs(n)`` or $IRGAUGE_THREADS sets how many; 1 runs them one after the other, as
they always did): the steps are numpy's matrix products and sorts, which release the GIL,
so threads share the inputs without a copy where processes would pickle them. Within
``with use_engine("dask")`` each step becomes a task on a Dask cluster, and the results
come back in the order given, so that whatever is computed from them is computed from the
same numbers in the same order: the output is the local output, bit for bit.

Random draws stay with the caller: a step is given its samples, or a seed derived from the
command's seed, and never draws on its own, so where it runs cannot change what it draws.
A step that runs on a worker runs its own steps there, one after the other.
"""

from __future__ import annotations

import contextlib
import os
import uuid
from contextvars import ContextVar
from typing import Callable, Iterable, Iterator, List, Optional, Sequence

from irgauge.errors import InputError
from irgauge.io.heap import release_free_memory
from irgauge.io.threads import ENV, available_cpus, on_threads, thread_count

ENGINES = ("local", "dask")

# the cluster of the innermost use_engine("dask") (a BackgroundClient), or None: here
_CLUSTER: ContextVar = ContextVar("irgauge_cluster", default=None)
# the local steps' threads of the innermost use_jobs(n), or None: $IRGAUGE_THREADS, else
# the CPUs available; 1 within a step, so that a step's own steps do not start a pool
_JOBS: ContextVar = ContextVar("irgauge_jobs", default=None)
# True within a step run here: the steps it runs of its own leave the heap to the outermost
_IN_STEP: ContextVar = ContextVar("irgauge_in_step", default=False)


@contextlib.contextmanager
def use_jobs(jobs: Optional[int]) -> Iterator[None]:
    """Run local steps on ``jobs`` threads within the block (None: the default, see
    :func:`local_jobs`; 1: one after the other). The results do not depend on it."""
    token = _JOBS.set(None if jobs is None else thread_count(jobs))
    try:
        yield
    finally:
        _JOBS.reset(token)


def local_jobs() -> int:
    """Threads for local steps: ``use_jobs``'s, else $IRGAUGE_THREADS, else the CPUs this
    process may run on (os.sched_getaffinity: taskset and container CPU sets count)."""
    jobs = _JOBS.get()
    if jobs is not None:
        return jobs
    return thread_count() if os.environ.get(ENV, "").strip() else available_cpus()


def step_cells(max_cells: int) -> int:
    """The cells (array elements in flight) each of the steps about to be handed to
    :func:`run_steps` may hold, so that the steps running at once hold ``max_cells``
    together: ``max_cells // local_jobs()`` here, the whole on a cluster (each worker runs
    one step at a time, within its own memory). Callers whose steps' results do not
    depend on how the work is cut (each step's rows computed alone) keep the memory of
    the single-core path whatever the threads."""
    if _CLUSTER.get() is not None:
        return max_cells
    return max(1, max_cells // local_jobs())


def check_engine(engine: str, scheduler: Optional[str]) -> None:
    """InputError for an unknown engine, or a scheduler without the dask engine."""
    if engine not in ENGINES:
        raise InputError(f"unknown engine {engine!r}; choose from {', '.join(ENGINES)}")
    if scheduler is not None and engine != "dask":
        raise InputError("a scheduler is for the dask engine: give engine='dask' too")


@contextlib.contextmanager
def use_engine(
    engine: str = "local", scheduler: Optional[str] = None, workers: Optional[int] = None
) -> Iterator[None]:
    """Run the meta-evaluation methods' and the studies' steps on ``engine`` within the
    block: "local" (this process) or "dask" (tasks on the cluster at ``scheduler``,
    ``"tcp://host:8786"``, or on a LocalCluster of a worker process per CPU, started now,
    while the block reads its inputs, and stopped at its end; ``workers`` processes
    instead when given). The results are the local ones."""
    check_engine(engine, scheduler)
    if engine == "local":
        token = _CLUSTER.set(None)
        try:
            yield
        finally:
            _CLUSTER.reset(token)
        return
    from irgauge.evaluation.dask_engine import BackgroundClient, require_dask

    require_dask()  # now, not when the first step is sent
    with BackgroundClient(scheduler, None if scheduler else workers) as cluster:
        token = _CLUSTER.set(cluster)
        try:
            yield
        finally:
            _CLUSTER.reset(token)


def run_steps(
    step: Callable,
    items: Iterable,
    shared: Sequence = (),
    progress: Optional[Callable[[int, int], None]] = None,
    step_progress: Optional[Callable[[int], Optional[Callable]]] = None,
    sources: Sequence = (),
) -> List:
    """``[step(item, *shared) for item in items]``, here or as tasks (see the module).

    ``step`` must be pure and importable (a task refers to it by name); ``shared`` is sent
    to every worker once, all of it in one sending. With ``sources``, each item
    is ``(k, part)`` and its step gets ``sources[k][part]`` in its place: rows cut from a
    big input by the step that uses them. A source that is an array is cut here and each part
    sent to its task alone; any other (a recipe for its rows, small to send, such as
    :class:`~irgauge.stats.resampling.PairDifferences`) is sent to every worker once, as
    ``shared`` is, and a task makes its own part there, as a local step makes its own on
    its thread. ``progress(done, total)`` follows each step's result, unless the
    steps report their own progress here: step k then gets ``progress=step_progress(k)``
    (on a cluster they report nothing and ``progress`` follows the results). A single item
    runs here, so that its own steps may use the cluster. Locally, several items run on
    up to :func:`local_jobs` threads, their results taken in the order given, unless the
    steps report their own progress (bars of their own, which threads would interleave):
    they then run one after the other, and their own steps use the threads."""
    items = list(items)
    cluster = _CLUSTER.get()
    if sources and (cluster is None or len(items) < 2):
        step, shared = _cut, (step, tuple(sources), *shared)
    elif sources:
        return _on_cluster(cluster.client(), step, items, shared, progress, tuple(sources))
    if cluster is not None and len(items) > 1:
        return _on_cluster(cluster.client(), step, items, shared, progress)
    outermost = not _IN_STEP.get()
    token = _IN_STEP.set(True)
    try:
        results = _here(step, items, shared, progress, step_progress)
    finally:
        _IN_STEP.reset(token)
    if outermost:
        # the steps' temporaries (blocks of 2 MB and more, kept on the heap by the
        # console script's settings, so each block reuses the last one's pages) are
        # garbage now, and what follows (a table's strings: Python's own arenas) cannot
        # reuse them: compare --tests randomisation on 400 systems peaked at 288 MB
        # against 342 MB, with its table made a block of rows at a time (io.tables)
        release_free_memory()
    return results


def _here(step, items: List, shared, progress, step_progress) -> List:
    """:func:`run_steps` in this process: on threads, or one after the other."""
    if len(items) > 1 and step_progress is None and local_jobs() > 1:
        return on_threads(_alone, items, (step, *shared), progress, jobs=local_jobs())
    results = []
    for k, item in enumerate(items):
        if step_progress is not None:
            results.append(step(item, *shared, progress=step_progress(k)))
            continue
        results.append(step(item, *shared))
        if progress is not None:
            progress(len(results), len(items))
    return results


def _cut(item, step, sources, *shared, **options):
    """``step(sources[k][part], *shared)`` of an item ``(k, part)``, made where it runs."""
    k, part = item
    return step(sources[k][part], *shared, **options)


def _made_from(part, source, step, *shared):
    """``step(source[part], *shared)``: a task's part made on its worker from ``source``,
    sent there once (:func:`run_steps`' ``sources``)."""
    return step(source[part], *shared)


def _alone(item, step, *shared):
    """``step(item, *shared)`` on a thread of :func:`run_steps`, in a context of its own
    (:func:`~irgauge.io.threads.on_threads`): its own steps run one after the other."""
    _JOBS.set(1)
    return step(item, *shared)


def on_cluster() -> bool:
    """Whether :func:`run_steps` sends its steps to a cluster here."""
    return _CLUSTER.get() is not None


def _on_cluster(client, step, items, shared, progress, sources=()) -> List:
    from irgauge.evaluation.dask_engine import RESENDS, lost_inputs

    results: List = []
    for attempt in range(RESENDS + 1):
        try:
            _gather(client, step, items, shared, progress, results, sources)
            return results
        except lost_inputs():
            if attempt == RESENDS:
                raise
    return results  # (not reached)


def _gather(client, step, items, shared, progress, results: List, sources=()) -> None:
    """Send ``shared`` and the steps not yet done, and append their results in order."""
    import numpy as np

    pending = list(items[len(results) :])
    # a recipe is sent once and each task makes its part from it (run_steps' sources): for
    # discpower on 1,000 systems x 100 topics, 0.8 MB of scores to each worker, not 400 MB
    # of differences in 120 parts, each a key the scheduler tracks
    kinds = [k for k, s in enumerate(sources) if not isinstance(s, np.ndarray)]
    # all in one scatter, each member a value of its own (a list's or a dict's members are
    # not split): each call pays its round trips (the scheduler, a worker, then the
    # scheduler's copying to the others) whatever it sends: 5-11 ms of wall each, on 4
    # workers on 2 CPUs. Study onerel sent 19 in 5 calls of run_steps, study predictive
    # 28 in 7, most of them a number or a name (0.3-0.6 MB in all)
    everywhere = [*shared, *(sources[k] for k in kinds)]
    sent = client.scatter(everywhere, broadcast=True, hash=False) if everywhere else []
    recipes = dict(zip(kinds, sent[len(shared) :]))
    sent = sent[: len(shared)]
    cut = [sources[k][part] for k, part in pending if k not in recipes] if sources else pending
    # each step's item sent as data of its own, not as an argument inside its task: the
    # scheduler unpickles a task's arguments with the graph, holds them and pickles them
    # again for the worker; scattered data goes to the workers straight where the client
    # reaches them (dask_engine.connect). discpower on 1,000 systems x 100 topics sent
    # 400 MB of differences so: the scheduler's CPU went from 1.3 s to 0.7 s, its page
    # faults from 98,000 to 500 (8 workers on 2 CPUs, measured with bench/bench_scale.py)
    data = iter(client.scatter(cut, hash=False) if cut else [])
    if sources:  # (a recipe's part, a slice, is small enough to travel in its task)
        calls = [
            (_made_from, part, recipes[k], step) if k in recipes else (step, next(data))
            for k, part in pending
        ]
    else:
        calls = [(step, item) for item in data]
    # named after the step (on the dashboard too); unique, as a task's key must be
    tasks = [
        client.submit(_task, *call, *sent, key=f"{step.__name__}-{uuid.uuid4().hex}")
        for call in calls
    ]
    for task in tasks:  # in the order given: the caller reduces them as it would here
        results.append(_raised(task.result()))
        if progress is not None:
            progress(len(results), len(items))


def _raised(result):
    from irgauge.evaluation.span_tasks import TaskFailure

    if isinstance(result, TaskFailure):
        raise result.error()
    return result


def _task(step, item, *shared):
    """A step on a worker: its own steps run there (no cluster within a task), and bad
    input comes back named with the worker."""
    from irgauge.evaluation.span_tasks import TaskFailure

    token = _CLUSTER.set(None)
    try:
        return step(item, *shared)
    except InputError as err:
        return TaskFailure.of(err)
    finally:
        _CLUSTER.reset(token)
