"""Score runs against qrels with many measures at once.

Pipeline: read (io) -> judgments and matched runs (collection, rankings) -> padded
batches of ranked lists -> every measure on every batch -> tidy table of per-topic
values and aggregates, with the conventions used.
"""

from __future__ import annotations

import contextlib
import sys
from dataclasses import dataclass, replace
from typing import Any, List, Optional, Union

import numpy as np

from irgauge import __version__, _checks
from irgauge.collection.judgments import Judgments, parse_gains
from irgauge.errors import InputError, MeasureError
from irgauge.evaluation.peers import collect
from irgauge.evaluation.processes import forked_early, process_count, score_sources_forked
from irgauge.evaluation.memory import (
    budget_note,
    part_bytes,
    resolve_memory,
    values_in_memory,
    worker_budget,
)
from irgauge.evaluation.run_scoring import (
    ScoredRun,
    ScoringPlan,
    score_sources,
    score_unanswered,
)
from irgauge.evaluation.conventions import convention_lines, measure_conventions
from irgauge.evaluation.eval_result import EvalResult
from irgauge.evaluation.tasks import check_engine
from irgauge.evaluation.topic_tables import (
    check_conventions,
    eligible_topics,
    topics_to_score,
)
from irgauge.evaluation.topic_values import PerTopicValues, ValueSpill
from irgauge.io.adapters import qrels_source, run_sources
from irgauge.io.steps import step_counter
from irgauge.io.qrels import read_qrels
from irgauge.io.records import Run
from irgauge.io.runs import GROUPS, refuse_twins, unique_run_names
from irgauge.io.runs import read_runs as io_read_runs
from irgauge.io.threads import explicit_threads, thread_count
from irgauge.measures import DEFAULT_MEASURES, Measure, parse_measures
from irgauge.measures.parse import measure_texts, refuse_repeats
from irgauge.measures.parse import is_foreign_measure
from irgauge.scores._results import check_result_values
from irgauge.types import (
    GainsLike,
    Matrices,
    MeasuresLike,
    PrelsLike,
    Progress,
    QrelsLike,
    RunsLike,
)

INCLUSION_NOTE = (
    "the qrels are prels: each judged document counts 1/pi (its inclusion probability) "
    "in statAP, statP, statR and infAP; other measures read them as qrels"
)
ORDER_DESCRIPTIONS = {
    "score": "score descending, ties by docno descending (trec_eval)",
    "file": "order of the file (NTCIREVAL)",
}


def _run_sources(runs: Any) -> List[tuple]:
    """(source, name or None) for each run given, without reading any (see ``adapters``)."""
    return run_sources(runs)


def read_runs(runs: RunsLike, distinct: bool = False, why: str = GROUPS) -> List[Run]:
    """Read every run given (as evaluate accepts them), to evaluate them several times;
    ``distinct``: a run file given twice is refused, for reason ``why`` (GROUPS or SYSTEMS,
    :func:`irgauge.io.runs.read_runs`)."""
    return io_read_runs(runs, distinct=distinct, why=why)


