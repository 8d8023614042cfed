"""trec_eval 10.0's output, byte for byte: its lines, their order and its number formats.

``trec_eval_output(qrels, run, words, ...)`` evaluates with the conventions trec_eval
uses (score order with ties by docno descending, every qrels topic averaged whether it
has relevant documents or not, a negative qrels level read as "pooled but unjudged") and
prints what trec_eval prints for the same options:

- with ``per_topic`` (trec_eval -q), each evaluated topic's lines, topics in byte order
  of their ids (trec_eval sorts the qrels), measures in trec_eval's order; then, unless
  ``summary`` is off (-n), the ``all`` lines: ``runid``, ``num_q``, then each measure;
- ``%-22s\\t%s\\t%6.4f`` for values, ``%ld`` for counts, ``'...'`` for relstring (per
  topic only), ``gm_map`` and ``gm_bpref`` for ``all`` only.

As trec_eval 10.0, a qrels topic the run does not answer stops the evaluation (exit 4)
unless ``complete`` (-c) scores it, and so does a topic that judges a document twice or
retrieves one twice among its first -M; run topics without qrels are ignored. The
failures carry trec_eval's exit status (``TrecEvalError.status``).

This module reads the inputs and puts the parts together, each part a module of this
package: the options and their domain (``drop_in_options``), the topics evaluated
(``evaluated_topics``), the scoring (``line_scoring``), the means as C takes them
(``means``), trec_eval's own departures such as -c's stand-in ranking (``quirks``), where
it stops (``exits``) and its lines as printed (``printing``).
"""

from __future__ import annotations

import contextlib
import os
from typing import (
    Any,
    ContextManager,
    Dict,
    Iterator,
    List,
    Mapping,
    NamedTuple,
    Optional,
    Sequence,
    Tuple,
    Union,
)

import numpy as np

from irgauge.evaluation.memory import resolve_memory
from irgauge.evaluation.run_scoring import readable_twice
from irgauge.evaluation.trec_eval.means import complete_means, derived_values, judgment_group_means
from irgauge.evaluation.trec_eval.drop_in_options import (
    Chosen,
    TrecEvalOptions,
    in_domain,
    refuse_level_past_table,
)
from irgauge.evaluation.trec_eval.printing import relstrings, render_lines
from irgauge.evaluation.trec_eval.quirks import (
    empty_rankings,
    group_stand_in_values,
    ideal_dcg_carried_over,
    stand_in_values,
)
from irgauge.evaluation.trec_eval.line_scoring import (
    RunWatcher,
    grades_kept,
    score_lines,
    score_lines_jointly,
)
from irgauge.evaluation.trec_eval.exits import (
    duplicate_stop,
    first_stop,
    missing_stop,
    refuse_group_repeats,
    repeat_stop,
    unjudged_first_stop,
)
from irgauge.evaluation.trec_eval.evaluated_topics import (
    byte_order,
    evaluated_topics,
    indices,
    most_relevant,
    trec_judgments,
)
from irgauge.io.qrels import read_judgment_groups, read_qrels
from irgauge.io.records import Qrels
from irgauge.io.trec_eval_lines import check_run_lines, refuse_qrels_lines
from irgauge.measures import parse_measure
from irgauge.measures.trec_eval_words import TrecEvalError, lines, select
from irgauge.types import QrelsLike, RunLike


TREC_EVAL_VERSION = "10.0"
NO_GRADES = np.zeros(0, np.int16)  # the ranking of a topic the run does not answer (-c)
# the memory budget, the run's readable copy and its runid, if known (trec_eval_chunks)
Reading = Tuple[int, Optional[str], Optional[str]]


def trec_eval_output(
    qrels: QrelsLike,
    run: RunLike,
    words: Sequence[str] = ("official",),
    options: TrecEvalOptions = TrecEvalOptions(),
    memory: Union[None, int, str] = None,
) -> str:
    """What ``trec_eval [options] {-m word} QRELS RUN`` prints, as one string. A run file
    is read in parts of whole topics within ``memory`` (as ``evaluate`` reads it; default:
    :func:`~irgauge.evaluation.memory.default_memory`), with the output of the whole read.
    A failure carries what trec_eval prints before it (``TrecEvalError.output``)."""
    printed: List[str] = []
    try:
        printed.extend(trec_eval_chunks(qrels, run, words, options, memory))
    except TrecEvalError as err:
        err.output = "".join(printed) + err.output
        raise
    return "".join(printed)


