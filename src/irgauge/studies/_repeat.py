"""The studies' random experiments, each repeated over independent seeds.

Each function runs one :mod:`irgauge.meta` experiment once per seed of
:func:`irgauge.studies._noise.repetition_seeds` and returns the per-repetition rows (a
``repetition`` column, 0-based) together with their mean, sd and Monte Carlo SE per measure
(:func:`irgauge.studies._noise.spread`). The same seed is used for every measure within a
repetition, so measures are compared on the same samples. The repetitions are independent
steps: tasks on a Dask cluster under ``use_engine("dask")``, with the same results.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Dict, List, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge import meta
from irgauge.errors import InputError
from irgauge.evaluation.tasks import on_cluster, run_steps
from irgauge.studies import _noise, _topics, matched_ties
from irgauge.io.words import counted

Progress = Optional[Callable[[str], Optional[Callable[[int, int], None]]]]

CATCH_ALL = _topics.CATCH_ALL  # lower edge of the last difference bin (|d| >= 0.20)


def _bar(progress: Progress, label: str, r: int, seeds: Sequence[int], parts: int = 1):
    """The callback of repetition ``r``: one bar over the ``parts`` measures of the run."""
    if progress is None:
        return None
    update = progress(f"{label} {r + 1}/{len(seeds)}" if len(seeds) > 1 else label)
    return across(update, parts) if update is not None and parts > 1 else update


def across(update: Callable[[int, int], None], parts: int) -> Callable[[int, int], None]:
    """One bar over a per-measure loop.

    The meta functions report ``(done, total)`` for each measure in turn, restarting at 0
    (every measure has the same total: the system pairs); drawn as is, each measure would
    fill and close its own bar. This maps the k-th measure's ``(done, total)`` to
    ``(k * total + done, parts * total)``, so the bar fills once, over all measures.
    """
    finished = [0]

    def report(done: int, total: int) -> None:
        update(min(finished[0], parts - 1) * total + done, parts * total)
        if done >= total:
            finished[0] += 1

    return report


def repeated(step, seeds: Sequence[int], shared, progress: Progress, label: str, parts: int):
    """``[step(seed, *shared) for seed in seeds]``: the repetitions, each a step of
    :func:`~irgauge.evaluation.tasks.run_steps` (a task on a cluster; the seeds are drawn
    here, so the results do not depend on where they run). Here each draws its own bar
    (over its ``parts`` measures); on a cluster one bar follows the repetitions done."""
    return run_steps(
        step,
        seeds,
        shared,
        progress=progress(label) if progress is not None and on_cluster() else None,
        step_progress=progress and (lambda r: _bar(progress, label, r, seeds, parts)),
    )


def _discriminative_power(seed: int, matrices, B: int, alpha: float, progress=None):
    return meta.discriminative_power(
        matrices, samples=B, alphas=(alpha,), seed=seed, progress=progress
    )


def _swap(seed: int, matrices, c: int, trials: int, mode: str, replacement: bool, progress=None):
    return meta.swap_rates(
        matrices,
        subset_size=c,
        trials=trials,
        seed=seed,
        swap_mode=mode,
        replacement=replacement,
        progress=progress,
    )


def _stability(seed: int, matrices, c: int, trials: int, progress=None):
    return meta.stability(matrices, subset_size=c, trials=trials, seed=seed, progress=progress)


def discriminative_power(
    matrices, B: int, alpha: float, seeds: Sequence[int], progress: Progress = None
):
    """(per-repetition summary rows, spread, pairs of the first repetition)."""
    results = repeated(
        _discriminative_power, seeds, (matrices, B, alpha), progress, "bootstrap", len(matrices)
    )
    first = results[0] if results else None
    table = pd.concat(
        [res.table.assign(repetition=r) for r, res in enumerate(results)], ignore_index=True
    )
    return (
        table,
        _noise.spread(table, ["measure"], ["significant", "share", "required_difference"]),
        first,
    )


DP_DIGITS = {
    "share": 3,
    "share_se": 3,
    "significant": 1,
    "significant_se": 1,
    "required_difference": 3,
    "required_difference_se": 3,
}


def discriminative_power_table(spread: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The discriminative-power table of ``names`` (most significant pairs first): pairs
    significant, their share and the required difference, each the mean over the
    repetitions with its Monte Carlo SE."""
    rows = spread[spread["measure"].isin(names)]
    rows = rows.sort_values("share", ascending=False, kind="stable")
    return pd.DataFrame(
        {
            "measure": rows["measure"],
            "significant": rows["significant"],
            "significant_se": rows["significant_se"],
            "share": rows["share"],
            "share_se": rows["share_se"],
            "required_difference": rows["required_difference"],
            "required_difference_se": rows["required_difference_se"],
        }
    )


