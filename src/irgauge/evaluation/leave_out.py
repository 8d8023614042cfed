"""Leave-one-group-out scores (Zobel 1998; Büttcher et al. 2007; Voorhees 2018).

For runs in groups and a pool depth K, the reduced qrels of group g drop every judged
document that only g's runs place in the depth-K pool (:mod:`irgauge.collection.depth_pool`):
the judgments the collection would lack had g not taken part. Every run is scored with
every group's reduced qrels.

The work is one pass of the shared ranking builder over all groups at once, not one
evaluation per group:

- each run is matched once against the full judgments (its grades in evaluation order);
- group g's judgments are the full ones with its dropped rows removed, all groups held as
  one :class:`~irgauge.collection.judgments.Judgments` over virtual topics (g, t), so that
  R, N and the ideal gains are each group's own;
- the rows (g, run, t) are the run's graded list on topic t with the documents g dropped
  graded unjudged, scored by every measure in one call of
  :func:`~irgauge.evaluation.run_scoring.score_rows`. A (g, t) from which g dropped
  nothing scores as the full qrels do, and is not scored again.

Conventions: the topics are the full qrels' topics with a relevant document; a run that
does not answer one scores it as an empty ranking (trec_eval -c); a topic that a group's
reduction leaves without a relevant document scores 0 under that group's qrels.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Dict, List, Optional, Sequence

import numpy as np

from irgauge.collection.depth_pool import depth_pool
from irgauge.collection.judgments import UNJUDGED, Judgments, parse_gains
from irgauge.collection.rankings import MatchedRun, match_run
from irgauge.errors import InputError
from irgauge.evaluation.engine import _measures, read_runs
from irgauge.evaluation.eval_result import nothing_scored
from irgauge.evaluation.run_scoring import score_rows
from irgauge.evaluation.topic_tables import check_conventions
from irgauge.io.qrels import read_qrels
from irgauge.io.records import Qrels
from irgauge.io.run_groups import read_run_groups
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
) -> LeaveOutScores:
    """Scores of every run under the full qrels and each group's reduced qrels (module
    docstring). ``groups``: a ``run<TAB>group`` file or ``{run: group}`` (default: each
    run alone); other options as :func:`irgauge.evaluate`."""
    rel_level, _ = check_conventions(order, "skip", "mean", rel_level, None)
    q = read_qrels(qrels)
    run_list = read_runs(runs)
    if len(run_list) < 2:
        raise InputError("leaving groups out needs at least 2 runs", parameter="runs")
    names = unique_run_names([(r.name, r.source) for r in run_list])
    member, group_names = _membership(read_run_groups(groups, names), names)
    measure_list = _measures(list(measures), False)
    judgments = Judgments(q, rel_level=rel_level, gains=parse_gains(gains), negative=negative)
    pool = depth_pool(run_list, depth, q.topic_index, order, topics_of=q.source)
    by_group = (member.astype(np.int32) @ pool.contributors.astype(np.int32)) > 0
    sole = np.where(by_group.sum(axis=0) == 1, by_group.argmax(axis=0), -1)
    found = pool.locate(q.topics, q.docnos)
    drop_group = np.where(found >= 0, sole[np.maximum(found, 0)], -1)
    n_groups = len(group_names)
    scored = _score_all(
        q, judgments, run_list, order, measure_list, pool, sole, drop_group, n_groups
    )
    relevant = q.levels >= rel_level
    if not len(scored[0]):  # every topic skipped: no relevant document at rel_level
        raise nothing_scored(q.source, rel_level if not relevant.any() else None)
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
    )


def _membership(groups: Dict[str, str], names: List[str]):
    """(groups x runs membership, group names in order of their first run)."""
    group_names = list(dict.fromkeys(groups[n] for n in names))
    index = {g: k for k, g in enumerate(group_names)}
    member = np.zeros((len(group_names), len(names)), dtype=bool)
    member[[index[groups[n]] for n in names], np.arange(len(names))] = True
    return member, group_names


def _score_all(q, judgments, run_list, order, measure_list, pool, sole, drop_group, n_groups):
    """(topics, full scores, reduced scores) of every measure: every changed (group,
    topic) of every run scored in one pass over virtual topics."""
    n_topics = judgments.n_topics
    topics = np.flatnonzero(judgments.R > 0)  # the full qrels' topics with a relevant one
    full_g = n_groups  # the full qrels as one more "group", which drops nothing
    # which (group, topic) lose a judgment: only those are scored anew
    changed = np.zeros((n_groups + 1, n_topics), dtype=bool)
    q_topic = judgments.index.codes
    changed[drop_group[drop_group >= 0], q_topic[drop_group >= 0]] = True
    changed[full_g, :] = True
    changed[:, judgments.R == 0] = False
    virtual = _virtual_judgments(q, judgments, drop_group, n_groups + 1)
    vcode = virtual.code  # (group, topic) -> virtual topic code, -1 where nothing is left
    dropper = Judgments(Qrels(q.topics, q.docnos, drop_group + 1, q.source, q.fmt), rel_level=1)
    matched = [_masked_run(run, judgments, dropper, order, changed, vcode) for run in run_list]
    pairs = np.argwhere(changed & (vcode >= 0))  # (group, topic) with a relevant one left
    pairs = pairs[virtual.judgments.R[vcode[pairs[:, 0], pairs[:, 1]]] > 0]
    run_idx, topic_idx, values = _score_rows_threaded(
        measure_list, matched, vcode[pairs[:, 0], pairs[:, 1]], virtual.judgments
    )
    g_of, t_of = virtual.group[topic_idx], virtual.topic[topic_idx]
    full, reduced = {}, {}
    for m, parts in zip(measure_list, values):
        value = np.concatenate(parts)
        table = np.zeros((n_groups + 1, len(run_list), n_topics))
        table[g_of, run_idx, t_of] = value
        # a (group, topic) with nothing dropped scores as the full qrels do
        same = ~changed[:n_groups]
        table[:n_groups] = np.where(same[:, None, :], table[full_g][None], table[:n_groups])
        full[m.name] = table[full_g][:, topics]
        reduced[m.name] = table[:n_groups][:, :, topics]
    return [judgments.topic_ids[t] for t in topics], full, reduced


def _score_rows_threaded(measures, matched: List[MatchedRun], row_topics, judgments):
    """:func:`score_rows` of every run on ``row_topics``, the runs split over the reader
    threads (numpy releases the GIL in the measures' array work): (run, topic, values per
    measure) as one call would give them, in run order."""
    workers = min(thread_count(), len(matched))
    bounds = np.linspace(0, len(matched), workers + 1).astype(int)

    def part(k: int):
        runs = matched[bounds[k] : bounds[k + 1]]
        return score_rows(measures, runs, [row_topics] * len(runs), judgments, MAX_CELLS)

    if workers > 1:
        from irgauge.io.threads import worker_pool

        with worker_pool(workers) as pool:
            parts = list(pool.map(part, range(workers)))
    else:
        parts = [part(0)]
    run_idx = np.concatenate([p[0] + bounds[k] for k, p in enumerate(parts)])
    topic_idx = np.concatenate([p[1] for p in parts])
    values = [[v for p in parts for v in p[2][m]] for m in range(len(measures))]
    return run_idx, topic_idx, values


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
    code = np.full(n_groups * n_topics, -1, dtype=np.int64)
    code[present] = np.arange(len(present))
    return _Virtual(
        virtual, code.reshape(n_groups, n_topics), present // n_topics, present % n_topics
    )


def _masked_run(run, judgments, dropper, order, changed, vcode) -> MatchedRun:
    """One run's rows for every changed (group, topic) it answers, on virtual topics: its
    graded list on the topic with the documents the group drops graded unjudged.
    ``dropper``: judgments whose level is 1 + the group that drops the judgment (0 for
    none), which match the run's documents in the same order as ``judgments``."""
    matched = match_run(run, judgments, order)
    doc_group = match_run(run, dropper, order).grades.astype(np.int64) - 1  # -1: kept
    n_topics = judgments.n_topics
    start = np.zeros(n_topics, dtype=np.int64)
    length = np.zeros(n_topics, dtype=np.int64)
    start[matched.row_topic], length[matched.row_topic] = matched.row_start, matched.row_length
    g_idx, t_idx = np.nonzero(changed & (vcode >= 0) & (length > 0)[None, :])
    lengths = length[t_idx]
    heads = np.cumsum(lengths) - lengths
    # each row's documents: its topic's span of the run, in one gather
    source = np.arange(int(lengths.sum())) + np.repeat(start[t_idx] - heads, lengths)
    grades = matched.grades[source]
    grades[doc_group[source] == np.repeat(g_idx, lengths)] = UNJUDGED
    return MatchedRun(matched.name, vcode[g_idx, t_idx], heads, lengths, grades, [], matched.order)


__all__ = ["LeaveOutScores", "leave_out_scores"]
