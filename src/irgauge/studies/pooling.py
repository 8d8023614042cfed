"""Study ``pooling``: which pooling strategy finds the relevant documents and keeps the
system ranking, for a budget of judgments per topic.

For each strategy of :mod:`irgauge.collection.pooling` (depth, fusion, mtf, bandit,
sample) and each budget N of judgments per topic, the pool is drawn from the runs
(adaptive strategies simulate judging on the qrels; the sample is seeded), the judging
is simulated (a pooled document takes its qrels level, 0 when the qrels do not hold it)
and every run is scored on the judgments made, unjudged documents nonrelevant, with each
measure (by default AP and its condensed form AP', which drops unjudged documents).
Against the full judgments:

- relevant found: on the topics with relevant documents under the full qrels, the mean
  over topics of the share of the topic's relevant documents the pool holds (and their
  mean number);

and on the full qrels' topics, chosen by ``empty_topics``
(:func:`irgauge.evaluation.shared_topics.shared_topics`; by default those with a relevant
document, with ``zero`` all of them), the same for every pool, a topic on which a pool
found no relevant document scoring 0 there:

- Kendall's tau (b) and tau_AP (Yilmaz, Aslam and Robertson 2008) between the system
  rankings by mean score;
- the largest rank change of a system and the RMSE of the systems' means,
  ``sqrt(mean_s (mean_reduced(s) - mean_full(s))^2)``.

Every figure carries its topic-sampling interval, as the other studies' do: the topics
are resampled with replacement T times (the same resamples for every strategy and
budget, so differences are paired) and each statistic is recomputed on every resample;
the 95% interval is value +/- 1.96 sd over the resamples, and the summary orders two
strategies only where the interval of their difference excludes 0
(:mod:`irgauge.studies._noise`). The sample (statAP's design) is scored as the other
pools are, and, as prels, by the estimators, each from a sample of its own design with
the unsampled pool listed: statAP from that sample, infAP from a uniform sample of the
pool (its paper's design, drawn with the same seed).

A run that misses a topic of the qrels is refused naming its file; with
``eval_options={"complete": True}`` (-c/--complete) the topic is pooled without it and
it scores 0 there (trec_eval -c).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from irgauge.collection.pooling import STRATEGIES, build_candidates, choose
from irgauge.collection.pooling.candidates import check_budget, entry_levels
from irgauge.errors import InputError
from irgauge.evaluation import read_runs, score_matrices
from irgauge.evaluation.shared_topics import relevant_counts, shared_topics
from irgauge.io.qrels import read_qrels
from irgauge.io.records import Qrels
from irgauge.io.run_topics import COMPLETE_HINT
from irgauge.measures.parse import measure_texts
from irgauge.meta.kendall import kendall_tau_columns
from irgauge.meta.system_agreement import average_ranks, tau_ap_rows
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise, _plots
from irgauge.io.words import counted

NAME = "pooling"
TITLE = "Pooling strategies on a budget of judgments (depth, fusion, MTF, bandits, sampling)"
BUDGETS = (10, 20, 50, 100)
MEASURES = ("AP", "AP(judged_only=true)")
LABELS = {"AP(judged_only=true)": "AP'"}
# the sample's estimators (Horvitz-Thompson over its inclusion probabilities) -> the
# measure each estimates under full judgments, whose ranking it is held against
ESTIMATORS = {"statAP": "AP", "infAP": "AP"}
# each estimator's own sampling design (irgauge.collection.pooling.sampling)
DESIGNS = {"statAP": "statap", "infAP": "infap"}
RANKING = ("kendall_tau", "tau_ap", "max_rank_change", "rmse")
HIGHER_IS_BETTER = {"kendall_tau": True, "tau_ap": True, "max_rank_change": False, "rmse": False}


@dataclass
class PoolingStudy:
    """What the study computed: ``found`` (strategy, budget, relevant found per topic and
    the share of the relevant documents, with intervals), ``rankings`` (strategy, budget,
    measure and the four ranking statistics with intervals), ``draws`` (each statistic on
    every topic resample, keyed by (statistic, measure or None, budget, strategy)) and
    ``record``, what the manifest records (its notes: the topics the pools lost, and the
    rule that chose the topics scored)."""

    found: pd.DataFrame
    rankings: pd.DataFrame
    draws: Dict[Tuple, np.ndarray]
    values: Dict[Tuple, float]
    strategies: List[str]
    budgets: List[int]
    measures: List[str]
    record: common.Record
    problem: Optional[str]


@common.study_entry
def run_pooling(
    qrels,
    runs,
    out=".",
    *,
    strategies: Sequence[str] = tuple(STRATEGIES),
    budgets: Sequence[int] = BUDGETS,
    measures: Sequence[str] = MEASURES,
    depth: Optional[int] = None,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = None,
    by: str = "AP",
    seed: Optional[int] = None,
    eval_options: Optional[Dict[str, Any]] = None,
    topic_resamples: int = _noise.TOPIC_RESAMPLES,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study (see the module docstring); write tables and figures under
    ``out/pooling``. ``budgets``: judgments per topic (each at most the smallest pool);
    ``depth``: the runs are pooled from their top K (default: whole runs); ``measures``:
    measure strings scored on the judgments made; ``eval_options``: order, rel_level,
    complete (a run's missing qrels topics score 0, where they are refused by default),
    empty_topics (the topics the rankings are compared on; module docstring)."""
    eval_options = dict(eval_options or {})
    study = compute_pooling(
        qrels,
        runs,
        _strategies(strategies),
        _budgets(budgets),
        measure_texts(measures),
        depth,
        (top_k, top_fraction, by),
        common.seed_or_fresh(seed),
        eval_options,
        topic_resamples,
        progress,
    )
    result = write_pooling(study, describe_pooling(study), out)
    return collection_record.finish_report(result, qrels, runs, out, report, eval_options)


