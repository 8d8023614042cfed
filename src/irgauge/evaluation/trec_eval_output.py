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
"""

from __future__ import annotations

import contextlib
import math
import os
from dataclasses import dataclass, replace
from typing import Any, Dict, Iterator, List, Mapping, NamedTuple, Optional, Sequence, Tuple, Union

import numpy as np

from irgauge.collection.judgments import POOLED, TREC_LOWEST_LEVEL, UNJUDGED, Judgments
from irgauge._checks import MAX_COUNT
from irgauge.evaluation.memory import part_bytes, resolve_memory
from irgauge.evaluation.run_scoring import (
    PartWatcher,
    ScoringPlan,
    readable_twice,
    score_source_jointly,
    score_empty,
    score_unanswered,
)
from irgauge.evaluation.topic_tables import check_conventions, eligible_topics
from irgauge.io.qrels import read_judgment_groups, read_qrels
from irgauge.io.records import Qrels
from irgauge.io.trec_eval_lines import check_run_lines, refuse_qrels_lines
from irgauge.measures import parse_measure
from irgauge.measures.base import GMEAN_EPSILON, MAX_CUTOFF
from irgauge.measures.c_numbers import c_quotient
from irgauge.measures.iprec import ELEVEN_POINTS
from irgauge.measures.trec_eval_words import TrecEvalError, TrecLine, lines, select
from irgauge.types import QrelsLike, RunLike

TREC_EVAL_VERSION = "10.0"
STAND_IN = "<trec_eval -c stand-in>"
STAND_IN_DOCNO = "ceci_nest_pas_un_docno"  # trec_eval's ranking for an unanswered topic
CHUNK_LINES = 4096  # lines of output per piece written
NO_GRADES = np.zeros(0, np.int16)  # the ranking of a topic the run does not answer (-c)


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's options: -q, -c, -l, -M, -J, -n (``summary=False``), -N, -R, and the
    query of -D 0.query (``only_topic``: that qrels topic is evaluated alone; with -c the
    means still divide by the number of qrels topics)."""

    per_topic: bool = False
    complete: bool = False
    rel_level: int = 1
    max_docs: Optional[int] = None
    judged_only: bool = False
    summary: bool = True
    num_docs: int = 0
    rel_format: str = "qrels"  # -R: qrels, or qrels_jg (judgment groups)
    only_topic: Optional[str] = None  # -D 0.query


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
    chosen = select(list(words) or ["official"])
    options = _in_domain(options)
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


def _in_domain(options: TrecEvalOptions) -> TrecEvalOptions:
    """trec_eval's -M and -l as C longs (its defaults: -M MAXLONG, -l 1), mapped onto what
    irgauge scores with the same output, or refused in one line where trec_eval's own
    output is not reproduced: a -M past any ranking irgauge reads (MAX_COUNT documents)
    cuts none; -M 0 leaves every ranking empty (``_read_depth``); a negative -M is refused
    (trec_eval crashes, or prints negative counts of documents). -l below 0 is read by
    the judgments (``_judgments``)."""
    if options.max_docs is not None and options.max_docs < 0:
        raise TrecEvalError(
            f"irgauge: -M {options.max_docs}: trec_eval 10.0 crashes or prints negative "
            "counts for it; -M takes 0 or more documents per topic",
            2,
        )
    if options.max_docs is not None and options.max_docs > MAX_COUNT:
        options = replace(options, max_docs=None)
    return options


# levels past trec_eval's table that bpref reads without reaching unmapped memory (it
# crashed from some 16,600 on, on a small input: the heap's first 132 KiB)
LEVELS_READ_PAST = 1024


def _refuse_level_past_table(options: TrecEvalOptions, chosen, top: int) -> None:
    """trec_eval's bpref and gm_bpref count the nonrelevant documents by reading its table
    of each level's count for every level below -l (m_bpref.c), past the table's end
    when -l exceeds the highest level + 1. What it reads there counts for nothing (no
    document is relevant then, so bpref is 0), but far enough past it, it crashes."""
    reading = [name for name, _ in chosen if name in ("bpref", "gm_bpref")]
    if reading and options.rel_level > top + 1 + LEVELS_READ_PAST:
        raise TrecEvalError(
            f"irgauge: -l {options.rel_level} with {reading[0]}: trec_eval 10.0 reads its "
            f"table of levels (up to {top} here) that far past its end, and crashes",
            2,
        )


def _readable(source: Any):
    """A path's copy that can be read twice (itself, for a regular file), or None for
    judgments or a run given as data: as a context (a copy is removed at its end)."""
    if isinstance(source, (str, os.PathLike)):
        return readable_twice(str(source))
    return contextlib.nullcontext()


