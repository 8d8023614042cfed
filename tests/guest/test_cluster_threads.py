"""A LocalCluster irgauge closes leaves none of its threads in the caller's process. The
threads that watch its worker processes end just after the processes exit, which on a
loaded machine comes after ``close`` returns: the guest test of ``use_engine("dask")``
found one still running under CI's load. ``BackgroundClient`` waits for them; a thread of
the caller's own is not waited for."""

from __future__ import annotations

import threading
import time

from irgauge.evaluation import dask_engine


def _thread(name: str, until) -> threading.Thread:
    thread = threading.Thread(target=until, name=name, daemon=True)
    thread.start()
    return thread


def test_the_threads_watching_a_closed_clusters_workers_are_waited_for():
    before = set(threading.enumerate())
    released = threading.Event()
    watcher = _thread(
        f"{dask_engine.WATCHER_PREFIX} Dask Worker process watch process join",
        lambda: time.sleep(0.3),
    )
    callers = _thread("the caller's own", released.wait)
    dask_engine._join_watchers(before)
    try:
        assert not watcher.is_alive()
        assert callers.is_alive()  # not the cluster's: not waited for
    finally:
        released.set()
        callers.join()