def _strategies(names) -> List[str]:
    names = [names] if isinstance(names, str) else list(names)
    unknown = [s for s in names if s not in STRATEGIES]
    if unknown or not names:
        raise InputError(
            f"strategies: {unknown[0] if unknown else 'none'} is not a pooling strategy; "
            f"choose from {', '.join(STRATEGIES)}",
            parameter="strategies",
        )
    return list(dict.fromkeys(names))


def _budgets(budgets) -> List[int]:
    from irgauge import _checks

    values = _checks.sequence(budgets, "budgets", lambda b, name: _checks.whole(b, name, 1))
    if not values:
        raise InputError("budgets: give at least one budget", parameter="budgets")
    return sorted(set(values))


@dataclass
class _Setting:
    """What every pool of the study is judged and scored with."""

    runs: list
    full: Dict[str, Any]  # measure string -> ScoreMatrix on the full qrels, shared topics
    candidates: Any
    level: np.ndarray  # the qrels level of each pooled document (0: not in the qrels)
    pools: Dict[Tuple[int, str], Any]  # (budget, strategy) -> the pool drawn
    found_topics: List[str]  # the full qrels' topics with a relevant document
    relevant: np.ndarray  # R of each of found_topics
    found_indices: np.ndarray  # topic resamples of found_topics
    indices: np.ndarray  # topic resamples of the shared topics
    measures: List[str]
    estimators: Dict[str, str]  # estimator of the sample -> the measure it estimates
    eval_options: Dict[str, Any]
    seed: int


