"""Topic-blocked randomised Tukey HSD test (Carterette 2012; Sakai 2014).

H0: all systems are equivalent, so within each topic (block) the scores of the m systems
are exchangeable. For each of B trials, permute the scores within every topic independently,
compute the systems' means and record their range ``max - min``. For every pair (i, j):

    p(i, j) = #{b : range_b >= |mean_i - mean_j|} / B

Comparing each pair with the null distribution of the *largest* difference controls the
family-wise error rate over all pairs at once.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Optional

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.stats.resampling import (
    TIE_TOLERANCE,
    chunks,
    pair_index,
    require_finite,
    require_topics,
    resolve_seed,
)


@dataclass(frozen=True)
class TukeyResult:
    pvalues: np.ndarray  # m x m, symmetric, 1 on the diagonal
    ranges: np.ndarray  # B null ranges (max - min of permuted means)
    trials: int
    seed: int


def permuted_ranges(
    values: np.ndarray,
    trials: int,
    seed: int,
    max_cells: int = 1 << 22,
    progress: Optional[Callable[[int, int], None]] = None,
) -> np.ndarray:
    """Null ranges of system means under within-topic permutation, for ``trials`` trials.

    Trial b permutes topic j's scores by ``argsort(keys[b, j])`` where ``keys`` is the
    ``trials x topics x systems`` stream of ``default_rng(seed).random``; chunking over trials
    reads the same stream, so the result does not depend on the chunk size.
    """
    m, n = values.shape
    rng = np.random.default_rng(seed)
    by_topic = np.ascontiguousarray(values.T)  # n x m
    ranges = np.empty(trials)
    for part in chunks(trials, n * m, max_cells):
        keys = rng.random((part.stop - part.start, n, m))
        perm = np.argsort(keys, axis=2, kind="stable")
        permuted = np.take_along_axis(by_topic[None, :, :], perm, axis=2)
        means = permuted.mean(axis=1)
        ranges[part] = means.max(axis=1) - means.min(axis=1)
        if progress is not None:
            progress(part.stop, trials)
    return ranges


def randomised_tukey_hsd(
    values, trials: int = 1000, seed: Optional[int] = None, progress=None
) -> TukeyResult:
    """All-pairs randomised Tukey HSD p-values for a systems x topics score matrix."""
    values = require_finite(values)
    if values.ndim != 2 or values.shape[0] < 2:
        raise InputError(
            "Tukey HSD needs a systems x topics matrix with at least 2 systems; "
            f"got shape {values.shape}"
        )
    require_topics(values.shape[1], "Tukey HSD", needed=1)
    trials = _checks.draws(trials, "trials")
    seed = resolve_seed(seed)
    ranges = permuted_ranges(values, trials, seed, progress=progress)
    means = values.mean(axis=1)
    i, j = pair_index(len(means))
    observed = np.abs(means[i] - means[j])
    sorted_ranges = np.sort(ranges)
    # count of ranges >= observed (with tolerance for rounding), via binary search
    above = trials - np.searchsorted(sorted_ranges, observed - TIE_TOLERANCE, side="left")
    p = np.ones((len(means), len(means)))
    p[i, j] = p[j, i] = above / trials
    return TukeyResult(pvalues=p, ranges=ranges, trials=trials, seed=seed)
