"""Random samples of topics, drawn once and shared by every pair, measure and statistic.

Each sampler is a pure function of (sizes, seed): the same seed gives the same samples, so a
test can regenerate exactly the samples that a vectorised method used. The steps that
resample cut their rows into chunks and blocks on one grid here (:func:`block_chunks`,
:func:`in_blocks`).
"""

from __future__ import annotations

from typing import Any, Callable, List, Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike

from irgauge import _checks
from irgauge.evaluation.tasks import step_cells
from irgauge._checks import resolve_seed as resolve_seed  # re-exported: stats' callers use it here
from irgauge.errors import InputError, InputSizeError
from irgauge.io.words import counted
from irgauge.scores.matrix import MAX_SCORE

# Differences smaller than this are treated as exact ties: mathematically equal means (e.g. of
# P@10 values) may differ by floating-point rounding depending on summation order.
TIE_TOLERANCE = 1e-12


def require_topics(n_topics: int, method: str, needed: int = 2, source=None) -> None:
    """InputError unless there are ``needed`` topics: a paired test's standard deviation
    (n - 1 in the denominator) and every resampling of topics need at least two."""
    if n_topics < needed:
        raise InputSizeError(
            f"{method} needs at least {counted(needed, 'topic')}; got {n_topics}", source
        )


def require_finite(values: ArrayLike, what: str = "scores", limit: float = MAX_SCORE) -> np.ndarray:
    """InputError naming the first value that is not finite (a NaN would silently make
    every comparison False, i.e. 'significant') or beyond ``limit`` in magnitude: a score
    matrix's bound, MAX_SCORE (twice it for differences of scores), past which the tests'
    sums of squares overflow (scores of 1e200 gave t = 0 and p = 1 for a clear
    difference)."""
    checked: np.ndarray = _checks.real_array(values, what)
    bad = ~(np.abs(checked) <= limit)
    if bad.any():
        where = tuple(int(k) for k in np.argwhere(bad)[0])
        at = f"{checked[where]} at index {where if len(where) > 1 else where[0]}"
        if not np.isfinite(checked[where]):
            raise InputError(f"{what} must be finite numbers; found {at}")
        raise InputError(
            f"{what} must be at most {limit:g} in magnitude (beyond it their squares "
            f"overflow); found {at}"
        )
    return checked


def given_draws(
    drawn: Any,
    n_topics: int,
    name: str = "indices",
    columns: Optional[int] = None,
    values: Optional[Tuple[float, ...]] = None,
) -> np.ndarray:
    """A caller's resamples in place of a seeded draw (``indices=``, ``signs=``): a 2-d
    array of at least one row (a resample each), ``columns`` wide when given, of topic
    positions in [0, n_topics) or, with ``values``, of those values only (signs: -1, 1).
    Anything else is refused naming ``name``: numpy would read -1 as the last topic,
    truncate 1.5, or fail in its own words deep inside the statistic."""
    try:
        array = np.asarray(drawn)
        ok_kind = array.dtype.kind in "iuf" and array.dtype != bool
    except (TypeError, ValueError):
        array, ok_kind = np.empty((0, 0)), False
    wide = n_topics if columns is None else columns
    shape = f"resamples x {wide}" if columns is not None else "resamples x topics"
    if (
        not ok_kind
        or array.ndim != 2
        or 0 in array.shape
        or (columns is not None and array.shape[1] != columns)
    ):
        got = array.shape if ok_kind else type(drawn).__name__
        raise InputError(f"{name}: expected a {shape} array of numbers; got {got}", parameter=name)
    if values is not None:
        bad = ~np.isin(array, values)
        allowed = "or ".join(f"{v:g} " for v in values).strip()
    else:
        bad = ~np.isfinite(array) | (array != np.round(array)) | (array < 0) | (array >= n_topics)
        allowed = f"topic positions 0 to {n_topics - 1}"
    if bad.any():
        where = tuple(int(k) for k in np.argwhere(bad)[0])
        raise InputError(
            f"{name}: expected {allowed}; got {array[where]} at {where}", parameter=name
        )
    return array if values is not None else array.astype(np.int64, copy=False)


def tied(mean_difference: np.ndarray) -> np.ndarray:
    """Pairs whose mean difference is a tie (within TIE_TOLERANCE): every test gives them
    p = 1, the same however the test computes its statistic."""
    return np.abs(np.asarray(mean_difference, dtype=float)) <= TIE_TOLERANCE


