"""Paired randomisation (permutation) test, vectorised over pairs and permutations.

Under H0 the labels x and y of each topic are exchangeable, so each z_j = x_j - y_j keeps its
size and takes a random sign. With S the R x n matrix of random signs (+1/-1),

    mean*(r) = (z @ S.T)[r] / n,     p = #{r : |mean*(r)| >= |mean(z)|} / R   (two-sided).

One matrix product for all pairs and permutations, chunked over pairs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np

from irgauge import _checks
from irgauge.stats.bootstrap import _paired
from irgauge.stats.resampling import TIE_TOLERANCE, chunks, resolve_seed


@dataclass(frozen=True)
class RandomisationResult:
    statistic: float  # mean(x - y)
    pvalue: float
    n_topics: int
    permutations: int
    seed: int


def random_signs(n_topics: int, permutations: int, seed: int) -> np.ndarray:
    """``permutations x n_topics`` matrix of random +1/-1 signs (float)."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random((permutations, n_topics)) < 0.5, -1.0, 1.0)


def randomisation_pvalues(
    diffs: np.ndarray, signs: np.ndarray, max_cells: int = 1 << 22
) -> np.ndarray:
    """Two-sided randomisation p-values for every row of ``diffs`` (pairs x topics)."""
    diffs = np.atleast_2d(np.asarray(diffs, dtype=float))
    n = diffs.shape[1]
    observed = np.abs(diffs.mean(axis=1))
    p = np.empty(len(diffs))
    signs_t = np.ascontiguousarray(signs.T)
    for part in chunks(len(diffs), signs.shape[0], max_cells):
        means = np.abs(diffs[part] @ signs_t) / n
        # tolerance: a permuted mean equal to the observed one must count despite rounding
        p[part] = (means >= observed[part, None] - TIE_TOLERANCE).sum(axis=1) / signs.shape[0]
    return p


def randomisation_test(
    x, y, permutations: int = 10000, seed: Optional[int] = None, signs: Optional[np.ndarray] = None
) -> RandomisationResult:
    """Paired randomisation test of x against y with ``permutations`` random sign flips."""
    x, y = _paired(x, y)
    seed = resolve_seed(seed)
    if signs is None:
        signs = random_signs(len(x), _checks.draws(permutations, "permutations"), seed)
    p = randomisation_pvalues((x - y)[None, :], signs)[0]
    return RandomisationResult(
        statistic=float(np.mean(x - y)),
        pvalue=float(p),
        n_topics=len(x),
        permutations=signs.shape[0],
        seed=seed,
    )
