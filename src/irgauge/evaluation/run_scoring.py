"""Runs scored part by part, so that memory holds one part of each run, not the run.

A run file is read in parts of whole topics (:mod:`irgauge.io.run_parts`); each part is
matched against the judgments and scored, and only its per-topic values are kept. A
topic's value depends on that topic's lines alone, so the values, and every table and mean
built from them, are those of the whole run read at once.

A part that brings a topic an earlier part already held means the file's topics are not
contiguous: the run is then read again, regrouped by topic through temporary files (the
file is read twice; a pipe or standard input is first copied to a temporary file, as it
cannot be read twice).

Several plans (one run under several judgments, e.g. trec_eval's judgment groups) share
one reading: each part is matched and scored with every plan in turn.
"""

from __future__ import annotations

import contextlib
import itertools
import os
from dataclasses import dataclass, replace
from typing import Iterable, Iterator, List, Optional, Sequence

import numpy as np

from irgauge.collection.judgments import Judgments
from irgauge.collection.rankings import build_batches
from irgauge.collection.repeated_documents import RetrievedTwice
from irgauge.collection.run_matching import MatchedRun, match_run
from irgauge.errors import InputError, MeasureError, UserCodeError
from irgauge.evaluation.topic_values import RunValues, ValueSpill
from irgauge.io._source import copy_bytes, read_twice, scratch_folder
from irgauge.io.ids import Ids
from irgauge.io.heap import release_free_memory
from irgauge.io.keys import comes_back, unique_names
from irgauge.io.records import Run
from irgauge.io.run_partitions import partitioned_parts, starts_scattered
from irgauge.io.run_parts import first_read_error, iter_run_parts, topic_blocks
from irgauge.io.runs import read_run
from irgauge.measures.base import Measure


@dataclass(frozen=True)
class ScoringPlan:
    """What every part of every run is scored with."""

    measures: List[Measure]
    judgments: Judgments
    order: Optional[str]
    max_docs: Optional[int]
    eligible: np.ndarray  # topics that are scored when answered (bool per qrels topic)
    part_bytes: int
    max_cells: int = 1_000_000
    threads: Optional[int] = None  # threads within one file: its blocks read, parts scored
    watcher: Optional["PartWatcher"] = None  # told of each part (local scoring only)
    spill: Optional[ValueSpill] = None  # where the values go past memory (local only)
    duplicates: str = "refuse"  # a document retrieved twice: see match_run


# a part is cut into blocks for threads only past this many lines a block: below it the
# threads' start-up and the extra calls cost more than they save
MIN_BLOCK_LINES = 100_000


class PartWatcher:
    """Told of each part of a run: as it is read (before it is matched), and once it is
    matched and scored, for a caller that keeps more of a part than its values (the
    trec_eval drop-in: the runid, each topic's first grades). A run scattered over its
    file is scored again, regrouped by topic: a topic's last ``matched`` report is the
    one that holds all its lines."""

    def read(self, run: Run) -> None:
        """A part as read."""

    def matched(self, matched: MatchedRun) -> None:
        """A part as matched, once its values are kept."""


@dataclass
class ScoredRun:
    """One run's per-topic values (a store not yet finished) and what was read."""

    name: str
    source: str
    order: str
    values: RunValues
    answered: np.ndarray  # bool per qrels topic
    unknown_topics: List[str]  # run topics absent from the qrels, in natural order


class Scattered(Exception):
    """A topic's lines come in two places of the file. ``unscored``: the parts read and not
    scored (the rest of the file follows them in the parts' iterator), or None when parts
    were scored already and the file must be read again from its start."""

    def __init__(self, unscored: Optional[List[Run]] = None):
        super().__init__()
        self.unscored = unscored


def score_sources(sources, plan: ScoringPlan, workers: int, step) -> List[ScoredRun]:
    """Each (source, name) scored; ``workers`` runs at a time on threads (``plan``'s part
    size is each one's share of the budget). ``step()`` after each run."""

    def one(item) -> ScoredRun:
        return score_source(item[0], item[1], plan)

    def counted(results):
        for result in results:
            step()
            yield result

    if workers > 1:
        from irgauge.io.threads import on_threads  # only for several runs at once

        # step() follows each result in the calling thread: a progress callback never
        # runs on a reader thread
        return on_threads(one, list(sources), progress=lambda *_: step(), jobs=workers)
    return list(counted(map(one, sources)))