class _QrelsFile(NamedTuple):
    """A qrels path, read from ``read_from`` (a copy of a stream, or the path itself)."""

    path: str
    read_from: str


def _qrels_output(qrels, run, chosen, options: TrecEvalOptions, reading) -> Iterator[str]:
    """trec_eval's output over ordinary qrels (-R qrels); ``reading``: the memory budget,
    the run's readable copy and its runid, if known (see trec_eval_chunks)."""
    budget, read_from, runid = reading
    qrels = _qrels(qrels)
    top = int(qrels.levels.max()) if len(qrels.levels) else 0
    _refuse_level_past_table(options, chosen, top)
    judgments = _judgments(qrels, options)
    most = _most_relevant([judgments], options)
    plan = [
        line
        for name, p in chosen
        for line in lines(name, p, options.num_docs, parse=parse_measure, max_relevant=most)
    ]
    watcher = _RunWatcher(_grades_kept(plan, options.judged_only), options.judged_only, runid)
    values, scored = _scored(
        plan, judgments, run, options, budget, watcher=watcher, read_from=read_from
    )
    topics, missing = _topics(judgments, scored.answered, options)
    stop = _first_stop(
        _missing_stop(missing),
        # at one topic form_res_rels.c checks the run's documents, then the qrels', then
        # sizes its table of levels
        _duplicate_stop(watcher.take_repeated(judgments), topics, chosen, watcher.where),
        _repeat_stop(qrels, topics, chosen),
        _unjudged_first_stop(judgments, chosen, topics),
    )
    if options.complete and ("num_rel", "all") in values:
        # trec_eval -c sums num_rel over the qrels file: every level > 0, whatever -l says
        values[("num_rel", "all")] = float((qrels.levels > 0).sum())
    unanswered = sorted(set(topics) - {judgments.topic_ids[i] for i in _indices(scored.answered)})
    _stand_in_values(plan, values, judgments, topics, unanswered, (options, budget))
    # after the stand-in's values: they are measured values too
    _derived_values(plan, values, topics, judgments.R)
    grades = {
        topic: watcher.grades.get(index, NO_GRADES) if options.max_docs != 0 else NO_GRADES
        for topic, index in topics.items()
    }
    _empty_rankings(plan, values, judgments, topics, grades, options)
    _ideal_dcg_carried_over(plan, values, judgments, topics)
    strings = _relstrings(plan, grades)
    for line in plan:
        stand_in_kept = not options.judged_only and options.max_docs != 0
        if line.kind == "relstring" and line.label != "relstring" and stand_in_kept:
            # -c resets relstring by that name only: relstring_N keeps the stand-in's '-'
            strings.update({topic: "-"[: line.width] for topic in unanswered})
    num_q = _complete_means(plan, values, topics, judgments.n_topics, options)
    yield from _render(plan, (topics, num_q), stop, values, strings, options, watcher.runid)


def _missing_stop(missing: Optional[str]):
    """(topic, error) where trec_eval 10.0 stops: a qrels topic the run does not answer."""
    if missing is None:
        return None
    return missing, TrecEvalError(
        f"trec_eval: result qid '{missing}' not found in qrels\n"
        f"irgauge: qrels topic '{missing}' is not in the run, which stops "
        "trec_eval 10.0 (exit 4); -c scores such topics 0",
        4,
    )


def _repeat_stop(qrels, topics, chosen):
    """(topic, error) where trec_eval 10.0 stops: the first topic it evaluates (in byte
    order) whose qrels judge a document twice, with the same level or another
    (form_res_rels.c), or None; none when no measure asked for reads the qrels."""
    evaluated = [repeat for repeat in qrels.repeats if repeat[0] in topics]
    measure = _first_measured(chosen)
    if not evaluated or measure is None:
        return None
    # trec_eval names the topic's first docno in byte order
    topic, line, docno = min(evaluated, key=lambda r: (_byte_order(r[0]), r[2], r[1]))
    return topic, TrecEvalError(
        f"trec_eval.form_res_rels: duplicate docs {_id_text(docno)}\n"
        f"trec_eval: Can't calculate measure '{measure}'\n"
        f"irgauge: error: {qrels.source}:{line}: topic '{topic}' judges document "
        f"{_shown(docno)} again, which stops trec_eval 10.0 when it evaluates the topic "
        "(exit 4)",
        4,
    )