def trec_eval_chunks(
    qrels: Any,
    run: Any,
    words: Sequence[str] = ("official",),
    options: TrecEvalOptions = TrecEvalOptions(),
    memory: Union[None, int, str] = None,
) -> Iterator[str]:
    """:func:`trec_eval_output` in pieces of text, to be written as they come: the output
    of -q for many topics is not held whole. Every failure but a stop at a topic (a qrels
    topic missing from the run, or a document twice in it: trec_eval's exit 4, after the
    topics before it) comes before the first piece."""
    # one word is one -m, not its letters (as one measure string is one measure)
    chosen = select(([words] if isinstance(words, str) else list(words)) or ["official"])
    options = in_domain(options)
    budget = resolve_memory(memory)
    # a stream is copied: its lines are checked, then read
    with _readable(qrels) as qrels_from, _readable(run) as read_from:
        if qrels_from is not None:
            refuse_qrels_lines(qrels_from, str(qrels))
            qrels = _QrelsFile(str(qrels), qrels_from)
        # trec_eval's runid is the last data line's tag
        runid = None if read_from is None else check_run_lines(read_from, str(run))
        reading = (budget, read_from, runid)
        if options.rel_format == "qrels_jg":
            yield from _judgment_group_output(qrels, run, chosen, options, reading)
        else:
            yield from _qrels_output(qrels, run, chosen, options, reading)


def _readable(source: Any) -> ContextManager[Optional[str]]:
    """A path's copy that can be read twice (itself, for a regular file), or None for
    judgments or a run given as data: as a context (a copy is removed at its end)."""
    if isinstance(source, (str, os.PathLike)):
        return readable_twice(str(source))
    return contextlib.nullcontext()


class _QrelsFile(NamedTuple):
    """A qrels path, read from ``read_from`` (a copy of a stream, or the path itself)."""

    path: str
    read_from: str


def _qrels_output(
    qrels: Any, run: Any, chosen: Chosen, options: TrecEvalOptions, reading: Reading
) -> Iterator[str]:
    """trec_eval's output over ordinary qrels (-R qrels); ``reading``: the memory budget,
    the run's readable copy and its runid, if known (see trec_eval_chunks)."""
    budget, read_from, runid = reading
    qrels = _qrels(qrels)
    top = int(qrels.levels.max()) if len(qrels.levels) else 0
    refuse_level_past_table(options, chosen, top)
    judgments = trec_judgments(qrels, options)
    most = most_relevant([judgments], options)
    plan = [
        line
        for name, p in chosen
        for line in lines(name, p, options.num_docs, parse=parse_measure, max_relevant=most)
    ]
    watcher = RunWatcher(grades_kept(plan, options.judged_only), options.judged_only, runid)
    values, scored = score_lines(
        plan, judgments, run, options, budget, watcher=watcher, read_from=read_from
    )
    topics, missing = evaluated_topics(judgments, scored.answered, options)
    stop = first_stop(
        missing_stop(missing),
        # at one topic form_res_rels.c checks the run's documents, then the qrels', then
        # sizes its table of levels
        duplicate_stop(watcher.take_repeated(judgments), topics, chosen, watcher.where),
        repeat_stop(qrels, topics, chosen),
        unjudged_first_stop(judgments, chosen, topics),
    )
    if options.complete and ("num_rel", "all") in values:
        # trec_eval -c sums num_rel over the qrels file: every level > 0, whatever -l says
        values[("num_rel", "all")] = float((qrels.levels > 0).sum())
    unanswered = sorted(set(topics) - {judgments.topic_ids[i] for i in indices(scored.answered)})
    stand_in_values(plan, values, judgments, topics, unanswered, (options, budget))
    # after the stand-in's values: they are measured values too
    derived_values(plan, values, topics, judgments.R)
    grades = {
        topic: watcher.grades.get(index, NO_GRADES) if options.max_docs != 0 else NO_GRADES
        for topic, index in topics.items()
    }
    empty_rankings(plan, values, judgments, topics, grades, options)
    ideal_dcg_carried_over(plan, values, judgments, topics)
    strings = relstrings(plan, grades)
    for line in plan:
        stand_in_kept = not options.judged_only and options.max_docs != 0
        if line.kind == "relstring" and line.label != "relstring" and stand_in_kept:
            # -c resets relstring by that name only: relstring_N keeps the stand-in's '-'
            strings.update({topic: "-"[: line.width] for topic in unanswered})
    num_q = complete_means(plan, values, topics, judgments.n_topics, options)
    yield from render_lines(plan, (topics, num_q), stop, values, strings, options, watcher.runid)


