"""Every number of study ``incomplete`` (see :mod:`irgauge.studies.incomplete`), nothing
written: the measures, the options, the reductions scored over the runs the filter keeps,
and the tables and statistics computed from them."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple, cast

import numpy as np
import pandas as pd

from irgauge.collection.depth_pool import parse_depths
from irgauge.collection.depth_reduce import DepthReduction
from irgauge.collection.reduce import parse_rates
from irgauge.evaluation import read_runs, score_matrices
from irgauge.io.runs import SYSTEMS
from irgauge.evaluation.shared_topics import SharedTopics
from irgauge.evaluation.tasks import on_cluster, run_steps
from irgauge.io.qrels import read_qrels
from irgauge.meta import rank_correlations
from irgauge.meta.kendall import kendall_tau_columns
from irgauge.studies import _common as common
from irgauge.studies import _noise, _repeat, _topics
from irgauge.studies._reduction_steps import Steps
from irgauge.studies.incomplete_result import IncompleteResult, incomplete_study
from irgauge.io.records import Qrels
from irgauge.types import Progress, QrelsLike, RunsLike
from irgauge.io.words import counted

NDCG = "nDCG(dcg=jk,b=2)@1000"
# measure strings given to the study; condensed forms of the first three are added by it
MEASURES = ("AP", "Q-measure", NDCG, "bpref", "bpref_R", "bpref_N", "rpref_N", "rpref_relative2")
CONDENSED = {
    "AP": "AP(judged_only=true)",
    "Q-measure": "Q-measure(judged_only=true)",
    NDCG: "nDCG(dcg=jk,b=2,judged_only=true)@1000",
}
# names in the study's tables -> display names
DISPLAY = {
    "AP": "AP",
    "Q-measure": "Q-measure",
    NDCG: common.label(NDCG),
    "AP'": "AP'",
    "Q-measure'": "Q'",
    NDCG + "'": common.label(CONDENSED[NDCG]),
    "bpref": "bpref",
    "bpref_R": "bpref_R",
    "bpref_N": "bpref_N",
    "rpref_N": "rpref_N",
    "rpref_relative2": "rpref_relative2",
}
RATES = (90, 70, 50, 30, 10)


def top_runs(
    qrels: Any,
    runs: Any,
    top_k: Optional[int],
    top_fraction: Optional[float],
    by: str,
    eval_options: Dict[str, Any],
) -> List[Any]:
    """The run paths of the systems the filter keeps (by mean ``by`` on the full qrels)."""
    runs = list(runs) if not isinstance(runs, (str, Path)) else [runs]
    matrices = score_matrices(qrels, runs, [by], **eval_options)
    chosen = common.select(matrices, top_k, top_fraction, by)[by].systems
    result_names = list(matrices[by].systems)
    by_name = dict(zip(result_names, runs)) if len(result_names) == len(runs) else {}
    return [by_name[s] for s in chosen] if by_name else runs


@dataclass(frozen=True)
class IncompleteOptions:
    """The options of :func:`run_incomplete` (see there), the same defaults."""

    top_k: Optional[int] = 30
    top_fraction: Optional[float] = None
    by: str = "AP"
    seed: Optional[int] = None
    samples: int = 1000  # B, the bootstrap samples
    reductions: int = 5
    alpha: float = 0.05
    rates: Sequence[float] = RATES
    eval_options: Dict[str, Any] = field(default_factory=dict)
    topic_resamples: int = _noise.TOPIC_RESAMPLES
    depths: Optional[Sequence[int]] = None  # pool depths, in place of the rates


@dataclass
class IncompleteData:
    """Everything the study writes, computed: tables, figure data, manifest record."""

    options: IncompleteOptions
    record: common.Record
    rates: List[float]  # the reduced shares j (%), without 100
    steps: Steps  # the reductions: the rates, or the pool depths
    evaluated_with: Dict[str, Any]  # options of every evaluation, rel_level included
    setting: str  # systems and topics, in words
    pairs: int  # system pairs of the bootstrap
    judgments: pd.DataFrame  # Table 1
    warning: Optional[str]  # when R > N on some topics
    share: Any  # full-data share of significant pairs (_noise.Statistic)
    required: Any  # full-data required difference (_noise.Statistic)
    problem: Optional[str]  # why the design is too small to order measures, if it is
    reduced: Dict[str, Any]  # tau, discriminative power and |mean shift| at the lowest rate
    flat: List[str]  # measures giving every system the same score: in no ordering
    tau: pd.DataFrame  # square of Kendall's tau, full relevance data
    tau_threshold: float
    power: pd.DataFrame  # Table 3
    by_rate: pd.DataFrame  # mean, tau, discriminative power per measure and rate (spread)
    names: List[str]  # measures in table order


def compute_incomplete(
    qrels: QrelsLike,
    runs: RunsLike,
    options: IncompleteOptions = IncompleteOptions(),
    progress: _repeat.Progress = None,
) -> IncompleteData:
    """Every number of the study, nothing written."""
    o = options
    seed, seeds = common.seeds_for(o.seed, o.reductions, "reductions")
    steps, eval_options = _steps(o)
    rates = steps.rates
    rel_level = eval_options.pop("rel_level", 1)
    q, paths, chosen_runs, chosen_paths = _read_and_rank(qrels, runs, o, progress)
    by_rate, studies = _reduce(q, chosen_runs, steps, seeds, o, rel_level, eval_options, progress)
    names = list(dict.fromkeys(by_rate["measure"]))
    labels = _labels()
    step = common.steps(progress, "evaluation, full relevance data", 1)
    # every topic scored, then the reductions' shared topics taken, as each step is
    shared = _topics_of(studies[0])
    scoring = {**eval_options, "empty_topics": "zero"}
    full = common.renamed(
        score_matrices(q, chosen_runs, list(labels), complete=True, rel_level=rel_level, **scoring),
        labels,
    )
    step()
    full = {n: full[n].take_topics(shared.topics) for n in names}
    first = next(iter(full.values()))
    default = (IncompleteOptions.top_k, IncompleteOptions.top_fraction)
    systems = common.systems_phrase(
        first.n_systems, len(paths), o.top_k, o.top_fraction, o.by, default
    )
    judgments, warning = _judgment_table(q, rel_level)
    rc = rank_correlations(full)
    # the bootstrap runs of the reductions at 100% again (same seeds, same samples, so
    # the same shares as the 100% column of Figure 3), keeping the required differences
    dp_rows, dp, first_dp = _repeat.discriminative_power(
        full,
        o.samples,
        o.alpha,
        seeds,
        progress and (lambda label: progress(f"full relevance data, {label}")),
    )
    topic = _repeat.topic_draw(seed, first.n_topics, o.topic_resamples, 1, 1)
    topic_share, topic_required = _topics.discriminative_power(full, o.alpha, topic.indices)
    parameters, seed_record = _parameters(o, steps, labels, eval_options, rel_level, studies, topic)
    seed_record.update(seed=seed, reductions=seeds, topic_resamples=topic.seed)
    seed_record.update(discriminative_power=seeds, reduction_bootstrap=seeds)
    inputs = {"qrels": str(qrels), "runs": paths, "runs_used": chosen_paths}
    notes = ([warning] if warning else []) + _topic_notes(studies)
    return IncompleteData(
        options=o,
        record=common.Record(parameters, seed_record, first.systems, first.topics, inputs, notes),
        rates=rates,
        steps=steps,
        evaluated_with={**eval_options, "rel_level": rel_level},
        setting=f"{systems}, {counted(first.n_topics, 'topic')}",
        pairs=first_dp.parameters["pairs"],
        judgments=judgments,
        warning=warning,
        share=_repeat.statistic(dp_rows, "share", "share of significant pairs", topic_share),
        required=_repeat.statistic(
            dp_rows,
            "required_difference",
            "required difference",
            topic_required,
            higher_is_better=False,
        ),
        problem=_noise.design_problem(first.n_systems, first.n_topics),
        flat=_repeat.flat_measures(full),
        reduced=_reduced_statistics(studies, steps, o.alpha, topic),
        tau=rc.details["matrix"],
        tau_threshold=rc.parameters["threshold"],
        power=_repeat.discriminative_power_table(dp, names),
        by_rate=by_rate,
        names=names,
    )


def _steps(o: IncompleteOptions) -> Tuple[Steps, Dict[str, Any]]:
    """(the reductions: the rates or the depths; the evaluation options)."""
    eval_options = dict(o.eval_options)
    if o.depths is None:
        return Steps([r for r in parse_rates(list(o.rates)) if r != 100]), eval_options
    return Steps([], parse_depths(o.depths)), eval_options


def _topic_notes(studies: List[IncompleteResult]) -> List[str]:
    """The notes of the topics the reductions lost, each once (a random reduction keeps a
    relevant document of every topic, a depth is the same in every repetition: the
    repetitions rarely differ)."""
    return list(dict.fromkeys(n for s in studies for n in _topics_of(s).notes()))


def _topics_of(study: IncompleteResult) -> SharedTopics:
    """The topics ``study`` is scored on (incomplete_study records them)."""
    assert study.topics is not None
    return study.topics


def _parameters(
    o: IncompleteOptions,
    steps: Steps,
    labels: Dict[str, str],
    eval_options: Dict[str, Any],
    rel_level: int,
    studies: List[IncompleteResult],
    topic: _repeat.TopicDraw,
) -> Tuple[Dict[str, Any], Dict[str, Any]]:
    """The manifest's parameters (``topic``: the topic resamples), and an empty record of
    the seeds."""
    reduced: Dict[str, Any] = (
        {"rates": [100] + list(steps.rates)}
        if steps.depths is None
        else {
            "depths": steps.depths,
            "pooled_runs": cast(DepthReduction, studies[0].reduction).runs,
        }
    )
    return {
        **common.filter_parameters(o.top_k, o.top_fraction, o.by),
        "B": o.samples,
        "alpha": o.alpha,
        **reduced,
        "reductions": o.reductions,
        "measures": {v: k for k, v in labels.items()},
        "eval_options": {**eval_options, "rel_level": rel_level, "complete": True},
        **_topics_of(studies[0]).record(),
        "reduction": studies[0].reduction.manifest()["rule"],
        "judgments_kept": [s.reduction.manifest()["judgments"] for s in studies],
        "topic_sampling": {
            **topic.record(),
            "experiment_resamples": None,
            "runs_per_resample": None,
            "trials_per_run": None,
        },
    }, {}


def _reduced_statistics(
    studies: List[IncompleteResult], steps: Steps, alpha: float, topic: _repeat.TopicDraw
) -> Dict[str, Any]:
    """At the lowest rate (or depth): Kendall's tau with the full-data ranking,
    discriminative power and |mean shift| from full data, each a
    :class:`~irgauge.studies._noise.Statistic` over the reductions (the repetitions) with
    its topic resamples (the reductions' mean on each)."""
    lowest, full_step = steps.lowest, steps.full
    if lowest is None:
        return {}
    reps: Dict[str, Dict[str, List[float]]] = {"tau": {}, "dp": {}, "shift": {}}
    draws: Dict[str, Dict[str, List[Any]]] = {"tau": {}, "dp": {}, "shift": {}}
    for study in studies:
        full, low = study.matrices[100], study.matrices[steps.matrix_key(lowest)]
        at = study.table.set_index(["measure", steps.column])
        share, _ = _topics.discriminative_power(low, alpha, topic.indices)
        mean_full = _topics.system_means(full, topic.indices)
        mean_low = _topics.system_means(
            {k: m.take_systems(full[k].systems) for k, m in low.items()}, topic.indices
        )
        for name in low:
            label = DISPLAY.get(name, name)
            shift = abs(at.loc[(name, lowest), "mean"] - at.loc[(name, full_step), "mean"])
            for key, value, draw in (
                (
                    "tau",
                    at.loc[(name, lowest), "tau"],
                    kendall_tau_columns(mean_full[name], mean_low[name]),
                ),
                ("dp", at.loc[(name, lowest), "discriminative_power"], share[name]),
                ("shift", shift, np.abs(mean_low[name].mean(0) - mean_full[name].mean(0))),
            ):
                reps[key].setdefault(label, []).append(float(value))
                draws[key].setdefault(label, []).append(draw)
    # a resampled value is the mean over the same reductions as the repetitions', so it
    # carries none of their Monte Carlo error: the interval adds it whole (var_r / R)
    return {
        key: _noise.Statistic(
            label,
            {m: np.asarray(v) for m, v in reps[key].items()},
            {m: np.mean(v, axis=0) for m, v in draws[key].items()},
            higher,
            digits,
        )
        for key, label, higher, digits in (
            ("tau", "tau", True, 3),
            ("dp", "share of significant pairs", True, 3),
            ("shift", "|shift|", False, 4),
        )
    }


def _read_and_rank(
    qrels: QrelsLike, runs: RunsLike, options: IncompleteOptions, progress: _repeat.Progress
) -> Tuple[Qrels, List[str], List[Any], List[str]]:
    """(qrels read, every run path, the runs the filter keeps, their paths): qrels and runs
    read once, as they are evaluated many times."""
    paths = common.path_list(runs)
    step = common.steps(progress, "reading and ranking the runs", 3)
    q = read_qrels(qrels)
    step()
    every_run = read_runs(paths, distinct=True, why=SYSTEMS)
    step()
    o = options
    chosen_runs = top_runs(q, every_run, o.top_k, o.top_fraction, o.by, o.eval_options)
    step()
    chosen_paths = (
        [paths[every_run.index(r)] for r in chosen_runs]
        if len(chosen_runs) < len(every_run)
        else paths
    )
    return q, paths, chosen_runs, chosen_paths


def _reduce(
    q: Qrels,
    runs: List[Any],
    steps: Steps,
    seeds: List[int],
    options: IncompleteOptions,
    rel_level: int,
    eval_options: Dict[str, Any],
    progress: _repeat.Progress,
) -> Tuple[pd.DataFrame, List[IncompleteResult]]:
    """(mean, tau and discriminative power per measure and rate (or depth), spread over
    the reductions; the study of each reduction)."""
    reduction = (steps.rates, steps.depths)
    studies = run_steps(  # each reduction a step: a task on a cluster, with the same result
        _reduction,
        seeds,
        (q, runs, reduction, options.samples, options.alpha, rel_level, eval_options),
        progress=progress("reductions") if progress is not None and on_cluster() else None,
        step_progress=progress and (lambda r: progress(f"reduction {r + 1}/{len(seeds)}")),
    )
    rows = pd.concat(
        [study.table.assign(repetition=r) for r, study in enumerate(studies)], ignore_index=True
    )
    rows["measure"] = rows["measure"].map(lambda m: DISPLAY.get(m, m))
    # a depth's share kept is the same in every repetition: kept beside its depth
    keys = ["measure", "rate"] if steps.depths is None else ["measure", "depth", "rate"]
    return _noise.spread(rows, keys, ["mean", "tau", "discriminative_power"]), studies


def _reduction(
    seed: int,
    q: Qrels,
    runs: List[Any],
    reduction: Tuple[List[float], Optional[List[int]]],
    B: int,
    alpha: float,
    rel_level: int,
    eval_options: Dict[str, Any],
    progress: Optional[Progress] = None,
) -> IncompleteResult:
    """The incomplete-judgments study of one reduction of the qrels (seeded):
    ``reduction`` = (rates, depths), the depths in place of the rates unless None."""
    rates, depths = reduction
    return incomplete_study(
        q,
        runs,
        MEASURES,
        rates=rates,
        depths=depths,
        seed=seed,
        samples=B,
        alpha=alpha,
        rel_level=rel_level,
        progress=progress,
        **eval_options,
    )


def _labels() -> Dict[str, str]:
    """measure string -> name in the tables, the condensed forms included."""
    labels = {m: DISPLAY[m] for m in MEASURES}
    labels.update(
        {CONDENSED[m]: DISPLAY[f"{m}'" if m != "Q-measure" else "Q-measure'"] for m in CONDENSED}
    )
    labels[CONDENSED["AP"]] = "AP'"
    return labels


def _judgment_table(qrels: Any, rel_level: int) -> Tuple[pd.DataFrame, Optional[str]]:
    """Table 1 of the paper for this collection, and a warning when R > N on some topics."""
    q = read_qrels(qrels)
    levels = np.asarray(q.levels)
    topics = np.asarray(q.topics.decode())
    frame = pd.DataFrame({"topic": topics, "level": levels})
    rel = frame["level"] >= rel_level
    R = rel.groupby(frame["topic"]).sum()
    N = (~rel).groupby(frame["topic"]).sum()
    row: Dict[str, Any] = {"topics": len(R)}
    for level in sorted({int(v) for v in levels if v >= rel_level}, reverse=True):
        row[f"R level {level} (mean)"] = float(
            (frame["level"] == level).groupby(frame["topic"]).sum().mean()
        )
    row["R (mean)"] = float(R.mean())
    row["R range"] = f"{int(R.min())}-{int(R.max())}"
    row["N range"] = f"{int(N.min())}-{int(N.max())}"
    over = int((R > N).sum())
    row["topics with R > N"] = over
    row["R <= N on every topic"] = "yes" if over == 0 else "no"
    warning = None
    if over:
        warning = (
            f"R > N on {over} of {counted(len(R), 'topic')}: bpref (min(R, N) in the denominator) "
            f"and bpref_R differ there; report which one you use."
        )
    return pd.DataFrame([row]), warning
