"""Process-wide settings for irgauge's console script: numpy's BLAS threads and huge-page
advice, glibc's heap. They change the whole process, so only the console-script entry point
(:func:`irgauge.cli.console_main`) applies them; ``irgauge.cli.main(argv)`` called inside a
user's program, and every importable function, leave the process as they found it."""

from __future__ import annotations

import os
import sys

from irgauge.io.heap import libc as heap_libc

BLAS_THREAD_VARIABLES = ("OPENBLAS_NUM_THREADS", "GOTO_NUM_THREADS", "OMP_NUM_THREADS")
HUGEPAGE_VARIABLE = "NUMPY_MADVISE_HUGEPAGE"


def numpy_settings_for_the_command_line() -> None:
    """Start numpy as irgauge's commands want it (a no-op once numpy is loaded: it reads
    the settings when it loads). A setting the user made in the environment stands.

    - One BLAS thread (OPENBLAS_NUM_THREADS=1): OpenBLAS starts a worker per CPU when numpy
      loads, and each spins for a while before it sleeps, while irgauge's matrix products
      (bootstrap and resampling means) gain little from threads.
    - No transparent huge pages for large arrays (NUMPY_MADVISE_HUGEPAGE=0): where the
      kernel compacts memory to find a huge page on the first touch (THP defrag "madvise",
      the default of several distributions), each one can stall.

    Both were measured against the alternative with bench/bench_startup.py,
    bench/bench_eval.py and bench/bench_studies.py; the figures are in the guide's
    performance page (docs/performance.md, "Process settings").
    """
    if "numpy" in sys.modules:
        return
    if not any(os.environ.get(v) for v in BLAS_THREAD_VARIABLES):
        os.environ["OPENBLAS_NUM_THREADS"] = "1"
    os.environ.setdefault(HUGEPAGE_VARIABLE, "0")


HEAP_ARRAY_BYTES = 32 << 20  # glibc's largest mmap threshold (64-bit)


def keep_arrays_on_heap() -> None:
    """Let glibc serve arrays up to HEAP_ARRAY_BYTES from the heap and keep as much free
    there (mallopt M_MMAP_THRESHOLD, M_TRIM_THRESHOLD). By default each array past a
    threshold that starts at 128 KB is mapped and unmapped anew, and every page of it
    faulted in again, a few microseconds each on a virtual machine. One heap
    (M_ARENA_MAX) for all reader threads: they allocate few, large arrays, so its lock
    costs nothing, while a heap per thread faults pages of its own in. Measured with
    bench/bench_eval.py (page faults, system CPU and peak memory in docs/performance.md,
    "Process settings"). Process-wide, so only the command line calls it; a no-op where
    glibc is absent."""
    libc = heap_libc()
    if libc:
        libc.mallopt(-3, HEAP_ARRAY_BYTES)  # M_MMAP_THRESHOLD
        libc.mallopt(-1, HEAP_ARRAY_BYTES)  # M_TRIM_THRESHOLD
        libc.mallopt(-8, 1)  # M_ARENA_MAX


def apply_process_settings() -> None:
    """Every setting of this module, for a process that is irgauge's own."""
    numpy_settings_for_the_command_line()
    keep_arrays_on_heap()