def compute_pooling(
    qrels, runs, strategies, budgets, measures, depth, selection, seed, eval_options,
    resamples, progress=None,
) -> PoolingStudy:  # fmt: skip
    """Every number of the study; writes nothing."""
    judged = read_qrels(qrels)
    read = read_runs(runs, distinct=True)
    estimators = dict(ESTIMATORS) if "sample" in strategies else {}
    every = list(dict.fromkeys([*measures, *estimators.values()]))
    rel_level = eval_options.get("rel_level", 1)
    # a run that misses a qrels topic: refused, or with complete pooled without it there
    # and scored 0 on it
    hint = None if eval_options.get("complete") else COMPLETE_HINT
    candidates = build_candidates(read, depth, judged, rel_level=rel_level, missing_hint=hint)
    for budget in budgets:  # refused as the study's, before any pool is drawn
        check_budget(candidates, budget, "budgets")
    t_seed = _noise.topic_seed(seed)
    setting, rule = _prepare(
        judged, read, candidates, (every, measures, estimators), (strategies, budgets),
        selection, eval_options, seed, (resamples, t_seed),
    )  # fmt: skip
    first = next(iter(setting.full.values()))
    step = common.steps(progress, "pools", len(strategies) * len(budgets))
    found_rows: list = []
    ranking_rows: list = []
    draws: Dict[Any, Any] = {}
    values: Dict[Any, Any] = {}
    for budget in budgets:
        for strategy in strategies:
            found, ranked = _score_pool(setting, strategy, budget, draws, values)
            found_rows.append(found)
            ranking_rows.extend(ranked)
            step()
    parameters = {
        "strategies": strategies,
        "budgets": budgets,
        "measures": {_label(m): m for m in measures},
        "estimators": estimators,
        "estimator_designs": {e: DESIGNS[e] for e in estimators},
        "depth": depth,
        **common.filter_parameters(*selection),
        "eval_options": eval_options,
        "judging": "a pooled document takes its qrels level, 0 when the qrels do not hold "
        "it; unjudged documents are nonrelevant; each estimator reads a sample of its own "
        "design (statap: the sample strategy's; infap: uniform over the pool, the same seed) "
        "as prels, the unsampled pool at -1 read as pooled, not judged",
        "topic_sampling": {
            "method": _noise.TOPIC_METHOD,
            "resamples": resamples,
            "seed": t_seed,
            "z": _noise.Z95,
        },
        **rule.record(),
    }
    return PoolingStudy(
        pd.DataFrame(found_rows),
        pd.DataFrame(ranking_rows),
        draws,
        values,
        strategies,
        budgets,
        [_label(m) for m in [*measures, *estimators]],
        common.Record(
            parameters,
            {"seed": seed, "sample": seed, "topic_resamples": t_seed},
            first.systems,
            first.topics,
            {"qrels": str(qrels), "runs": common.path_list(runs)},
            rule.notes(),
        ),
        _noise.design_problem(first.n_systems, first.n_topics),
    )


def _prepare(judged, read, candidates, measured, pooled, selection, eval_options, seed,
             resampling) -> Tuple[_Setting, Any]:  # fmt: skip
    """(what every pool is judged and scored with, the rule of the topics compared):
    the runs scored on the full qrels, every pool drawn, the topics chosen."""
    every, measures, estimators = measured
    rel_level = eval_options.get("rel_level", 1)
    # every topic scored, then the topics of the rule taken, as each pool's are
    scoring = {**eval_options, "empty_topics": "zero"}
    full = common.select(score_matrices(judged, read, every, **scoring), *selection)
    level = entry_levels(candidates.pool, judged)[0]
    strategies, budgets = pooled
    pools = _draw(candidates, strategies, budgets, seed)
    every_topic = next(iter(full.values())).topics
    # R under the full qrels: the topics of "relevant found" and the topic rule's
    relevant = _relevant_per_topic(judged, rel_level, every_topic)
    empty_topics = eval_options.get("empty_topics", "skip")
    rule = _topic_rule(judged, relevant > 0, pools, level, rel_level, every_topic, empty_topics)
    found_topics = [t for t, r in zip(every_topic, relevant) if r > 0]
    resamples, t_seed = resampling
    setting = _Setting(
        read,
        {m: matrix.take_topics(rule.topics) for m, matrix in full.items()},
        candidates,
        level,
        pools,
        found_topics,
        relevant[relevant > 0],
        _noise.topic_resamples(len(found_topics), resamples, t_seed),
        _noise.topic_resamples(len(rule.topics), resamples, t_seed),
        measures,
        estimators,
        eval_options,
        seed,
    )
    return setting, rule