def bootstrap_indices(n_topics: int, samples: int, seed: int) -> np.ndarray:
    """``samples x n_topics`` topic indices drawn with replacement (row b = bootstrap sample b)."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_topics, size=(samples, n_topics))


def index_counts(indices: np.ndarray, n_topics: int) -> np.ndarray:
    """Count matrix ``C[b, j]`` = times topic j occurs in row b of ``indices`` (float64).

    A mean over a resampled topic set is then ``(values @ C.T) / size``: one matrix product
    for every system or pair and every sample.
    """
    rows, size = indices.shape
    flat = (indices + n_topics * np.arange(rows)[:, None]).ravel()
    return np.bincount(flat, minlength=rows * n_topics).reshape(rows, n_topics).astype(float)


def permutations(n_topics: int, trials: int, seed: int) -> np.ndarray:
    """``trials x n_topics``: row t is a uniformly random permutation of the topics."""
    keys = np.random.default_rng(seed).random((trials, n_topics))
    order = np.argsort(keys, axis=1)
    # Equal keys in a row (odds below 1e-7 per million keys in rows of up to 1000 topics)
    # would be ordered by whichever sort this platform's numpy picks; the stable sort keeps
    # seeded results portable (and equal to the stable sort's where no keys tie).
    keys.sort(axis=1)
    if (keys[:, 1:] == keys[:, :-1]).any():
        keys = np.random.default_rng(seed).random((trials, n_topics))
        order = np.argsort(keys, axis=1, kind="stable")
    return order


def subset_indices(
    n_topics: int, size: int, trials: int, seed: int, replacement: bool = False
) -> np.ndarray:
    """``trials x size`` topic indices: a subset of ``size`` topics per trial."""
    if replacement:
        return np.random.default_rng(seed).integers(0, n_topics, size=(trials, size))
    return permutations(n_topics, trials, seed)[:, :size]


def disjoint_subset_indices(
    n_topics: int, size: int, trials: int, seed: int, replacement: bool = False
) -> Tuple[np.ndarray, np.ndarray]:
    """Two ``trials x size`` index arrays, Q and Q'.

    Without replacement Q and Q' are the first and second ``size`` topics of one random
    permutation per trial, hence disjoint (``2 * size <= n_topics``). With replacement each is
    drawn independently with replacement (Voorhees and Buckley's variant; no disjointness).
    """
    if replacement:
        rng = np.random.default_rng(seed)
        both = rng.integers(0, n_topics, size=(trials, 2 * size))
    else:
        both = permutations(n_topics, trials, seed)[:, : 2 * size]
    return both[:, :size], both[:, size : 2 * size]


def subset_means(values: np.ndarray, indices: np.ndarray) -> np.ndarray:
    """Means of every system over every trial's subset: ``trials x systems``.

    One product of the ``trials x topics`` count mask with the ``topics x systems`` scores.
    """
    return subset_mask(indices, values.shape[1]) @ values.T


def subset_mask(indices: np.ndarray, n_topics: int) -> np.ndarray:
    """``trials x topics`` weights: counts / subset size, so ``mask @ values.T`` = means."""
    return index_counts(indices, n_topics) / indices.shape[1]


def pair_index(n_systems: int) -> Tuple[np.ndarray, np.ndarray]:
    """Row and column indices (i < j) of all system pairs, in row-major order."""
    return np.triu_indices(n_systems, k=1)


class PairDifferences:
    """The per-topic differences ``values[i] - values[j]`` of the system pairs (i, j)
    (``pairs``, default every pair i < j in row-major order, :func:`pair_index`), a
    pairs x topics matrix made a slice of pairs at a time where a step uses it
    (:func:`irgauge.evaluation.tasks.run_steps`' ``sources``): a worker is sent the
    scores once and makes its own slices, where it was sent the differences a slice at a
    time (on 1,000 systems x 100 topics, 0.8 MB against 400 MB), and a local step makes
    only its chunk. ``made``: the differences already made here, sliced here instead
    (never sent). A slice is the same bits however it is made (a subtraction per cell)."""

    def __init__(
        self,
        values: ArrayLike,
        pairs: Optional[Tuple[ArrayLike, ArrayLike]] = None,
        made: Optional[np.ndarray] = None,
    ) -> None:
        self.values = np.asarray(values, dtype=float)
        self.made = made
        self._pair_index(pairs)
        # pairs that are every pair in pair_index's order (compare's, as often as not)
        # travel as the default does: as nothing, a worker lists them again
        self._given = pairs is not None and not self._every_pair()

    def _pair_index(self, pairs: Optional[Tuple[ArrayLike, ArrayLike]]) -> None:
        if pairs is None:
            pairs = pair_index(len(self.values))
        self.i, self.j = (np.asarray(p, dtype=np.intp) for p in pairs)
        self.shape = (len(self.i), self.values.shape[1])

    def _every_pair(self) -> bool:
        n = len(self.values)
        if len(self.i) != n * (n - 1) // 2:
            return False
        i, j = pair_index(n)
        return bool(np.array_equal(self.i, i) and np.array_equal(self.j, j))

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, part: slice) -> np.ndarray:
        if self.made is not None:
            return self.made[part]
        return self.values[self.i[part]] - self.values[self.j[part]]

    def whole(self) -> np.ndarray:
        """Every pair's differences at once."""
        return self[slice(None)]

    def __getstate__(self) -> dict:
        # every pair is sent as the scores alone (a worker lists the pairs again), and
        # never the differences made here
        pairs = (self.i, self.j) if self._given else None
        return {"values": self.values, "pairs": pairs}

    def __setstate__(self, state: dict) -> None:
        self.values, self._given, self.made = state["values"], state["pairs"] is not None, None
        self._pair_index(state["pairs"])


def finite_differences(diffs: Any, what: str = "score differences") -> Any:
    """``diffs`` (a pairs x topics array, or :class:`PairDifferences`) checked as
    :func:`require_finite` checks an array (2-d, each within twice MAX_SCORE; an error
    names the first bad difference). :class:`PairDifferences` are made whole only where
    some score is beyond MAX_SCORE (differences of the others are within twice it)."""
    if isinstance(diffs, PairDifferences):
        values = diffs.values
        if values.ndim == 2 and (np.abs(values) <= MAX_SCORE).all():
            return diffs  # differences of scores within MAX_SCORE are within twice it
        with np.errstate(over="ignore"):  # (named below, as an array's would be)
            require_finite(diffs.whole(), what, 2 * MAX_SCORE)
        return diffs
    return require_finite(np.atleast_2d(np.asarray(diffs, dtype=float)), what, 2 * MAX_SCORE)


def chunks(total: int, per_item: int, max_cells: int = 1 << 22):
    """Slices over ``total`` items so that each chunk holds at most ``max_cells`` cells."""
    step = max(1, max_cells // max(1, per_item))
    for start in range(0, total, step):
        yield slice(start, min(total, start + step))


# The steps whose rows come from a matrix product (a bootstrap's or a randomisation test's
# pairs; the randomised Tukey HSD's trials, for their temporaries alone) take their rows
# BLOCK_CELLS cells (rows x cells a row) at a time: a block's temporaries then stay in the
# cache and on the heap, where a chunk of 4M cells whole (33 MB an array) had them mapped
# and faulted in anew by every chunk, a Dask worker's more than this process's. Measured
# on 400 systems x 50 topics, one CPU: the bootstrap 2.5 s of CPU against 5.9-6.4 s (1,000
# page faults against 1.0-1.4M), the randomisation test (10,000 sign flips) 7.8 s against
# 15.3 s (3.1M faults fewer). The blocks also fix the output's bits: a matrix product
# gives a row's values bit for bit only in the same block (BLAS sums in an order that
# depends on the matrix's shape and the row's place in it: 297 of 300 rows differed in
# their last bits between one product and blocks of 7 rows), so every chunk is whole
# blocks (block_chunks) and the blocks lie on one grid of the rows, set by the cells a row
# alone, whatever the threads, the engine or max_cells cut. A step whose every block
# streams a big operand shared by all its rows takes bigger blocks (``block_cells``:
# system agreement's, whose rows are that operand's columns).
BLOCK_CELLS = 1 << 18


def block_rows(cells_per_row: int, block_cells: Optional[int] = None) -> int:
    """The rows of a block: ``block_cells`` (default BLOCK_CELLS) cells of
    ``cells_per_row`` each (at least one)."""
    cells = BLOCK_CELLS if block_cells is None else block_cells
    return max(1, cells // max(1, cells_per_row))


def block_chunks(
    rows: int, cells_per_row: int, max_cells: int = 1 << 22, block_cells: Optional[int] = None
) -> List[slice]:
    """Slices over ``rows`` rows for :func:`irgauge.evaluation.tasks.run_steps`, each whole
    blocks of :func:`block_rows` on the one grid from row 0 (the last one's last block may
    be short) and of at most :func:`~irgauge.evaluation.tasks.step_cells` cells (at least
    one block): a step runs its chunk through :func:`in_blocks` (with the same
    ``block_cells``), and every row is computed in the same block however many steps run
    at once and where."""
    block = block_rows(cells_per_row, block_cells)
    per_chunk = max(block, step_cells(max_cells) // max(1, cells_per_row) // block * block)
    return [slice(start, min(rows, start + per_chunk)) for start in range(0, rows, per_chunk)]


def in_blocks(
    block: Callable[[slice], Any],
    rows: int,
    cells_per_row: int,
    block_cells: Optional[int] = None,
) -> Any:
    """``block(part)`` for each block ``part`` of a chunk's ``rows`` rows (slices of
    :func:`block_rows`, from the chunk's first row: a chunk of :func:`block_chunks` starts
    on the grid), their results joined in order: arrays concatenated along their first
    axis, and tuples and dicts of them member by member. A chunk of no rows is one empty
    block, so that the joined result has the shapes and keys of a block's."""
    step = block_rows(cells_per_row, block_cells)
    parts = [slice(start, min(rows, start + step)) for start in range(0, rows, step)]
    return _joined([block(part) for part in parts or [slice(0, 0)]])


def _joined(results: List[Any]) -> Any:
    first = results[0]
    if isinstance(first, tuple):
        return tuple(_joined([r[k] for r in results]) for k in range(len(first)))
    if isinstance(first, dict):
        return {key: _joined([r[key] for r in results]) for key in first}
    return first if len(results) == 1 else np.concatenate(results)


def t_ratio(mean: np.ndarray, se: np.ndarray) -> np.ndarray:
    """The t statistic, t = mean / se: inf where se = 0 and mean != 0, NaN where both are
    0. Every paired t of irgauge is this one division (with :func:`studentised` and
    :func:`weighted_t` for its standard error)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(mean, float) / se


def studentised(z: np.ndarray) -> np.ndarray:
    """t = mean(z) / (sd(z) / sqrt(n)) along the last axis (sd with n - 1)."""
    n = z.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        se = z.std(axis=-1, ddof=1) / np.sqrt(n)
    return t_ratio(z.mean(axis=-1), se)


def welch_t(x: np.ndarray, y: np.ndarray):
    """(t, df) of Welch's unpaired t-test along the last axis: t = (mean(x) - mean(y)) /
    sqrt(v_x / n_x + v_y / n_y), variances with n - 1, and the Welch-Satterthwaite
    df = (v_x/n_x + v_y/n_y)^2 / ((v_x/n_x)^2 / (n_x - 1) + (v_y/n_y)^2 / (n_y - 1))."""
    nx, ny = x.shape[-1], y.shape[-1]
    with np.errstate(divide="ignore", invalid="ignore"):
        ex = x.var(axis=-1, ddof=1) / nx
        ey = y.var(axis=-1, ddof=1) / ny
        # in units of the larger of the two, so that the squares of scores near 1e100 do
        # not overflow (df is free of the scale; 0/0 only where both samples are constant)
        unit = np.maximum(ex, ey)
        a, b = ex / unit, ey / unit
        df = (a + b) ** 2 / (a**2 / (nx - 1) + b**2 / (ny - 1))
    return t_ratio(x.mean(axis=-1) - y.mean(axis=-1), np.sqrt(ex + ey)), df


def weighted_t(z: np.ndarray, counts: np.ndarray, squares: Optional[np.ndarray] = None):
    """(mean, se, t) of each row of ``z`` (rows x topics) under each column of ``counts``
    (topics x samples, each column summing to n: a resample's topic counts): mean =
    z @ c / n, var = max((z^2 @ c - n mean^2) / (n - 1), 0) (rounding below 0 clipped),
    se = sqrt(var / n), t = mean / se; each rows x samples. ``squares``: z^2, where the
    caller computes it once for many blocks of samples."""
    n = counts.sum(axis=0)[0] if counts.size else 0
    mean = (z @ counts) / n
    if squares is None:
        squares = z * z
    with np.errstate(divide="ignore", invalid="ignore"):
        var = np.maximum((squares @ counts - n * mean * mean) / (n - 1), 0.0)
    se = np.sqrt(var / n)
    return mean, se, t_ratio(mean, se)


def percentile_interval(samples: np.ndarray, confidence: float, outward: bool = False):
    """(low, high): the percentile interval at ``confidence`` of each column of ``samples``
    (samples x columns), the (1 - confidence)/2 and (1 + confidence)/2 percentiles of the
    column's finite samples (NaN samples left out; NaN bounds for a column with none).
    ``outward``: each bound is a sample itself, the lower and the higher order statistic
    around its percentile (so the interval of whole numbers is whole numbers)."""
    tail = (1.0 - confidence) / 2 * 100
    low = np.full(samples.shape[1:], np.nan)
    high = np.full(samples.shape[1:], np.nan)
    finite = np.isfinite(samples).any(axis=0)
    if finite.any():
        kept = samples[:, finite]
        if outward:
            low[finite] = np.nanpercentile(kept, tail, axis=0, method="lower")
            high[finite] = np.nanpercentile(kept, 100 - tail, axis=0, method="higher")
        else:
            low[finite], high[finite] = np.nanpercentile(kept, [tail, 100 - tail], axis=0)
    return low, high
