"""``irgauge.agreement``: how well assessors (human or LLM) agree, on their labels and on
the systems' rankings and significance calls their qrels give.

The table is long: one row per (qrels a, qrels b, measure, statistic) with the value and
its percentile bootstrap interval over topics (``measure`` is ``-`` for label statistics;
``a = b = all`` for Krippendorff's alpha over 3 or more qrels). Statistics:
:mod:`irgauge.meta.agreement` (labels) and :mod:`irgauge.meta.system_agreement` (systems).
"""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge._checks import MAX_LEVEL
from irgauge.errors import InputError
from irgauge.evaluation import evaluate, read_runs
from irgauge.io.runs import SYSTEMS
from irgauge.measures import parse_measure
from irgauge.measures.parse import measure_texts
from irgauge.meta import agreement as ag
from irgauge.meta import system_agreement as sa
from irgauge.meta.agreement_labels import all_statistics, pair_statistics
from irgauge.meta.agreement_units import Units, join_qrels
from irgauge.meta.result import MetaResult
from irgauge.stats.resampling import pair_index, percentile_interval, resolve_seed
from irgauge.io.words import counted
from irgauge.types import QrelsLike, RunsLike

DEFAULT_MEASURES = ("AP", "nDCG@10")
COLUMNS = ("a", "b", "measure", "statistic", "value", "low", "high")
TIES = (
    "means within 1e-12 tie; Kendall's tau_b corrects for ties in either ranking (as "
    "irgauge correlate); tau_AP (A the reference) averages ties under B over their "
    "orderings (tau_ap_a, Yilmaz's tau_AP when untied); ranks of tied systems are their "
    "average rank; top_same: a system first under A (ties included) is first under B"
)
SCORING = (
    "each run scored under each qrels alone (documents that qrels does not judge are not "
    "relevant), complete (a topic a run misses scores 0), over the topics both qrels "
    "judge and, unless empty_topics is zero, in which both have a relevant document"
)


def _score_matrices(
    units: Units, runs, measures, rel_level: int, empty_topics: str, notes: List[str]
) -> List[dict]:
    """``{measure: ScoreMatrix}`` of the runs under each qrels; where a default of
    irgauge's made them differ from trec_eval's, a note per qrels says how to get its."""
    from irgauge.evaluation.peers import peer_notes

    read = read_runs(runs, distinct=True, why=SYSTEMS)
    if len(read) < 2:
        raise InputError(f"system agreement needs at least 2 runs; got {len(read)}")
    matrices = []
    for name, qrels in zip(units.names, units.qrels):
        result = evaluate(
            qrels,
            read,
            list(measures),
            rel_level=rel_level,
            complete=True,
            empty_topics=empty_topics,
        )
        _refuse_runs_off_the_qrels(result.metadata, name, len(qrels.topic_ids))
        found = peer_notes(result.metadata, ("empty_topics",), score_files=False)
        notes += [f"qrels {name}: {note}" for note in found]
        matrices.append(result.score_matrices())
    return matrices


def _refuse_runs_off_the_qrels(metadata: dict, qrels: str, n_topics: int) -> None:
    """A run that answers none of a qrels' topics (ids written 01 where the qrels write 1,
    another collection's run) would score 0 on each and tie every such run: refused,
    naming its file, rather than compared."""
    for name, missed in metadata.get("topics_scored_zero", {}).items():
        if len(missed) < n_topics:
            continue
        source = metadata.get("runs", {}).get(name)
        theirs = metadata.get("run_topics_not_in_qrels", {}).get(name, [])
        shown = ", ".join(theirs[:3]) + (" ..." if len(theirs) > 3 else "")
        raise InputError(
            f"run {name} answers none of the {counted(n_topics, 'topic')} of qrels {qrels}"
            + (f" (its topics: {shown})" if shown else "")
            + "; topic ids match as written",
            source,
        )


