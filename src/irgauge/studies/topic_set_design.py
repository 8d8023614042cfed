"""Study ``topicset`` (Sakai 2016, "Topic set size design"): how many topics each measure
needs, at the paper's standard settings.

For every measure: its residual variance V_E (two-way ANOVA without replication, systems x
topics) and, from it, the topics needed by the paired t-test and by the one-way ANOVA over
M systems (default 2) to detect a difference D (default 0.05) with power 1 - beta = 0.80 at
alpha = 0.05, and the topics for a confidence interval of a difference at most W wide
(default 0.10); what the collection's own topics give (the smallest detectable D, the
interval's width) beside them. The numbers are those of :func:`irgauge.topic_set_size`.

The variance is an estimate: a bootstrap over topics (``topic_resamples`` resamples,
seeded; the same resampled topics for every measure, so the measures are compared paired)
recomputes V_E and the topics needed per measure. The summary says that a measure needs
fewer topics than another only when their bootstrap intervals do not overlap and the
paired difference's interval excludes 0; otherwise "not distinguishable here", with the
paired difference's interval (the wording of every study's summary,
:mod:`irgauge.studies._noise`, here with percentile intervals, as topic counts are
skewed). A design too small is warned of, with no orderings, as in every study (a measure
constant over systems has no residual variance, and is refused).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.measures.parse import refuse_repeats
from irgauge.evaluation import score_matrices
from irgauge.meta.topicset import topic_set_size, topics_needed
from irgauge.report.topicset_figures import topic_set_curves
from irgauge.scores import align
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.stats.resampling import percentile_interval
from irgauge.studies import _noise, _repeat
from irgauge.io.words import counted, level_percent

NAME = "topicset"
TITLE = (
    "Topics each measure needs: topic set size design (Sakai, Information Retrieval Journal 2016)"
)
PAPER = "topicset"

MEASURES = {common.label(m): m for m in ("AP", "Q-measure", "nDCG@10", "nERR@10", "P@10")}
# the designs of the summary's ordering and the headline column
DESIGN_COLUMNS = {"ttest": "n_ttest", "anova": "n_anova", "ci": "n_ci"}
CONFIDENCE = 0.95
_CHUNK = 200  # bootstrap resamples per block (memory: block x topics weights)


@dataclass(frozen=True)
class TopicsetOptions:
    """The study's options, as :func:`run_topicset` takes them."""

    min_diff: float
    alpha: float
    beta: float
    anova_systems: int
    ci_width: float
    topic_resamples: int
    seed: Optional[int]
    top_k: Optional[int]
    top_fraction: Optional[float]
    by: str
    measures: Optional[Sequence[str]]
    eval_options: Optional[Dict[str, Any]]


@dataclass(frozen=True)
class TopicsetStudy:
    """What the study computed, before anything is written.

    ``table``: one row per measure (variance and topics needed, with bootstrap intervals);
    ``paired``: one row per pair of measures (paired bootstrap difference of the t-test's
    topics needed); ``variances``: {measure: V_E}; ``record``: what the manifest records.
    """

    table: pd.DataFrame
    paired: pd.DataFrame
    variances: Dict[str, float]
    systems: str
    record: common.Record


