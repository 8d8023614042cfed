"""Leave-one-group-out scores (Zobel 1998; Büttcher et al. 2007; Voorhees 2018).

For runs in groups and a pool depth K, the reduced qrels of group g drop every judged
document that only g's runs place in the depth-K pool (:mod:`irgauge.collection.depth_pool`):
the judgments the collection would lack had g not taken part. Every run is scored with
every group's reduced qrels.

The work is one pass over all groups at once, not one evaluation per group:

- each run is matched once against the full judgments and held as a topics x ranks
  matrix of grades, beside the matrix of the group that drops each document;
- group g's judgments are the full ones with its dropped rows removed, all groups held as
  one :class:`~irgauge.collection.judgments.Judgments` over virtual topics (g, t), so that
  R, N and the ideal gains are each group's own;
- the rows (g, run, t) are the run's graded list on topic t with the documents g dropped
  graded unjudged: a gather of the run's matrix and one comparison with its drop matrix
  per batch, scored by every measure's array kernel
  (:func:`~irgauge.evaluation.run_scoring.score_batch`). A (g, t) from which g dropped
  nothing scores as the full qrels do, and is not scored again.

Conventions: the topics are the full qrels', the same under every group's, chosen by
``empty_topics`` (:func:`irgauge.evaluation.shared_topics.shared_topics`): by default
those with a relevant document, with ``zero`` all of them. A topic that a group's
reduction leaves without a relevant document scores 0 under that group's qrels by the
measures that need one (by every measure where no judgment of it is left). A run that
does not answer a qrels topic is refused naming its file, or, with ``complete=True``,
scores it as an empty ranking (trec_eval -c).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from irgauge.collection.depth_pool import depth_pool
from irgauge.collection.judgments import PADDING, UNJUDGED, Judgments, parse_gains
from irgauge.collection.rankings import RankedLists
from irgauge.collection.run_matching import MatchedRun, match_run
from irgauge.errors import InputError
from irgauge.evaluation.engine import _measures, _negative_judgments, read_runs
from irgauge.evaluation.peers import collect
from irgauge.evaluation.eval_result import nothing_scored
from irgauge.evaluation.run_scoring import score_batch
from irgauge.evaluation.shared_topics import SharedTopics, shared_topics
from irgauge.evaluation.topic_tables import check_conventions
from irgauge.io.qrels import read_qrels
from irgauge.io.records import Qrels
from irgauge.io.run_groups import read_run_groups
from irgauge.io.run_topics import COMPLETE_HINT, require_qrels_topics
from irgauge.io.runs import unique_run_names
from irgauge.io.threads import thread_count

MAX_CELLS = 1_000_000  # grades per padded batch (as evaluate's), one batch per thread


@dataclass(eq=False)
class LeaveOutScores:
    """Per-topic scores under the full qrels and under each group's reduced qrels.

    ``full[m]``: runs x topics; ``reduced[m]``: groups x runs x topics (measure m, in the
    order of ``measures``); ``dropped[g]``: the judgments group g's reduction drops, and
    ``dropped_relevant[g]`` the relevant ones among them.
    """

    measures: List[str]
    runs: List[str]
    groups: List[str]
    members: Dict[str, List[str]]  # group -> its runs
    topics: List[str]
    depth: int
    full: Dict[str, np.ndarray]
    reduced: Dict[str, np.ndarray]
    dropped: np.ndarray
    dropped_relevant: np.ndarray
    qrels: Qrels
    drop_group: np.ndarray  # per judgment: the group whose reduction drops it, -1 for none
    topic_rule: SharedTopics  # the rule that chose ``topics``, and the topics each lost

    def reduced_qrels(self, group: str) -> Qrels:
        """The reduced qrels of ``group`` (the full qrels' rows it keeps, in file order)."""
        g = self.groups.index(group)
        q, keep = self.qrels, self.drop_group != g
        lines = q.line_numbers[keep] if q.line_numbers is not None else None
        return Qrels(
            q.topics[keep], q.docnos[keep], q.levels[keep], f"{q.source}@{group}", q.fmt, lines
        )


def leave_out_scores(
    qrels,
    runs,
    depth: int,
    groups=None,
    measures: Sequence = ("AP",),
    order: Optional[str] = None,
    rel_level: int = 1,
    gains=None,
    negative: str = "nonrelevant",
    complete: bool = False,
    empty_topics: str = "skip",
) -> LeaveOutScores:
    """Scores of every run under the full qrels and each group's reduced qrels (module
    docstring). ``groups``: a ``run<TAB>group`` file or ``{run: group}`` (default: each
    run alone); ``complete``: a run that misses a qrels topic scores it 0 (trec_eval -c)
    where it is refused by default; ``empty_topics``: the topics scored (module
    docstring); other options as :func:`irgauge.evaluate`."""
    rel_level, _ = check_conventions(order, empty_topics, "mean", rel_level, None)
    q = read_qrels(qrels)
    run_list = read_runs(runs, distinct=True)
    if len(run_list) < 2:
        raise InputError("leaving groups out needs at least 2 runs", parameter="runs")
    names = unique_run_names([(r.name, r.source) for r in run_list])
    member, group_names = _membership(read_run_groups(groups, names), names)
    measure_list = _measures(list(measures), False)
    judgments = Judgments(q, rel_level=rel_level, gains=parse_gains(gains), negative=negative)
    # the topics without a relevant document are noted by the topic rule, below
    facts = {"topics_without_relevant": [], "negative_levels": negative}
    collect({**facts, **_negative_judgments(judgments)}, takes=())
    pool = depth_pool(run_list, depth, q.topic_index, order, topics_of=q.source)
    if not complete:  # after the pool, which refuses a run answering none of the topics
        for run in run_list:
            require_qrels_topics(run, q.topic_ids, f"qrels {q.source}", True, COMPLETE_HINT)
    by_group = (member.astype(np.int32) @ pool.contributors.astype(np.int32)) > 0
    sole = np.where(by_group.sum(axis=0) == 1, by_group.argmax(axis=0), -1)
    found = pool.locate(q.topics, q.docnos)
    drop_group = np.where(found >= 0, sole[np.maximum(found, 0)], -1)
    n_groups = len(group_names)
    relevant = q.levels >= rel_level
    if not (judgments.R > 0).any():  # nothing to compare: no relevant document at rel_level
        raise nothing_scored(q.source, rel_level if not relevant.any() else None)
    rule = _topic_rule(judgments, relevant, drop_group, group_names, empty_topics)
    scored = _score_all(
        q, judgments, run_list, order, measure_list, pool, sole, drop_group, n_groups, rule
    )
    return LeaveOutScores(
        measures=[m.name for m in measure_list],
        runs=names,
        groups=group_names,
        members={g: [n for n, m in zip(names, member[k]) if m] for k, g in enumerate(group_names)},
        topics=scored[0],
        depth=pool.depth,
        full=scored[1],
        reduced=scored[2],
        dropped=np.bincount(drop_group[drop_group >= 0], minlength=n_groups),
        dropped_relevant=np.bincount(drop_group[relevant & (drop_group >= 0)], minlength=n_groups),
        qrels=q,
        drop_group=drop_group,
        topic_rule=rule,
    )


def _topic_rule(judgments, relevant, drop_group, group_names, empty_topics) -> SharedTopics:
    """The topics scored (:func:`shared_topics`), with each group's relevant documents
    R_g(t) = R(t) - the relevant judgments of t that group g drops."""
    n_topics, n_groups = judgments.n_topics, len(group_names)
    codes = judgments.index.codes
    gone = relevant & (drop_group >= 0)
    dropped = np.bincount(
        drop_group[gone] * n_topics + codes[gone], minlength=n_groups * n_topics
    ).reshape(n_groups, n_topics)
    left = {f"group {g}": judgments.R - dropped[k] > 0 for k, g in enumerate(group_names)}
    return shared_topics(judgments.topic_ids, judgments.R > 0, left, empty_topics)


def _membership(groups: Dict[str, str], names: List[str]):
    """(groups x runs membership, group names in order of their first run)."""
    group_names = list(dict.fromkeys(groups[n] for n in names))
    index = {g: k for k, g in enumerate(group_names)}
    member = np.zeros((len(group_names), len(names)), dtype=bool)
    member[[index[groups[n]] for n in names], np.arange(len(names))] = True
    return member, group_names


def _score_all(q, judgments, run_list, order, measure_list, pool, sole, drop_group, n_groups,
               rule: SharedTopics):  # fmt: skip
    """(topics, full scores, reduced scores) of every measure on the topics ``rule``
    keeps: every changed (group, topic) of every run scored in one pass over virtual
    topics."""
    n_topics = judgments.n_topics
    topics = rule.kept
    full_g = n_groups  # the full qrels as one more "group", which drops nothing
    # which (group, topic) lose a judgment: only those are scored anew
    changed = np.zeros((n_groups + 1, n_topics), dtype=bool)
    q_topic = judgments.index.codes
    changed[drop_group[drop_group >= 0], q_topic[drop_group >= 0]] = True
    changed[full_g, :] = True
    scored = np.zeros(n_topics, dtype=bool)
    scored[topics] = True
    changed[:, ~scored] = False
    virtual = _virtual_judgments(q, judgments, drop_group, n_groups + 1)
    vcode = virtual.code  # (group, topic) -> virtual topic code, -1 where nothing is left
    dropper = Judgments(Qrels(q.topics, q.docnos, drop_group + 1, q.source, q.fmt), rel_level=1)
    # (group, topic) with a judgment left; one with none scores 0 (kept only by "zero")
    pairs = np.argwhere(changed & (vcode >= 0))
    plan = _RowPlan(measure_list, judgments, dropper, order, pairs, virtual)
    values = _each_run(plan, run_list)  # per run: one array per measure, rows as ``pairs``
    full, reduced = {}, {}
    for mi, m in enumerate(measure_list):
        table = np.zeros((n_groups + 1, len(run_list), n_topics))
        for r, per_measure in enumerate(values):
            table[pairs[:, 0], r, pairs[:, 1]] = per_measure[mi]
        # a (group, topic) with nothing dropped scores as the full qrels do
        same = ~changed[:n_groups]
        table[:n_groups] = np.where(same[:, None, :], table[full_g][None], table[:n_groups])
        full[m.name] = table[full_g][:, topics]
        reduced[m.name] = table[:n_groups][:, :, topics]
    return [judgments.topic_ids[t] for t in topics], full, reduced


@dataclass
class _RowPlan:
    """What scoring one run's rows needs: the rows are ``pairs`` (group, topic), each the
    run's graded list on the topic with the documents the group drops graded unjudged,
    scored against the group's judgments (virtual topic ``virtual.code[group, topic]``).
    ``dropper``: judgments whose level is 1 + the group that drops the judgment (0 for
    none), matched against the run in the same order as ``judgments``."""

    measures: list
    judgments: Judgments
    dropper: Judgments
    order: Optional[str]
    pairs: np.ndarray
    virtual: "_Virtual"


def _each_run(plan: _RowPlan, run_list) -> List[List[np.ndarray]]:
    """:func:`_score_run` of every run, the runs split over the reader threads (numpy
    releases the GIL in the measures' array work), in run order."""
    workers = min(thread_count(), len(run_list))
    if workers <= 1:
        return [_score_run(plan, run) for run in run_list]
    from irgauge.io.threads import on_threads

    return on_threads(lambda run: _score_run(plan, run), run_list, jobs=workers)


def _score_run(plan: _RowPlan, run) -> List[np.ndarray]:
    """One run's values on every row of ``plan`` (one array per measure). The run is
    matched once and held as a topics x ranks grade matrix beside the matrix of which
    group drops each document; a batch of rows is then a gather of that grade matrix
    with the dropped documents set unjudged: whole-collection array work, no copy of the
    run per group."""
    matched = match_run(run, plan.judgments, plan.order)
    n_topics = plan.judgments.n_topics
    grades, lengths = _by_topic(matched, matched.grades, n_topics, PADDING)
    drops = match_run(run, plan.dropper, plan.order).grades - 1  # -1: kept by every group
    dropped_by, _ = _by_topic(matched, drops.astype(_group_dtype(plan)), n_topics, -1)
    group, topic = plan.pairs[:, 0], plan.pairs[:, 1]
    vcode = plan.virtual.code[group, topic]
    names = np.full(len(plan.pairs), matched.name, dtype=object)
    per_batch = max(1, MAX_CELLS // grades.shape[1])
    parts: List[List[np.ndarray]] = [[] for _ in plan.measures]
    for begin in range(0, len(plan.pairs), per_batch):
        rows = slice(begin, begin + per_batch)
        batch = grades[topic[rows]]
        batch[dropped_by[topic[rows]] == group[rows, None]] = UNJUDGED
        ranked = RankedLists(batch, lengths[topic[rows]], vcode[rows], plan.virtual.judgments)
        for mi, value in enumerate(score_batch(plan.measures, ranked, names[rows])):
            parts[mi].append(value)
    return [np.concatenate(p) if p else np.zeros(0) for p in parts]


def _group_dtype(plan: _RowPlan):
    return np.int16 if plan.virtual.code.shape[0] < 2**15 else np.int32


def _by_topic(matched: MatchedRun, flat: np.ndarray, n_topics: int, fill):
    """A run's flat per-document ``flat`` (in ranked order) as a topics x ranks matrix,
    ``fill`` past each list's end (and on topics it does not answer); and each topic's
    list length."""
    width = max(int(matched.row_length.max()) if len(matched.row_length) else 0, 1)
    out = np.full((n_topics, width), fill, dtype=flat.dtype)
    lengths = np.zeros(n_topics, dtype=np.int64)
    lengths[matched.row_topic] = matched.row_length
    total = int(matched.row_length.sum())
    offset = np.arange(total) - np.repeat(matched.row_start, matched.row_length)
    out[np.repeat(matched.row_topic, matched.row_length), offset] = flat[:total]
    return out, lengths


@dataclass
class _Virtual:
    judgments: Judgments
    code: np.ndarray  # (group, topic) -> virtual topic code, -1 where the group kept none
    group: np.ndarray  # virtual topic code -> group
    topic: np.ndarray  # virtual topic code -> topic


def _virtual_judgments(q: Qrels, judgments: Judgments, drop_group, n_groups: int) -> _Virtual:
    """Every group's judgments as one Judgments over virtual topics g * T + t (topic ids
    written as whole numbers, so that their natural order is that number's)."""
    n_topics = judgments.n_topics
    topic = q.topic_index.codes
    rows = [np.flatnonzero(drop_group != g) for g in range(n_groups)]
    keep = np.concatenate(rows)
    number = np.concatenate([g * n_topics + topic[r] for g, r in enumerate(rows)])
    ids = number.astype("S20")
    vq = Qrels(ids, q.docnos[keep], q.levels[keep], q.source, q.fmt)
    virtual = Judgments(
        vq, rel_level=judgments.rel_level, gains=judgments.gains, negative=judgments.negative
    )
    present = np.array([int(t) for t in virtual.topic_ids], dtype=np.int64)
    # the codes are read; what a measure sees (a registered measure's function, the topic
    # its error names) is each virtual topic's real topic id, as in every other evaluation
    virtual.topic_ids = [judgments.topic_ids[t] for t in present % n_topics]
    code = np.full(n_groups * n_topics, -1, dtype=np.int64)
    code[present] = np.arange(len(present))
    return _Virtual(
        virtual, code.reshape(n_groups, n_topics), present // n_topics, present % n_topics
    )


__all__ = ["LeaveOutScores", "leave_out_scores"]
