"""What the tests of the engines share: a small collection to score, the check that two
evaluations are the same, and a count of the worker processes an evaluation forked."""

from __future__ import annotations

import sys
from pathlib import Path
from typing import List, Optional, Tuple

import numpy as np

from irgauge.evaluation import processes


def collection(
    tmp_path: Path, topics=60, docs=40, shuffled=False, seed=3, name: Optional[str] = None
) -> Tuple[str, str]:
    """(qrels, run) paths: graded qrels of every third document, and a tagged run of
    ``docs`` documents a topic (its lines shuffled: topics scattered over the file)."""
    rng = np.random.default_rng(seed)
    qrels = [f"{t} 0 d{d} {rng.integers(0, 3)}" for t in range(topics) for d in range(0, docs, 3)]
    run = [f"{t} Q0 d{d} 0 {rng.integers(0, 9)} tagged" for t in range(topics) for d in range(docs)]
    if shuffled:
        run = [run[i] for i in rng.permutation(len(run))]
    (tmp_path / "qrels").write_text("\n".join(qrels) + "\n")
    name = name or ("scattered" if shuffled else "run")
    (tmp_path / name).write_text("\n".join(run) + "\n")
    return str(tmp_path / "qrels"), str(tmp_path / name)


def same(a, b) -> None:
    """Two evaluations with the same tables and metadata."""
    assert a.to_frame().equals(b.to_frame())
    assert a.to_frame(per_topic=False).equals(b.to_frame(per_topic=False))
    assert a.metadata == b.metadata


def counted_forks(monkeypatch) -> List[int]:
    """How many worker processes each evaluation forked, appended as it forks (before the
    qrels are read or after: every pool of processes.py)."""
    counts: List[int] = []
    real = processes._workers

    def spy(count):
        counts.append(count)
        return real(count)

    monkeypatch.setattr(processes, "_workers", spy)
    return counts


def small_files_forked(monkeypatch, size: int) -> None:
    """Run files of ``size`` bytes or more count as big and are cut into spans of about
    ``size`` bytes, and the worker processes are forked even where an earlier test left
    threads in this test process (a Dask cluster's, idle): else whether these tests run
    would depend on the order of the tests. The rule itself (no fork beside another
    thread) has a test of its own, which starts its thread."""
    monkeypatch.setattr(processes, "MIN_BYTES", size)
    monkeypatch.setattr(processes, "SPAN_BYTES", size)
    monkeypatch.setattr("irgauge.evaluation.span_tasks.SPAN_BYTES", size)
    monkeypatch.setattr(processes, "_fork_is_safe", lambda: sys.platform.startswith("linux"))