@_checks.renamed_keywords(threads="jobs")
def evaluate(
    qrels: Optional[QrelsLike] = None,
    runs: Optional[RunsLike] = None,
    measures: MeasuresLike = None,
    *,
    order: Optional[str] = None,
    rel_level: int = 1,
    gains: GainsLike = None,
    judged_only: bool = False,
    complete: bool = False,
    empty_topics: str = "skip",
    aggregate: str = "mean",
    max_docs: Optional[int] = None,
    negative: str = "nonrelevant",
    max_cells: int = 1_000_000,
    jobs: Optional[int] = None,
    progress: Optional[Progress] = None,
    memory: Union[None, int, str] = None,
    engine: str = "local",
    scheduler: Optional[str] = None,
    prels: Optional[PrelsLike] = None,
) -> EvalResult:
    """Evaluate ``runs`` against ``qrels``.

    qrels: path, DataFrame, ``{qid: {docno: level}}``, Qrels, qrels records (ir_datasets,
    ir_measures namedtuples) or ranx Qrels. runs: one run or a list of them (paths,
    DataFrames with ir_measures' or PyTerrier's columns, ``{qid: {docno: score}}``,
    scored-document records, ranx Runs) or a ``{name: run}`` mapping. measures: measure
    strings (``"nDCG@10"``, ``"Q-measure(beta=0.5)"``, any tool's spelling), Measure objects
    or ir_measures measures.
    order: "score" (trec_eval), "file" (NTCIREVAL) or None for what each run's format
    implies. rel_level: relevance threshold of binary measures (trec_eval -l).
    gains: gain per level 1, 2, ... ("1:2:3"); default gain = level. judged_only: every
    measure on condensed lists. complete: qrels topics a run did not answer score 0
    (trec_eval -c). empty_topics: "skip" leaves topics without relevant documents out
    (default), "zero" scores and averages them. aggregate: "mean" or "gmean".
    max_docs: evaluate only the first N documents of each topic, in evaluation order
    (trec_eval -M). negative: what a negative qrels level means: "nonrelevant" (judged
    nonrelevant, default) or "unjudged" (in the pool but unjudged, as trec_eval reads it).
    jobs (``threads=``, deprecated): a run or a block each, or processes for files of 64 MB
    or more (default: $IRGAUGE_THREADS, else the CPUs; 1: one core); dask: its workers.
    progress: ``progress(done, total)`` after each run is read and once all are scored.
    memory: the process's memory budget (bytes, or ``"512M"``, ``"2G"``): run files are
    read and scored in parts of whole topics that fit what the qrels leave of it, with the
    same results (default: 1G, or a quarter of the available memory if less; see
    :mod:`irgauge.evaluation.memory`). engine: "local" (this process, a thread per run) or
    "dask": runs, and spans of whole topics of big run files, become tasks on the Dask
    cluster at ``scheduler`` (``"tcp://host:8786"``; None: a LocalCluster of a worker per
    CPU), each worker within ``memory``; the output is the local one. prels: judgments of
    a sample with inclusion probabilities, in place of qrels (:mod:`irgauge.io.prels`).
    """
    rel_level, max_docs = check_conventions(order, empty_topics, aggregate, rel_level, max_docs)
    budget = resolve_memory(memory)
    conventions = _Conventions(judged_only, complete, empty_topics, aggregate, max_docs)
    measure_list = _measures(measures, judged_only)
    sources = _sources_to_score(runs)
    with _started(engine, scheduler, jobs, sources, budget, (qrels, prels)) as (cluster, early):
        qrels, judgments = _judgments((qrels, prels), rel_level, gains, negative, jobs)
        step = step_counter(progress, len(sources) + 1)
        plan, workers = _plan(
            measure_list, judgments, order, conventions, budget, sources, max_cells, jobs
        )
        if early is not None:  # the judgments mapped, as the workers map them: held once
            plan = early.mapped(plan)
            judgments, qrels = plan.judgments, plan.judgments.source_qrels
        with plan.spill.removed_on_failure():
            scored = _score_runs(sources, plan, (workers, jobs), (cluster, budget, early), step)
    names = unique_run_names([(s.name, s.source) for s in scored])
    row_topics, missing = topics_to_score(
        judgments, names, [s.answered for s in scored], empty_topics, complete
    )
    _finish(plan, scored, row_topics, complete, aggregate)
    values = PerTopicValues(
        names, [s.values for s in scored], [m.name for m in measure_list], judgments.topic_ids
    )
    step()
    metadata = _metadata(qrels, judgments, measure_list, conventions, names, scored, row_topics)
    metadata["topics_missing_from_run" if not complete else "topics_scored_zero"] = missing
    return EvalResult(values, _checked_means(values, scored, metadata), metadata, measure_list)


