"""The studies' statistics on topic resamples: what another sample of topics would give.

Each function takes the T x n topic indices of :func:`irgauge.studies._noise.topic_resamples`
(drawn once per study and shared by every measure, so that differences between measures are
paired) and returns, per measure, the statistic on each resample (T values; NaN where it is
undefined, e.g. a required difference not reached):

* discriminative power and its required difference, from the studentised statistic
  t = mean(z) / (sd(z) / sqrt(n)) of every system pair on the resampled topics, significant
  when |t| > t_{n-1, 1 - alpha/2}: the paired t-test stands in for the bootstrap test within
  a resample (it needs no bootstrap samples, and the two agree closely), all resamples at
  once by one product with the resamples' topic counts;
* Kendall's tau between the system rankings by mean score on each resample
  (:func:`irgauge.meta.kendall.kendall_tau_columns`, with its tie rule);
* the swap method, stability and predictive power, rerun twice with independent seeds on
  each resampled topic set, with :func:`trials_per_run` trials each (so that all resamples
  together cost one more set of repetitions): T x 2 values per measure, whose covariance
  over the resamples is the topic variance free of the few trials' Monte Carlo error
  (:func:`irgauge.studies._noise.topic_variance`).
"""

from __future__ import annotations

import math
from typing import Dict, List, Tuple

import numpy as np
import pandas as pd

from irgauge import meta
from irgauge.evaluation.tasks import run_steps
from irgauge.meta.kendall import kendall_tau_columns
from irgauge.scores import ScoreMatrix
from irgauge.stats.resampling import index_counts, pair_index, weighted_t
from irgauge.studies._noise import Z95, repetition_seeds

Arrays = Dict[str, np.ndarray]


RUNS_PER_RESAMPLE = 2  # independent runs of an experiment on each resample


def trials_per_run(trials: int, repetitions: int, resamples: int) -> int:
    """Trials of each run of a resample's experiment: the trials of all repetitions spread
    over the resamples' two runs (at least 10, so that each run's statistic exists at
    all)."""
    return max(10, math.ceil(trials * repetitions / (RUNS_PER_RESAMPLE * max(resamples, 1))))


def resampled(matrices, indices: np.ndarray) -> Dict[str, ScoreMatrix]:
    """The matrices on the resampled topics (a topic drawn twice is two topics)."""
    topics = [f"resampled-{k}" for k in range(len(indices))]
    return {
        name: ScoreMatrix(m.values[:, indices], m.systems, topics, m.measure, m.source)
        for name, m in matrices.items()
    }


def discriminative_power(matrices, alpha: float, resamples: np.ndarray) -> Tuple[Arrays, Arrays]:
    """(share of pairs significant, required difference) per measure on each resample.

    The required difference of a resample is the largest t_crit * sd(z) / sqrt(n) over the
    pairs (the difference at which each pair would just be significant).
    """
    from irgauge.stats.tails import t_critical  # scipy.special: it loads fast

    n = resamples.shape[1]
    counts = index_counts(resamples, n).T  # n x T
    crit = t_critical(alpha, n - 1)  # scipy's stdtrit is +inf far in the tail
    share, required = {}, {}
    for name, m in matrices.items():
        i, j = pair_index(m.n_systems)
        mean, se, _ = weighted_t(m.values[i] - m.values[j], counts)
        # rounding of equal differences is not a difference
        with np.errstate(invalid="ignore"):  # crit = inf (beyond a double) times se = 0
            significant = np.abs(mean) > np.where(se > 0, crit * se, 0.0) + 1e-12
        share[name] = significant.mean(axis=0)
        largest = np.where(se > 0, crit * se, -1.0).max(axis=0)
        required[name] = np.where(largest > 0, largest, np.nan)
    return share, required


def system_means(matrices, resamples: np.ndarray) -> Arrays:
    """Per measure: systems x T mean scores on the resampled topics."""
    n = resamples.shape[1]
    counts = index_counts(resamples, n).T
    return {name: (m.values @ counts) / n for name, m in matrices.items()}


def taus(matrices, resamples: np.ndarray) -> Dict[Tuple[str, str], np.ndarray]:
    """(a, b) -> tau-b between the rankings by a and by b on each resample."""
    means = system_means(matrices, resamples)
    names = list(matrices)
    return {
        (a, b): kendall_tau_columns(means[a], means[b])
        for k, a in enumerate(names)
        for b in names[k + 1 :]
    }