def _draw(candidates, strategies, budgets, seed) -> Dict[Tuple[int, str], Any]:
    """Every pool of the study, (budget, strategy) -> pool, the sample seeded: all drawn
    before any is scored, as each pool's topics without a relevant document are noted."""
    return {
        (budget, strategy): choose(
            candidates, strategy, budget, seed if strategy == "sample" else None
        )
        for budget in budgets
        for strategy in strategies
    }


def _topic_rule(judged: Qrels, full: np.ndarray, pools, level, rel_level: int, topics,
                empty_topics: str):  # fmt: skip
    """The topics every pool's ranking is compared on (:func:`shared_topics`), from the
    relevant documents the full qrels (``full``: whether each of ``topics`` has one) and
    each pool's judgments hold."""
    reduced = {}
    for (budget, strategy), pool in pools.items():
        made = _judged_pool(pool, level)
        reduced[f"{strategy} N={budget}"] = _relevant_per_topic(made, rel_level, topics) > 0
    return shared_topics(topics, full, reduced, empty_topics, judged.source, rel_level)


def _score_pool(setting: _Setting, strategy: str, budget: int, draws: dict, values: dict):
    """Judge one pool, score the runs on it: its row of the found table and its rows of
    the rankings table; each statistic's resampled values go to ``draws``."""
    pool = setting.pools[(budget, strategy)]
    row, found_draws = _found(
        pool, setting.candidates, setting.found_topics, setting.relevant, setting.found_indices
    )
    draws[("found", None, budget, strategy)] = found_draws
    values[("found", None, budget, strategy)] = row["found_share"]
    found = {"pool": f"{strategy} N={budget}", "strategy": strategy, "budget": budget, **row}
    # every topic scored; the rankings compare the rule's (those of setting.full)
    options = {**setting.eval_options, "empty_topics": "zero"}
    judged = _judged_pool(pool, setting.level)
    scored = score_matrices(judged, setting.runs, setting.measures, **options)
    pairs = [(m, m, scored[m]) for m in setting.measures]
    if strategy == "sample" and setting.estimators:
        pairs += _estimates(setting, pool, budget, options)
    rows = []
    for name, reference, matrix in pairs:
        stats = _ranking_statistics(setting.full[reference], matrix, setting.indices)
        rows.append(
            {"strategy": strategy, "budget": budget, "measure": _label(name)}
            | {k: v for k, (v, _, _) in stats.items()}
            | {f"{k}_ci": ci for k, (_, ci, _) in stats.items()}
        )
        for k, (v, _, resampled) in stats.items():
            draws[(k, _label(name), budget, strategy)] = resampled
            values[(k, _label(name), budget, strategy)] = v
    return found, rows


def _estimates(setting: _Setting, pool, budget: int, options: Dict[str, Any]) -> list:
    """(estimator, the measure it estimates, its scores) of each estimator, each from a
    sample of its own design, judged and written as prels with the unsampled pool at
    -1 (read as pooled, not judged): statAP from the sample already drawn (statAP's
    design), infAP from infAP's own (a uniform sample of the pool, Yilmaz and Aslam
    2006), drawn with the same seed."""
    samples = {"statap": pool}
    pairs = []
    for estimator, reference in setting.estimators.items():
        design = DESIGNS[estimator]
        if design not in samples:
            samples[design] = choose(
                setting.candidates, "sample", budget, setting.seed, design=design
            )
        prels = samples[design].judged(setting.level)
        scored = score_matrices(
            None, setting.runs, [estimator], prels=prels, **{**options, "negative": "unjudged"}
        )
        pairs.append((estimator, reference, scored[estimator]))
    return pairs