def _system_pair(name_a, name_b, measure, ma, mb, weights_for, options, confidence):
    """Rows, details and note (or None) of one measure under qrels a and b (ScoreMatrix
    ma, mb); too few shared topics give NaN intervals (none: NaN statistics)."""
    topics = [t for t in ma.topics if t in set(mb.topics)]
    note = ag.too_few_topics(f"qrels {name_a} and {name_b} ({measure})", len(topics))
    xa, xb = ma.take_topics(topics).values, mb.take_topics(topics).values
    weights = weights_for(len(topics))
    stacked = np.full((len(weights), len(sa.SYSTEM_STATISTICS)), np.nan)
    details: Dict[str, list] = {}
    if topics:
        # the statistics of the rows of topic counts: all of them, or only the point estimate
        rows = weights if len(topics) >= 2 else weights[:1]
        values = sa.system_statistics(xa, xb, rows, **options)
        stacked[: len(rows)] = np.stack([values[s] for s in sa.SYSTEM_STATISTICS], axis=1)
        details = _system_details(name_a, name_b, measure, ma.systems, xa, xb, options)
    low, high = percentile_interval(stacked[1:], confidence)
    rows = [
        dict(zip(COLUMNS, (name_a, name_b, measure, s, float(stacked[0, k]), low[k], high[k])))
        for k, s in enumerate(sa.SYSTEM_STATISTICS)
    ]
    return rows, details, note


def _system_details(name_a, name_b, measure, systems, xa, xb, options) -> Dict[str, list]:
    """Per-system means and ranks, and per-pair significance calls (p-values of
    :func:`irgauge.stats.compare_pairs`)."""
    # scipy.stats and pandas (compare_pairs) on first use: importing irgauge.meta stays light
    from irgauge.stats.pairs import compare_pairs

    means = np.stack([xa.mean(axis=1), xb.mean(axis=1)])
    ranks = sa.average_ranks(means)
    key = {"a": name_a, "b": name_b, "measure": measure}
    per_system = [
        dict(
            key,
            system=s,
            mean_a=float(means[0, k]),
            mean_b=float(means[1, k]),
            rank_a=float(ranks[0, k]),
            rank_b=float(ranks[1, k]),
            rank_change=float(ranks[1, k] - ranks[0, k]),
        )
        for k, s in enumerate(systems)
    ]
    if xa.shape[1] < 2:  # a paired test needs 2 topics: no significance calls
        return {"systems": per_system, "significance": []}
    test, correction = options["test"], options["correction"]
    column = f"p_{test}" if correction == "none" else f"p_{test}_{correction}"
    found = [compare_pairs(x, systems, tests=[test], correction=correction).table for x in (xa, xb)]
    p_a, p_b = (f[column].to_numpy(dtype=float)[None] for f in found)
    i, j = pair_index(len(systems))
    diff_a, diff_b = (means[k][i] - means[k][j] for k in (0, 1))
    calls = sa.significance_calls(diff_a[None], p_a, diff_b[None], p_b, options["alpha"])
    pairs = [
        dict(
            key,
            system_1=systems[i[n]],
            system_2=systems[j[n]],
            difference_a=float(diff_a[n]),
            p_a=float(p_a[0, n]),
            difference_b=float(diff_b[n]),
            p_b=float(p_b[0, n]),
            call=next((c for c, v in calls.items() if v[0, n]), "neither"),
        )
        for n in range(len(i))
    ]
    return {"systems": per_system, "significance": pairs}


def _check(samples, seed, rel_level, alpha, confidence, test, correction):
    sa.check_test(test, correction)
    return (
        _checks.draws(samples, "samples"),
        resolve_seed(seed),
        _checks.whole(rel_level, "rel_level", 1, MAX_LEVEL, "a relevance level"),
        _checks.alpha(alpha),
        _checks.confidence(confidence),
    )


