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
from typing import Callable, Optional, Tuple

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.scores._results import CheckedResult
from irgauge.evaluation.tasks import run_steps
from irgauge.stats.resampling import (
    TIE_TOLERANCE,
    block_chunks,
    in_blocks,
    pair_index,
    require_finite,
    require_topics,
    resolve_seed,
)
from irgauge.types import Progress, ScoreRows


@dataclass(frozen=True)
class TukeyResult(CheckedResult):
    pvalues: np.ndarray  # m x m, symmetric, 1 on the diagonal
    ranges: np.ndarray  # B null ranges (max - min of permuted means)
    trials: int
    seed: int

    must_be_finite = ("pvalues",)


def permuted_ranges(
    values: np.ndarray,
    trials: int,
    seed: int,
    max_cells: int = 1 << 22,
    progress: Optional[Callable[[int, int], None]] = None,
) -> np.ndarray:
    """Null ranges of system means under within-topic permutation, for ``trials`` trials.

    Trial b permutes topic j's scores by ``argsort(keys[b, j])`` where ``keys`` is the
    ``trials x topics x systems`` stream of ``default_rng(seed).random``. The chunks of
    trials are independent steps (:func:`irgauge.evaluation.tasks.run_steps`: tasks on a
    cluster), each reading its own stretch of that one stream (:func:`ranges_chunk`), so
    the result depends neither on the chunk size nor on where a chunk runs.
    """
    m, n = values.shape
    by_topic = np.ascontiguousarray(values.T)  # n x m
    parts = block_chunks(trials, n * m, max_cells)

    def report(done: int, total: int) -> None:
        if progress is not None:
            progress(parts[done - 1].stop, trials)

    ranges = run_steps(
        ranges_chunk,
        [(seed, part.start, part.stop) for part in parts],
        (by_topic,),
        progress=report if progress is not None else None,
    )
    return np.concatenate(ranges)


def ranges_chunk(trials: Tuple[int, int, int], by_topic: np.ndarray) -> np.ndarray:
    """The null ranges of trials ``start <= b < stop`` of ``trials = (seed, start, stop)``
    (``by_topic``: the topics x systems scores), a block of trials at a time
    (:func:`irgauge.stats.resampling.in_blocks`: the keys, their order and the permuted
    scores of a chunk of 4M cells whole were three fresh 33 MB arrays a chunk)."""
    seed, start, stop = trials
    n, m = by_topic.shape
    ranges: np.ndarray = in_blocks(
        lambda part: _block_ranges(seed, start + part.start, start + part.stop, by_topic),
        stop - start,
        n * m,
    )
    return ranges


def _block_ranges(seed: int, start: int, stop: int, by_topic: np.ndarray) -> np.ndarray:
    """:func:`ranges_chunk` of trials ``start <= b < stop``: the generator of ``seed`` is
    advanced past the keys of the trials before ``start`` (a double of ``random`` is one
    64-bit output of PCG64, the generator of ``default_rng``), so that the keys are those a
    single stream would give them."""
    n, m = by_topic.shape
    stream = np.random.PCG64(seed)
    stream.advance(start * n * m)
    keys = np.random.Generator(stream).random((stop - start, n, m))
    perm = np.argsort(keys, axis=2, kind="stable")
    permuted = np.take_along_axis(by_topic[None, :, :], perm, axis=2)
    means = permuted.mean(axis=1)
    ranges: np.ndarray = means.max(axis=1) - means.min(axis=1)
    return ranges


def randomised_tukey_hsd(
    values: ScoreRows,
    trials: int = 1000,
    seed: Optional[int] = None,
    progress: Optional[Progress] = None,
) -> TukeyResult:
    """All-pairs randomised Tukey HSD p-values for a systems x topics score matrix."""
    values = require_finite(values, "values")
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
