"""Study ``predictive`` (Webber, Moffat, Zobel & Sakai, SIGIR 2008): predictive power phi.

phi(A, B) for P@10, RR, RBP (p=0.95), AP and nDCG (log2) on the top 75% of systems by AP
(the paper's Tables 1-2: one table per collection), and phi against the topic subset size k
(Figure 1: nDCG of itself, P@10 of itself, nDCG of P@10). Takes qrels and runs, or score
matrices (``matrices=``, any measures) from any tool.

phi is the mean of tau over P random halvings (default 2000, as the paper); its Monte Carlo
standard error is sd(tau) / sqrt(P), and the summary says that A predicts B better than B
predicts itself only when the difference exceeds twice the combined error.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge._checks import renamed_keywords
from irgauge.errors import InputError
from irgauge.evaluation import score_matrices
from irgauge.meta import predictive_power
from irgauge.scores import align
from irgauge.scores._results import REASONS
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise, _plots, _repeat, _topics
from irgauge.io.words import counted

NAME = "predictive"
TITLE = "Predictive power of metrics (Webber, Moffat, Zobel and Sakai, SIGIR 2008)"

MEASURES = {common.label(m): m for m in ("P@10", "RR", "RBP(p=0.95)", "AP", "nDCG")}
NDCG = common.label("nDCG")
# Figure 1 of the paper: (predictor, predicted) pairs
CURVE_PAIRS = ((NDCG, NDCG), ("P@10", "P@10"), (NDCG, "P@10"))


def subset_sizes(n_topics: int, step: int = 5) -> list:
    """k = 5, 10, ... up to half the topics (always including n // 2)."""
    half = n_topics // 2
    sizes = list(range(step, half + 1, step)) or [half]
    if sizes[-1] != half:
        sizes.append(half)
    return [k for k in sizes if k >= 1]


@dataclass(frozen=True)
class PredictiveOptions:
    """The study's options, as :func:`run_predictive` takes them."""

    top_k: Optional[int]
    top_fraction: Optional[float]
    by: str
    seed: Optional[int]
    halvings: int
    subset_sizes: Optional[Sequence[int]]
    variant: str
    eval_options: Optional[Dict[str, Any]]
    topic_resamples: int = _noise.TOPIC_RESAMPLES


@dataclass(frozen=True)
class PredictiveStudy:
    """What the study computed, before anything is written.

    ``phi``, ``se`` and ``sd``: measures x measures (row predicts column) of phi, its Monte
    Carlo standard error sd / sqrt(halvings) and the sd of tau over the halvings; ``curve``:
    the rows of phi against subset size k for the pairs of Figure 1 (measure_a, measure_b,
    k, phi, sd); ``systems``: how the summary names the systems used; ``record``: what
    the manifest records.
    """

    phi: pd.DataFrame
    se: pd.DataFrame
    sd: pd.DataFrame
    curve: pd.DataFrame
    systems: str
    record: common.Record
    draws: Dict[Any, Any]  # (a, b) -> phi on each topic resample
    problem: Optional[str]
    flat: List[str]  # measures giving every system the same score: in no ordering


DEFAULT_FRACTION = 0.75  # the systems kept by default: the top 75% by AP


@renamed_keywords(trials="halvings", sizes="subset_sizes")
@common.study_entry
def run_predictive(
    qrels=None,
    runs=None,
    out=".",
    *,
    matrices=None,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = DEFAULT_FRACTION,
    by: str = "AP",
    seed: Optional[int] = None,
    halvings: int = 2000,
    subset_sizes: Optional[Sequence[int]] = None,
    variant: str = "b",
    eval_options: Optional[Dict[str, Any]] = None,
    topic_resamples: int = _noise.TOPIC_RESAMPLES,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study; write tables and figures under ``out/predictive``.

    ``halvings``: random halvings P (2000, as the paper). ``subset_sizes``: subset sizes k
    of the curve (default 5, 10, ..., n/2), as :func:`~irgauge.meta.predictive_power`
    names both (``trials=`` and ``sizes=``, their old names, still work, deprecated).
    ``top_k`` overrides the top-fraction filter. ``variant``: Kendall's tau a or b.
    """
    eval_options = dict(eval_options or {})
    options = PredictiveOptions(
        top_k,
        top_fraction,
        by,
        seed,
        halvings,
        subset_sizes,
        variant,
        eval_options,
        topic_resamples,
    )
    study = compute_predictive(qrels, runs, matrices, options, progress)
    result = write_predictive(study, describe_predictive(study), out)
    return collection_record.finish_report(result, qrels, runs, out, report, eval_options)


def compute_predictive(
    qrels, runs, matrices, options: PredictiveOptions, progress=None
) -> PredictiveStudy:
    """The study's numbers from qrels and runs, or from ``matrices``; writes nothing.

    se = sd(tau) / sqrt(halvings): the halvings are independent draws.
    """
    halvings, variant, top_k, by = options.halvings, options.variant, options.top_k, options.by
    # top_k, when given, replaces the top-fraction filter
    top_fraction = None if top_k is not None else options.top_fraction
    eval_options = dict(options.eval_options or {})
    seed = common.seed_or_fresh(options.seed)
    matrices, inputs = _score_matrices(qrels, runs, matrices, eval_options)
    chosen = common.select(matrices, top_k, top_fraction, by)
    first = next(iter(chosen.values()))
    ks = (
        list(options.subset_sizes)
        if options.subset_sizes is not None
        else subset_sizes(first.n_topics)
    )
    result = predictive_power(
        chosen,
        halvings=halvings,
        seed=seed,
        top_fraction=1.0,
        subset_sizes=ks,
        variant=variant,
        progress=progress("halvings") if progress else None,
    )
    names = list(chosen)
    topic = _repeat.topic_draw(seed, first.n_topics, options.topic_resamples, halvings, 1)
    draws, curve_draws = _topics.predictive(
        chosen, topic.trials, topic.experiments, topic.seed, variant, ks
    )
    square = result.table.pivot(index="measure_a", columns="measure_b", values="phi")
    sd = result.table.pivot(index="measure_a", columns="measure_b", values="sd")
    sd = sd.loc[names, names]
    parameters = {
        **common.filter_parameters(top_k, top_fraction, by),
        "halvings": halvings,
        "subset_sizes": ks,
        "variant": variant,
        "measures": {k: MEASURES.get(k, k) for k in names},
        "eval_options": eval_options,
        "topic_sampling": topic.record(),
    }
    return PredictiveStudy(
        phi=square.loc[names, names],
        se=sd / np.sqrt(halvings),
        sd=sd,
        curve=_with_interval(_figure_pairs(result.details["curve"], names), curve_draws, halvings),
        systems=common.systems_phrase(
            first.n_systems,
            next(iter(matrices.values())).n_systems,
            top_k,
            top_fraction,
            by,
            default=(None, DEFAULT_FRACTION),
        ),
        record=common.Record(
            parameters,
            {"seed": seed, "predictive_power": seed, "topic_resamples": topic.seed},
            first.systems,
            first.topics,
            inputs,
        ),
        draws=draws,
        problem=_noise.design_problem(first.n_systems, first.n_topics),
        flat=_repeat.flat_measures(chosen),
    )


def _score_matrices(qrels, runs, matrices, eval_options: Dict[str, Any]):
    """``{label: ScoreMatrix}`` of the study's measures (evaluated from qrels and runs) or
    of the matrices given, aligned; and the inputs as the manifest records them."""
    if matrices is not None:
        matrices = align(dict(matrices))
        return matrices, {"score_matrices": {k: m.source for k, m in matrices.items()}}
    if qrels is None or runs is None:
        raise InputError("the predictive study needs qrels and runs, or score matrices")
    labels = {v: k for k, v in MEASURES.items()}
    matrices = common.renamed(score_matrices(qrels, runs, list(labels), **eval_options), labels)
    return matrices, {"qrels": str(qrels), "runs": common.path_list(runs)}


def _with_interval(curve: pd.DataFrame, draws, halvings: int):
    """``curve`` with ``ci``: the half-width of phi's 95% interval at each k, topic
    sampling and Monte Carlo error combined, 1.96 sqrt(var_topic + sd^2 / halvings), where
    var_topic is the covariance over the topic resamples of phi's two runs on each (free of
    their Monte Carlo error; :func:`irgauge.studies._noise.topic_variance`)."""
    ci = []
    for row in curve.itertuples(index=False):
        e = draws.get((row.measure_a, row.measure_b, int(row.k)), np.empty((0, 2)))
        e = e[np.isfinite(e).all(axis=1)]
        sd2 = float(row.sd) ** 2 if np.isfinite(row.sd) else 0.0
        topic = _noise.topic_variance(e) if len(e) > 1 else 0.0
        ci.append(_noise.Z95 * np.sqrt(topic + sd2 / halvings))
    return curve.assign(ci=ci)


def _figure_pairs(curve: pd.DataFrame, names: List[str]) -> pd.DataFrame:
    """The rows of ``curve`` for Figure 1's (predictor, predicted) pairs, or for each
    measure predicting itself when the measures are not the paper's."""
    pairs = [p for p in CURVE_PAIRS if p[0] in names and p[1] in names] or [(m, m) for m in names]
    return pd.concat(
        [curve[(curve["measure_a"] == a) & (curve["measure_b"] == b)] for a, b in pairs],
        ignore_index=True,
    )


def write_predictive(study: PredictiveStudy, summary: List[str], out) -> common.StudyResult:
    """Tables phi, phi_se, phi_sd and phi_by_k, figures phi_vs_k and phi_heatmap, manifest
    and summary under ``out/predictive``."""
    with common.study_writer(Path(out), NAME, TITLE) as writer:
        _write_tables(writer, study)
        writer.figure(
            "phi_vs_k",
            _phi_curves,
            study.curve,
            common.caption(
                "Predictive power against topic subset size (phi with its 95% interval: "
                "topic sampling over the topic resamples and Monte Carlo error over the "
                "halvings combined, clipped to [-1, 1])",
                "predictive",
                "Figure 1",
            ),
        )
        writer.figure(
            "phi_heatmap",
            _plots.heatmap,
            study.phi,
            "phi(row predicts column)",
            label="predictive power phi",
            digits=3,
        )
        return writer.finish_with(study.record, summary)


def _write_tables(writer: common.StudyWriter, study: PredictiveStudy) -> None:
    """phi (Tables 1-2 of the paper), its standard error and sd, and phi by subset size k."""
    p = study.record.parameters
    halvings, variant = p["halvings"], p["variant"]
    writer.table(
        "phi",
        _by_predictor(study.phi),
        common.caption(
            f"Predictive power phi(row predicts column) on {study.systems} "
            f"({halvings} random halvings of {counted(len(study.record.topics), 'topic')}, "
            f"tau-{variant})",
            "predictive",
            "Tables 1-2",
        ),
        digits=3,
        nan_reason=REASONS["phi"],
    )
    writer.table(
        "phi_se",
        _by_predictor(study.se),
        "Monte Carlo standard error of phi: sd of tau over the halvings / sqrt(halvings)",
        digits=4,
        nan_reason=REASONS["sd"],
    )
    writer.table(
        "phi_sd",
        _by_predictor(study.sd),
        "Standard deviation of tau over the halvings",
        digits=3,
        nan_reason=REASONS["sd"],
    )
    writer.table(
        "phi_by_k",
        study.curve.pivot(index="k", columns=["measure_a", "measure_b"], values="phi")
        .pipe(_flat)
        .reset_index(),
        "phi against topic subset size k (two disjoint subsets of k topics)",
        digits=3,
        nan_reason=REASONS["phi"],
    )
    writer.table(
        "phi_by_k_interval",
        study.curve.pivot(index="k", columns=["measure_a", "measure_b"], values="ci")
        .pipe(_flat)
        .reset_index(),
        "Half-width of the 95% interval of phi at each k (the figure's band): topic "
        "sampling and Monte Carlo error combined",
        digits=3,
    )


def _by_predictor(square: pd.DataFrame) -> pd.DataFrame:
    return square.reset_index().rename(columns={"measure_a": "predictor"})


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    frame.columns = [f"{a} -> {b}" for a, b in frame.columns]
    return frame


def _phi_curves(picked: pd.DataFrame, directory, stem: str):
    frame = picked.assign(
        series=picked["measure_a"] + " -> " + picked["measure_b"],
        # the uncertainty of phi, not the spread of tau over the halvings
        phi_ci=picked["ci"],
    )
    return _plots.curves(
        frame,
        directory,
        stem,
        "k",
        "phi",
        "topics per subset (k)",
        "predictive power phi",
        group="series",
        limits=(-1.0, 1.0),
        band="band: 95% interval of phi\n(topic sampling and Monte Carlo)",
    )


def _phi_statistic(study: PredictiveStudy) -> _noise.Statistic:
    """phi of every ordered pair "A -> B" with its Monte Carlo SE and topic resamples."""
    names = list(study.phi.index)
    pairs = [(a, b) for a in names for b in names]
    return _noise.Statistic(
        "phi",
        {f"{a} -> {b}": np.array([float(study.phi.loc[a, b])]) for a, b in pairs},
        {f"{a} -> {b}": study.draws[(a, b)] for a, b in pairs if (a, b) in study.draws},
        True,
        3,
        {f"{a} -> {b}": float(study.se.loc[a, b]) for a, b in pairs},
    )


def describe_predictive(study: PredictiveStudy) -> List[str]:
    """The summary: the self-predictivity phi(A, A) in order, then each measure B that
    another measure A predicts better than B predicts itself, phi(A, B) > phi(B, B), said
    as better only when the 95% interval of the difference, topic sampling and Monte Carlo
    error combined, excludes 0 (:mod:`irgauge.studies._noise`)."""
    stat = _phi_statistic(study)
    names = [m for m in study.phi.index if m not in study.flat]
    diagonal = _repeat.renamed_statistic(stat, {f"{m} -> {m}": m for m in names})
    lines = _noise.design_warning(study.problem, study.flat)
    warnings = len(lines)
    lines.append(
        f"Self-predictivity phi(A, A) on {study.systems}: "
        f"{_noise.ordering(diagonal, None, study.problem)}."
    )
    for target in names:
        own = f"{target} -> {target}"
        for m in names:
            other = f"{m} -> {target}"
            if m != target and stat.value(other) > stat.value(own):
                text, _ = _noise.pair_sentence(
                    stat,
                    other,
                    own,
                    f"{m} predicts {target} better than {target} itself",
                    study.problem,
                )
                lines.append(text + ".")
    if len(lines) == 1 + warnings:
        lines.append("Every metric is its own best predictor on this collection.")
    lines.append(
        _repeat.method_sentence(
            study.record.parameters["topic_sampling"],
            study.record.parameters["halvings"],
            "halvings",
        )
    )
    return lines