def _finish(plan, scored, row_topics, complete: bool, aggregate: str) -> None:
    """Each run's values finished (its means taken), with its unanswered topics scored
    first where ``complete``; the spilled values removed on failure."""
    with plan.spill.removed_on_failure():
        if complete:
            score_unanswered(plan, scored, row_topics)
        for run in scored:
            run.values.finish(plan.measures, aggregate)


def _checked_means(values, scored, metadata):
    """The means, after the results check (irgauge.scores._results) on every per-topic
    value (done as each run's values are finished) and on every mean: a value that is not
    finite is never printed as a score without its reason, recorded in the metadata's
    notes."""
    means = values.means()
    averaged = metadata["topics_averaged"]
    names = list(metadata["runs"])  # the runs' unique names, in run order
    notes = [f"run {name}: {note}" for name, s in zip(names, scored) for note in s.values.notes]
    for run, measure, value in zip(means["run"], means["measure"], means["value"]):
        why = (
            none_averaged(run, metadata)
            if averaged.get(run) == 0
            else "its per-topic values are not all finite"
        )
        notes += [f"run {run}: mean {n}" for n in check_result_values(measure, value, reason=why)]
    if notes:
        metadata["notes"] = notes
    return means


def none_averaged(run: str, metadata: dict) -> str:
    """Why ``run`` has no topic averaged, from the topic accounting of ``metadata``: the
    qrels topics it answers all lack a relevant document at the relevance level (skipped,
    ``empty_topics="skip"``), or it answers none (ids are compared as written). The one
    reason of the results' notes and of the command line's note, which blamed the ids
    when -l 1000 had left no topic a relevant document."""
    unanswered = set(metadata.get("topics_missing_from_run", {}).get(run, ()))
    answered_empty = set(metadata.get("topics_without_relevant", ())) - unanswered
    if answered_empty:
        return (
            "the run has no topic averaged: every qrels topic it answers has no relevant "
            f"document at level >= {metadata.get('topic_rel_level')}, and topics without "
            "one are left out (empty topics: skip; zero scores them)"
        )
    return (
        "the run has no topic averaged: it answers none of the qrels topics (topic ids "
        "match as written: '01' is not '1')"
    )


def _sources_to_score(runs: Any) -> List[tuple]:
    sources = _run_sources(runs)
    if not sources:
        raise InputError("no runs to evaluate")
    return sources


def _one_source(qrels, prels) -> None:
    """Judgments come as qrels or as prels: refuse both, or neither."""
    if (qrels is None) == (prels is None):
        raise InputError(
            "give the judgments as qrels or as prels, not both"
            if prels is not None
            else "no qrels given (give qrels, or prels for sampled judgments)",
            parameter="prels" if prels is not None else "qrels",
        )


def _judgments(sources, rel_level, gains, negative, threads):
    """The qrels (``sources``: qrels, prels; one of them None) read, and the judgments
    they give under the conventions.

    prels: judgments of a sample with each document's inclusion probability (a path, see
    :mod:`irgauge.io.prels`, or Qrels with ``inclusion``), given to ``evaluate`` in place
    of qrels (``evaluate(runs=..., prels=...)``): statAP, statP, statR and infAP weigh
    each judged document by 1/pi; every other measure reads the prels as qrels."""
    source, prels = sources
    _one_source(source, prels)
    if prels is not None:
        from irgauge.io.prels import read_prels

        qrels = read_prels(prels, jobs=thread_count(threads))
    else:
        qrels = read_qrels(qrels_source(source), jobs=thread_count(threads))
    # qrels of a special kind (QA answer classes) may name the Judgments class to read them
    judgments = getattr(qrels, "judgments_type", Judgments)(
        qrels, rel_level=rel_level, gains=parse_gains(gains), negative=negative
    )
    return qrels, judgments


