"""The memory budget of an evaluation (``--memory``) and the size of the parts it allows.

A run file is evaluated in parts of whole topics (:mod:`irgauge.io.run_parts`); a part of
T bytes of text takes about ``BYTES_PER_TEXT_BYTE * T`` while it is tokenized, matched and
scored (measured with bench/bench_streaming.py). The budget bounds that, over the runs read
at once; the process's own start-up (Python, numpy, pandas) and the qrels come on top.
"""

from __future__ import annotations

from typing import Any, Optional

from irgauge._checks import SIZE_UNITS, memory_size

DEFAULT_CAP = 1 << 30  # 1 GiB, or a quarter of the memory available if that is less
BYTES_PER_TEXT_BYTE = 4
MIN_PART_BYTES = 1 << 16  # below this, parts cost more in overhead than they save


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


def part_bytes(budget: int, runs_at_once: int) -> int:
    """Bytes of run text per part when ``runs_at_once`` runs share ``budget``."""
    share = budget // (BYTES_PER_TEXT_BYTE * max(runs_at_once, 1))
    return max(MIN_PART_BYTES, share)


def describe(size: int) -> str:
    """``1G``, ``512M``, ``1.5G``: a size as --memory takes it."""
    for unit in ("T", "G", "M", "K"):
        if size >= SIZE_UNITS[unit]:
            value = size / SIZE_UNITS[unit]
            return f"{value:.10g}{unit}" if value == round(value, 1) else f"{value:.1f}{unit}"
    return str(size)
