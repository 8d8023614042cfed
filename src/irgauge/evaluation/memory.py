"""The memory budget of an evaluation (``--memory``) and the size of the parts it allows.

The budget bounds the process's peak memory (resident set). What the process holds when the
runs are about to be read (Python, numpy and pandas, the qrels) counts against it; the rest
is shared by the runs read at once. A run file is evaluated in parts of whole topics
(:mod:`irgauge.io.run_parts`); a part of T bytes of text takes up to about
``BYTES_PER_TEXT_BYTE * T`` while it is tokenized, matched and scored (measured with
bench/bench_streaming.py). A budget below what the process already holds gives parts of
``MIN_PART_BYTES``: memory then stays close to that floor, a little above the budget.

On a Dask cluster the budget is shared the same way, by what it bounds
(:func:`worker_budget`): a LocalCluster irgauge starts on this machine shares the
command's budget among its workers (budget / workers each), so that the machine's total
stays within it; the workers of a cluster given by address are other machines' (or other
processes' of this one, started by the user), so each has the whole budget to itself.
:func:`budget_note` says which, in words.

The per-topic values of the runs (8 bytes a run, measure and topic) are held in memory up
to ``1/VALUES_SHARE`` of the budget, taken from what the parts may use, and written to a
temporary file beyond it (:mod:`irgauge.evaluation.topic_values`).
"""

from __future__ import annotations

import os
from typing import Any, Optional

from irgauge._checks import memory_size
from irgauge.io.words import counted

DEFAULT_CAP = 1 << 30  # 1 GiB, or a quarter of the memory available if that is less
BYTES_PER_TEXT_BYTE = 8
MIN_PART_BYTES = 16 << 20  # below this, parts cost more in overhead than they save
VALUES_SHARE = 8


def available_memory() -> Optional[int]:
    """The memory the system says is available (MemAvailable), or None where unknown."""
    try:
        with open("/proc/meminfo", "rb") as handle:
            for line in handle:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def default_memory() -> int:
    """1 GiB, or a quarter of the available memory if that is less (at least 64 MiB)."""
    available = available_memory()
    if available is None:
        return DEFAULT_CAP
    return max(min(DEFAULT_CAP, available // 4), 64 << 20)


def resolve_memory(memory: Any) -> int:
    """The budget in bytes: ``memory`` checked, or the default when None."""
    return default_memory() if memory is None else memory_size(memory)


def values_in_memory(budget: int) -> int:
    """Bytes of per-topic values held in memory within ``budget`` (the rest spills)."""
    return budget // VALUES_SHARE


def part_bytes(budget: int, runs_at_once: int) -> int:
    """Bytes of run text per part when ``runs_at_once`` runs share what is left of
    ``budget`` beyond the memory the process holds now."""
    left = budget - (resident_memory() or 0)
    share = left // (BYTES_PER_TEXT_BYTE * max(runs_at_once, 1))
    return max(MIN_PART_BYTES, share)


def resident_memory() -> Optional[int]:
    """The process's resident set now (Linux), or None where unknown."""
    try:
        with open("/proc/self/statm", "rb") as handle:
            return int(handle.read().split()[1]) * os.sysconf("SC_PAGE_SIZE")
    except (OSError, ValueError, IndexError):
        return None


def worker_budget(budget: int, workers: int, this_machine: bool) -> int:
    """One Dask worker's budget: ``budget // workers`` for a cluster on this machine (the
    whole command's budget, shared), else ``budget`` (each worker's own)."""
    return budget // max(workers, 1) if this_machine else budget


def budget_note(budget: int, workers: int, this_machine: bool) -> str:
    """What the budget bounds on a cluster of ``workers``, for the user to read."""
    if this_machine:
        share = worker_budget(budget, workers, True)
        return (
            f"memory budget {_size(budget)} for the whole command: {_size(share)} for each "
            f"of {counted(workers, 'worker')} on this machine"
        )
    return (
        f"memory budget {_size(budget)} per worker: each of the cluster's "
        f"{counted(workers, 'worker')} may use it"
    )


def _size(n: int) -> str:
    """Bytes as the largest unit of K, M, G that divides them (else one decimal of MiB)."""
    for unit, shift in (("G", 30), ("M", 20), ("K", 10)):
        if n >= 1 << shift and n % (1 << shift) == 0:
            return f"{n >> shift}{unit}"
    return f"{n / (1 << 20):.1f}M"