def _label(measure: str) -> str:
    return LABELS.get(measure, common.label(measure))


def _judged_pool(pool, level: np.ndarray) -> Qrels:
    """The judgments the pool's documents get: their qrels levels (0: not in the qrels)."""
    topics = np.asarray(pool.topic_bytes, dtype=object)[pool.topic]
    return Qrels.from_arrays(list(topics), pool.docnos, level[pool.entries], "<pool>")


def _relevant_per_topic(judged: Qrels, rel_level: int, topics: List[str]) -> np.ndarray:
    """R of each of ``topics`` under the judgments ``judged`` (0 for a topic it lacks)."""
    names = judged.topic_ids
    counts = relevant_counts(judged.topic_index.codes, judged.levels, len(names), rel_level)
    return _on_topics(counts, names, topics)


def _on_topics(values: np.ndarray, names: List[str], topics: List[str]) -> np.ndarray:
    """``values`` (one per topic of ``names``) on ``topics``, 0 for a topic not named:
    a pool's judgments hold only the topics it pooled."""
    where = {t: i for i, t in enumerate(names)}
    return np.array([values[where[t]] if t in where else 0 for t in topics])


def _found(pool, candidates, topics, relevant, indices):
    """Relevant documents found per topic (mean) and their share of R (mean over topics),
    with the share's 95% half-width over the topic resamples and its resampled values."""
    rel = candidates.relevant[pool.entries]
    per = np.bincount(pool.topic, weights=rel, minlength=len(pool.topic_ids))
    count = _on_topics(per, pool.topic_ids, topics)
    share = count / np.maximum(relevant, 1)
    resampled = share[indices].mean(axis=1)
    ci = _noise.Z95 * np.sqrt(_noise.topic_variance(resampled[:, None]))
    row = {
        "relevant_found": float(count.mean()),
        "found_share": float(share.mean()),
        "found_share_ci": float(ci),
    }
    return row, resampled


def _ranking_statistics(full, reduced, indices) -> Dict[str, Tuple[float, float, np.ndarray]]:
    """statistic -> (value on the topics, 95% half-width, value on each resample)."""
    order = [reduced.systems.index(s) for s in full.systems]
    columns = [reduced.topics.index(t) for t in full.topics]
    a = full.values
    b = reduced.values[np.ix_(order, columns)]
    whole = _statistics(a.mean(axis=1)[:, None], b.mean(axis=1)[:, None])
    resampled = _statistics(a[:, indices].mean(axis=2), b[:, indices].mean(axis=2))
    out = {}
    for k in RANKING:
        e = resampled[k]
        kept = e[np.isfinite(e)]
        var = _noise.topic_variance(kept[:, None]) if len(kept) > 1 else float("nan")
        out[k] = (float(whole[k][0]), float(_noise.Z95 * np.sqrt(var)), e)
    return out


def _statistics(x: np.ndarray, y: np.ndarray) -> Dict[str, np.ndarray]:
    """Each ranking statistic of y (reduced means) against x (full), column by column
    (systems x columns)."""
    ranks = np.abs(average_ranks(x.T) - average_ranks(y.T))
    return {
        "kendall_tau": kendall_tau_columns(x, y),
        "tau_ap": tau_ap_rows(x.T, y.T),
        "max_rank_change": ranks.max(axis=1),
        "rmse": np.sqrt(((y - x) ** 2).mean(axis=0)),
    }


def _statistic(study: PoolingStudy, key: str, budget: int, items: Dict[str, Tuple]):
    """One statistic at one budget, as _noise reads it: ``items`` maps each name the
    summary orders to its (measure or None, strategy)."""
    return _noise.Statistic(
        {"found": "share of relevant found"}.get(key, key.replace("_", " ")),
        {n: np.array([study.values[(key, m, budget, s)]]) for n, (m, s) in items.items()},
        {n: study.draws[(key, m, budget, s)] for n, (m, s) in items.items()},
        HIGHER_IS_BETTER.get(key, True),
        3,
    )