def swap(
    matrices,
    c: int,
    trials: int,
    seeds: Sequence[int],
    mode: str = "strict",
    replacement: bool = False,
    progress: Progress = None,
):
    """(bins per repetition, summary per repetition, spread of bins, spread of summary).

    A required difference in the catch-all bin (|d| >= 0.20), or none at all, is "not
    reached": censored (NaN required difference, relative difference and share reaching),
    left out of the means and counted in ``found`` (the share of repetitions reaching one).
    """
    bins, summaries = [], []
    results = repeated(
        _swap, seeds, (matrices, c, trials, mode, replacement), progress, "swap", len(matrices)
    )
    for r, res in enumerate(results):
        bins.append(res.table.assign(repetition=r))
        summary = res.details["summary"].assign(repetition=r)
        # the catch-all bin is "not reached (>= 0.20)", not a required difference: censored
        # (NaN), so that means leave it out and no ordering ranks it
        censored = ~(summary["required_difference"] < CATCH_ALL - 1e-9)
        summary.loc[censored, ["required_difference", "relative_difference", "share_reaching"]] = (
            np.nan
        )
        summaries.append(summary)
    bins = pd.concat(bins, ignore_index=True)
    summaries = pd.concat(summaries, ignore_index=True)
    # a measure giving every system the same score on every topic has only zero
    # differences: "0.00 reached by every comparison" would read as perfect sensitivity
    flat = flat_measures(matrices)
    summaries.loc[
        summaries["measure"].isin(flat),
        ["required_difference", "relative_difference", "share_reaching"],
    ] = np.nan
    summaries["found"] = summaries["required_difference"].notna().astype(float)
    return (
        bins,
        summaries,
        _noise.spread(bins, ["measure", "difference"], ["swap_rate"]),
        _noise.spread(
            summaries,
            ["measure"],
            [
                "required_difference",
                "largest_mean",
                "relative_difference",
                "share_reaching",
                "found",
            ],
        ),
    )


def stability(matrices, c: int, trials: int, seeds: Sequence[int], progress: Progress = None):
    """(per-repetition curve rows, spread per measure and fuzziness)."""
    results = repeated(
        _stability, seeds, (matrices, c, trials), progress, "stability", len(matrices)
    )
    table = pd.concat(
        [res.table.assign(repetition=r) for r, res in enumerate(results)], ignore_index=True
    )
    return table, _noise.spread(
        table, ["measure", "fuzziness"], ["minority_rate", "proportion_ties"]
    )


def stability_table(curves: pd.DataFrame, f: float = 0.05) -> pd.DataFrame:
    """Minority rate and ties at fuzziness ``f`` (mean ± SE) per measure."""
    at = curves[(curves["fuzziness"] - f).abs() < 1e-9]
    return at[
        [
            "measure",
            "fuzziness",
            "minority_rate",
            "minority_rate_se",
            "proportion_ties",
            "proportion_ties_se",
        ]
    ]


