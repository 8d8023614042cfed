"""``reproducibility``: did a reproduction (same collection) or a replication (another
collection) of a baseline and an advanced run reproduce the original? The measures of
Breuer et al. (SIGIR 2020), each with a percentile bootstrap interval over topics.

The table is long: one row per (run, measure, statistic, cutoff) with the value and its
interval (``low``, ``high``); with several repeated pairs, a first column ``repeated``
names the pair of each row block. ``run`` is baseline, advanced or both; ``measure`` and
``cutoff`` are empty where none applies. Statistics: KTU, RBO (extrapolated), RBO_min
and RBO_max at each cutoff (document order, reproduction only); RMSE and nRMSE per
measure (reproduction only; at each cutoff too, of the runs cut there, when cutoffs are
given); ARP_original, ARP_repeated; ER and DeltaRI (run = both); p, the paired t-test of
original against repeated scores (a reproduction) or Welch's unpaired one (a replication).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.measures.parse import measure_texts
from irgauge.meta.repro import effects as fx
from irgauge.meta.repro.repro_inputs import (
    DEFAULT_CUTOFF,
    ROLES,
    check_cutoffs,
    check_topics,
    named,
    repeated_pairs,
    run_tuple,
)
from irgauge.meta.repro.ktu import ktu
from irgauge.meta.repro.lists import list_pair
from irgauge.meta.repro.rbo import rbo
from irgauge.meta.repro.samples import TopicMeans, intervals, topic_counts
from irgauge.meta.repro.wording import labels, parameters, sentences
from irgauge.meta.result import MetaResult
from irgauge.stats.resampling import require_topics, resolve_seed

DEFAULT_MEASURES = ("AP", "nDCG@10")
DEFAULT_RBO_P = 0.95
NO_INTERVAL = (
    "no interval: a p-value has none, or the statistic is undefined on every bootstrap sample"
)
# why a value is not finite, by statistic (a long table's values are checked per statistic)
REASONS = {
    "low": NO_INTERVAL,
    "high": NO_INTERVAL,
    "KTU": "a topic's union of the two top-k lists holds one document: tau is 0/0",
    "nRMSE": "the original scores are 0.5 on every topic: the largest RMSE is 0",
    "DeltaRI": "a baseline's ARP of 0: its relative improvement divides by 0",
}
COLUMNS = ("run", "measure", "statistic", "cutoff", "value", "low", "high")


def reproducibility_table(
    qrels: Any,
    original: Any,
    repeated: Any,
    measures: Optional[Sequence[str]] = DEFAULT_MEASURES,
    repeated_qrels: Any = None,
    cutoffs: Optional[Sequence[int]] = None,
    rbo_p: Optional[float] = None,
    samples: int = 1000,
    seed: Optional[int] = None,
    confidence: float = 0.95,
    empty_topics: str = "skip",
) -> MetaResult:
    """The study as a MetaResult (see :func:`irgauge.reproducibility`)."""
    samples = _checks.draws(samples, "samples")
    seed = resolve_seed(seed)
    confidence = _checks.confidence(confidence)
    _refuse_document_options(repeated_qrels, cutoffs, rbo_p)
    rbo_p = DEFAULT_RBO_P if rbo_p is None else rbo_p
    rbo_p = _checks.real(rbo_p, "rbo_p", 0.0, 1.0, True, True, "a persistence")
    given = check_cutoffs(cutoffs)
    measures = _measures(measures)
    study = _Study(qrels, original, repeated, repeated_qrels, measures, empty_topics)
    # a replication draws its two topic sets independently (the second from (seed, 1))
    counts = {"original": topic_counts(len(study.topics["original"]), samples, seed)}
    counts["repeated"] = (
        topic_counts(len(study.topics["repeated"]), samples, [seed, 1])
        if study.replication
        else counts["original"]
    )
    rows = []
    for g, label in enumerate(study.labels):
        block = _Block(study, g, given or [DEFAULT_CUTOFF], given or [], rbo_p)
        rows += [dict(r, repeated=label) for r in block.rows(counts, confidence)]
    columns = (("repeated",) if len(study.groups) > 1 else ()) + COLUMNS
    table = {c: [r[c] for r in rows] for c in columns}
    found = parameters(study, given, rbo_p, samples, seed, confidence)
    found["conclusions"] = sentences(rows, study, confidence)
    found["empty_topics"] = empty_topics
    if study.peer_notes:
        found["notes"] = list(dict.fromkeys(study.peer_notes))
    runs = [r.name for r in study.originals] + [r.name for g in study.groups for r in g]
    return MetaResult(
        "reproducibility", table, found, runs, list(study.topics["original"]), reasons=REASONS
    )


def _refuse_document_options(repeated_qrels, cutoffs, rbo_p) -> None:
    """The cutoffs and RBO's persistence act on the document order and RMSE of a
    reproduction: given for a replication, they are refused, not ignored."""
    if repeated_qrels is None:
        return
    for name, value in (("cutoffs", cutoffs), ("rbo_p", rbo_p)):
        if value is not None:
            raise InputError(
                f"{name} acts on the document order of a reproduction; a replication "
                "(repeated_qrels) compares scores only",
                parameter=name,
            )


def _measures(measures) -> List[str]:
    return measure_texts(measures, DEFAULT_MEASURES)


class _Study:
    """The runs read and checked, their scores under their qrels and their documents."""

    def __init__(self, qrels, original, repeated, repeated_qrels, measures, empty_topics):
        from irgauge.io.qrels import read_qrels

        originals = run_tuple(original, "original")
        groups = repeated_pairs(repeated, len(originals))
        self.replication = repeated_qrels is not None
        self.qrels = read_qrels(qrels)
        self.qrels_repeated = read_qrels(repeated_qrels) if self.replication else self.qrels
        if self.replication and _same_file(self.qrels_repeated.source, self.qrels.source):
            raise InputError(
                "repeated_qrels is the original qrels: a replication is judged on another "
                "collection, a reproduction on the original's (leave repeated_qrels out)",
                parameter="repeated_qrels",
            )
        for run in originals:
            check_topics(run, self.qrels.topic_ids, "the qrels")
        for run in (r for g in groups for r in g):
            check_topics(run, self.qrels_repeated.topic_ids, _repeated_qrels(self))
        self.labels = labels(groups)
        self.originals = named(originals, "original")
        self.groups = [named(g, f"repeated{i + 1}") for i, g in enumerate(groups)]
        self.measures = measures
        self.empty_topics = empty_topics
        # where a default of irgauge's made the scores differ from trec_eval's, the note
        # says how to get trec_eval's (irgauge.evaluation.peers)
        self.peer_notes: List[str] = []
        self._documents: Dict[str, Any] = {}
        self._score(measures)

    def _score(self, measures) -> None:
        flat = [r for g in self.groups for r in g]
        self.scores: Dict[Optional[int], Dict[str, Dict[str, np.ndarray]]] = {}
        self.topics: Dict[str, List[str]] = {}
        if self.replication:
            self.scores[None], self.topics["original"] = self._scores(self.qrels, self.originals)
            repeated, self.topics["repeated"] = self._scores(self.qrels_repeated, flat)
            for measure, found in repeated.items():
                self.scores[None][measure].update(found)
        else:
            both = self.originals + flat
            self.scores[None], self.topics["original"] = self._scores(self.qrels, both)
        for side, topics in self.topics.items():
            require_topics(len(topics), f"the {side} side's bootstrap and t-test")

    def documents(self, run):
        """The run's documents in evaluation order, ordered once for every repeated pair."""
        from irgauge.collection.evaluation_order import ordered_documents

        if run.name not in self._documents:
            self._documents[run.name] = ordered_documents(run)
        return self._documents[run.name]

    def cut_scores(self, k: int) -> Dict[str, Dict[str, np.ndarray]]:
        """Scores of the runs cut at rank k (trec_eval -M k), for RMSE at a cutoff."""
        if k not in self.scores:
            flat = self.originals + [r for g in self.groups for r in g]
            self.scores[k] = self._scores(self.qrels, flat, k)[0]
        return self.scores[k]

    def _scores(self, qrels, runs, max_docs=None):
        """``{measure: {run: per-topic scores}}`` and the topics they are over."""
        from irgauge.evaluation import evaluate
        from irgauge.evaluation.peers import peer_notes

        result = evaluate(
            qrels,
            {r.name: r for r in runs},
            self.measures,
            complete=True,
            max_docs=max_docs,
            empty_topics=self.empty_topics,
        )
        self.peer_notes += peer_notes(result.metadata, ("empty_topics",), score_files=False)
        matrices = result.score_matrices()
        topics = list(matrices[self.measures[0]].topics)
        found = {
            m: {name: matrix.values[i] for i, name in enumerate(matrix.systems)}
            for m, matrix in matrices.items()
        }
        return found, topics


