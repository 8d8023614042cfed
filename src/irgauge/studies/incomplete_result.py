"""The condensed-list study of incomplete judgments (Sakai 2007, "Alternatives to bpref")
over qrels reduced by :func:`irgauge.reduce_qrels`, or, given ``depths``, restricted to
shallower pools of the runs studied (Sakai and Kando 2008;
:mod:`irgauge.collection.depth_reduce`).

**The study** (:func:`incomplete_study`): at 100% and at each rate, every measure is scored
on the original ranked lists and on condensed lists (unjudged documents removed; primed
names AP', Q-measure', ...; the bpref family is defined on condensed lists only and appears
once). Per measure, lists and rate it reports the mean score over systems and topics
(absolute-value stability, Fig. 1 of that paper), Kendall's tau between the system ranking at
that rate and at 100% (Fig. 2), and discriminative power at ``alpha`` with the same B
bootstrap samples for every measure (Fig. 3).

**Topics.** Every step is scored on the full qrels' topics, chosen once by
``empty_topics`` (:func:`irgauge.evaluation.shared_topics.shared_topics`): ``skip`` (the
default) leaves out a topic without a relevant document in the full qrels, ``zero``
keeps it (trec_eval's reading). A topic that a reduction leaves without a relevant
document scores 0 there. The metadata records the rule and the topics each step left
without a relevant document; a note says so where there are any.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import Any, Dict, Optional, Sequence, Union

import numpy as np
import pandas as pd

from irgauge import _checks
from irgauge._checks import resolve_seed
from irgauge.collection.depth_reduce import DepthReduction, reduce_to_depth
from irgauge.collection.reduce import DEFAULT_RATES, Reduction, reduce_qrels
from irgauge.errors import InputError
from irgauge.evaluation import evaluate, read_runs
from irgauge.io.runs import SYSTEMS
from irgauge.evaluation.shared_topics import SharedTopics, relevant_by_topic, shared_topics
from irgauge.evaluation.tasks import run_steps
from irgauge.io.steps import step_counter
from irgauge.io.summaries import incomplete_summary, incomplete_summary_html
from irgauge.measures import parse_measures
from irgauge.measures.parse import measure_texts
from irgauge.meta import discriminative_power, kendall_tau
from irgauge.scores import ScoreMatrix, align, from_frame
from irgauge.scores._results import CheckedResult
from irgauge.types import DepthsLike, Progress, QrelsLike, RatesLike, RunsLike


@dataclass
class IncompleteResult(CheckedResult):
    """``table``: measure, lists (original/condensed), rate, mean, tau, significant, pairs,
    discriminative_power; ``metadata``: seeds, rates, conventions; ``reduction``."""

    table: Any
    metadata: Dict[str, Any]
    reduction: Union[Reduction, DepthReduction]
    # rate -> {measure: ScoreMatrix}: what the table was computed from (for topic resamples)
    matrices: Dict[Any, Any] = field(default_factory=dict, repr=False, compare=False)
    # the topics every step is scored on, and the topics each step's qrels lost
    topics: Optional[SharedTopics] = field(default=None, repr=False, compare=False)

    def __post_init__(self) -> None:
        super().__post_init__()
        # the results check's notes reach the metadata every output of the study writes
        known = self.metadata.get("notes", [])
        fresh = [n for n in self.notes if n not in known]
        if fresh:
            self.metadata["notes"] = known + fresh

    def __repr__(self) -> str:
        return incomplete_summary(self)

    def _repr_html_(self) -> str:
        return incomplete_summary_html(self)


def incomplete_study(
    qrels: QrelsLike,
    runs: RunsLike,
    measures: Sequence[str] = ("AP", "Q-measure", "nDCG"),
    rates: RatesLike = DEFAULT_RATES,
    seed: Optional[int] = None,
    samples: int = 1000,
    alpha: float = 0.05,
    bootstrap_seed: Optional[int] = None,
    rel_level: int = 1,
    progress: Optional[Progress] = None,
    depths: Optional[DepthsLike] = None,
    **options: Any,
) -> IncompleteResult:
    """Scores on full and reduced qrels, original and condensed lists (module docstring).

    ``depths`` (e.g. ``[100, 50, 10]``): reduce the qrels to the depth-K pool of ``runs``
    for each K instead of at random ``rates``; the table then has a ``depth`` column
    ("full" for the full qrels) and ``rate`` holds the share of judgments kept (%).

    runs: paths or Runs (read once). options go to :func:`irgauge.evaluate` (order, gains,
    ...); ``empty_topics`` chooses the topics of every step (module docstring); topics a run
    did not answer score 0 so that every score matrix is complete. ``bootstrap_seed``
    defaults to ``seed``. ``progress(done, total)``, if given, is called as the study
    advances, in steps: per rate, one for the evaluation and one for each measure's
    bootstrap test (starting at 0, ending at ``done == total``).
    """
    # refuse bad arguments before the (long) evaluations, in the command line's words
    samples, alpha = _checks.draws(samples, "samples"), _checks.alpha(alpha)
    if bootstrap_seed is not None:
        bootstrap_seed = _checks.seed(bootstrap_seed, "bootstrap_seed")
    variants = _variants(measures)
    run_list = read_runs(runs, distinct=True, why=SYSTEMS)
    reduction, seed = _reduction(qrels, run_list, rates, depths, seed, rel_level, options)
    for key in ("complete", "judged_only", "measures"):
        options.pop(key, None)
    boot_seed = seed if bootstrap_seed is None else bootstrap_seed
    # None: the full qrels (rate 100 of a random reduction is the full qrels too)
    every_rate = [None] + [r for r in reduction.steps if r != 100 or depths is not None]
    topics = _topics(reduction, every_rate, rel_level, options.pop("empty_topics", "skip"))
    per_rate = 1 + len(variants)  # progress: the evaluation, then each measure's bootstrap
    step = step_counter(progress, len(every_rate) * per_rate)
    stepped = run_steps(  # each rate a step: a task on a cluster, with the same result
        _rate_step,
        every_rate,
        (reduction, run_list, variants, rel_level, options, samples, alpha, boot_seed, topics),
        progress=progress and (lambda done, total: step(per_rate)),
        step_progress=progress and (lambda k: step),
    )
    scored = [(found, power) for found, power, _ in stepped]
    keys = [100] + [_step_key(reduction, step) for step in every_rate[1:]]
    matrices = {key: found for key, (found, _) in zip(keys, scored)}
    table = _table(reduction, every_rate, scored, variants, matrices[100])
    steps = {"rates": [100] + reduction.rates} if depths is None else _depth_record(reduction)
    metadata = {
        "method": 'incomplete judgments (Sakai 2007, "Alternatives to bpref")',
        "qrels": reduction.qrels.source,
        "seed": seed,
        **steps,
        "rel_level": rel_level,
        "bootstrap_seed": boot_seed,
        "bootstrap_samples": samples,
        "alpha": alpha,
        **_described(variants, matrices[100]),
        **{k: v for k, v in options.items() if v is not None},
        **topics.record(),
    }
    # the full qrels' differences from trec_eval, with the option, and the topics lost
    notes = stepped[0][2] + topics.notes()
    if notes:
        metadata["notes"] = notes
    return IncompleteResult(table, metadata, reduction, matrices, topics)


def _step_label(reduction, step) -> str:
    """A reduction step in words: 30%, depth 10."""
    return f"{step}%" if reduction.kind == "rate" else f"depth {step}"


def _topics(reduction, every_rate, rel_level: int, empty_topics: str) -> SharedTopics:
    """The topics every step is scored on (:func:`shared_topics`), from the relevant
    documents each step's qrels keep."""
    q = reduction.qrels
    codes, levels, n = np.asarray(q.topic_index.codes), np.asarray(q.levels), len(q.topic_ids)
    reduced = {}
    for step in every_rate[1:]:
        keep = reduction.keep_mask(step)
        reduced[_step_label(reduction, step)] = relevant_by_topic(
            codes[keep], levels[keep], n, rel_level
        )
    full = relevant_by_topic(codes, levels, n, rel_level)
    return shared_topics(q.topic_ids, full, reduced, empty_topics, q.source, rel_level)


