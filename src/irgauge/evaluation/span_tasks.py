"""Runs scored as tasks on workers (a Dask cluster's, or local processes), with the local
output.

Each run file becomes one task per span of whole topics
(:func:`~irgauge.io.run_spans.topic_spans`; one task for a compressed file or a table);
runs given as objects become one task each. The
spans of a big plain file shrink from the first to the last, so that the workers finish
together: a worker that falls behind (a slower share of a busy machine) leaves the others
small spans to take over, not half of its last big one. A task scores its span part by
part, as the local engine scores a file, and returns per-topic values only; they are merged
in run order, and the tables are built from them as locally, so that the output is the
local output.

A span whose topics are not contiguous, or spans of one run that share a topic, send that
run back to the local engine (which regroups it by topic). A task that fails on bad input
reports the problem with the file's own line numbers and the worker it ran on.
"""

from __future__ import annotations

import os
import sys
from collections import deque
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Deque, Iterator, List, Optional, Tuple

import numpy as np

from irgauge.errors import InputError, MeasureError, UserCodeError
from irgauge.evaluation import mapped_plan
from irgauge.evaluation.run_scoring import (
    ScoredRun,
    ScoringPlan,
    Scattered,
    in_natural_order,
    score_parts,
    score_source,
    with_tables_built,
)
from irgauge.evaluation.topic_values import RunValues
from irgauge.io.records import Run
from irgauge.io._source import read_twice
from irgauge.io.run_parts import iter_run_parts
from irgauge.io.run_spans import Span, topic_spans

# A plain file is cut at topic changes into pieces of at least SPAN_BYTES, PIECES_PER_WORKER
# per worker at most; each span takes 1/(2 x workers) of the pieces left, so that the
# last spans are single pieces (on 2 workers, a 990 MB run: 10 spans, the last 4 of 31 MB).
SPAN_BYTES = 16 << 20
PIECES_PER_WORKER = 16


@dataclass(frozen=True)
class TaskFailure:
    """Bad input met by a task, sent back to be raised by the client."""

    problem: str
    path: Optional[str]
    line: Optional[int]
    worker: str
    unit: str = "line"

    @classmethod
    def of(cls, err: InputError) -> "TaskFailure":
        """The failure of ``err``, raised on the worker running this task."""
        return cls(err.problem, err.path, err.line, worker_name(), err.unit)

    def error(self) -> InputError:
        """The error to raise on the client: the worker's, naming a Dask worker (a local
        worker process is not named: the message is then the single core's)."""
        return InputError(self.problem + _on(self.worker), self.path, self.line, self.unit)


def task_plan(plan: ScoringPlan, **changes: Any) -> ScoringPlan:
    """``plan`` as the tasks get it (with ``changes``): the judgments' lookup table and the
    measures' tables (:func:`~irgauge.evaluation.run_scoring.with_tables_built`) built
    once, here, not once per worker; no spill of the values (a task returns its span's
    values; the spill is the client's)."""
    built = plan.judgments.with_lookup_built()
    return with_tables_built(replace(plan, judgments=built, spill=None, **changes))


def score_tasks(
    sources, plan: ScoringPlan, submit, workers: int, step, scored: List[ScoredRun], shared
) -> None:
    """The runs of ``sources`` scored as tasks, each appended to ``scored`` once merged and
    ``step()`` called: ``submit(task, *arguments)`` returns a future (``.result()``) of a
    task run on one of ``workers`` workers, which get the plan as ``shared`` (the plan, a
    handle to it, or a future of either: see :func:`mapped_plan.plan_of`)."""
    merge_tasks(submit_tasks(sources, submit, workers, shared), plan, step, scored)


def submit_tasks(
    sources, submit, workers: int, shared, first_bytes: int = 0
) -> List[Tuple[Any, Any, Any]]:
    """(source, name, futures of its tasks, or None for a run read here) of each run: the
    first half of :func:`score_tasks`, which may come before the plan exists (``shared``
    then names a plan to come: :func:`mapped_plan.awaited`, whose tasks read ahead within
    their span: ``first_bytes``, the bytes a first span should hold for that)."""
    submitted: List[Tuple[Any, Any, Optional[List[Any]]]] = []
    for source, name in sources:
        local = _local_only(source)
        if local:
            submitted.append((source, name, None))
            continue
        spans = _spans(source, workers, first_bytes)
        if spans is None:  # one task reads the whole file (or object)
            task = submit(_score_whole, source, name, _readable(source), shared)
            submitted.append((source, name, [task]))
        else:
            tasks = [submit(_score_span, source, name, _readable(source), s, shared) for s in spans]
            submitted.append((source, name, tasks))
    return submitted


def merge_tasks(submitted, plan: ScoringPlan, step, scored: List[ScoredRun]) -> None:
    """The second half of :func:`score_tasks`: each run's tasks awaited and merged."""
    for source, name, futures in submitted:
        results = [f.result() for f in futures] if futures is not None else None
        scored.append(_merged(source, name, results, plan))
        step()


def _local_only(source) -> bool:
    """Standard input and pipes are read here: a worker cannot read them (a path that is
    not here may be on the workers, which name the problem)."""
    return isinstance(source, (str, Path)) and not read_twice(source)


def _readable(source):
    """The path a worker opens: absolute, as the workers' working folder may differ."""
    return os.path.abspath(source) if isinstance(source, (str, Path)) else None