def _judgment_group_output(
    source: Any, run: Any, chosen: Chosen, options: TrecEvalOptions, reading: Reading
) -> Iterator[str]:
    """trec_eval -R qrels_jg: each ``*_avgjg`` value of a topic is its measure computed
    under each judgment group that judges the topic (groups in byte order of their
    labels), summed and divided by their number (form_res_rels_jg.c); a topic is
    evaluated, or missing from the run, as under ordinary qrels. The run is read once for
    all groups: each part is matched and scored under every group's judgments."""
    budget, read_from, runid = reading
    groups: Mapping[str, Qrels]  # read here, or given as {label: Qrels}
    if isinstance(source, _QrelsFile):
        groups = read_judgment_groups(source.path, read_from=source.read_from, conflicting="record")
    elif isinstance(source, Mapping):
        groups = source
    else:
        groups = read_judgment_groups(source, conflicting="record")
    refuse_group_repeats(groups)
    all_judgments = [trec_judgments(qrels, options) for qrels in groups.values()]
    most = most_relevant(all_judgments, options)
    plan = [
        line
        for name, p in chosen
        for line in lines(
            name, p, options.num_docs, rel_format="qrels_jg", parse=parse_measure, max_relevant=most
        )
    ]
    topics: Dict[str, int] = {}
    missing = None
    per_group = []
    repeated: Dict[str, Any] = {}  # topic id -> a document it retrieves twice
    # one watcher per group: each group's judgments number the topics it reports
    watchers = [RunWatcher(0, options.judged_only, runid) for _ in all_judgments]
    scored_groups = (
        score_lines_jointly(plan, all_judgments, run, options, budget, watchers, (None, read_from))
        if all_judgments
        else []
    )
    for judgments, watcher, (group, scored) in zip(all_judgments, watchers, scored_groups):
        found, lacking = evaluated_topics(judgments, scored.answered, options)
        topics.update(found)
        repeated.update(watcher.take_repeated(judgments))
        if lacking is not None and (missing is None or byte_order(lacking) < byte_order(missing)):
            missing = lacking
        unanswered = [t for t, i in found.items() if not scored.answered[i]]
        group_stand_in_values(plan, group, judgments, unanswered, (options, budget))
        per_group.append((set(found), group))
    watcher = watchers[0] if watchers else RunWatcher(0, options.judged_only, runid)
    order = sorted(topics, key=byte_order)
    values = judgment_group_means(plan, per_group, order)
    derived_values([line for line in plan if line.per is None], values, topics)
    stop = first_stop(
        missing_stop(missing), duplicate_stop(repeated, topics, chosen, watcher.where)
    )
    every = {topic for judgments in all_judgments for topic in judgments.topic_ids}
    num_q = complete_means(plan, values, topics, len(every), options)
    yield from render_lines(plan, (topics, num_q), stop, values, {}, options, watcher.runid)


def _qrels(source: Any) -> Qrels:
    # a judgment repeated, with another level too: trec_eval stops at the topic
    if isinstance(source, _QrelsFile):
        qrels = read_qrels(source.path, read_from=source.read_from, conflicting="record")
    else:
        qrels = read_qrels(source, conflicting="record")
    if qrels.fmt != "trec":
        raise TrecEvalError(
            f"trec_eval.get_qrels: Malformed line 1\ntrec_eval: Quit in file '{qrels.source}'\n"
            "irgauge: trec_eval reads TREC qrels only: 'qid iter docno rel' per line",
            2,
        )
    return qrels


__all__ = [
    "TREC_EVAL_VERSION",
    "TrecEvalError",
    "TrecEvalOptions",
    "trec_eval_chunks",
    "trec_eval_output",
]