def score_source(
    source, name: Optional[str], plan: ScoringPlan, read_from: Optional[str] = None
) -> ScoredRun:
    """One run scored part by part (a path), or whole (a DataFrame, dict or Run).
    ``read_from``: a copy of the file that can be read twice (see :func:`readable_twice`),
    read instead of ``source``, which still names the run and its errors."""
    return score_source_jointly(source, name, [plan], read_from)[0]


def score_source_jointly(
    source, name: Optional[str], plans: Sequence[ScoringPlan], read_from: Optional[str] = None
) -> List[ScoredRun]:
    """One run scored with each of ``plans`` (see :func:`score_source`), read once: each
    part is matched and scored with every plan. The first plan's order, part size and
    threads read the run; the plans differ in their judgments, measures and watchers."""
    plan = plans[0]
    if not isinstance(source, (str, os.PathLike)):
        return _score_parts_jointly([read_run(source, name=name)], plans, contiguous=False)
    path = str(source)
    copy = readable_twice(path) if read_from is None else contextlib.nullcontext(read_from)
    with copy as readable:
        try:
            return _score_file_jointly(path, name, plans, readable)
        except RetrievedTwice as err:
            # seen in one part: another part may hold a bad line, or a copy earlier in
            # the file, which the run read whole reports instead
            raise first_fault(path, name, plan, readable) or err from None


def _score_file_jointly(path: str, name, plans: Sequence[ScoringPlan], readable: str):
    """:func:`score_source_jointly` of a run file, which ``readable`` can read twice."""
    plan = plans[0]
    read = None
    if not starts_scattered(path, readable, plan.part_bytes):
        parts = iter_run_parts(path, name, plan.part_bytes, plan.threads, readable)
        try:
            return _score_parts_jointly(parts, plans, contiguous=True)
        except Scattered as scattered:
            unscored = scattered.unscored
        if unscored is None:  # read again from the start
            parts.close()  # its frame holds the part read last
            del parts
        else:  # the parts read so far, then the rest of the file
            read = itertools.chain(unscored, parts)
            del unscored
    with partitioned_parts(
        path,
        name,
        plan.part_bytes,
        plan.threads,
        read_from=readable,
        order=plan.order,
        read=read,
    ) as partitioned:
        return _score_parts_jointly(partitioned, plans, contiguous=False)


def first_fault(path: str, name, plan: ScoringPlan, readable: str) -> Optional[InputError]:
    """The error the run file read whole gives under ``plan``, found a part at a time: its
    first bad line, else the document retrieved twice whose second copy comes first in the
    file (every line of a topic is in one partition), else None. For an error path only:
    the file is read again, twice if its text is sound."""
    error = first_read_error(path, name, plan.part_bytes, readable)
    if error is not None:
        return error
    found = []
    with partitioned_parts(
        path, name, plan.part_bytes, plan.threads, read_from=readable, order=plan.order
    ) as parts:
        for part in parts:
            try:
                match_run(part, plan.judgments, plan.order, plan.max_docs, plan.duplicates)
            except RetrievedTwice as twice:
                found.append(twice)
    # a copy is always refused at its line; one without would come last
    return min(found, key=lambda twice: (twice.line is None, twice.line or 0), default=None)


@contextlib.contextmanager
def readable_twice(path: str) -> Iterator[str]:
    """``path`` itself if it can be read twice (a regular file), else a temporary copy of
    its bytes (standard input, a pipe, a process substitution), removed afterwards: read
    through the readers' stream of the path, with any bytes an earlier reader peeked."""
    if read_twice(path):
        yield path
        return
    with scratch_folder("irgauge-input-") as folder:
        copy = os.path.join(folder, "run")
        try:
            out = open(copy, "wb")
        except OSError as err:
            raise InputError(f"cannot write a copy of it: {err.strerror or err}", path) from None
        with out:
            copy_bytes(path, out)
        yield copy


def score_parts(parts: Iterable[Run], plan: ScoringPlan, contiguous: bool) -> ScoredRun:
    """Every part matched and scored; with ``contiguous``, Scattered as soon as a part
    brings a topic that an earlier part held.

    A first part whose own topics are not contiguous (a shuffled file) is held unscored:
    if another part follows, the file is scattered, and both go to the partitioning
    unscored instead of being read again."""
    return _score_parts_jointly(parts, [plan], contiguous)[0]