def swap_summary_table(spread: pd.DataFrame, repetitions: int) -> pd.DataFrame:
    """The sensitivity table: required difference, largest mean, relative difference and
    share reaching it (means over the repetitions that reach one, with SE), and in how many
    repetitions none is reached ("not reached (>= 0.20)")."""
    missed = np.rint((1 - spread["found"].to_numpy(float)) * repetitions).astype(int)
    return pd.DataFrame(
        {
            "measure": spread["measure"],
            "required_difference": spread["required_difference"],
            "required_difference_se": spread["required_difference_se"],
            "largest_mean": spread["largest_mean"],
            "largest_mean_se": spread["largest_mean_se"],
            "relative_difference": spread["relative_difference"],
            "relative_difference_se": spread["relative_difference_se"],
            "share_reaching": spread["share_reaching"],
            "share_reaching_se": spread["share_reaching_se"],
            "found_in": spread["found"],
            "not_reached": [f"{k} of {repetitions} (>= 0.20)" if k else "" for k in missed],
        }
    )


SWAP_DIGITS = {
    "required_difference": 2,
    "required_difference_se": 3,
    "largest_mean": 4,
    "largest_mean_se": 4,
    "relative_difference": 3,
    "relative_difference_se": 3,
    "share_reaching": 3,
    "share_reaching_se": 3,
    "found_in": 2,
}


def swap_sentences(
    stat: _noise.Statistic,
    names: List[str],
    c: int,
    flat: Sequence[str] = (),
    problem: Optional[str] = None,
) -> List[str]:
    """The share of comparisons reaching the required difference, ordered beyond the noise
    (:func:`irgauge.studies._noise.ordering`); measures that do not reach a required
    difference below the catch-all bin in some repetition are named, unranked, and ``flat``
    measures (the same score for every system) are left out."""
    names = [n for n in names if n not in flat]
    if not names:
        return []
    text = _noise.ordering(stat, names, problem).text
    return [
        f"Share of comparisons reaching the swap method's 95% required difference at "
        f"c = {c}: {text}."
    ]


def statistic(
    table: pd.DataFrame,
    column: str,
    label: str,
    resampled=None,
    higher_is_better: bool = True,
    digits: int = 3,
) -> _noise.Statistic:
    """The :class:`~irgauge.studies._noise.Statistic` of ``column`` of a per-repetition
    table (measure, repetition, column), with its values on the topic resamples."""
    reps = {
        m: part.sort_values("repetition", kind="stable")[column].to_numpy(float)
        for m, part in table.groupby("measure", sort=False)
    }
    return _noise.Statistic(label, reps, dict(resampled or {}), higher_is_better, digits)


def flat_measures(matrices) -> List[str]:
    """Measures whose score is the same for every system on every topic."""
    return [name for name, m in matrices.items() if np.all(m.values == m.values[:1])]


def stability_sentence(
    pairs: pd.DataFrame,
    curves: pd.DataFrame,
    names: List[str],
    setting: str,
    problem: Optional[str] = None,
) -> str:
    """The summary's stability sentence: the curves' reading between measures (minority
    rate at matched proportions of ties), or for a single measure its minority rate and
    proportion of ties at fuzziness 0.05."""
    if len(names) < 2:
        at = stability_table(curves).set_index("measure")
        parts = []
        for m in names:
            mr = _noise.fmt(at.loc[m, "minority_rate"], at.loc[m, "minority_rate_se"], 4)
            pt = _noise.fmt(at.loc[m, "proportion_ties"], at.loc[m, "proportion_ties_se"], 4)
            parts.append(f"{m}: minority rate {mr}, proportion of ties {pt}")
        return f"Stability ({setting}) at fuzziness 0.05: " + "; ".join(parts) + "."
    keep = pairs[pairs["a"].isin(names) & pairs["b"].isin(names)]
    order = "" if problem else "; most stable first"
    return (
        f"Stability ({setting}; minority rate at matched proportions of ties, from the "
        f"curves{order}): "
        + "; ".join(matched_ties.stability_sentences(keep, names, problem))
        + "."
    )