def _duplicate_stop(repeated, topics, chosen, where):
    """(topic, error) where trec_eval 10.0 stops: the first topic it evaluates (in byte
    order) whose documents, as far as -M keeps them, hold a document twice
    (form_res_rels.c), or None; none when no measure asked for reads the run.
    ``repeated``: topic id -> (docno, first line, line), see ``RepeatedDocs``;
    ``where``: the run's source and what its positions count (lines or rows)."""
    evaluated = [topic for topic in repeated if topic in topics]
    measure = _first_measured(chosen)
    if not evaluated or measure is None:
        return None
    topic = min(evaluated, key=_byte_order)
    docno, first_line, line = repeated[topic]
    source, unit = where
    return topic, TrecEvalError(
        f"trec_eval.form_res_qrels: duplicate docs {_id_text(docno)}\n"
        f"trec_eval: Can't calculate measure '{measure}'\n"
        f"irgauge: error: {source}:{line}: document {_shown(docno)} is retrieved again for "
        f"topic '{topic}' (also on {unit} {first_line}), which stops trec_eval 10.0 when "
        "it evaluates the topic (exit 4)",
        4,
    )


def _refuse_group_repeats(groups: Mapping[str, Any]) -> None:
    """trec_eval reads a qrels_jg file whose group judges a document of a topic twice, with
    the same level or another, as no file at all (get_qrels_jg.c: exit 2, before any
    output); it names the first such docno in the order (topic, group, docno)."""
    found = [(t, g, d, line, q.source) for g, q in groups.items() for t, line, d in q.repeats]
    if not found:
        return
    topic, group, docno, line, source = min(
        found, key=lambda r: (_byte_order(r[0]), _byte_order(r[1]), r[2], r[3])
    )
    raise TrecEvalError(
        f"trec_eval.get_qrels: duplicate docs {_id_text(docno)}\n"
        f"trec_eval: Quit in file '{source}'\n"
        f"irgauge: error: {source}:{line}: judgment group '{group}' of topic '{topic}' "
        f"judges document {_shown(docno)} again, which trec_eval 10.0 refuses (exit 2)",
        2,
    )


def _first_measured(chosen) -> Optional[str]:
    """The measure whose computation fails first where trec_eval stops at a topic: the
    first in its order asked for that reads the topic's documents (not runid, num_q)."""
    return next((name for name, _ in chosen if name not in ("runid", "num_q")), None)


def _id_text(ident: bytes) -> str:
    return ident.decode("utf-8", "surrogateescape")


def _shown(ident: bytes) -> str:
    return repr(ident.decode("utf-8", "backslashreplace"))


def _first_stop(*stops):
    """The stop trec_eval reaches first: the one at the topic first in byte order (at one
    topic, the one given first)."""
    found = [stop for stop in stops if stop is not None]
    return min(found, key=lambda stop: _byte_order(stop[0])) if found else None


def _render(plan, evaluated, stop, values, strings, options: TrecEvalOptions, runid):
    """trec_eval's lines, in pieces of some thousand lines: each topic's (with -q, topics
    in byte order of their ids, up to the topic where trec_eval 10.0 stops, ``stop``:
    (topic, error) or None), then the summary (unless -n). ``evaluated``: the topics
    evaluated, and num_q. No topic evaluated stops trec_eval before the summary (exit 7)."""
    topics, num_q = evaluated
    if not topics and stop is None:
        raise TrecEvalError(
            "trec_eval: No queries with both results and relevance info\n"
            f"irgauge: trec_eval 10.0 evaluates no topic: -D 0.{options.only_topic} names "
            "no qrels topic (exit 7)",
            7,
        )
    out: List[Optional[str]] = []
    if options.per_topic:
        for topic in sorted(topics, key=_byte_order):
            if stop is not None and _byte_order(topic) >= _byte_order(stop[0]):
                break
            out += [_per_topic(line, topic, values, strings) for line in plan]
            if len(out) >= CHUNK_LINES:
                yield _text(out)
                out = []
    if stop is not None:  # trec_eval 10.0 stops there, after the topics before it
        stop[1].output = _text(out)
        raise stop[1]
    if options.summary:
        out += [_summary(line, runid, num_q, values) for line in plan]
    yield _text(out)


def _runid(run) -> str:
    return run.tag if run.tag is not None else run.name