def _spans(source, workers: int, first_bytes: int = 0) -> Optional[List[Span]]:
    if not isinstance(source, (str, Path)):
        return None
    try:
        size = os.path.getsize(source)
    except OSError:
        return None
    count = int(min(workers * PIECES_PER_WORKER, max(1, size // SPAN_BYTES)))
    pieces = topic_spans(str(source), count) if count > 1 else None
    return shrinking_spans(pieces, workers, first_bytes) if pieces else None


def shrinking_spans(pieces: List[Span], workers: int, first_bytes: int = 0) -> List[Span]:
    """Consecutive ``pieces`` joined into spans, each of 1/(2 x ``workers``) of the pieces
    left (rounded up): big spans first, single pieces last, so that no worker waits long
    for another's last span (a span's size is the time it keeps a worker busy). The first
    ``workers`` spans (one a worker) each hold ``first_bytes`` at least, where the pieces
    left leave a piece for each span still to come in that round."""
    spans: List[Span] = []
    begin = 0
    while begin < len(pieces):
        end = begin - (-(len(pieces) - begin) // (2 * workers))
        if len(spans) < workers:
            room = len(pieces) - (workers - len(spans) - 1)
            while end < room and pieces[end - 1].end - pieces[begin].start < first_bytes:
                end += 1
        first, last = pieces[begin], pieces[end - 1]
        spans.append(Span(first.start, last.end, first.n_columns, first.tag))
        begin = end
    return spans


def worker_name() -> str:
    """The address of the Dask worker running this task; "" elsewhere (a local worker
    process, whose name would tell the user nothing)."""
    if "distributed" not in sys.modules:  # (not imported: not on a Dask worker)
        return ""
    try:
        from distributed import get_worker

        return str(get_worker().address)
    except (ImportError, ValueError):
        return ""


def _on(worker: str) -> str:
    return f" (on Dask worker {worker})" if worker else ""


def _score_whole(source, name, readable, plan):
    """Task: one run whole (a file part by part, or an object)."""
    try:
        plan = mapped_plan.plan_of(plan)
        if readable is None:
            return score_source(source, name, plan)
        parts = iter_run_parts(str(source), name, plan.part_bytes, 1, readable)
        return score_parts(parts, plan, contiguous=True)
    except Scattered:
        return None
    except InputError as err:
        return TaskFailure.of(err)
    except MeasureError as err:
        return _measure_failure(err)


def _measure_failure(err: MeasureError) -> MeasureError:
    """A measure's failure on a worker (a registered measure's function refused by its
    guard, say), sent back as the task's result to be raised by the client: raised on the
    worker, it would be logged there with a traceback."""
    if isinstance(err, UserCodeError):
        err.problem += _on(worker_name())
    return err


def _score_span(source, name, readable, span: Span, plan):
    """Task: one span of a run file. Its line numbers count from the span's first line:
    bad input met in a span is named by the command, which reads the file again
    (:func:`_merged`: a run of one span is the whole file, from its first line)."""
    try:
        parts, scoring = _parts_and_plan(source, name, readable, span, plan)
        return score_parts(parts, scoring, contiguous=True)
    except Scattered:
        return None
    except InputError as err:
        return TaskFailure.of(err)
    except MeasureError as err:
        return _measure_failure(err)


def _parts_and_plan(source, name, readable, span: Span, shared):
    """The span's parts and the plan to score them with. Where the plan is still being
    built (workers forked before the qrels were read: :func:`mapped_plan.awaited`), the
    first parts are read while waiting for it, as many as the plan to come allows."""
    coming = mapped_plan.awaiting(shared)
    if coming is None:
        plan = mapped_plan.plan_of(shared)
        return iter_run_parts(str(source), name, plan.part_bytes, 1, readable, span), plan
    parts = iter_run_parts(str(source), name, coming.part_bytes, 1, readable, span)
    return _read_ahead(parts, coming), coming.resolve()


def _read_ahead(parts: Iterator[Run], coming) -> Iterator[Run]:
    """``parts``, the first of them read now: until the plan is ready or
    ``coming.ahead_parts`` are held, each in a turn that ``coming`` gives (a CPU that the
    plan is not being built on). A read error is held in its place, raised after the
    parts before it are scored, as reading and scoring them in turn would raise it."""
    early: Deque[Any] = deque()
    try:
        while len(early) < coming.ahead_parts and coming.turn():
            try:
                part = next(parts, None)
            finally:
                coming.turn_done()
            if part is None:
                break
            early.append(part)
    except InputError as err:
        early.append(err)
    return _replayed(early, parts)


def _replayed(early: Deque[Any], parts: Iterator[Run]) -> Iterator[Run]:
    while early:
        item = early.popleft()  # (not held here once scored)
        if isinstance(item, InputError):
            raise item
        yield item
        del item
    yield from parts


def _merged(source, name, results, plan: ScoringPlan) -> ScoredRun:
    """One run's ScoredRun from its tasks' (in span order); the local engine's when a span
    or two spans found the topics not contiguous, when a span met bad input (its line
    numbers are the span's, and its error need not be the file's first), or for a source
    read here."""
    if results is None:
        return score_source(source, name, plan)
    failures = [r for r in results if isinstance(r, TaskFailure)]
    if failures and len(results) > 1:
        # a span's first error need not be the file's (a bad line in a later span comes
        # before a document retrieved twice): read here, the error is the local one
        return score_source(source, name, plan)
    for result in failures:
        raise result.error()
    for result in results:
        if isinstance(result, MeasureError):
            raise result
    if any(r is None for r in results):
        return score_source(source, name, plan)
    answered = np.zeros(plan.judgments.n_topics, np.int64)
    for result in results:
        answered += result.answered
    if (answered > 1).any():  # a topic in two spans
        return score_source(source, name, plan)
    first = results[0]
    values = RunValues(len(plan.measures), plan.spill)
    for result in results:
        values.add_store(result.values)
    return ScoredRun(
        first.name,
        str(source) if isinstance(source, (str, Path)) else first.source,
        first.order,
        values=values,
        answered=answered > 0,
        unknown_topics=in_natural_order(t for r in results for t in r.unknown_topics),
    )