def _reduction(qrels, run_list, rates, depths, seed, rel_level, options):
    """(the reduction: at random ``rates``, or to the pools of ``depths``; the seed)."""
    if depths is None:
        reduction = reduce_qrels(qrels, rates, seed, rel_level)
        return reduction, reduction.seed
    reduction = reduce_to_depth(qrels, run_list, depths, options.get("order"))
    return reduction, resolve_seed(seed)  # of the bootstrap only: a pool is not random


def _table(reduction, every_rate, scored, variants, full) -> pd.DataFrame:
    """The study's rows, step by step (None: the full qrels); a depth reduction's rows
    have their depth beside the share of judgments it keeps."""
    rows = []
    for step, (found, power) in zip(every_rate, scored):
        rate: float
        if step is None:
            rate = 100
        else:
            rate = step if reduction.kind == "rate" else _share_kept(reduction, step)
        rows += _rate_rows(rate, variants, found, full, power)
        if reduction.kind == "depth":
            for row in rows[-len(variants) :]:
                row["depth"] = "full" if step is None else step
    table = pd.DataFrame(rows)
    if reduction.kind == "depth":
        first = ["measure", "lists", "depth"]
        table = table[first + [c for c in table if c not in first]]
    return table


def _step_key(reduction, step):
    """A step's key in ``IncompleteResult.matrices``: the rate, or the depth's label
    (depth 100 is not the full qrels' 100)."""
    return step if reduction.kind == "rate" else reduction.label(step)