def _draws(resamples: np.ndarray, seed: int) -> List[Tuple[np.ndarray, int]]:
    """(topic indices, seed) of every run on the resamples, two runs with independent
    seeds on each resample, in (resample, run) order: the steps of
    :func:`~irgauge.evaluation.tasks.run_steps` (tasks on a cluster, same results)."""
    seeds = repetition_seeds(seed, RUNS_PER_RESAMPLE * len(resamples))
    return [
        (idx, seeds[RUNS_PER_RESAMPLE * t + r])
        for t, idx in enumerate(resamples)
        for r in range(RUNS_PER_RESAMPLE)
    ]


def _paired(values: Dict, n: int) -> Dict:
    """key -> T x 2 array from lists of values in (resample, run) order."""
    return {k: np.asarray(v, float).reshape(n, RUNS_PER_RESAMPLE) for k, v in values.items()}


def _swap_on(draw, matrices, c: int, trials: int, mode: str, replacement: bool):
    idx, seed = draw
    return meta.swap_rates(
        resampled(matrices, idx), c, trials, seed, swap_mode=mode, replacement=replacement
    )


def _stability_on(draw, matrices, c: int, trials: int):
    idx, seed = draw
    return meta.stability(resampled(matrices, idx), subset_size=c, trials=trials, seed=seed)


def _predictive_on(draw, matrices, halvings: int, variant: str, sizes):
    idx, seed = draw
    return meta.predictive_power(
        resampled(matrices, idx),
        halvings=halvings,
        seed=seed,
        top_fraction=1.0,
        variant=variant,
        subset_sizes=sizes,
    )


def swap(
    matrices, c: int, trials: int, resamples: np.ndarray, seed: int, mode: str, replacement: bool
) -> Tuple[Arrays, Arrays]:
    """(share of comparisons reaching the required difference, required difference) per
    measure on each resample, T x 2 (two runs); NaN where the required difference is not
    reached (the catch-all bin) or not found."""
    share: Dict[str, list] = {m: [] for m in matrices}
    required: Dict[str, list] = {m: [] for m in matrices}
    results = run_steps(_swap_on, _draws(resamples, seed), (matrices, c, trials, mode, replacement))
    for res in results:
        for row in res.details["summary"].itertuples(index=False):
            reached = row.required_difference < CATCH_ALL - 1e-9
            share[row.measure].append(row.share_reaching if reached else np.nan)
            required[row.measure].append(row.required_difference if reached else np.nan)
    return _paired(share, len(resamples)), _paired(required, len(resamples))


CATCH_ALL = 0.20  # lower edge of the swap method's last difference bin (|d| >= 0.20)


def stability(matrices, c: int, trials: int, resamples: np.ndarray, seed: int) -> pd.DataFrame:
    """The stability curves on each resample, one "repetition" per resample, its two runs
    told apart by column "run"."""
    results = run_steps(_stability_on, _draws(resamples, seed), (matrices, c, trials))
    rows = [
        res.table.assign(repetition=k // RUNS_PER_RESAMPLE, run=k % RUNS_PER_RESAMPLE)
        for k, res in enumerate(results)
    ]
    return pd.concat(rows, ignore_index=True)


def predictive(
    matrices, halvings: int, resamples: np.ndarray, seed: int, variant: str, sizes=()
) -> Tuple[Dict[Tuple[str, str], np.ndarray], Dict[Tuple[str, str, int], np.ndarray]]:
    """(a, b) -> phi(a predicts b) on each resample, T x 2 (two runs of ``halvings``
    halvings); and (a, b, k) -> phi at subset size k on each resample, likewise."""
    out: Dict[Tuple[str, str], list] = {}
    curve: Dict[Tuple[str, str, int], list] = {}
    n = resamples.shape[1]
    sizes = [k for k in sizes if 2 * k <= n]
    results = run_steps(
        _predictive_on, _draws(resamples, seed), (matrices, halvings, variant, sizes)
    )
    for res in results:
        for row in res.table.itertuples(index=False):
            out.setdefault((row.measure_a, row.measure_b), []).append(row.phi)
        for row in res.details["curve"].itertuples(index=False):
            curve.setdefault((row.measure_a, row.measure_b, int(row.k)), []).append(row.phi)
    return _paired(out, len(resamples)), _paired(curve, len(resamples))


def interval(value: float, draws: np.ndarray, low: float, high: float) -> Tuple[float, float]:
    """value +/- 1.96 sd of its resampled draws, clipped to the statistic's range."""
    draws = np.asarray(draws, float)
    draws = draws[np.isfinite(draws)]
    half = Z95 * draws.std(ddof=1) if len(draws) > 1 else math.inf
    return max(low, value - half), min(high, value + half)