def _same_file(a, b) -> bool:
    """Whether two qrels sources are one file, however each path is spelt (``q``, ``./q``,
    a link); sources that are no files (in memory) are the same only by name."""
    import os

    try:
        return os.path.samefile(str(a), str(b))
    except (OSError, ValueError):
        return a == b


def _repeated_qrels(study) -> str:
    if study.replication:
        return "the repeated qrels"
    return (
        "the qrels (a replication on another collection gives its qrels: --repeated-qrels, "
        "repeated_qrels=)"
    )


class _Block:
    """The rows of one repeated pair."""

    def __init__(self, study: _Study, g: int, depths, cutoffs, rbo_p: float):
        self.study, self.g, self.depths, self.cutoffs, self.p = study, g, depths, cutoffs, rbo_p
        self.means = TopicMeans()
        self.pending: List[tuple] = []  # (run, measure, statistic, cutoff, recipe)

    def rows(self, counts, confidence) -> List[dict]:
        study = self.study
        pairs = list(zip(ROLES, study.originals, study.groups[self.g]))
        if not study.replication:
            self._document_order(pairs)
            self._effectiveness(pairs, None, study.scores[None])
            for k in self.cutoffs:
                self._effectiveness(pairs, k, study.cut_scores(k))
        self._effects(pairs)
        self.means.compute(counts)
        vectors = np.stack([recipe(self.means) for *_, recipe in self.pending])
        value, low, high = intervals(vectors, confidence)
        rows = [
            dict(zip(COLUMNS, (run, m, s, "" if k is None else k, value[i], low[i], high[i])))
            for i, (run, m, s, k, _) in enumerate(self.pending)
        ]
        return rows + self._tests(pairs)

    def _add(self, run, measure, statistic, cutoff, recipe) -> None:
        self.pending.append((run, measure, statistic, cutoff, recipe))

    def _document_order(self, pairs) -> None:
        topics = self.study.topics["original"]
        for role, a, b in pairs:
            both = list_pair(self.study.documents(a), self.study.documents(b), topics)
            for k in self.depths:
                top = both.top(k)
                ext, low, high = rbo(top, self.p)
                for name, per_topic in (
                    ("KTU", ktu(top)),
                    ("RBO", ext),
                    ("RBO_min", low),
                    ("RBO_max", high),
                ):
                    handle = self.means.add("original", per_topic)
                    self._add(role, "", name, k, lambda m, h=handle: m[h])

    def _effectiveness(self, pairs, k, scores) -> None:
        for measure in self.study.measures:
            for role, a, b in pairs:
                x, y = scores[measure][a.name], scores[measure][b.name]
                error = self.means.add("original", (x - y) ** 2)
                largest = self.means.add("original", fx.largest_error(x))
                self._add(role, measure, "RMSE", k, lambda m, e=error: fx.rmse(m[e]))
                self._add(
                    role, measure, "nRMSE", k, lambda m, e=error, w=largest: fx.nrmse(m[e], m[w])
                )

    def _effects(self, pairs) -> None:
        scores = self.study.scores[None]
        for measure in self.study.measures:
            arp = {}
            for role, a, b in pairs:
                arp[role] = (
                    self.means.add("original", scores[measure][a.name]),
                    self.means.add("repeated", scores[measure][b.name]),
                )
                self._add(role, measure, "ARP_original", None, lambda m, h=arp[role][0]: m[h])
                self._add(role, measure, "ARP_repeated", None, lambda m, h=arp[role][1]: m[h])
            if len(pairs) == 2:
                self._pair_effects(measure, pairs, arp)

    def _pair_effects(self, measure, pairs, arp) -> None:
        (_, base_o, base_r), (_, adv_o, adv_r) = pairs
        scores = self.study.scores[None][measure]
        original = scores[adv_o.name] - scores[base_o.name]
        if abs(original.mean()) <= 1e-12:
            raise InputError(
                f"ER is undefined for {measure}: the original advanced run improves on the "
                "original baseline by 0 on average (ER divides by that improvement)",
                parameter="original",
            )
        imp_o = self.means.add("original", original)
        imp_r = self.means.add("repeated", scores[adv_r.name] - scores[base_r.name])
        self._add("both", measure, "ER", None, lambda m: fx.effect_ratio(m[imp_o], m[imp_r]))
        (b_o, b_r), (a_o, a_r) = arp["baseline"], arp["advanced"]
        self._add(
            "both",
            measure,
            "DeltaRI",
            None,
            lambda m: fx.delta_ri((m[a_o], m[b_o]), (m[a_r], m[b_r])),
        )

    def _tests(self, pairs) -> List[dict]:
        from irgauge.stats.classic import paired_t_test, welch_t_test

        test = welch_t_test if self.study.replication else paired_t_test
        scores = self.study.scores[None]
        rows = []
        for measure in self.study.measures:
            for role, a, b in pairs:
                p = test(scores[measure][a.name], scores[measure][b.name]).pvalue
                rows.append(dict(zip(COLUMNS, (role, measure, "p", "", p, np.nan, np.nan))))
        return rows