def _plan(measure_list, judgments, order, conventions, budget, sources, max_cells, threads):
    """The plan every part is scored with, and how many runs are read at once.

    Several runs are read on up to ``thread_count`` threads, a run each, sharing the
    budget; a single file is split over as many threads, a block each (numpy releases the
    GIL while it tokenizes), and each part's topic blocks are matched and scored on them
    (sharing the part's cells), the budget still the whole command's: the blocks in flight
    are a few BLOCK_BYTES beside a part. ``threads`` = 1 is the single-core path, the same
    output (measured with bench/bench_scale.py; figures in docs/scale.md)."""
    workers = min(len(sources), thread_count(threads))
    kept = values_in_memory(budget)
    plan = ScoringPlan(
        measure_list,
        judgments,
        order,
        conventions.max_docs,
        eligible_topics(judgments, conventions.empty_topics),
        part_bytes(budget - kept, workers),
        max_cells,
        1 if workers > 1 else thread_count(threads),
        spill=ValueSpill(kept),
    )
    return plan, workers


def _engine(engine: str, scheduler: Optional[str], workers: Optional[int] = None):
    """The Dask client in the making (engine "dask"; a LocalCluster of ``workers`` when no
    scheduler is given), or nothing to hold (engine "local")."""
    check_engine(engine, scheduler)
    if engine == "dask":
        from irgauge.evaluation.dask_engine import BackgroundClient

        return BackgroundClient(scheduler, None if scheduler else workers)
    return contextlib.nullcontext()


@contextlib.contextmanager
def _started(engine: str, scheduler: Optional[str], jobs, sources, budget: int, judgments):
    """(the Dask client in the making or None, worker processes forked before the qrels
    are read or None): both start while the qrels (``judgments``: qrels, prels) are read.
    Early worker processes score big run files locally, from qrels in a plain-text file
    (:func:`forked_early`)."""
    qrels, prels = judgments
    with _engine(engine, scheduler, jobs) as cluster:
        if cluster is not None or prels is not None:
            yield cluster, None
            return
        with forked_early(sources, explicit_threads(jobs), budget, qrels) as early:
            yield None, early


def _score_runs(sources, plan: ScoringPlan, jobs, engine, step) -> List[ScoredRun]:
    """Every run scored here (``workers`` at a time, or big run files on worker processes:
    :mod:`irgauge.evaluation.processes`, forked before the qrels were read where ``early``
    is given) or on a Dask cluster, where each worker has its share of the budget
    (:func:`worker_budget`), said on stderr."""
    workers, threads = jobs
    cluster, budget, early = engine
    if early is not None:
        return early.score(plan, step)
    if cluster is not None:
        from irgauge.evaluation.dask_engine import score_sources_dask

        n_workers, here = cluster.size(), cluster.this_machine
        print(f"irgauge: note: {budget_note(budget, n_workers, here)}", file=sys.stderr)
        share = worker_budget(budget, n_workers, here)
        plan = replace(plan, part_bytes=part_bytes(share, 1), threads=1)
        return score_sources_dask(sources, plan, cluster.client(), step)
    processes = process_count(sources, explicit_threads(threads), plan)
    if processes:
        return score_sources_forked(sources, plan, processes, budget, step)
    return score_sources(sources, plan, workers, step)


@dataclass(frozen=True)
class _Conventions:
    """The conventions an evaluation was run with, as the metadata records them (the
    document order is recorded per run, as each was read)."""

    judged_only: bool
    complete: bool
    empty_topics: str
    aggregate: str
    max_docs: Optional[int]


def _measures(measures, judged_only: bool) -> List[Measure]:
    if measures is None:
        measures = list(DEFAULT_MEASURES)
    elif isinstance(measures, (str, Measure)) or is_foreign_measure(measures):
        measures = [measures]
    else:
        measures = measure_texts(measures)  # a number, None in a list...: refused
    refuse_repeats(measures)  # as -m refuses them: one column each
    parsed = [m for m in measures if isinstance(m, Measure)]
    parsed += parse_measures([m for m in measures if not isinstance(m, Measure)])
    if not parsed:
        raise MeasureError("no measures given")
    if judged_only:
        parsed = [replace(m, judged_only=True) for m in parsed]
    return parsed