def agreement(
    qrels_list: Sequence[QrelsLike],
    runs: Optional[RunsLike] = None,
    measures: Optional[Sequence[str]] = DEFAULT_MEASURES,
    rel_level: int = 1,
    samples: int = 1000,
    seed: Optional[int] = None,
    test: str = "t",
    alpha: float = 0.05,
    correction: str = "none",
    confidence: float = 0.95,
    names: Optional[Sequence[str]] = None,
    mixed_scales: bool = False,
    empty_topics: str = "skip",
) -> MetaResult:
    """Agreement of 2 or more qrels (paths, Qrels, DataFrames or dicts): label agreement
    on the pairs both judge, and, given 2 or more ``runs``, agreement of the systems'
    rankings and significance calls per measure. Every statistic has a percentile
    bootstrap interval over topics (``samples`` draws of ``seed``, at ``confidence``).

    ``test``: paired test of the significance calls ("t" or "sign") at ``alpha``, p-values
    corrected over the run pairs by ``correction`` (none, holm, bh). ``names``: how the
    output names the qrels (default: file names). ``mixed_scales``: allow NTCIR letters
    (S/A/B = 3/2/1) in some qrels and numeric grades in others. ``empty_topics``: how the
    runs are scored on a topic without relevant documents, as :func:`irgauge.evaluate`
    takes it (``zero``: trec_eval's reading).

    A pair of qrels sharing one topic keeps its statistics with NaN intervals (a bootstrap
    over topics needs 2); one sharing no topic or no judged pair has NaN statistics; a
    paired test needs 2 topics, so with one the significance calls are NaN. Each such pair
    is named in ``parameters["notes"]``, and the other pairs are compared as usual; only
    when no label statistic is defined at all is the call refused (InputError).

    Returns a MetaResult: ``table`` (columns a, b, measure, statistic, value, low, high),
    ``details`` confusion, topic_kappa and, with runs, systems and significance.
    """
    samples, seed, rel_level, alpha, confidence = _check(
        samples, seed, rel_level, alpha, confidence, test, correction
    )
    chosen = _measures(measures)  # refused before the qrels are read, as -m is
    units = join_qrels(qrels_list, names, mixed_scales)
    rows, details, notes = _label_rows(units, rel_level, samples, seed, confidence)
    systems: List[str] = []
    measures = [] if runs is None else chosen
    if runs is not None:
        systems = _system_rows(
            units,
            runs,
            measures,
            rel_level,
            samples,
            seed,
            rows,
            details,
            dict(test=test, alpha=alpha, correction=correction, empty_topics=empty_topics),
            confidence,
            notes,
        )
    parameters = _parameters(
        units,
        measures,
        rel_level,
        samples,
        seed,
        confidence,
        test,
        alpha,
        correction,
        runs is not None,
    )
    parameters["mixed_scales"] = mixed_scales
    if runs is not None:
        parameters["empty_topics"] = empty_topics
    if notes:
        parameters["notes"] = notes
    if runs is not None:
        parameters["largest_rank_change"] = _largest_changes(details["systems"])
    table = {c: [r[c] for r in rows] for c in COLUMNS}
    columns = {k: {c: [r[c] for r in v] for c in (v[0] if v else {})} for k, v in details.items()}
    return MetaResult("agreement", table, parameters, systems, units.topics, columns)


def _measures(measures) -> List[str]:
    return measure_texts(measures, DEFAULT_MEASURES)


def _label_rows(units, rel_level, samples, seed, confidence):
    """The label statistics' rows of every pair (and of alpha over 3 or more qrels), their
    details and the notes of the pairs sharing too little."""
    rows: List[dict] = []
    details: Dict[str, list] = {"confusion": [], "topic_kappa": []}
    notes: List[str] = []
    for a, b in zip(*pair_index(len(units.names))):
        found, more, note = pair_statistics(units, a, b, rel_level, samples, seed, confidence)
        rows += found
        notes += [note] if note else []
        for k, v in more.items():
            details[k] += v
    if len(units.names) >= 3:
        found, note = all_statistics(units, samples, seed, confidence)
        rows += found
        notes += [note] if note else []
    _refuse_all_undefined(rows, notes)
    return rows, details, notes


