"""Big run files scored on worker processes of this machine, by default.

Reading a run is mostly tokenizing and matching in Python, which holds the GIL, so threads
scale little with cores (on 16 cores, a 30M-line run: 1.2 times faster than one core).
A run file of at least MIN_BYTES is therefore cut into spans of whole topics, scored as
tasks (:mod:`irgauge.evaluation.span_tasks`) on worker processes forked from this one:
they start with irgauge imported and the plan built, shared with this process page by
page (:class:`~irgauge.evaluation.mapped_plan.InheritedPlan`), so that a process costs
neither imports nor a copy of the judgments. Where the qrels are a plain-text file, the
processes are forked before they are read instead (:func:`forked_early`): the tasks read
their spans' first parts while this process reads the qrels and builds the judgments,
which it then writes once for them to map (:func:`mapped_plan.awaited`). The output is
the local one.

Processes are used only where forking is safe: on Linux (elsewhere fork is unsafe or
missing), with no other thread running in this process (a thread's locks would be copied
held), for a plan without a watcher (the trec_eval drop-in keeps more than values). Each
process gets its share of the memory budget. A worker process lost (killed, out of
memory) leaves the runs not yet merged to this process.
"""

from __future__ import annotations

import contextlib
import os
import signal
import stat
import sys
import threading
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Iterator, List, Optional, Tuple

from irgauge.evaluation import mapped_plan
from irgauge.evaluation.memory import (
    BYTES_PER_TEXT_BYTE,
    MIN_PART_BYTES,
    part_bytes,
    resident_memory,
    values_in_memory,
    worker_budget,
)
from irgauge.evaluation.run_scoring import ScoredRun, ScoringPlan, score_sources
from irgauge.evaluation.span_tasks import (
    SPAN_BYTES,
    merge_tasks,
    score_tasks,
    submit_tasks,
    task_plan,
)
from irgauge.io._source import count_line_ends, is_compressed
from irgauge.io.arrow_tables import table_format
from irgauge.io.heap import release_free_memory
from irgauge.io.run_spans import topic_spans
from irgauge.io.threads import available_cpus

if TYPE_CHECKING:
    from concurrent.futures import ProcessPoolExecutor

# a run file below this is read on threads: a process's start and the merge cost more
# than a span of it saves (about 1 s of one core's work, 1.7M lines)
MIN_BYTES = 64 << 20
PR_SET_PDEATHSIG = 1  # (linux/prctl.h)


def process_count(sources, requested: Optional[int], plan: Optional[ScoringPlan]) -> int:
    """Worker processes for ``sources`` (0: score them here): where forking is safe and a
    plain run file of MIN_BYTES or more is among them, the jobs ``requested`` (1: none),
    else the CPUs, at most one per SPAN_BYTES of the big files. (``plan``: None before it
    is built, for a plan that will have no watcher.)"""
    watched = plan is not None and plan.watcher is not None
    if requested == 1 or watched or not _fork_is_safe():
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
    tasks = task_plan(plan, part_bytes=share, threads=1)
    scored: List[ScoredRun] = []
    try:
        with mapped_plan.inherited(tasks) as shared, _workers(processes) as pool:
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
        processes,
        mp_context=multiprocessing.get_context("fork"),
        initializer=_worker_signals,
        initargs=(os.getpid(),),
    )
    try:
        yield pool
    except BaseException:
        for process in list(getattr(pool, "_processes", {}).values()):
            process.terminate()
        pool.shutdown(wait=True, cancel_futures=True)
        raise
    pool.shutdown(wait=True)


def _worker_signals(command: int) -> None:
    """A worker leaves Ctrl-C and a hang-up to the command, which ends its workers; a
    kill (SIGTERM) ends it, as a process's default. The end of the command (process
    ``command``) ends it too, however the command ends: killed with SIGKILL, the command
    cannot end its workers, which would wait for tasks for good, each holding its map of
    the plan (memory in /dev/shm that removing the file does not give back)."""
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    signal.signal(signal.SIGHUP, signal.SIG_IGN)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    import ctypes

    # prctl(PR_SET_PDEATHSIG): this signal when the thread that forked this process ends
    # (the command's, which submits every task); Linux only, as forking is (_fork_is_safe)
    with contextlib.suppress(OSError, AttributeError):  # (no libc to ask: as before)
        ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != command:  # (the command ended before the signal was asked for)
        os._exit(1)


class EarlyWorkers:
    """Worker processes forked before the qrels are read (:func:`forked_early`), their
    tasks already reading the runs' first parts; :meth:`score` gives them the plan."""

    def __init__(self, sources, coming: mapped_plan.AwaitedPlan, submitted):
        self.sources, self.coming, self.submitted = sources, coming, submitted

    def mapped(self, plan: ScoringPlan) -> ScoringPlan:
        """``plan`` written once for the tasks to map, and mapped here too: returned with
        the mapped judgments, so that this process drops its own copy once the caller
        lets go of it, and the judgments are held once (before :meth:`score`)."""
        tasks = task_plan(plan, part_bytes=self.coming.part_bytes, threads=1)
        mapped = mapped_plan.plan_of(self.coming.write(tasks))
        return replace(plan, judgments=mapped.judgments)

    def score(self, plan: ScoringPlan, step) -> List[ScoredRun]:
        """Each run scored (``step()`` after each): the workers given the plan (written by
        :meth:`mapped`), their results merged; a lost worker's runs are scored here."""
        from concurrent.futures.process import BrokenProcessPool  # (only for a big run)

        release_free_memory()  # the judgments' own copy, let go of
        self.coming.publish()
        scored: List[ScoredRun] = []
        if self.submitted is not None:  # (None: a worker was lost as tasks were submitted)
            with contextlib.suppress(BrokenProcessPool):
                merge_tasks(self.submitted, plan, step, scored)
        return scored + score_sources(self.sources[len(scored) :], plan, 1, step)