@dataclass(frozen=True)
class TopicDraw:
    """The topic resamples of a study: T x n indices and their seed. The statistics computed
    in one vectorised pass (discriminative power, required difference, tau) use all T; the
    experiments rerun per resample (swap, stability, phi) use the first
    ``min(T, EXPERIMENT_RESAMPLES)``, twice each with independent seeds and ``trials``
    trials a run."""

    seed: int
    indices: np.ndarray
    trials: int  # per run of the experiments rerun on each resample (two runs each)

    @property
    def experiments(self) -> np.ndarray:
        """The resamples the swap, stability and predictive-power experiments rerun on."""
        return self.indices[:EXPERIMENT_RESAMPLES]

    def record(self) -> Dict[str, Any]:
        """What the manifest says of them."""
        return {
            "method": _noise.TOPIC_METHOD,
            "resamples": int(len(self.indices)),
            "experiment_resamples": int(len(self.experiments)),
            "seed": self.seed,
            "runs_per_resample": _topics.RUNS_PER_RESAMPLE,
            "trials_per_run": self.trials,
            "z": _noise.Z95,
        }


# the experiments rerun per resample cost trials x runs x resamples: the trials of all
# repetitions spread over at most this many resamples (more would leave too few trials in
# each run); 100 resamples estimate a variance to within about 14% (sqrt(2 / 99))
EXPERIMENT_RESAMPLES = 100


def topic_draw(seed: int, n_topics: int, resamples: int, trials: int, repetitions: int):
    """The study's :class:`TopicDraw` from its seed."""
    if resamples < 2:
        raise InputError(f"topic resamples must be at least 2, got {resamples}")
    t_seed = _noise.topic_seed(seed)
    return TopicDraw(
        t_seed,
        _noise.topic_resamples(n_topics, resamples, t_seed),
        _topics.trials_per_run(trials, repetitions, min(resamples, EXPERIMENT_RESAMPLES)),
    )


def renamed_statistic(stat: _noise.Statistic, names: Dict[str, str]) -> _noise.Statistic:
    """The part of ``stat`` for the measures in ``names`` (old -> new name), renamed."""
    return _noise.Statistic(
        stat.label,
        {new: stat.reps[old] for old, new in names.items()},
        {new: stat.resampled[old] for old, new in names.items() if old in stat.resampled},
        stat.higher_is_better,
        stat.digits,
        {new: stat.mc_se[old] for old, new in names.items() if old in stat.mc_se},
    )


T_STAND_IN = (
    "discriminative power on each resample from the paired t-test of every system pair (it "
    "stands in for the bootstrap test, which the repetitions use)"
)


def _per_resample(topic: Dict[str, Any], t_stand_in: bool) -> str:
    parts = [T_STAND_IN] if t_stand_in else []
    trials = topic.get("trials_per_run")
    if trials:
        parts.append(
            f"the experiments on topic subsets rerun on the first "
            f"{topic.get('experiment_resamples', topic['resamples'])} resamples, twice each "
            f"with {counted(trials, 'trial')} and independent seeds, the covariance of the "
            f"two runs "
            f"giving the topic variance free of their Monte Carlo error"
        )
    return "; ".join(parts)


def method_sentence(
    topic: Dict[str, Any], repetitions: int, unit: str = "repetitions", t_stand_in: bool = False
) -> str:
    """How the summary decides an ordering, with the method's parameters and seed;
    ``t_stand_in``: the study orders discriminative power (its resamples use the t-test)."""
    mc = (
        f"the Monte Carlo error over {repetitions} {unit}"
        if repetitions > 1
        else (
            "no Monte Carlo error (one repetition: none is claimed, and the interval leaves "
            "out the error of its one run)"
        )
    )
    how = _per_resample(topic, t_stand_in)
    return (
        f"Orderings: A > B is stated only when the 95% interval of the paired difference "
        f"excludes 0; the interval combines topic sampling ({topic['resamples']} "
        f"bootstrap resamples of the topics (Efron and Tibshirani, 1993), the same for every "
        f"measure so that differences are paired; seed {topic['seed']}"
        f"{'; ' + how if how else ''}) with {mc}. Otherwise the measures are not "
        f"distinguishable here."
    )
