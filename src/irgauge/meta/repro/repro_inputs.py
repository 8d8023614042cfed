"""The inputs of a reproducibility study: the original pair of runs, one or more repeated
pairs, the qrels of each side, the measures and cutoffs, all checked before any work."""

from __future__ import annotations

import dataclasses
from typing import Any, List, Optional, Sequence

from irgauge import _checks
from irgauge._checks import MAX_COUNT
from irgauge.errors import InputError
from irgauge.io.records import Run
from irgauge.io.run_topics import require_qrels_topics
from irgauge.io.runs import read_run
from irgauge.io.words import counted

ROLES = ("baseline", "advanced")
# the depth of the document-order statistics without --cutoffs: repro_eval's run length
DEFAULT_CUTOFF = 1000


def run_tuple(value: Any, parameter: str) -> List[Run]:
    """One run or a (baseline, advanced) pair, read: a path, a Run, a DataFrame or dict
    alone, or a list or tuple of one or two of them."""
    items = list(value) if isinstance(value, (list, tuple)) else [value]
    if not 1 <= len(items) <= 2:
        raise InputError(
            f"{parameter}: give a baseline run, or a baseline and an advanced run; got "
            f"{counted(len(items), 'run')}",
            parameter=parameter,
        )
    return [read_run(item) for item in items]


def repeated_pairs(value: Any, size: int) -> List[List[Run]]:
    """The repeated pairs: one pair (as :func:`run_tuple` reads it) or a list of pairs
    (a list whose items are lists or tuples), each of ``size`` runs like the original."""
    nested = isinstance(value, (list, tuple)) and any(isinstance(v, (list, tuple)) for v in value)
    groups = [run_tuple(v, "repeated") for v in value] if nested else [run_tuple(value, "repeated")]
    for group in groups:
        if len(group) != size:
            raise InputError(
                f"repeated: each repeated set has {counted(size, 'run')} like the original "
                f"(baseline{', advanced' if size == 2 else ''}); got {len(group)}",
                parameter="repeated",
            )
    return groups


def named(runs: List[Run], prefix: str) -> List[Run]:
    """The runs under names of their role (``original:baseline``...): two teams' files
    may share a name or a run tag."""
    return [dataclasses.replace(r, name=f"{prefix}:{role}") for r, role in zip(runs, ROLES)]


def check_cutoffs(cutoffs: Optional[Sequence[int]]) -> Optional[List[int]]:
    """Distinct cutoffs, each a whole number >= 1, in increasing order (None: none)."""
    if cutoffs is None:
        return None
    found = _checks.sequence(
        cutoffs, "cutoffs", lambda v, n: _checks.whole(v, n, 1, MAX_COUNT, "a cutoff")
    )
    if not found:
        raise InputError("cutoffs: give at least one cutoff", parameter="cutoffs")
    return sorted(set(found))


def check_topics(run: Run, qrels_topics: Sequence[str], qrels_name: str) -> None:
    """A run must answer exactly the qrels' topics: a topic missing would be scored 0
    on one side only, and a topic the qrels do not judge is no part of either study."""
    require_qrels_topics(run, qrels_topics, qrels_name)
