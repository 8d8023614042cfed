"""Paired bootstrap test (Sakai 2006, "Bootstrap-based comparisons of IR metrics"),
vectorised over pairs and samples.

For per-topic differences ``z = x - y`` over n topics:

    t(z)   = mean(z) / (sd(z) / sqrt(n))          sd with n - 1
    w      = z - mean(z)                          shifted to obey H0
    t(w*b) = mean(w*b) / (sd(w*b) / sqrt(n))      for each bootstrap sample b of topics
    ASL    = #{b : |t(w*b)| >= |t(z)|} / B        two-sided

With ``C`` the B x n count matrix of the samples (C[b, j] = times topic j was drawn), all
bootstrap means of all pairs are ``W @ C.T / n`` and the sums of squares ``W**2 @ C.T``: two
matrix products, chunked over pairs to bound memory (the chunks are independent steps: tasks
on a Dask cluster under ``use_engine("dask")``), each chunk taken a block of pairs at a time
on one grid of the pairs (:func:`irgauge.stats.resampling.block_chunks`), so that the bits
do not depend on the chunks.

Ties: a pair whose mean difference is within TIE_TOLERANCE (stats.resampling) has ASL = 1,
as in every other test (rounding must not make equal means look different). Degenerate
pairs: when sd(z) = 0 (the systems differ by a nonzero constant), t(z) is infinite and the
ASL is 0.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Optional, Sequence, Tuple, Union

import numpy as np

from irgauge import _checks
from irgauge.scores._results import CheckedResult
from irgauge.errors import InputError
from irgauge.evaluation.tasks import run_steps
from irgauge.stats.resampling import (
    PairDifferences,
    block_chunks,
    bootstrap_indices,
    given_draws,
    finite_differences,
    in_blocks,
    index_counts,
    require_finite,
    require_topics,
    resolve_seed,
    studentised,
    tied,
    weighted_t,
)
from irgauge.types import TopicScores


@dataclass(frozen=True)
class BootstrapResult(CheckedResult):
    """Paired bootstrap test of x against y."""

    statistic: float  # t(z)
    pvalue: float  # two-sided ASL
    mean_difference: float  # mean(x - y)
    n_topics: int
    samples: int  # B
    seed: int

    must_be_finite = ("pvalue",)


@dataclass(frozen=True)
class PairBootstrap(CheckedResult):
    """Bootstrap results for many pairs at once (arrays aligned with the pairs)."""

    statistic: np.ndarray  # t(z) per pair
    asl: np.ndarray  # ASL per pair
    # required[a][p]: |mean(w*b)| of the sample at the (B*alpha)-th largest |t(w*b)| of pair p
    required: dict
    difference: Optional[np.ndarray] = None  # mean(z) per pair


def bootstrap_pairs(
    diffs: Union[np.ndarray, PairDifferences],
    counts: np.ndarray,
    alphas: Sequence[float] = (),
    max_cells: int = 1 << 22,
    progress: Optional[Callable[[int, int], None]] = None,
) -> PairBootstrap:
    """Run the paired bootstrap test on every row of ``diffs`` (pairs x topics, or the
    :class:`~irgauge.stats.resampling.PairDifferences` of a scores matrix).

    ``counts`` is the B x n sample count matrix (:func:`index_counts`), shared by every pair.
    For each alpha in ``alphas`` also return, per pair, ``|mean(w*b)|`` for the sample b
    holding the (B*alpha)-th largest ``|t(w*b)|`` (the input of the required difference).
    """
    return bootstrap_pair_sets([diffs], counts, alphas, max_cells, progress)[0]


def bootstrap_pair_sets(
    diff_sets: Sequence[Union[np.ndarray, PairDifferences]],
    counts: np.ndarray,
    alphas: Sequence[float] = (),
    max_cells: int = 1 << 22,
    progress: Optional[Callable[[int, int], None]] = None,
) -> List[PairBootstrap]:
    """:func:`bootstrap_pairs` of each pairs x topics matrix of ``diff_sets`` (e.g. one per
    measure), on the same samples; ``progress(done, total)`` counts the pairs of each set
    in turn. The chunks of pairs are independent steps
    (:func:`irgauge.evaluation.tasks.run_steps`: tasks on a cluster, with the same
    result; a chunk's differences are made where it runs, see ``sources`` there)."""
    diff_sets = [finite_differences(d) for d in diff_sets]
    for diffs in diff_sets:
        require_topics(diffs.shape[1], "the paired bootstrap test")
    samples = counts.shape[0]
    ranks = {a: int(round(samples * a)) for a in alphas}
    parts = [
        (k, part)
        for k, diffs in enumerate(diff_sets)
        for part in block_chunks(len(diffs), samples, max_cells)
    ]

    def report(done: int, total: int) -> None:
        k, part = parts[done - 1]
        if progress is not None:
            progress(part.stop, len(diff_sets[k]))

    chunk_results = run_steps(
        bootstrap_chunk,
        parts,
        (np.ascontiguousarray(counts.T), ranks),
        progress=report if progress is not None else None,
        sources=diff_sets,
    )
    results = []
    for k, diffs in enumerate(diff_sets):
        mine = [(part, r) for (j, part), r in zip(parts, chunk_results) if j == k]
        results.append(_assembled(len(diffs), mine, alphas))
    return results


def bootstrap_chunk(diffs: np.ndarray, counts_t: np.ndarray, ranks: dict):
    """(t(z), ASL, {alpha: required}, mean(z)) of a chunk of pairs: ``diffs`` their per-topic
    differences (pairs x topics), ``counts_t`` the n x B sample counts and ``ranks`` the
    rank (B*alpha) of each alpha; a block of pairs at a time (:func:`in_blocks`). The
    observed t and the centred differences w are computed here, a chunk at a time on the
    steps' threads: computed for every pair before the steps, they were a serial second or
    two and a copy of every difference (on 1,000 systems x 100 topics, 400 MB). Ties and
    flat pairs are set as the module says."""
    observed = studentised(diffs)
    mean = diffs.mean(axis=1)
    w = diffs - mean[:, None]
    abs_observed = np.abs(observed)
    asl, required = in_blocks(
        lambda part: _bootstrap_block(w[part], abs_observed[part], counts_t, ranks),
        len(w),
        counts_t.shape[1],
    )
    flat = np.ptp(diffs, axis=1) == 0
    equal = tied(mean)
    asl[flat] = 0.0
    asl[equal] = 1.0
    for values in required.values():
        values[flat | equal] = np.nan
    return observed, asl, required, mean


def _bootstrap_block(w: np.ndarray, abs_observed: np.ndarray, counts_t: np.ndarray, ranks: dict):
    """:func:`bootstrap_chunk` of a block of its pairs."""
    samples = counts_t.shape[1]
    # sum((w - mean)^2) = sum(w^2) - n mean^2
    mean, _, t = weighted_t(w, counts_t)
    abs_t = np.abs(t)
    asl = (abs_t >= abs_observed[:, None]).sum(axis=1) / samples
    required = {}
    # nan (0/0: a sample of identical w) ranks last
    order_key = np.where(np.isnan(abs_t), -np.inf, abs_t)
    for alpha, k in ranks.items():
        if 1 <= k <= samples:
            pos = np.argpartition(-order_key, k - 1, axis=1)[:, k - 1]
            picked = np.take_along_axis(np.abs(mean), pos[:, None], axis=1)[:, 0]
            ok = np.isfinite(np.take_along_axis(order_key, pos[:, None], axis=1)[:, 0])
            required[alpha] = np.where(ok, picked, np.nan)
    return asl, required


def _assembled(n_pairs: int, parts, alphas) -> PairBootstrap:
    """The PairBootstrap of one set of ``n_pairs`` pairs from its chunks' (slice, (t(z),
    ASL, required))."""
    statistic, asl, difference = np.empty(n_pairs), np.empty(n_pairs), np.empty(n_pairs)
    required = {a: np.full(n_pairs, np.nan) for a in alphas}
    for part, (chunk_t, chunk_asl, chunk_required, chunk_mean) in parts:
        statistic[part], asl[part], difference[part] = chunk_t, chunk_asl, chunk_mean
        for alpha, values in chunk_required.items():
            required[alpha][part] = values
    return PairBootstrap(statistic=statistic, asl=asl, required=required, difference=difference)


def paired_bootstrap_test(
    x: TopicScores,
    y: TopicScores,
    samples: int = 1000,
    seed: Optional[int] = None,
    indices: Optional[np.ndarray] = None,
) -> BootstrapResult:
    """Paired bootstrap test of per-topic scores x against y (two-sided ASL).

    ``indices`` (B x n topic indices) replaces the seeded draw, e.g. to share samples.
    """
    x, y = _paired(x, y)
    seed = resolve_seed(seed)
    if indices is None:
        indices = bootstrap_indices(len(x), _checks.draws(samples, "samples"), seed)
    else:
        indices = given_draws(indices, len(x), "indices", columns=len(x))
    counts = index_counts(indices, len(x))
    result = bootstrap_pairs((x - y)[None, :], counts)
    return BootstrapResult(
        statistic=float(result.statistic[0]),
        pvalue=float(result.asl[0]),
        mean_difference=float(np.mean(x - y)),
        n_topics=len(x),
        samples=counts.shape[0],
        seed=seed,
    )


def _paired(x, y) -> Tuple[np.ndarray, np.ndarray]:
    x = require_finite(x, "x")
    y = require_finite(y, "y")
    if x.ndim != 1 or x.shape != y.shape:
        raise InputError(f"x and y must be 1-d and of equal length, got {x.shape} and {y.shape}")
    require_topics(len(x), "a paired test")
    return x, y
