"""How many threads irgauge's readers use: ``--threads N``, else ``IRGAUGE_THREADS``, else the
CPUs this process may run on (``os.sched_getaffinity``, which honours taskset and container
CPU sets, unlike ``os.cpu_count``), at most ``MAX_THREADS``."""

from __future__ import annotations

import os

from typing import Optional

from irgauge.errors import InputError

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
            raise InputError(f"threads must be >= 1, got {requested}")
        return int(requested)
    return min(available_cpus(), MAX_THREADS)


def explicit_threads(requested: Optional[int] = None) -> Optional[int]:
    """The thread count the user asked for (option or $IRGAUGE_THREADS), else None."""
    if requested is not None or os.environ.get(ENV, "").strip():
        return thread_count(requested)
    return None


# the variables OpenBLAS (numpy's BLAS) reads its thread count from, in its order