@contextlib.contextmanager
def forked_early(
    sources, requested: Optional[int], budget: int, qrels
) -> Iterator[Optional[EarlyWorkers]]:
    """Worker processes forked now, before the ``qrels`` are read, for the runs of
    ``sources`` that :func:`process_count` gives processes (None: none here).

    The command's process reads the qrels and builds the judgments while the workers read
    their spans' first parts: on 2 CPUs, these were a third of the command's time, done
    before the workers started (docs/scale.md). Only for qrels in a plain-text file, whose
    size tells the plan's memory before it is built: each worker gets its share of what
    the budget leaves beside it, and reads ahead what its share holds beside the part it
    scores. The workers (and the plan's folder) end with the context, on an error or an
    interrupt too."""
    plan_bytes = _plan_bytes(qrels)
    count = process_count(sources, requested, None) if plan_bytes else 0
    if not count:
        yield None
        return
    from concurrent.futures.process import BrokenProcessPool

    part, ahead = _early_parts(budget, count, plan_bytes)
    turns = reading_turns(available_cpus())
    with mapped_plan.awaited(part, ahead, turns) as (shared, coming), _workers(count) as pool:
        try:
            # each worker's first span holds what it may read ahead (its task reads
            # ahead within its span only)
            submitted = submit_tasks(sources, pool.submit, count, shared, part * ahead)
        except BrokenProcessPool:  # a worker lost already: the runs are scored here
            submitted = None
        yield EarlyWorkers(sources, coming, submitted)


def reading_turns(cpus: int) -> int:
    """How many workers read ahead at once: one CPU fewer than there are, left to this
    process. Its work until the plan is published is what every worker waits for: a
    worker reading ahead on that CPU delays the plan by as much as its part saves later
    (on 2 CPUs, two workers reading ahead while the judgments were built put off the
    plan by 0.17 s of 1.4 s), while on a CPU this process leaves idle the part is saved
    outright."""
    return max(cpus - 1, 1)


# memory of the judgments built (qrels, judgments, lookup table), as this process holds
# them before it maps the plan's file in their place, beyond what it held before and the
# text of the qrels: PLAN_BYTES_PER_JUDGMENT a judgment, or PLAN_BASE_BYTES and
# PLAN_BYTES_PER_MORE_JUDGMENT a judgment if that is less, each taken at the most
# measured (the high-water mark of reading the qrels and building the judgments, the
# lookup table and the measures' tables): 1M judgments took 130 bytes a judgment with ids
# like "d123_4", "msmarco_passage_00_123456789" or 10 topics of 100,000 documents; 3M of
# 21-byte lines 92; 15M of 22-byte lines (the 30M-line run's) 83 (1.62 GB in all). A
# per-judgment figure alone, taken at 1M judgments, overestimated 3M by 150 MB, memory
# the workers could have read ahead in.
PLAN_BYTES_PER_JUDGMENT = 130
PLAN_BASE_BYTES = 60_000_000
PLAN_BYTES_PER_MORE_JUDGMENT = 92
# the head of the qrels file whose mean line tells the judgments in it
QRELS_SAMPLE_BYTES = 1 << 20
# memory of a part read and not yet scored, per byte of its text (measured 1.35)
HELD_BYTES_PER_TEXT_BYTE = 1.5


def _early_parts(budget: int, processes: int, plan_bytes: int) -> Tuple[int, int]:
    """(part bytes, parts read ahead) of each early worker: its share is what the budget
    leaves beside the per-topic values, this process and the plan to come; a part takes
    BYTES_PER_TEXT_BYTE of its text while scored (half the share at most), and the parts
    read ahead beside it take HELD_BYTES_PER_TEXT_BYTE (at least the first part, which
    scoring will hold anyway)."""
    left = budget - values_in_memory(budget) - (resident_memory() or 0)
    share = max(0, left - plan_bytes) // processes
    part = max(MIN_PART_BYTES, share // (2 * BYTES_PER_TEXT_BYTE))
    beside = max(0, share - BYTES_PER_TEXT_BYTE * part)
    return part, 1 + int(beside // (HELD_BYTES_PER_TEXT_BYTE * part))


def _plan_bytes(qrels) -> int:
    """The memory of the plan to be built from a plain-text qrels file, estimated before it
    is read: its judgments (lines, from the mean line of its head) at
    PLAN_BYTES_PER_JUDGMENT each, or PLAN_BASE_BYTES and PLAN_BYTES_PER_MORE_JUDGMENT each
    if less, and its text; 0 for anything else (compressed, a table, a
    pipe, standard input, an object, a path that is not a file)."""
    if not isinstance(qrels, (str, Path)) or table_format(str(qrels)):
        return 0
    try:
        found = os.stat(qrels)
        if not stat.S_ISREG(found.st_mode):
            return 0
        size = found.st_size
        with open(qrels, "rb") as f:
            head = f.read(QRELS_SAMPLE_BYTES)
    except OSError:
        return 0
    if not head or is_compressed(head):
        return 0
    lines = max(1, count_line_ends(head)) * size / len(head)
    judged = min(
        PLAN_BYTES_PER_JUDGMENT * lines, PLAN_BASE_BYTES + PLAN_BYTES_PER_MORE_JUDGMENT * lines
    )
    return int(judged) + size