class _Tally:
    """What one plan keeps of a run as its parts are scored."""

    def __init__(self, plan: ScoringPlan):
        self.plan = plan
        self.answered = np.zeros(plan.judgments.n_topics, bool)
        self.values = RunValues(len(plan.measures), plan.spill)
        self.unknown: set = set()

    def score(self, run: Run, contiguous: bool) -> str:
        """``run`` (a part) matched and scored, its values kept; the order it was matched
        in. Scattered, with ``contiguous``, when it brings a topic already answered.

        With several threads, the part is cut into blocks of whole topics
        (:func:`topic_blocks`) matched and scored on them at once (numpy's sorts and
        lookups release the GIL): each block gets its share of ``max_cells``, so the
        blocks in flight hold what the part whole would. The values are kept in the
        blocks' order, each topic's the same bits as the part's whole (RunValues orders
        rows by topic), and any error is the one the part scored whole gives."""
        plan = self.plan
        blocks = topic_blocks(run, plan.threads or 1, MIN_BLOCK_LINES)
        if len(blocks) == 1:
            done = [self._block(run, plan.max_cells)]
        else:
            plan.judgments.with_lookup_built()  # once, not by every block's first lookup
            from irgauge.io.threads import on_threads  # only for a part's blocks

            cells = plan.max_cells // len(blocks)
            try:
                # (not tasks.run_steps: a cluster's steps are not for a part's blocks)
                done = on_threads(self._block, blocks, (cells,), jobs=len(blocks))  # in order
            except (InputError, MeasureError, UserCodeError):
                done = [self._block(run, plan.max_cells)]  # raises the part's own error
        del blocks, run  # the matched blocks hold what is needed of the part
        if contiguous and any(self.answered[m.row_topic].any() for m, _, _ in done):
            raise Scattered
        for matched, topics, values in done:
            self.answered[matched.row_topic] = True
            self.unknown.update(matched.unknown_topics)
            self.values.add(topics, values)
            if plan.watcher is not None:
                plan.watcher.matched(matched)
        return done[0][0].order

    def _block(self, run: Run, max_cells: int):
        """(matched run, qrels topics of its rows, values: measures x rows) of a block."""
        plan = self.plan
        matched = match_run(run, plan.judgments, plan.order, plan.max_docs, plan.duplicates)
        chosen = matched.row_topic[plan.eligible[matched.row_topic]]
        _, topics, part_values = score_rows(
            plan.measures, [matched], [chosen], plan.judgments, max_cells
        )
        return matched, topics, value_matrix(part_values, len(topics))

    def scored(self, name: str, source: str, order: str) -> ScoredRun:
        return ScoredRun(
            name,
            source,
            order,
            values=self.values,
            answered=self.answered,
            unknown_topics=in_natural_order(self.unknown),
        )


def _score_parts_jointly(
    parts: Iterable[Run], plans: Sequence[ScoringPlan], contiguous: bool
) -> List[ScoredRun]:
    """:func:`score_parts` with each of ``plans``: each part is read once, then matched
    and scored with every plan in turn (one matched part in memory at a time)."""
    tallies = [_Tally(plan) for plan in plans]
    # a watcher shared by plans is told of each part once
    watchers = list({id(p.watcher): p.watcher for p in plans if p.watcher is not None}.values())
    read = None  # (name, source, order) of the run, from its first part
    held = None
    for run in itertools.chain(parts, [None]):
        if run is not None:
            for watcher in watchers:
                watcher.read(run)
        if held is not None:
            if run is not None:
                raise Scattered([held, run])
            run, held = held, None  # the file's only part: scored as it is
        elif run is None:
            break
        elif contiguous and read is None and _topics_repeat(run):
            held = run
            continue
        if read is not None:  # a second part: return the first one's pages before matching
            release_free_memory()
        orders = [tally.score(run, contiguous) for tally in tallies]
        read = read or (run.name, run.source, orders[0])
        del run
    if read is None:
        raise InputError("no runs to evaluate")
    return [tally.scored(*read) for tally in tallies]


def _topics_repeat(run: Run) -> bool:
    """Whether a topic's lines come in two places of the part (by hash: a collision only
    sends a part down the slower path)."""
    return comes_back(run.topics.hashes())


def in_natural_order(topics: Iterable[str]) -> List[str]:
    """Distinct topic ids in natural order, as each run's unknown topics are listed."""
    distinct = sorted(set(topics))
    return unique_names(Ids.from_list(distinct))[0] if distinct else []


def score_unanswered(plan: ScoringPlan, scored: List[ScoredRun], row_topics) -> None:
    """trec_eval -c: the topics of ``row_topics`` (per run) a run did not answer, scored
    as empty rankings and added to its values."""
    for run, chosen in zip(scored, row_topics):
        score_empty(plan, run, chosen[~run.answered[chosen]])


