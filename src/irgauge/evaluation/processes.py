"""Big run files scored on worker processes of this machine, by default.

Reading a run is mostly tokenizing and matching in Python, which holds the GIL, so threads
scale little with cores (on 16 cores, a 30M-line run: 1.2 times faster than one core).
A run file of at least MIN_BYTES is therefore cut into spans of whole topics, scored as
tasks (:mod:`irgauge.evaluation.span_tasks`) on worker processes forked from this one:
they start with irgauge imported and the plan built, shared with this process page by
page (:class:`~irgauge.evaluation.mapped_plan.InheritedPlan`), so that a process costs
neither imports nor a copy of the judgments. The output is the local one.

Processes are used only where forking is safe: on Linux (elsewhere fork is unsafe or
missing), with no other thread running in this process (a thread's locks would be copied
held), for a plan without a watcher (the trec_eval drop-in keeps more than values). Each
process gets its share of the memory budget. A worker process lost (killed, out of
memory) leaves the runs not yet merged to this process.
"""

from __future__ import annotations

import contextlib
import signal
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, List, Optional

from irgauge.evaluation import mapped_plan
from irgauge.evaluation.memory import part_bytes, worker_budget
from irgauge.evaluation.run_scoring import ScoredRun, ScoringPlan, score_sources
from irgauge.evaluation.span_tasks import SPAN_BYTES, score_tasks
from irgauge.io.run_parts import topic_spans
from irgauge.io.threads import available_cpus

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# a run file below this is read on threads: a process's start and the merge cost more
# than a span of it saves (about 1 s of one core's work, 1.7M lines)
MIN_BYTES = 64 << 20


def process_count(sources, requested: Optional[int], plan: ScoringPlan) -> int:
    """Worker processes for ``sources`` (0: score them here): where forking is safe and a
    plain run file of MIN_BYTES or more is among them, the jobs ``requested`` (1: none),
    else the CPUs, at most one per SPAN_BYTES of the big files."""
    if requested == 1 or plan.watcher is not None or not _fork_is_safe():
        return 0
    big = sum(_plain_size(source) for source, _ in sources)
    if not big:
        return 0
    count = min(requested or available_cpus(), max(big // SPAN_BYTES, 1))
    return count if count > 1 else 0


def _fork_is_safe() -> bool:
    return sys.platform.startswith("linux") and threading.active_count() == 1


def _plain_size(source) -> int:
    """Bytes of a run file that workers can read from the middle, if MIN_BYTES or more (0
    for anything else: a small file, standard input, a compressed file, a table)."""
    if not isinstance(source, (str, Path)):
        return 0
    try:
        size = Path(source).stat().st_size
    except OSError:
        return 0
    # (topic_spans refuses what cannot be read twice: standard input, a pipe)
    return size if size >= MIN_BYTES and topic_spans(str(source), 2) is not None else 0


def score_sources_forked(
    sources, plan: ScoringPlan, processes: int, budget: int, step
) -> List[ScoredRun]:
    """Each (source, name) scored, big run files as span tasks on ``processes`` forked
    worker processes, each within its share of ``budget``; ``step()`` after each run."""
    from concurrent.futures.process import BrokenProcessPool  # (only for a big run)

    share = part_bytes(worker_budget(budget, processes, True), 1)
    built = plan.judgments.with_lookup_built()  # once here, not once per process
    task_plan = replace(plan, judgments=built, part_bytes=share, threads=1, spill=None)
    scored: List[ScoredRun] = []
    try:
        with mapped_plan.inherited(task_plan) as shared, _workers(processes) as pool:
            score_tasks(sources, plan, pool.submit, processes, step, scored, shared)
    except BrokenProcessPool:
        scored += score_sources(sources[len(scored) :], plan, 1, step)
    return scored


@contextlib.contextmanager
def _workers(processes: int) -> Iterator[ProcessPoolExecutor]:
    """A pool of forked processes, killed if the command stops or fails before it ends."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    pool = ProcessPoolExecutor(
        processes, mp_context=multiprocessing.get_context("fork"), initializer=_worker_signals
    )
    try:
        yield pool
    except BaseException:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _worker_signals() -> None:
    """A worker leaves Ctrl-C and a hang-up to the command, which ends its workers; a
    kill (SIGTERM) ends it, as a process's default."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
