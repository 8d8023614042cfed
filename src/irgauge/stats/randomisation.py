"""Paired randomisation (permutation) test, vectorised over pairs and permutations.

Under H0 the labels x and y of each topic are exchangeable, so each z_j = x_j - y_j keeps its
size and takes a random sign. With S the R x n matrix of random signs (+1/-1),

    mean*(r) = (z @ S.T)[r] / n,     p = #{r : |mean*(r)| >= |mean(z)|} / R   (two-sided).

One matrix product for all pairs and permutations, chunked over pairs (the chunks are
independent steps: tasks on a Dask cluster under ``use_engine("dask")``) and taken a block
of pairs at a time on one grid of the pairs, as the paired bootstrap's.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Union

import numpy as np

from irgauge import _checks
from irgauge.scores._results import CheckedResult
from irgauge.evaluation.tasks import run_steps
from irgauge.stats.bootstrap import _paired
from irgauge.stats.resampling import (
    TIE_TOLERANCE,
    PairDifferences,
    block_chunks,
    given_draws,
    in_blocks,
    resolve_seed,
)
from irgauge.types import TopicScores


@dataclass(frozen=True)
class RandomisationResult(CheckedResult):
    statistic: float  # mean(x - y)
    pvalue: float
    n_topics: int
    permutations: int
    seed: int

    must_be_finite = ("pvalue",)


def random_signs(n_topics: int, permutations: int, seed: int) -> np.ndarray:
    """``permutations x n_topics`` matrix of random +1/-1 signs (float)."""
    rng = np.random.default_rng(seed)
    return np.where(rng.random((permutations, n_topics)) < 0.5, -1.0, 1.0)


def randomisation_pvalues(
    diffs: Union[np.ndarray, PairDifferences], signs: np.ndarray, max_cells: int = 1 << 22
) -> np.ndarray:
    """Two-sided randomisation p-values for every row of ``diffs`` (pairs x topics, or
    the :class:`~irgauge.stats.resampling.PairDifferences` of a scores matrix). The
    chunks of pairs are independent steps (:func:`irgauge.evaluation.tasks.run_steps`:
    tasks on a cluster, each chunk's differences made where it runs), all on the same
    ``signs``, drawn by the caller, and whole blocks of one grid of the pairs
    (:func:`irgauge.stats.resampling.block_chunks`): the same bits however many steps run
    and where."""
    if not isinstance(diffs, PairDifferences):
        diffs = np.atleast_2d(np.asarray(diffs, dtype=float))
    parts = block_chunks(len(diffs), signs.shape[0], max_cells)
    p = run_steps(
        sign_flip_chunk,
        [(0, part) for part in parts],
        (np.ascontiguousarray(signs.T),),
        sources=[diffs],
    )
    return np.concatenate(p) if p else np.empty(0)


def sign_flip_chunk(diffs: np.ndarray, signs_t: np.ndarray) -> np.ndarray:
    """The p-values of a chunk of pairs, ``diffs`` their per-topic differences (pairs x
    topics), ``signs_t`` the topics x permutations random signs; a block of pairs at a
    time (:func:`irgauge.stats.resampling.in_blocks`)."""
    observed = np.abs(diffs.mean(axis=1))
    pvalues: np.ndarray = in_blocks(
        lambda part: _sign_flip_block(diffs[part], observed[part], signs_t),
        len(diffs),
        signs_t.shape[1],
    )
    return pvalues


def _sign_flip_block(diffs: np.ndarray, observed: np.ndarray, signs_t: np.ndarray) -> np.ndarray:
    """:func:`sign_flip_chunk` of a block of its pairs, ``observed`` their |mean|."""
    means = np.abs(diffs @ signs_t) / diffs.shape[1]
    # tolerance: a permuted mean equal to the observed one must count despite rounding
    counts: np.ndarray = (means >= observed[:, None] - TIE_TOLERANCE).sum(axis=1)
    pvalues: np.ndarray = counts / signs_t.shape[1]
    return pvalues


def randomisation_test(
    x: TopicScores,
    y: TopicScores,
    permutations: int = 10000,
    seed: Optional[int] = None,
    signs: Optional[np.ndarray] = None,
) -> RandomisationResult:
    """Paired randomisation test of x against y with ``permutations`` random sign flips."""
    x, y = _paired(x, y)
    seed = resolve_seed(seed)
    if signs is None:
        signs = random_signs(len(x), _checks.draws(permutations, "permutations"), seed)
    else:
        signs = given_draws(signs, len(x), "signs", columns=len(x), values=(-1.0, 1.0))
    p = randomisation_pvalues((x - y)[None, :], signs)[0]
    return RandomisationResult(
        statistic=float(np.mean(x - y)),
        pvalue=float(p),
        n_topics=len(x),
        permutations=signs.shape[0],
        seed=seed,
    )