def _metadata(qrels, judgments, measure_list, conventions, names, scored, row_topics):
    """The conventions, sources and topic accounting of an evaluation (the topics missing
    from each run are the caller's to add)."""
    orders = {name: s.order for name, s in zip(names, scored)}
    used = sorted(set(orders.values()))
    no_relevant = [judgments.topic_ids[t] for t in np.flatnonzero(judgments.R == 0)]
    unknown = {name: s.unknown_topics for name, s in zip(names, scored) if s.unknown_topics}
    applied = measure_conventions(measure_list, judgments)
    # collected: a study records where its scores differ from trec_eval's (peers.collecting)
    return collect(
        {
            "irgauge": __version__,
            "qrels": qrels.source,
            **_prels_lines(judgments, measure_list),
            "runs": {name: s.source for name, s in zip(names, scored)},
            "order": "; ".join(f"{o}: {ORDER_DESCRIPTIONS[o]}" for o in used),
            **({"order_per_run": orders} if len(used) > 1 else {}),
            # what each measure read, never the options alone (-l leaves trec_eval's nDCG alone)
            **convention_lines(applied),
            "negative_levels": judgments.negative,
            **_negative_judgments(judgments),
            "complete": conventions.complete,
            "aggregate": conventions.aggregate + " (counts are summed)",
            "empty_topics": conventions.empty_topics,
            # -l decides which topics have a relevant document, whatever the measures read
            "topic_rel_level": judgments.rel_level,
            "topics_without_relevant": no_relevant if conventions.empty_topics == "skip" else [],
            "topics_averaged": {name: len(t) for name, t in zip(names, row_topics)},
            "topics_missing_from_run": {},
            "topics_scored_zero": {},
            "run_topics_not_in_qrels": unknown,
            # each spelling given -> the canonical measure with every parameter
            "measures": {m.name: m.full for m in measure_list},
            "measure_conventions": applied,
            "max_docs": conventions.max_docs if conventions.max_docs is not None else "all",
        }
    )


def _prels_lines(judgments, measure_list) -> dict:
    """On prels, the note on how they are read and what each estimator among the measures
    estimates, and how near (``estimators``: a name is a promise, and statAP's is not
    "unbiased"); nothing on qrels."""
    if judgments.inclusion is None:
        return {}
    said = {m.name: m.estimator() for m in measure_list}
    estimators = {name: text for name, text in said.items() if text is not None}
    return {"prels": INCLUSION_NOTE, **({"estimators": estimators} if estimators else {})}


def _negative_judgments(judgments) -> dict:
    """``{"negative_judgments": n}`` for qrels with n lines of a negative level read as
    judged nonrelevant, where trec_eval reads them otherwise (:mod:`.peers`)."""
    if judgments.negative != "nonrelevant":
        return {}
    n = int((judgments.source_qrels.levels < 0).sum())
    return {"negative_judgments": n} if n else {}


def score_matrices(
    qrels: QrelsLike, runs: RunsLike, measures: MeasuresLike, **options: Any
) -> Matrices:
    """Evaluate ``runs`` against ``qrels`` with :func:`evaluate`; ``{measure: ScoreMatrix}``.

    ``options`` go to ``evaluate`` unchanged. Measures are named as ``evaluate`` names them
    in its per-topic table. The runs are systems to compare: a run file given twice is
    refused (:func:`evaluate_systems`).
    """
    return evaluate_systems(qrels, runs, measures, **options).score_matrices()


def evaluate_systems(
    qrels: QrelsLike, runs: RunsLike, measures: MeasuresLike, **options: Any
) -> EvalResult:
    """:func:`evaluate`, for runs compared as systems (the meta-evaluation commands, the
    studies, :func:`score_matrices`): a run file given twice, by any path, is refused
    naming it (:func:`irgauge.io.runs.refuse_twins`), since its pair with itself would
    enter every statistic. ``irgauge eval``, a table of scores, shows a run twice."""
    refuse_twins(runs)
    return evaluate(qrels, runs, measures, **options)