def _refuse_all_undefined(rows: List[dict], notes: List[str]) -> None:
    """A pair of qrels sharing too little has NaN statistics and a note, so that the other
    pairs are still compared; when no label statistic is defined at all, the call is
    refused with the first note."""
    counts = ("pairs", "only_a", "only_b")
    if notes and all(np.isnan(r["value"]) for r in rows if r["statistic"] not in counts):
        # the note says NaN of an output that is not written: say that nothing is defined
        raise InputError(f"no agreement statistic is defined: {notes[0]}")


def _system_rows(
    units, runs, measures, rel_level, samples, seed, rows, details, options, confidence, notes
) -> List[str]:
    options = dict(options)
    empty = options.pop("empty_topics")
    matrices = _score_matrices(units, runs, measures, rel_level, empty, notes)
    details.update(systems=[], significance=[])
    cache: Dict[int, np.ndarray] = {}

    def weights_for(n_topics: int) -> np.ndarray:  # the same draws for every measure
        if n_topics not in cache:
            cache[n_topics] = ag.weights_matrix(n_topics, samples, seed)
        return cache[n_topics]

    for a, b in zip(*pair_index(len(units.names))):
        for measure in measures:
            ma, mb = matrices[a][measure], matrices[b][measure]
            found, more, note = _system_pair(
                units.names[a], units.names[b], measure, ma, mb, weights_for, options, confidence
            )
            rows += found
            notes += [note] if note else []
            for k, v in more.items():
                details[k] += v
    return list(matrices[0][measures[0]].systems)


def _parameters(
    units, measures, rel_level, samples, seed, confidence, test, alpha, correction, with_runs
) -> Dict[str, Any]:
    """Everything needed to reproduce the result, and how it was computed."""
    parameters: Dict[str, Any] = {
        "qrels": dict(zip(units.names, units.sources)),
        "seed": seed,
        "bootstrap_samples": samples,
        "confidence": confidence,
        "interval": "percentile bootstrap over topics (topics drawn with replacement; NaN "
        "samples left out)",
        "rel_level": rel_level,
        "level_scales": units.scales,
        "labels": "pairs both qrels judge, over the topics both judge; confusion matrix on "
        "the levels as judged (levels <= 0 nonrelevant); weighted kappa, Krippendorff's "
        "alpha and the mean grade difference on grades with negative grades clipped to 0",
        "cohen_kappa": f"binary: relevant = level >= {rel_level}",
    }
    if with_runs:
        parameters.update(
            measures=list(measures),
            measure_definitions={m: parse_measure(m).full for m in measures},
            scoring=SCORING,
            ties=TIES,
            test=test,
            alpha=alpha,
            correction=correction,
            significance="calls per run pair: sig_both (significant under both, same "
            "direction), sig_a_only, sig_b_only, sig_reversed (both, opposite directions); "
            "numbers of pairs",
        )
    if units.notes:
        parameters["qrels_notes"] = list(units.notes)
    return parameters


def _largest_changes(per_system: List[dict]) -> List[str]:
    """'a vs b, measure: system(s) (k places)' for each qrels pair and measure."""
    groups: Dict[tuple, List[dict]] = {}
    for row in per_system:
        groups.setdefault((row["a"], row["b"], row["measure"]), []).append(row)
    found = []
    for (a, b, measure), group in groups.items():
        largest = max(abs(r["rank_change"]) for r in group)
        which = [r["system"] for r in group if abs(r["rank_change"]) == largest]
        found.append(f"{a} vs {b}, {measure}: {', '.join(which)} ({largest:g} places)")
    return found