def _judgment_group_output(
    source: Any, run: Any, chosen, options: TrecEvalOptions, reading
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
    _refuse_group_repeats(groups)
    all_judgments = [_judgments(qrels, options) for qrels in groups.values()]
    most = _most_relevant(all_judgments, options)
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
    watchers = [_RunWatcher(0, options.judged_only, runid) for _ in all_judgments]
    scored_groups = (
        _scored_jointly(plan, all_judgments, run, options, budget, watchers, (None, read_from))
        if all_judgments
        else []
    )
    for judgments, watcher, (group, scored) in zip(all_judgments, watchers, scored_groups):
        found, lacking = _topics(judgments, scored.answered, options)
        topics.update(found)
        repeated.update(watcher.take_repeated(judgments))
        if lacking is not None and (missing is None or _byte_order(lacking) < _byte_order(missing)):
            missing = lacking
        unanswered = [t for t, i in found.items() if not scored.answered[i]]
        _group_stand_in_values(plan, group, judgments, unanswered, (options, budget))
        per_group.append((set(found), group))
    watcher = watchers[0] if watchers else _RunWatcher(0, options.judged_only, runid)
    order = sorted(topics, key=_byte_order)
    values = _Values(order)
    for line in plan:
        if line.spec is None:
            continue
        for topic in order:
            scored = [group[(line.label, topic)] for found, group in per_group if topic in found]
            if line.per is not None:  # m_P_avgjg.c adds each group's count over the cutoff
                scored = [c_quotient(float(round(v * MAX_CUTOFF)), line.per) for v in scored]
            values[(line.label, topic)] = _c_sum(scored) / len(scored)  # x / 1 is x
        values[(line.label, "all")] = _topic_mean(values, line.label, order)
    _derived_values([line for line in plan if line.per is None], values, topics)
    stop = _first_stop(
        _missing_stop(missing), _duplicate_stop(repeated, topics, chosen, watcher.where)
    )
    every = {topic for judgments in all_judgments for topic in judgments.topic_ids}
    num_q = _complete_means(plan, values, topics, len(every), options)
    yield from _render(plan, (topics, num_q), stop, values, {}, options, watcher.runid)


def _text(lines_out: List[Optional[str]]) -> str:
    return "".join(line + "\n" for line in lines_out if line is not None)


def _qrels(source: Any):
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


class _RunWatcher(PartWatcher):
    """What trec_eval prints of the run beyond the measures' values, kept as each part is
    read: the runid (unless given: the first line's tag, else the run's name), and the
    first ``width`` grades of each topic's ranking (-J: of its judged documents), for
    relstring and for the topics -J leaves empty; and the topics whose documents kept hold
    one twice, where trec_eval stops."""

    def __init__(self, width: int, judged_only: bool, runid: Optional[str] = None):
        self.width = width
        self.judged_only = judged_only
        self.runid = runid
        self.grades: Dict[int, np.ndarray] = {}  # qrels topic index -> first grades
        # qrels topic index -> (docno, first line, line) of a document retrieved twice
        self.repeated: Dict[int, Tuple[bytes, int, int]] = {}
        self.where = ("<memory>", "line")  # the run's source, what its positions count

    def take_repeated(self, judgments: Judgments) -> Dict[str, Tuple[bytes, int, int]]:
        """The topics retrieving a document twice, by topic id (``judgments``: those the
        run was matched with), forgotten here: the next judgments number topics anew."""
        ids = judgments.topic_ids
        taken = {ids[index]: found for index, found in self.repeated.items()}
        self.repeated = {}
        return taken

    def read(self, run) -> None:
        if run.scores is None:
            raise TrecEvalError(
                f"trec_eval.get_results: Malformed line 1\ntrec_eval: Quit in file "
                f"'{run.source}'\n"
                "irgauge: trec_eval reads TREC runs only: 'qid Q0 docno rank score tag' per line",
                2,
            )
        if self.runid is None:
            self.runid = _runid(run)
        self.where = (run.source, run.position_unit)

    def matched(self, matched) -> None:
        if self.repeated:  # a topic matched again (a scattered run, regrouped): its last
            for index in np.intersect1d(list(self.repeated), matched.row_topic).tolist():
                del self.repeated[index]
        found = matched.repeated
        if found is not None:
            self.repeated.update(
                zip(found.topics, zip(found.docnos, found.first_lines, found.lines))
            )
        if not self.width:
            return
        starts, lengths = matched.row_start.tolist(), matched.row_length.tolist()
        for row, index in enumerate(matched.row_topic.tolist()):
            grades = matched.grades[starts[row] : starts[row] + lengths[row]]
            if self.judged_only:
                grades = grades[grades >= 0]
            # copied: a view would hold the part's arrays
            self.grades[index] = grades[: self.width].copy()


def _grades_kept(plan: List[TrecLine], judged_only: bool) -> int:
    """How many of each topic's first grades the output needs: relstring's width, and with
    -J at least one, to tell the topics left without a document."""
    width = max((line.width for line in plan if line.kind == "relstring"), default=0)
    return max(width, 1) if judged_only else width


def _indices(mask: np.ndarray) -> List[int]:
    return np.flatnonzero(mask).tolist()


def _byte_order(topic: str) -> bytes:
    return topic.encode("utf-8", "surrogateescape")


def _topics(judgments: Judgments, answered: np.ndarray, options: TrecEvalOptions):
    """The topics trec_eval evaluates (id -> topic index): the qrels topics the run
    answers (``answered``: bool per qrels topic), or with -c every qrels topic, of those
    -D 0.query leaves (``_evaluated``); and the first of them (in byte order) the run
    does not answer, which stops trec_eval without -c (else None)."""
    ids = judgments.topic_ids
    evaluated = _evaluated(judgments, options.only_topic)
    unanswered = [ids[i] for i in _indices(evaluated & ~answered)]
    complete = options.complete
    missing = None if complete or not unanswered else min(unanswered, key=_byte_order)
    return {ids[i]: i for i in _indices(evaluated & (answered | complete))}, missing


def _most_relevant(judgments_list: Sequence[Judgments], options: TrecEvalOptions) -> int:
    """The most relevant documents of a topic trec_eval may evaluate (R, under -l), under
    any of the judgments: recall levels and multiples of R are refused where their
    product with it is past a C long."""
    return max(
        (
            int(judgments.R[_evaluated(judgments, options.only_topic)].max(initial=0))
            for judgments in judgments_list
        ),
        default=0,
    )


def _read_depth(options: TrecEvalOptions) -> Optional[int]:
    """-M as the run is read: -M 0, where trec_eval evaluates empty rankings, reads each
    topic's first document, which tells the topics the run answers (a document kept
    twice is never among one), and scores none of them (``_scored_jointly``)."""
    return 1 if options.max_docs == 0 else options.max_docs


def _evaluated(judgments: Judgments, only_topic: Optional[str]) -> np.ndarray:
    """Per qrels topic, whether trec_eval evaluates it: -D 0.query skips every other topic
    (trec_eval.c), before it looks for the topic in the run."""
    if only_topic is None:
        return np.ones(judgments.n_topics, bool)
    return np.array([topic == only_topic for topic in judgments.topic_ids], bool)


def _complete_means(plan, values, topics, n_qrels_topics: int, options) -> int:
    """num_q, and each mean taken again as trec_eval -c takes it (meas_avg.c): over every
    qrels topic, ``n_qrels_topics``, whichever it evaluated (-D 0.query evaluates one):
    the sum of the topics' values over that number, for a geometric mean (gm_map) the
    sum of log(max(value, 1e-5)) with log(1e-5) for each topic not evaluated. Counts
    stay sums. Without -c (or when every topic was evaluated) nothing changes."""
    if not options.complete or len(topics) == n_qrels_topics:
        return len(topics)
    order = sorted(topics, key=_byte_order)
    for line in plan:
        if line.kind not in ("value", "summary"):
            continue
        kept = [values[(line.label, topic)] for topic in order]
        if line.spec and parse_measure(line.spec).aggregation() == "gmean":
            logs = _c_sum(math.log(max(v, GMEAN_EPSILON)) for v in kept)
            logs += (n_qrels_topics - len(order)) * math.log(GMEAN_EPSILON)
            values[(line.label, "all")] = math.exp(logs / n_qrels_topics)
        else:
            values[(line.label, "all")] = _c_sum(kept) / n_qrels_topics
    return n_qrels_topics


def _unjudged_first_stop(judgments: Judgments, chosen, topics):
    """(topic, error) where trec_eval 10.0 stops, or None: it sizes its table of levels by
    the first topic's highest level, so when the first topic it evaluates (``topics``:
    those evaluated; the first in byte order) has negative levels only, that table has no
    room and the first measure fails (form_res_rels.c), exit 4. (A qrels topic before it
    that the run does not answer stops trec_eval there first: ``_first_stop``.)"""
    if not topics:
        return None
    first = min(topics, key=_byte_order)
    measure = _first_measured(chosen)
    if not _negative_levels_only(judgments)[topics[first]] or measure is None:
        return None
    return first, TrecEvalError(
        f"trec_eval: Can't calculate measure '{measure}'\n"
        f"irgauge: trec_eval 10.0 fails when its first topic ('{first}') has "
        "negative qrels levels only",
        4,
    )


def _derived_values(
    plan: List[TrecLine], values, topics, relevant: Optional[np.ndarray] = None
) -> None:
    """The lines not measured as such (``TrecLine.per`` and ``constant``), per topic and
    for ``all`` (their sum in topic order over the number of topics, as trec_eval).
    ``relevant``: R per topic index, for the lines divided by min(cutoff, R)."""
    order = sorted(topics, key=_byte_order)
    for line in plan:
        if line.per is not None:
            for topic in order:
                # the count behind count/MAX_CUTOFF (exact: counts are far below 2^52),
                # then divided as C divides two longs converted to doubles
                count = round(values[(line.label, topic)] * MAX_CUTOFF)
                divisor = line.per
                if line.per_at_most_R and relevant is not None:
                    divisor = min(divisor, int(relevant[topics[topic]]))
                    if not relevant[topics[topic]]:  # m_rel_P.c returns at once: 0
                        values[(line.label, topic)] = 0.0
                        continue
                values[(line.label, topic)] = c_quotient(float(count), float(divisor))
        elif line.constant is not None:
            for topic in order:
                values[(line.label, topic)] = line.constant
        else:
            continue
        values[(line.label, "all")] = _topic_mean(values, line.label, order)


def _scored(
    plan: List[TrecLine],
    judgments: Judgments,
    run: Any,
    options: TrecEvalOptions,
    budget: int,
    name: Optional[str] = None,
    watcher: Optional[PartWatcher] = None,
    read_from: Optional[str] = None,
):
    """(label, topic or 'all') -> value of every measured line, and the run as scored: read
    in parts of whole topics within ``budget`` and matched in trec_eval's order (score,
    ties by docno descending), -M applied. ``watcher``: told of each part; ``read_from``:
    the run's copy to read (see ``score_source``)."""
    reading = (name, read_from)
    return _scored_jointly(plan, [judgments], run, options, budget, [watcher], reading)[0]


def _scored_jointly(plan, judgments_list, run, options: TrecEvalOptions, budget, watchers, reading):
    """:func:`_scored` under each of ``judgments_list`` (with the watcher at its place in
    ``watchers``), the run read once for all of them; ``reading``: (the run's name, its
    copy to read). A list of (values, run as scored), in the order of the judgments."""
    measures = [replace(parse_measure(line.spec), label=line.label) for line in plan if line.spec]
    if options.judged_only:
        measures = [replace(m, judged_only=True) for m in measures]
    scorings = [
        ScoringPlan(
            measures,
            judgments,
            "score",
            _read_depth(options),
            # trec_eval scores topics without relevant docs; -D 0.query one topic alone;
            # under -M 0 no document of the run is scored
            eligible_topics(judgments, "zero")
            & _evaluated(judgments, options.only_topic)
            & (options.max_docs != 0),
            part_bytes(budget, 1),
            watcher=watcher,
            duplicates="record",  # trec_eval stops where it evaluates such a topic
        )
        for judgments, watcher in zip(judgments_list, watchers)
    ]
    name, read_from = reading
    results = []
    for scoring, scored in zip(scorings, score_source_jointly(run, name, scorings, read_from)):
        judgments = scoring.judgments
        evaluated = _evaluated(judgments, options.only_topic)
        if options.max_docs == 0:  # every ranking trec_eval evaluates is empty
            score_empty(
                scoring, scored, np.flatnonzero(evaluated & (scored.answered | options.complete))
            )
        elif options.complete:
            score_unanswered(scoring, [scored], [np.flatnonzero(evaluated)])
        # evaluate's mean: of the values in topic order; trec_eval's parameters (rbp.p=-inf,
        # set_F.-2) can make values infinite, whose sums are IEEE's, as in C
        with np.errstate(invalid="ignore", over="ignore"):
            scored.values.finish(measures, "mean")
        values = _Values(judgments.topic_ids)
        for i, measure in enumerate(measures):
            values.fill(measure.name, scored.values.topic_rows, scored.values.column(i))
            values[(measure.name, "all")] = scored.values.means[i]
        results.append((values, scored))
    return results


class _Values:
    """(label, topic id or 'all') -> the value of a line, held as an array of each label's
    values over the topics: a dict of (label, topic) keys takes some 150 bytes a value,
    1.5 GB for 300,000 topics and the 30 lines of official. A topic not scored: NaN."""

    def __init__(self, topic_ids: Sequence[str]):
        self.index = {topic: i for i, topic in enumerate(topic_ids)}
        self.columns: Dict[str, np.ndarray] = {}
        self.means: Dict[str, float] = {}

    def fill(self, label: str, rows: np.ndarray, values: np.ndarray) -> None:
        """The values of ``label`` of the topics at ``rows`` (indices of ``topic_ids``)."""
        self._column(label)[rows] = values

    def _column(self, label: str) -> np.ndarray:
        if label not in self.columns:
            self.columns[label] = np.full(len(self.index), math.nan)
        return self.columns[label]

    def __getitem__(self, key) -> float:
        label, topic = key
        if topic == "all":
            return self.means[label]
        return float(self.columns[label][self.index[topic]])

    def __setitem__(self, key, value: float) -> None:
        label, topic = key
        if topic == "all":
            self.means[label] = value
        else:
            self._column(label)[self.index[topic]] = value

    def __contains__(self, key) -> bool:
        label, topic = key
        return label in (self.means if topic == "all" else self.columns)


def _judgments(qrels, options: TrecEvalOptions) -> Judgments:
    """The judgments as trec_eval reads them: a negative level is pooled but unjudged."""
    # any -l past the highest level makes no document relevant, as the level above it does
    top = int(qrels.levels.max()) if len(qrels.levels) else 0
    # below 0 trec_eval compares -l with its levels -1 (outside the qrels) and -2 (judged
    # negative): any -l below -2 reads as -2 (Judgments.relevant_grades)
    rel_level = max(min(options.rel_level, max(top + 1, 1)), TREC_LOWEST_LEVEL)
    # -l 0 (every judged document relevant) is trec_eval's, not irgauge eval's: the
    # conventions check the depth only
    check_conventions("score", "zero", "mean", max(rel_level, 1), _read_depth(options))
    return Judgments(qrels, rel_level=rel_level, negative="unjudged")


def _stand_in_values(plan, values, judgments, topics, unanswered, settings) -> None:
    """trec_eval -c scores an unanswered topic on a stand-in ranking (one document not in
    the qrels, ``ceci_nest_pas_un_docno``), then resets num_ret, utility, rbp_resid,
    relstring and unj* by their printed names: with parameters (``utility_2,-1,0,0``)
    utility and rbp_resid keep the stand-in's value. irgauge's -c gives the reset value,
    so these lines are scored on the stand-in, and their means taken again as trec_eval
    takes them (the sum in topic order over the number of topics). So are lines that
    give the stand-in document a gain (``ndcg.-1=2``: level -1, outside the qrels)."""
    kept = _scored_stand_in(values, plan, judgments, unanswered, settings)
    if kept is None:
        return
    order = sorted(topics, key=_byte_order)
    for line in kept:
        if line.kind == "summary":  # gm_map, gm_bpref: meas_avg.c's geometric mean
            logs = _c_sum(math.log(max(values[(line.label, t)], GMEAN_EPSILON)) for t in order)
            values[(line.label, "all")] = math.exp(logs / len(order))
        else:
            values[(line.label, "all")] = _topic_mean(values, line.label, order)


def _group_stand_in_values(plan, group, judgments, unanswered, settings) -> None:
    """-R qrels_jg: the -c stand-in scored under one judgment group (``group``: that
    group's values, ``judgments`` its judgments), as form_res_rels_jg.c scores it under
    every group that judges the topic; averaged over the groups with the others."""
    _scored_stand_in(group, plan, judgments, unanswered, settings)


def _scored_stand_in(target, plan, judgments, unanswered, settings):
    """The lines the -c stand-in is scored on, their values for each unanswered topic
    put in ``target``; None where no line needs it."""
    kept = _stand_in_lines(plan, settings[0])
    scored = _stand_in_scores(kept, judgments, unanswered, settings)
    if scored is None:
        return None
    for line in kept:
        for topic in unanswered:
            target[(line.label, topic)] = scored[(line.label, topic)]
    return kept


def _stand_in_lines(plan, options: TrecEvalOptions) -> List[TrecLine]:
    """The measured lines whose value on the -c stand-in is not the value irgauge's -c
    gives an unanswered topic (see ``_stand_in_values``)."""
    return [
        line
        for line in plan
        if line.spec is not None
        and (
            line.label.startswith(("utility_", "rbp_resid_"))
            or "trec_gains=" in line.spec
            # below 0, -l makes the stand-in document relevant in its ranking
            or (
                options.rel_level < 0
                and line.kind in ("value", "summary")
                and not _reset_on_stand_in(line.label)
            )
        )
    ]


def _stand_in_scores(kept, judgments, unanswered, settings) -> Optional["_Values"]:
    """The ``kept`` lines' values on the -c stand-in ranking of each ``unanswered`` topic
    (None when there is nothing to score: under -M 0 the stand-in is cut away too, and
    the empty ranking's values stand)."""
    options, budget = settings
    if not (options.complete and unanswered and kept) or options.max_docs == 0:
        return None
    stand_in = {t: {STAND_IN_DOCNO: 1.0} for t in unanswered}
    alone = replace(options, complete=False)  # the stand-in answers the topics it scores
    return _scored(kept, judgments, stand_in, alone, budget, name=STAND_IN)[0]


def _reset_on_stand_in(label: str) -> bool:
    """The lines trec_eval.c resets by name after scoring the -c stand-in."""
    return label in ("num_ret", "utility", "relstring", "rbp_resid") or label.startswith("unj")


def _c_sum(terms) -> float:
    """The terms added one by one from 0.0, as trec_eval's C loops add them (Python's
    ``sum`` compensates its rounding from 3.12 on, which can flip a printed digit)."""
    total = 0.0
    for term in terms:
        total += term
    return total


def _topic_mean(values, label: str, order) -> float:
    """trec_eval's mean of a line: its topics' values summed in topic order, over their
    number (0 with no topic)."""
    return _c_sum(values[(label, topic)] for topic in order) / len(order) if order else 0.0


def _empty_rankings(plan, values, judgments, topics, grades, options) -> None:
    """trec_eval's iprec_at_recall and 11pt_avg divide 0 by 0 for a topic with no document
    left (with -J: every document unjudged, or -c with an unanswered topic, whose stand-in
    document is unjudged; -M 0: every topic): a recall point rounding to 0 or fewer relevant
    documents takes the value -nan, and so does the mean over topics. Without -J or -M 0
    a ranking is never empty. ``grades``: each topic's first (-J: judged) grades."""
    if not (options.judged_only or options.max_docs == 0):
        return
    empty = [t for t, g in grades.items() if len(g) == 0]
    if not empty:
        return
    for line in plan:
        points = _recall_points(line.spec)
        if points is None:
            continue
        for topic in empty:
            n_rel = int(judgments.R[topics[topic]])
            # a level whose cut round(x*R) is 0 or less takes 0/0; 11pt_avg adds it in
            if any(x * n_rel + 0.5 < 1 for x in points):
                values[(line.label, topic)] = values[(line.label, "all")] = -math.nan


def _negative_levels_only(judgments: Judgments) -> np.ndarray:
    """Per qrels topic, whether it holds no judgment at a level >= 0 (those at negative
    levels are not among the judgments), which form_res_rels.c counts per level."""
    return np.bincount(judgments.topic, minlength=len(judgments.topic_ids)) == 0


def _ideal_dcg_carried_over(plan, values, judgments: Judgments, topics) -> None:
    """trec_eval counts each topic's documents per level in a table it reuses from topic
    to topic (form_res_rels.c). A topic judged with negative levels only counts none and
    leaves the counts of the topic evaluated before it, in byte order, whose ideal_dcg it
    prints; its other values divide a gain of 0 by it. (The first topic stops instead:
    _unjudged_first_stop.)"""
    order = sorted(topics, key=_byte_order)
    negative_only = _negative_levels_only(judgments)
    carried = [(before, t) for before, t in zip(order, order[1:]) if negative_only[topics[t]]]
    if not carried:  # the usual case: the plan's measures are not parsed again
        return
    for line in plan:
        if not line.spec or parse_measure(line.spec).family.name != "IDCG":
            continue
        for before, topic in carried:  # in order: a run of such topics carries one value
            values[(line.label, topic)] = values[(line.label, before)]
        values[(line.label, "all")] = _topic_mean(values, line.label, order)


def _recall_points(spec: Optional[str]) -> Optional[List[float]]:
    """The recall levels of an IPrec or IPrec_avg measure (11pt_avg), else None."""
    if spec is None:
        return None
    measure = parse_measure(spec)
    if measure.family.name not in ("IPrec", "IPrec_avg"):
        return None
    given = {p.name: p.default for p in measure.family.params} | dict(measure.params)
    if measure.family.name == "IPrec":
        return [given["recall"]]
    return list(ELEVEN_POINTS if given["recalls"] is None else given["recalls"])


def _relstrings(plan, grades: Dict[str, np.ndarray]) -> Dict[str, str]:
    """relstring per topic: the level of each of the first documents (0-9, '>' above 9),
    '-' for a document not in the qrels, '.' for one pooled but unjudged. ``grades``: each
    topic's first grades (with -J, of judged documents)."""
    width = max((line.width for line in plan if line.kind == "relstring"), default=None)
    if width is None:
        return {}
    return {
        topic: "".join(_relchar(int(g)) for g in first[:width]) for topic, first in grades.items()
    }


def _relchar(grade: int) -> str:
    if grade > 9:
        return ">"
    if grade >= 0:
        return str(grade)
    return {UNJUDGED: "-", POOLED: "."}.get(grade, "<")


def _format(line: TrecLine, value: float) -> str:
    if line.kind == "count":
        return str(int(value))
    if math.isnan(value):  # as C's printf prints a NaN: the sign, then nan
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def _per_topic(line: TrecLine, topic: str, values, strings) -> Optional[str]:
    if line.kind == "relstring":
        return f"{line.label:<22}\t{topic}\t'{strings[topic]}'"
    if line.kind in ("count", "value"):
        return f"{line.label:<22}\t{topic}\t{_format(line, values[(line.label, topic)])}"
    return None  # runid, num_q, gm_map, gm_bpref: summary only


def _summary(line: TrecLine, runid: str, num_q: int, values) -> Optional[str]:
    if line.kind == "runid":
        return f"{'runid':<22}\tall\t{runid}"
    if line.kind == "num_q":
        return f"{'num_q':<22}\tall\t{num_q}"
    if line.kind == "relstring":
        return None  # trec_eval prints relstring per topic only
    return f"{line.label:<22}\tall\t{_format(line, values[(line.label, 'all')])}"


__all__ = [
    "TREC_EVAL_VERSION",
    "TrecEvalError",
    "TrecEvalOptions",
    "trec_eval_chunks",
    "trec_eval_output",
]
