"""How many threads irgauge's readers use: ``--threads N``, else ``IRGAUGE_THREADS``, else the
CPUs this process may run on (``os.sched_getaffinity``, which honours taskset and container
CPU sets, unlike ``os.cpu_count``), at most ``MAX_THREADS``; and the pool that the threads
of a command's work run in (:func:`worker_pool`: the readers' blocks, the runs and parts
scored, the meta-evaluation's and the studies' steps), with its one entry point for a
list of steps (:func:`on_threads`)."""

from __future__ import annotations

import contextlib
import contextvars
import os
import signal

from typing import TYPE_CHECKING, Any, Callable, Iterator, List, Optional, Sequence

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.io.stops import STOP_SIGNALS

if TYPE_CHECKING:
    from concurrent.futures import Future, ThreadPoolExecutor

MAX_THREADS = 4  # past a few, block reads contend for memory bandwidth and the GIL
ENV = "IRGAUGE_THREADS"


def available_cpus() -> int:
    try:
        return max(1, len(os.sched_getaffinity(0)))
    except (AttributeError, OSError):  # not on Linux
        return max(1, os.cpu_count() or 1)


def thread_count(requested: Optional[int] = None) -> int:
    """Threads to use: ``requested`` if given, else $IRGAUGE_THREADS, else the CPUs
    available (at most MAX_THREADS)."""
    if requested is None:
        text = os.environ.get(ENV, "").strip()
        if text:
            try:
                requested = int(text)
            except ValueError:
                raise InputError(f"{ENV}={text!r} must be a whole number >= 1") from None
            if requested < 1:
                raise InputError(f"{ENV}={text!r} must be a whole number >= 1")
    if requested is not None:
        if requested < 1:
            raise InputError(f"jobs must be >= 1, got {requested}", parameter="jobs")
        return _checks.jobs(requested, "jobs")
    return min(available_cpus(), MAX_THREADS)


def explicit_threads(requested: Optional[int] = None) -> Optional[int]:
    """The thread count the user asked for (option or $IRGAUGE_THREADS), else None."""
    if requested is not None or os.environ.get(ENV, "").strip():
        return thread_count(requested)
    return None


# the variables OpenBLAS (numpy's BLAS) reads its thread count from, in its order


@contextlib.contextmanager
def worker_pool(workers: int) -> Iterator["ThreadPoolExecutor"]:
    """A pool of ``workers`` threads for a block's steps, which the stop signals leave
    alone, and which is shut down at the block's end, on an error or a stop too.

    - The threads block the stop signals: the kernel gives a signal sent to the process
      to any thread that does not block it, and one taken by a worker is run (by Python,
      in the main thread) only once the main thread runs Python code again, which it does
      not while it waits for a long step's result.
    - Each step runs in a copy of the context of the thread that handed it over (a thread
      starts with an empty one): what the caller set in a ContextVar (the command's
      outputs, the study gathering its notes, the engine) holds in the step too, and a
      step's own settings stay its own.
    - At the end, steps not started are cancelled (a stop does not wait for them), and the
      running ones are waited for, with the stop signals held meanwhile: no step is still
      running when the cleanup of a stop removes the command's staged outputs."""
    from concurrent.futures import ThreadPoolExecutor

    from irgauge.io.stops import held_stop_signals

    class _InContext(ThreadPoolExecutor):
        def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> "Future[Any]":
            # map submits through here too; a context is entered by one thread at a time,
            # so each step gets a copy of its own
            return super().submit(contextvars.copy_context().run, fn, *args, **kwargs)

    pool = _InContext(workers, initializer=_leave_stop_signals)
    try:
        yield pool
    finally:
        with held_stop_signals():
            pool.shutdown(wait=True, cancel_futures=True)


def _leave_stop_signals() -> None:
    """Block the stop signals in this (worker) thread, so that the main thread takes them."""
    numbers = {getattr(signal, name) for name in STOP_SIGNALS if hasattr(signal, name)}
    with contextlib.suppress(AttributeError, OSError, ValueError):  # no pthread_sigmask
        signal.pthread_sigmask(signal.SIG_BLOCK, numbers)


def on_threads(
    step: Callable,
    items: Sequence,
    shared: Sequence = (),
    progress: Optional[Callable[[int, int], None]] = None,
    *,
    jobs: int,
) -> List:
    """``[step(item, *shared) for item in items]`` on up to ``jobs`` threads of a
    :func:`worker_pool` (each step in a copy of the caller's context), the results in the
    order given; the first error, in that order, is raised. ``progress(done, total)``
    follows each result, in the calling thread."""
    results: List = []
    # a pool per call, shut down on return, error or stop: the process is left as found
    with worker_pool(max(1, min(jobs, len(items)))) as pool:
        tasks = [pool.submit(step, item, *shared) for item in items]
        for task in tasks:
            results.append(task.result())
            if progress is not None:
                progress(len(results), len(items))
    return results
