"""A LocalCluster irgauge closes leaves none of its threads in the caller's process. The
threads that watch its worker processes end just after the processes exit, which on a
loaded machine comes after ``close`` returns: the guest test of ``use_engine("dask")``
found one still running under CI's load. ``BackgroundClient`` waits for them; a thread of
the caller's own is not waited for."""

from __future__ import annotations

import threading
import time

from irgauge.evaluation import dask_engine


def _sleeper(name: str) -> threading.Thread:
    thread = threading.Thread(target=time.sleep, args=(0.3,), name=name, daemon=True)
    thread.start()
    return thread


def test_the_threads_watching_a_closed_clusters_workers_are_waited_for():
    before = set(threading.enumerate())
    watcher = _sleeper(f"{dask_engine.WATCHER_PREFIX} Dask Worker process watch process join")
    callers = _sleeper("the caller's own")
    dask_engine._join_watchers(before)
    assert not watcher.is_alive()
    assert callers.is_alive()  # not the cluster's: left running
    callers.join()