@_checks.renamed_keywords(trials="topic_resamples", systems="anova_systems")
@common.study_entry
def run_topicset(
    qrels=None,
    runs=None,
    out=".",
    *,
    matrices=None,
    measures: Optional[Sequence[str]] = None,
    min_diff: float = 0.05,
    alpha: float = 0.05,
    beta: float = 0.20,
    anova_systems: int = 2,
    ci_width: float = 0.10,
    topic_resamples: int = _noise.TOPIC_RESAMPLES,
    seed: Optional[int] = None,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = None,
    by: str = "AP",
    eval_options: Optional[Dict[str, Any]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study; write tables, figure, manifest and summary under ``out/topicset``.

    ``measures``: what to evaluate from qrels and runs (default AP, Q-measure, nDCG@10,
    nERR@10, P@10); with ``matrices`` (``{measure: ScoreMatrix}``) every measure given.
    ``min_diff`` (D), ``alpha``, ``beta``, ``anova_systems`` (M of the ANOVA design) and
    ``ci_width`` (W): the designs' settings. ``topic_resamples``: bootstrap resamples of the
    topics, as every study's. (``trials=`` and ``systems=``, the old names of
    ``topic_resamples`` and ``anova_systems``, still work, deprecated.)
    Every system is kept unless ``top_k`` or ``top_fraction`` asks otherwise.
    """
    if measures:  # refused before anything is read or evaluated, as -m is
        refuse_repeats(measures)
    eval_options = dict(eval_options or {})
    options = TopicsetOptions(
        min_diff,
        alpha,
        beta,
        anova_systems,
        ci_width,
        topic_resamples,
        seed,
        top_k,
        top_fraction,
        by,
        measures,
        eval_options,
    )
    study = compute_topicset(qrels, runs, matrices, options, progress)
    result = write_topicset(study, describe_topicset(study), out)
    return collection_record.finish_report(result, qrels, runs, out, report, eval_options)


def _score_matrices(qrels, runs, matrices, options: TopicsetOptions):
    """``{label: ScoreMatrix}`` of the study's measures and the inputs the manifest records."""
    if matrices is not None:
        matrices = align(dict(matrices))
        if options.measures:
            from irgauge.scores.lookup import pick_measures

            matrices = pick_measures(matrices, options.measures)
        return matrices, {"score_matrices": {k: m.source for k, m in matrices.items()}}
    if qrels is None or runs is None:
        raise InputError("the topicset study needs qrels and runs, or score matrices")
    wanted = list(options.measures) if options.measures else list(MEASURES.values())
    labels = {m: common.label(m) for m in wanted}
    # a topic a run does not answer scores 0: the variance needs a full matrix
    evaluated = score_matrices(
        qrels, runs, wanted, **{"complete": True, **dict(options.eval_options or {})}
    )
    return common.renamed(evaluated, labels), {
        "qrels": str(qrels),
        "runs": common.path_list(runs),
    }


def compute_topicset(
    qrels, runs, matrices, options: TopicsetOptions, progress=None
) -> TopicsetStudy:
    """The study's numbers from qrels and runs, or from ``matrices``; writes nothing."""
    seed = common.seed_or_fresh(options.seed)
    resamples = _checks.whole(
        options.topic_resamples, "topic_resamples", 2, _checks.MAX_DRAWS, "a number of resamples"
    )
    every, inputs = _score_matrices(qrels, runs, matrices, options)
    by = options.by if options.by in every else next(iter(every))
    chosen = common.select(every, options.top_k, options.top_fraction, by)
    flat = _repeat.flat_measures(chosen)
    if flat:  # (its residual variance is 0 but for rounding, which gives absurd sizes)
        raise InputError(
            f"measure {flat[0]} gives every system the same score on every topic: its "
            "residual variance is 0, so it has no topic set size; leave it out"
        )
    result = topic_set_size(
        chosen,
        options.min_diff,
        alpha=options.alpha,
        beta=options.beta,
        anova_systems=options.anova_systems,
        ci_width=options.ci_width,
    )
    point = _point_table(result.table)
    names = list(point["measure"])
    values = np.stack([chosen[m].values for m in names])
    step = common.steps(progress, "bootstrap", 1)
    boot = bootstrap_sizes(values, options, resamples, seed)
    step()
    table = _with_intervals(point, boot)
    first = chosen[names[0]]
    parameters = {
        **common.filter_parameters(options.top_k, options.top_fraction, by),
        "min_diff": options.min_diff,
        "alpha": options.alpha,
        "beta": options.beta,
        "power": 1 - options.beta,
        "anova_systems": options.anova_systems,
        "ci_width": options.ci_width,
        "topic_resamples": resamples,
        "bootstrap": "topics resampled with replacement, the same resamples for every "
        "measure (paired); V_E and the topics needed recomputed on each; "
        f"{CONFIDENCE:.0%} percentile intervals",
        "ordering": "a measure needs fewer topics than another only when their bootstrap "
        "intervals do not overlap and the paired difference's interval excludes 0",
        "variance": result.parameters["variance"],
        "measures": {k: MEASURES.get(k, k) for k in names},
        "eval_options": dict(options.eval_options or {}),
    }
    return TopicsetStudy(
        table=table,
        paired=_paired(names, boot["ttest"], point.set_index("measure")["n_ttest"]),
        variances=dict(zip(names, point["variance"])),
        systems=common.systems_phrase(
            first.n_systems,
            next(iter(every.values())).n_systems,
            options.top_k,
            options.top_fraction,
            by,
        ),
        record=common.Record(
            parameters,
            {"seed": seed, "bootstrap": seed},
            list(first.systems),
            list(first.topics),
            inputs,
        ),
    )


def _point_table(long: pd.DataFrame) -> pd.DataFrame:
    """topic_set_size's long table as one row per measure."""
    long = long.assign(key=long["design"] + ":" + long["statistic"])
    wide = long.pivot(index="measure", columns="key", values="value")
    wide = wide.loc[list(dict.fromkeys(long["measure"]))]
    return pd.DataFrame(
        {
            "measure": list(wide.index),
            "variance": wide["all:variance"].astype(float).to_numpy(),
            "n_ttest": wide["ttest:n_topics"].astype(int).to_numpy(),
            "n_anova": wide["anova:n_topics"].astype(int).to_numpy(),
            "n_ci": wide["ci:n_topics"].astype(int).to_numpy(),
            "min_diff_ttest": wide["ttest:min_detectable_diff"].astype(float).to_numpy(),
            "min_diff_anova": wide["anova:min_detectable_diff"].astype(float).to_numpy(),
            "ci_width_here": wide["ci:ci_width"].astype(float).to_numpy(),
        }
    )


def bootstrap_variances(values: np.ndarray, resamples: int, seed: int) -> np.ndarray:
    """V_E of each measure on ``resamples`` bootstrap resamples of the topics: ``values`` is
    measures x systems x topics; returns resamples x measures. Every measure sees the same
    resampled topics (one count vector w per resample).

    With counts w_j (sum n) the resampled matrix's residual sum of squares is
    sum_j w_j sum_i x_ij^2 - n sum_i r_i^2 - m sum_j w_j c_j^2 + m n g^2, where
    r_i = sum_j w_j x_ij / n, c_j the mean of topic j over systems and g = sum_j w_j c_j / n;
    the scores are centred first (V_E does not change) to keep the sums small.
    """
    k, m, n = values.shape
    x = values - values.mean(axis=(1, 2), keepdims=True)
    squares = (x**2).sum(axis=1)  # k x n
    c = x.mean(axis=1)  # k x n
    rng = np.random.default_rng(seed)
    out = np.empty((resamples, k))
    for start in range(0, resamples, _CHUNK):
        size = min(_CHUNK, resamples - start)
        draws = rng.integers(0, n, size=(size, n))
        offsets = (draws + n * np.arange(size)[:, None]).ravel()
        w = np.bincount(offsets, minlength=size * n).reshape(size, n).astype(float)
        r = np.einsum("bj,kij->bki", w, x) / n  # size x k x m
        g = (w @ c.T) / n  # size x k
        ss = w @ squares.T - n * (r**2).sum(axis=2) - m * (w @ (c**2).T) + m * n * g**2
        out[start : start + size] = np.maximum(ss, 0.0) / ((m - 1) * (n - 1))
    return out


def bootstrap_sizes(
    values: np.ndarray, options: TopicsetOptions, resamples: int, seed: int
) -> Dict[str, np.ndarray]:
    """resamples x measures arrays: ``variance`` and the topics needed by each design.

    n depends on V_E and D (or W) through D / sqrt(V_E) only, so every resample is one
    element of one vectorised search with V_E = 1, the three designs' together."""
    variance = bootstrap_variances(values, resamples, seed)
    ok = variance > 0
    scale = np.sqrt(np.where(ok, variance, 1.0))
    designs = ("ttest", "anova", "ci")
    needed = topics_needed(
        1.0,
        np.array(designs)[:, None, None],
        options.min_diff / scale,
        options.ci_width / scale,
        options.alpha,
        options.beta,
        options.anova_systems,
    )
    sizes = dict(zip(designs, np.asarray(needed)))
    found = {"variance": variance}
    for design in DESIGN_COLUMNS:
        found[design] = np.where(ok, np.asarray(sizes[design], dtype=float), np.nan)
    return found


def _interval(samples: np.ndarray):
    """Percentile interval (low, high) and sd of each column (NaN resamples left out); the
    bounds are resampled values themselves (outward: the lower and higher order statistic),
    so the interval of a number of topics is whole numbers."""
    low, high = percentile_interval(samples, CONFIDENCE, outward=True)
    return low, high, np.nanstd(samples, axis=0, ddof=1)


def _with_intervals(point: pd.DataFrame, boot: Dict[str, np.ndarray]) -> pd.DataFrame:
    """The per-measure table with the bootstrap interval of V_E and of each n."""
    columns = {"measure": point["measure"], "variance": point["variance"]}
    low, high, _ = _interval(boot["variance"])
    columns.update(variance_low=low, variance_high=high)
    for design, column in DESIGN_COLUMNS.items():
        low, high, sd = _interval(boot[design])
        if np.isfinite(low).all() and np.isfinite(high).all():  # counts: whole numbers
            low, high = low.astype(np.int64), high.astype(np.int64)
        columns.update({column: point[column], f"{column}_low": low, f"{column}_high": high})
        if design == "ttest":
            columns[f"{column}_sd"] = sd
    for column in ("min_diff_ttest", "min_diff_anova", "ci_width_here"):
        columns[column] = point[column]
    return pd.DataFrame(columns)


def _paired(names: List[str], samples: np.ndarray, point: pd.Series) -> pd.DataFrame:
    """For each pair (a, b): n_ttest(b) - n_ttest(a) and its paired bootstrap interval."""
    rows = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            b = names[j]
            diff = samples[:, j] - samples[:, i]
            low, high, _ = _interval(diff[:, None])
            rows.append(
                {
                    "measure_a": a,
                    "measure_b": b,
                    "difference": int(point[b] - point[a]),
                    "low": _whole(low[0]),
                    "high": _whole(high[0]),
                    "excludes_0": bool(low[0] > 0 or high[0] < 0),
                }
            )
    columns = ["measure_a", "measure_b", "difference", "low", "high", "excludes_0"]
    return pd.DataFrame(rows, columns=columns)


def _whole(value: float):
    """A bound of a difference of counts: an int (NaN when every resample failed)."""
    return int(value) if np.isfinite(value) else float("nan")


def write_topicset(study: TopicsetStudy, summary: List[str], out) -> common.StudyResult:
    """Tables topic_set_size and paired_differences, figure topic_set_size, manifest and
    summary under ``out/topicset``."""
    p = study.record.parameters
    with common.study_writer(Path(out), NAME, TITLE) as writer:
        writer.table(
            "topic_set_size",
            study.table,
            common.caption(
                f"Variance V_E and topics needed on {study.systems}: paired t-test and one-way "
                f"ANOVA (M = {p['anova_systems']}) detecting D = {p['min_diff']:g} with power "
                f"{p['power']:g} at alpha = {p['alpha']:g}, and a "
                f"{level_percent(1 - p['alpha'], p['alpha'])} confidence interval at most "
                f"{p['ci_width']:g} wide; low/high: "
                f"{CONFIDENCE:.0%} bootstrap interval over {p['topic_resamples']} resamples of the "
                f"topics; min_diff_*, ci_width_here: what this collection's "
                f"{counted(len(study.record.topics), 'topic')} give",
                PAPER,
            ),
            digits={
                "variance": 5,
                "variance_low": 5,
                "variance_high": 5,
                "n_ttest_sd": 1,
                **{f"{c}_{end}": 0 for c in DESIGN_COLUMNS.values() for end in ("low", "high")},
            },
        )
        writer.table(
            "paired_differences",
            study.paired,
            "Topics needed by the paired t-test, measure b minus measure a, with the paired "
            f"bootstrap {CONFIDENCE:.0%} interval (the same resampled topics for both)",
            digits=0,
        )
        writer.figure(
            "topic_set_size",
            _curves,
            study.variances,
            common.caption("Topics needed n against the minimum detectable difference D", PAPER),
            n_topics=len(study.record.topics),
            min_diff=p["min_diff"],
        )
        return writer.finish_with(study.record, summary)


def _curves(variances, directory, stem: str, n_topics: int, min_diff: float):
    return topic_set_curves(variances, n_topics, directory, min_diff=min_diff, stem=stem)


def _apart(row_a, row_b, column: str, paired: Optional[pd.Series]) -> bool:
    """True when measure a and b's topics needed differ beyond the noise: their bootstrap
    intervals do not overlap and (when known) the paired difference's interval excludes 0."""
    low_a, high_a = row_a[f"{column}_low"], row_a[f"{column}_high"]
    low_b, high_b = row_b[f"{column}_low"], row_b[f"{column}_high"]
    overlap = low_a <= high_b and low_b <= high_a
    return not overlap and (paired is None or bool(paired["excludes_0"]))


def describe_topicset(study: TopicsetStudy) -> List[str]:
    """The summary: the topics each measure needs (paired t-test, fewest first, ``<`` only
    beyond the noise), which measure needs the fewest, the variances, the interval design;
    with a warning and no orderings for too small a design (as every study's summary)."""
    p = study.record.parameters
    problem = _noise.design_problem(len(study.record.systems), len(study.record.topics))
    settings = f"D = {p['min_diff']:g}, alpha = {p['alpha']:g}, power = {p['power']:g}"
    # (a measure constant over systems is refused: it has no residual variance)
    lines = _noise.design_warning(problem)
    lines.append(
        f"Topics needed by the paired t-test ({settings}) on {study.systems}: "
        + _ordering(study, "n_ttest", problem)
        + "."
    )
    lines.append(_fewest(study, "n_ttest", problem))
    lines.append(
        "Residual variance V_E (the measure's noise; fewer topics where it is smaller): "
        + _ordering(study, "variance", problem)
        + "."
    )
    lines.append(
        f"Topics for a {level_percent(1 - p['alpha'], p['alpha'])} confidence interval at "
        f"most {p['ci_width']:g} wide: " + _ordering(study, "n_ci", problem) + "."
    )
    return lines


def _pair_row(study: TopicsetStudy, a: str, b: str) -> Optional[pd.Series]:
    paired = study.paired
    found = paired[
        ((paired["measure_a"] == a) & (paired["measure_b"] == b))
        | ((paired["measure_a"] == b) & (paired["measure_b"] == a))
    ]
    return found.iloc[0] if len(found) else None


def _ordering(study: TopicsetStudy, column: str, problem: Optional[str] = None) -> str:
    """``"AP 31 [25, 40] < nDCG 102 [80, 130] ~ P@10 110 [85, 140]"``, fewest first, in
    groups as every study's summary (:func:`irgauge.studies._noise.pair_verdicts`): ``<``
    between groups that differ beyond the noise, ``~`` within a group; a pair apart within
    a group is stated after the chain, and neighbours not apart are named "not
    distinguishable here", with the paired difference's interval when known; no ordering
    with a design ``problem``."""
    table = study.table.set_index("measure").sort_values(column, kind="stable")
    names = list(table.index)
    shown = {
        m: f"{m} {_number(table.loc[m, column])} [{_number(table.loc[m, f'{column}_low'])}, "
        f"{_number(table.loc[m, f'{column}_high'])}]"
        for m in names
    }
    if problem is not None:
        return ", ".join(shown[m] for m in names) + f" (not ordered: {problem})"

    def comparison(a: str, b: str) -> _Pair:
        pair = _pair_row(study, a, b) if column == "n_ttest" else None
        return _Pair(a, b, _apart(table.loc[a], table.loc[b], column, pair), pair)

    verdicts = _noise.pair_verdicts(names, comparison)
    text = " < ".join(" ~ ".join(shown[m] for m in g) for g in verdicts.groups)
    group_of = {m: k for k, g in enumerate(verdicts.groups) for m in g}
    within = [
        f"{c.a} < {c.b}{_paired_text(c.pair, c.a)}"
        for c in verdicts.said
        if c.apart and group_of[c.a] == group_of[c.b]
    ]
    close = [f"{c.a} and {c.b}{_paired_text(c.pair, c.a)}" for c in verdicts.said if not c.apart]
    if within:
        text += f"; apart within a group: {'; '.join(within)}"
    if close:
        text += (
            "; not distinguishable here (bootstrap intervals overlap, or the paired "
            f"difference's 95% interval includes 0): {'; '.join(close)}"
        )
    return text


@dataclass(frozen=True)
class _Pair:
    """Measures a and b (a needing no more topics) and whether they differ beyond the noise."""

    a: str
    b: str
    apart: bool
    pair: Optional[pd.Series] = field(compare=False, default=None)


def _paired_text(pair: Optional[pd.Series], first: str) -> str:
    """`` (d = +12, 95% interval [-3, +30])``: the second measure's topics needed minus the
    first's, with its paired bootstrap interval (empty when not known)."""
    if pair is None:
        return ""
    sign = 1 if pair["measure_a"] == first else -1
    low, high = sorted((sign * pair["low"], sign * pair["high"]))
    return f" (d = {sign * int(pair['difference']):+d}, 95% interval [{low:+g}, {high:+g}])"


def _number(value) -> str:
    """A count as a whole number (a percentile between two counts keeps its .5), a variance
    with 4 significant digits."""
    value = float(value)
    if value.is_integer():
        return str(int(value))
    return f"{value:.1f}" if value > 1 else f"{value:.4g}"


def _fewest(study: TopicsetStudy, column: str, problem: Optional[str] = None) -> str:
    """Which measure needs the fewest topics, or which ones are not distinguishable from the
    fewest (none named with a design ``problem``)."""
    table = study.table.set_index("measure").sort_values(column, kind="stable")
    names = list(table.index)
    if problem is not None:
        return f"No measure is named as needing the fewest topics ({problem})."
    best = names[0]
    tied = [
        m
        for m in names[1:]
        if not _apart(table.loc[best], table.loc[m], column, _pair_row(study, best, m))
    ]
    n = _noise.fmt(float(table.loc[best, column]), None, 0)
    if len(names) == 1:
        return f"Only {best} was studied: it needs {counted(n, 'topic')}."
    if not tied:
        return f"{best} needs the fewest topics ({n}), beyond the noise of every other measure."
    return (
        f"{best} needs the fewest topics ({n}), but {', '.join(tied)} "
        f"{'is' if len(tied) == 1 else 'are'} not distinguishable from it here: no measure is "
        "the clear winner."
        if len(tied) == len(names) - 1
        else f"{best} needs the fewest topics ({n}); not distinguishable from it here: "
        f"{', '.join(tied)}."
    )