def score_empty(plan: ScoringPlan, run: ScoredRun, rows: np.ndarray) -> None:
    """The topics at ``rows`` (qrels topic indices) scored as empty rankings and added to
    ``run``'s values (none of them scored yet)."""
    if not len(rows):
        return
    _, topics, values = score_rows(
        plan.measures, [empty_run(run.name, run.order)], [rows], plan.judgments, plan.max_cells
    )
    run.values.add(topics, value_matrix(values, len(topics)))


def empty_run(name: str, order: str) -> MatchedRun:
    """A run that answers no topic (its rows score as empty rankings)."""
    nothing = np.zeros(0, np.int64)
    return MatchedRun(name, nothing, nothing, nothing, np.zeros(0, np.int16), [], order)


def value_matrix(values: List[List[np.ndarray]], n_rows: int) -> np.ndarray:
    """The values of :func:`score_rows` (per measure, one array per batch) as one matrix:
    measures x ``n_rows`` (no measure: trec_eval's runid and num_q alone)."""
    if not values:
        return np.zeros((0, n_rows))
    return np.vstack([np.concatenate(v) for v in values])


def with_tables_built(plan: ScoringPlan) -> ScoringPlan:
    """``plan``, the per-topic tables its measures derive from the judgments
    (:meth:`Judgments.memo <irgauge.collection.judgments.Judgments.memo>`: nDCG's ideal DCG
    of every topic at every depth, bpref's nonrelevant counts...) computed now, by scoring
    one judged document of a scored topic and keeping nothing of it. A plan that many
    worker processes share then carries its tables, computed once; each worker computed
    its own before (on 150,000 topics, nDCG's table is 100 MB, built from a 100 MB
    temporary: 0.12 s of CPU in a quiet process, and 200 MB of fresh pages, in every
    worker). A measure that fails on that one document leaves its tables to be computed
    where it is scored, as before. A registered measure (code irgauge did not write) is
    not called on that made-up document: its function may count, print or cost, and its
    tables, if any, are its own to build."""
    from irgauge.measures.user_code import GuardedMeasure

    judgments = plan.judgments
    scored = np.flatnonzero(plan.eligible[judgments.topic])[:1]
    own = [m for m in plan.measures if not isinstance(m.family.func, GuardedMeasure)]
    if not len(scored) or not own:
        return plan
    qrels, at = judgments.qrels, slice(scored[0], scored[0] + 1)
    run = Run("tables", qrels.topics[at], qrels.docnos[at], np.ones(1))
    warming = replace(plan, measures=own, threads=1, watcher=None, spill=None)
    with contextlib.suppress(InputError, MeasureError, UserCodeError):
        _Tally(warming)._block(run, plan.max_cells)
    return plan


def score_batch(measures, ranked, row_runs: np.ndarray) -> List[np.ndarray]:
    """Every measure's values on one padded batch (``row_runs``: the run of each row,
    named when a measure fails on it); the batch's caches released after."""
    values = []
    for measure in measures:
        try:
            values.append(measure.compute(ranked))
        except UserCodeError as err:  # names its measure; the run is known here
            if err.row is not None:
                err.run = row_runs[err.row]
            raise
        except MeasureError as err:
            raise MeasureError(f"{measure.name}: {err}") from None
    # views point back at the batch: without this its caches wait for the cycle collector
    ranked.release()
    return values


def score_rows(measures, matched, row_topics, judgments, max_cells):
    """Every measure on every padded batch of the chosen rows: the run and topic of each
    row, and per measure the list of its value arrays (one per batch, in batch order)."""
    values: List[List[np.ndarray]] = [[] for _ in measures]
    run_rows, topic_rows = [], []
    names = np.array([m.name for m in matched] + [""], dtype=object)
    for run_idx, topic_idx, ranked in build_batches(matched, row_topics, judgments, max_cells):
        run_rows.append(run_idx)
        topic_rows.append(topic_idx)
        for mi, value in enumerate(score_batch(measures, ranked, names[run_idx])):
            values[mi].append(value)
    if not run_rows:  # no topic to score (e.g. none has a relevant document)
        run_rows, topic_rows = [np.zeros(0, np.int64)], [np.zeros(0, np.int64)]
        values = [[np.zeros(0)] for _ in measures]
    return np.concatenate(run_rows), np.concatenate(topic_rows), values