def describe_pooling(study: PoolingStudy) -> List[str]:
    """The summary: at each budget, the strategies ordered by the share of relevant
    documents found, and by Kendall's tau and the RMSE of each measure's means; then the
    readings of the sample (the measures and the estimators) by Kendall's tau; each
    ordering stated only where the 95% interval of the difference excludes 0."""
    lines = _noise.design_warning(study.problem)
    estimators = [_label(e) for e in study.record.parameters["estimators"]]
    plain = [m for m in study.measures if m not in estimators]
    for budget in study.budgets:
        every: Dict[str, Tuple[Optional[str], str]] = {s: (None, s) for s in study.strategies}
        order = _noise.ordering(_statistic(study, "found", budget, every), None, study.problem)
        lines.append(
            f"Relevant documents found with {counted(budget, 'judgment')} per topic: {order}."
        )
        for m in plain:
            every = {s: (m, s) for s in study.strategies}
            for key, what in (("kendall_tau", "Kendall's tau"), ("rmse", "RMSE of the means")):
                stat = _statistic(study, key, budget, every)
                order = _noise.ordering(stat, None, study.problem)
                lines.append(f"{what} of {m} against the full judgments at {budget}: {order}.")
        if estimators:
            readings = {m: (m, "sample") for m in plain + estimators}
            stat = _statistic(study, "kendall_tau", budget, readings)
            order = _noise.ordering(stat, None, study.problem)
            lines.append(f"Kendall's tau of the sample of {budget}, read by each measure: {order}.")
    lines.append(
        f"Intervals: 95%, over {study.record.parameters['topic_sampling']['resamples']} resamples "
        "of the topics (the same for every strategy and budget)."
    )
    return lines


def write_pooling(study: PoolingStudy, summary: List[str], out) -> common.StudyResult:
    """Tables found and rankings, figures found_vs_budget and tau_vs_budget (one per
    measure), manifest and summary under ``out/pooling``."""
    with common.study_writer(Path(out), NAME, TITLE) as writer:
        writer.table(
            "found",
            study.found,
            "Relevant documents found per topic (mean) and their share of the topic's "
            "relevant documents (mean over topics; _ci: half-width of its 95% interval over "
            "the topic resamples)",
            digits=3,
        )
        writer.table(
            "rankings",
            study.rankings,
            "The system ranking on the judgments made against the full judgments: Kendall's "
            "tau, tau_AP, the largest rank change and the RMSE of the means (_ci: half-width "
            "of the 95% interval over the topic resamples)",
            digits=3,
        )
        writer.figure(
            "found_vs_budget",
            _curves,
            (study.found, "found_share", "share of relevant documents found"),
            "Share of the relevant documents found against judgments per topic (band: 95% "
            "interval over the topic resamples)",
        )
        for k, m in enumerate(study.measures, start=1):
            part = study.rankings[study.rankings["measure"] == m]
            if part["strategy"].nunique() < 2:
                continue  # an estimator of the sample alone: its rows say it
            writer.figure(
                f"tau_vs_budget_{k}",
                _curves,
                (part, "kendall_tau", f"Kendall's tau, {m}"),
                f"Kendall's tau of the {m} ranking against the full judgments, against "
                "judgments per topic (band: 95% interval over the topic resamples)",
            )
        return writer.finish_with(study.record, summary)


def _curves(data, directory, stem: str):
    frame, column, ylabel = data
    return _plots.curves(
        frame,
        directory,
        stem,
        "budget",
        column,
        "judgments per topic",
        ylabel,
        group="strategy",
        band="band: 95% interval\n(topic sampling)",
    )


__all__ = ["run_pooling", "compute_pooling", "describe_pooling", "write_pooling"]