def _share_kept(reduction, depth) -> float:
    """Percentage of the judgments a depth keeps."""
    total = len(reduction.qrels)
    return 100.0 * reduction.keep_mask(depth).sum() / total if total else 100.0


def _depth_record(reduction) -> Dict[str, Any]:
    manifest = reduction.manifest()
    return {
        "reduction": manifest["method"],
        "depths": reduction.depths,
        "pooled_runs": reduction.runs,
        "judgments_kept": manifest["judgments"],
    }


def _rate_step(
    rate, reduction, run_list, variants, rel_level, options, samples, alpha, seed, topics,
    progress=None,
):  # fmt: skip
    """``({measure: ScoreMatrix}, discriminative power table by measure, the peer notes
    of the evaluation)`` at ``rate``, on ``topics``;
    ``progress(k)`` advances by one step for the evaluation and one per measure's
    bootstrap."""
    matrices, notes = _score_at(rate, reduction, run_list, variants, rel_level, options, topics)
    if progress is not None:
        progress(1)
    # discriminative_power reports (done, pairs) per measure: a step per measure done
    power = discriminative_power(
        matrices,
        samples=samples,
        alphas=(alpha,),
        seed=seed,
        progress=None if progress is None else lambda done, total: progress(done >= total),
    ).table.set_index("measure")
    return matrices, power, notes


def _score_at(rate, reduction, run_list, variants, rel_level, options, topics) -> tuple:
    """``{label: ScoreMatrix}`` of every measure on the qrels reduced to ``rate`` percent
    (or depth), on ``topics``, and where a default of irgauge's made the scores differ
    from trec_eval's, the notes saying how to get its
    (:func:`irgauge.evaluation.peers.peer_notes`); topics a run did not answer score 0, so
    that every matrix is complete."""
    from irgauge.evaluation.peers import peer_notes

    # every topic scored (0 without a relevant document), then the shared ones taken: the
    # rule is the comparison's, not this one qrels'
    result = evaluate(
        reduction.qrels if rate is None else reduction.qrels_at(rate),
        run_list,
        [m for _, m in variants],
        rel_level=rel_level,
        complete=True,
        empty_topics="zero",
        **options,
    )
    step = "full qrels" if rate is None else f"{reduction.kind} {rate}"
    notes = peer_notes(result.metadata, ("empty_topics",), score_files=False)
    matrices = align(from_frame(result.per_topic, source=step))
    return {k: _on_topics(m, topics.topics) for k, m in matrices.items()}, notes


def _on_topics(matrix: ScoreMatrix, topics) -> ScoreMatrix:
    """``matrix`` on ``topics``, in that order; a topic it lacks (a reduction that left it
    no judgment at all) scores 0, as one left no relevant document does."""
    where = {t: i for i, t in enumerate(matrix.topics)}
    values = np.zeros((matrix.n_systems, len(topics)))
    for j, topic in enumerate(topics):
        if topic in where:
            values[:, j] = matrix.values[:, where[topic]]
    return ScoreMatrix(values, matrix.systems, list(topics), matrix.measure, matrix.source)


def _described(variants, full: dict) -> dict:
    """What the table holds: its measures, systems and topics, and how tau and mean are
    taken."""
    first = full[variants[0][1].name]
    return {
        "measures": [m.name for _, m in variants],
        "systems": first.systems,
        "n_topics": first.n_topics,
        "tau": "Kendall's tau-b against the same measure's ranking on the full qrels",
        "mean": "mean over systems and topics",
        "unanswered_topics": "score 0",
    }


def _variants(measures) -> list:
    """(lists, measure) pairs: each measure on its own lists ("condensed" for the bpref
    family, defined on condensed lists only), then the primed condensed-list version of
    each other measure."""
    parsed = parse_measures(measure_texts(measures))
    variants = [("condensed" if m.family.condensed else "original", m) for m in parsed] + [
        ("condensed", replace(m, judged_only=True, label=f"{m.name}'"))
        for m in parsed
        if not m.family.condensed
    ]
    labels = [m.name for _, m in variants]
    if len(set(labels)) != len(labels):
        raise InputError("a measure is given twice")
    return variants


def _rate_rows(rate, variants, matrices, full, power) -> list:
    """One row per measure at ``rate``: the mean score over systems and topics, Kendall's tau
    between the system ranking at ``rate`` and at 100% (``full``), and the discriminative
    power ``power`` found (significant pairs / pairs)."""
    rows = []
    for lists, measure in variants:
        label = measure.name
        m, reference = matrices[label], full[label]
        rows.append(
            {
                "measure": label,
                "lists": lists,
                "rate": rate,
                "mean": float(m.values.mean()),
                "tau": kendall_tau(reference.means(), m.take_systems(reference.systems).means()),
                "significant": int(power.loc[label, "significant"]),
                "pairs": int(power.loc[label, "pairs"]),
                "discriminative_power": float(power.loc[label, "share"]),
            }
        )
    return rows
