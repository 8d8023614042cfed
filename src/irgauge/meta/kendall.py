"""Kendall's tau for many pairs of rankings at once.

A ranking is a score vector x over n systems. Every unordered pair of systems is visited
once in a circulant layout: pair (i, (i + d) mod n) for d = 1..floor(n/2), all i (for even n
the d = n/2 diagonal would meet each pair twice, so it keeps i < n/2 only), n(n-1)/2 cells.
The sign of each pair, s = sgn(x_i - x_j) with |x_i - x_j| <= TIE_TOLERANCE a tie, is an
int8 cell. For rankings x and y:

    tau_a = sum_pairs s_x s_y / (n(n-1)/2)
    tau_b = sum_pairs s_x s_y / sqrt(untied_x * untied_y),   untied = #{pairs: s != 0}

Many rankings are handled at once in a systems-major layout: ``x`` is systems x K (K
rankings, e.g. measures x trials, in the columns). Then the partner of row i at distance d
is row i + d of [x; x], so all pairs of all K rankings come from one broadcast comparison of
x with a sliding window over the rows of [x; x]: no index gather, and numpy's inner loops
run over whole rows of K. The signs of each ranking are built once and multiplied with
those of every ranking it is paired with (predictive power pairs every measure on one half
of the topics with every measure on the other). Work buffers are reused across chunks of
rankings, because freshly allocated pages cost more than the comparisons themselves.
"""

from __future__ import annotations

from typing import Callable, Dict, List, Optional, Tuple

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.scores._results import RANGES, checked_number
from irgauge.evaluation.tasks import step_cells
from irgauge.stats.resampling import TIE_TOLERANCE, block_chunks, require_finite
from irgauge.types import TopicScores

VARIANTS = ("a", "b")

# Cells (pair signs of one ranking) per chunk: enough to amortise numpy's per-call overhead,
# few enough for the chunk's buffers to stay in cache.
_CHUNK_CELLS = 1 << 21


class _Buffers:
    """Named work arrays, reallocated only when the requested shape or dtype changes."""

    def __init__(self):
        self._arrays: Dict[str, np.ndarray] = {}

    def __call__(self, name: str, shape: Tuple[int, ...], dtype=float) -> np.ndarray:
        array = self._arrays.get(name)
        if array is None or array.shape != shape or array.dtype != np.dtype(dtype):
            array = self._arrays[name] = np.empty(shape, dtype)
        return array


def pair_signs(
    x: np.ndarray, buffers: Optional[_Buffers] = None, tag: str = "", rows: Optional[slice] = None
) -> np.ndarray:
    """int8 signs of every pair of systems in each column of ``x`` (n x K): floor(n/2) * n x K.

    Row (d - 1) * n + i holds sgn(x_i - x_{(i + d) mod n}); for even n the rows of the pairs
    met twice (d = n/2, i >= n/2) are zero. See the module docstring. ``rows``: the
    distances d - 1 in this slice of range(floor(n/2)) alone, their rows in that order.
    """
    buffers = buffers or _Buffers()
    n, k = x.shape
    half = n // 2
    first, last, _ = (rows or slice(0, half)).indices(half)
    doubled = buffers("doubled" + tag, (2 * n, k))
    doubled[:n] = x
    doubled[n:] = x
    shifted = buffers("shifted" + tag, (2 * n, k))
    greater = buffers("greater" + tag, (last - first, n, k), bool)
    less = buffers("less" + tag, (last - first, n, k), bool)
    for compare, shift, out in (
        (np.greater, TIE_TOLERANCE, greater),
        (np.less, -TIE_TOLERANCE, less),
    ):
        np.add(doubled, shift, out=shifted)
        windows = sliding_window_view(shifted, n, axis=0)  # windows[d, :, i] = row d + i
        compare(x, np.moveaxis(windows, -1, 1)[1 + first : 1 + last], out=out)
    signs = buffers("signs" + tag, ((last - first) * n, k), np.int8)
    np.subtract(greater.view(np.int8), less.view(np.int8), out=signs.reshape(last - first, n, k))
    if n % 2 == 0 and last == half > first:
        signs[(half - 1 - first) * n + half :] = 0
    return signs


def tau_b(net, untied_x, untied_y) -> np.ndarray:
    """Kendall's tau_b from its counts: (concordant - discordant pairs) / sqrt(untied_x *
    untied_y), the untied counts being the pairs each ranking orders (0/0 = NaN when a
    ranking ties everything). Every tau_b of irgauge ends in this division, Kendall's
    tau union of top-k lists (:mod:`irgauge.meta.repro.ktu`) included."""
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.asarray(net, float) / np.sqrt(
            np.asarray(untied_x, float) * np.asarray(untied_y, float)
        )


def _untied(signs: np.ndarray, buffers: _Buffers, acc, tag: str) -> np.ndarray:
    nonzero = buffers("nonzero" + tag, signs.shape, bool)
    np.not_equal(signs, 0, out=nonzero)
    return nonzero.view(np.int8).sum(axis=0, dtype=acc)


def trial_chunks(trials: int, n_x: int, n_y: int, n_systems: int) -> List[slice]:
    """The chunks of trials :func:`tau_blocks` computes at a time (slices): blocks of
    _CHUNK_CELLS on one grid of the trials (:func:`irgauge.stats.resampling.block_chunks`),
    a chunk each, whatever the threads or the engine, so that a trial's means (a
    predictive experiment's: columns of a matrix product) come from the same product."""
    return block_chunks(trials, _trial_cells(n_x, n_y, n_systems), _CHUNK_CELLS, _CHUNK_CELLS)


def _trial_cells(n_x: int, n_y: int, n_systems: int) -> int:
    """The pair signs of a trial's rankings: (n_x + n_y) n(n-1)/2 cells."""
    return (n_x + n_y) * (n_systems * (n_systems - 1) // 2)


def sign_cells() -> int:
    """The cells of pair signs each step of trials handed to
    :func:`irgauge.evaluation.tasks.run_steps` holds at a time (:func:`tau_blocks`'
    ``max_cells``): the steps in flight share _CHUNK_CELLS, as the other steps share their
    chunk's cells (:func:`irgauge.evaluation.tasks.step_cells`), so that their memory does
    not grow with the threads."""
    return step_cells(_CHUNK_CELLS)


def tau_blocks(
    blocks: Callable[[slice], Tuple[np.ndarray, np.ndarray]],
    trials: int,
    n_x: int,
    n_y: int,
    n_systems: int,
    variant: str = "b",
    progress=None,
    max_cells: Optional[int] = None,
) -> np.ndarray:
    """``tau[t, a, b]`` for ``trials`` trials of n_x rankings x and n_y rankings y each.

    ``blocks(part)`` returns the scores of the trials in slice ``part`` (a chunk of
    :func:`trial_chunks`) systems-major: ``x`` of shape (n_systems, n_x, size) and ``y``
    of shape (n_systems, n_y, size). Their pair signs are made ``max_cells`` cells
    (default _CHUNK_CELLS) at a time, at least a distance's (:func:`pair_signs`'
    ``rows``), and their products summed over the parts: whole numbers, the same sums
    however the pairs are cut. (Cut by trials, a part of few trials left numpy's inner
    loops a few values each: 3 times the CPU.)
    ``progress(done, total)`` is called after each chunk of trials.
    """
    _checks.choice(variant, "variant", VARIANTS)
    pairs = n_systems * (n_systems - 1) // 2
    acc = np.int16 if pairs < 2**15 else np.int64
    out = np.empty((trials, n_x, n_y))
    buffers = _Buffers()
    cells = _CHUNK_CELLS if max_cells is None else max_cells
    for part in trial_chunks(trials, n_x, n_y, n_systems):
        x, y = blocks(part)
        size = part.stop - part.start
        per_row = n_systems * (n_x + n_y) * size  # the cells of one distance
        at_once = max(1, cells // max(1, per_row))
        net = np.zeros((n_x, n_y, size), acc)
        untied_x, untied_y = np.zeros(n_x * size, acc), np.zeros(n_y * size, acc)
        for first in range(0, n_systems // 2, at_once):
            rows = slice(first, min(n_systems // 2, first + at_once))
            sx = pair_signs(np.reshape(x, (n_systems, n_x * size)), buffers, "x", rows)
            sy = pair_signs(np.reshape(y, (n_systems, n_y * size)), buffers, "y", rows)
            cut = sx.shape[0]  # n pairs a distance (zero cells for even n's last)
            product = buffers("product", (cut, n_y, size), np.int8)
            if variant == "b":
                untied_x += _untied(sx, buffers, acc, "x")
                untied_y += _untied(sy, buffers, acc, "y")
            sx = sx.reshape(cut, n_x, size)
            sy = sy.reshape(cut, n_y, size)
            for a in range(n_x):
                np.multiply(sx[:, a, None, :], sy, out=product)
                net[a] += product.sum(axis=0, dtype=acc)  # n_y x size
        with np.errstate(invalid="ignore", divide="ignore"):
            if variant == "a":
                out[part] = (net / pairs).transpose(2, 0, 1)
            else:
                tau = tau_b(
                    net,
                    untied_x.reshape(n_x, 1, size).astype(float),
                    untied_y.reshape(1, n_y, size).astype(float),
                )
                out[part] = tau.transpose(2, 0, 1)
        if progress is not None:
            progress(part.stop, trials)
    return out


def kendall_tau_cross(x: np.ndarray, y: np.ndarray, variant: str = "b") -> np.ndarray:
    """``tau[t, a, b]`` between ranking ``x[t, a]`` and ranking ``y[t, b]``.

    ``x``: trials x A x systems, ``y``: trials x B x systems (scores; higher ranks first).
    Variant ``a`` divides by all pairs, ``b`` corrects for ties (NaN when a ranking is all
    ties). Memory stays bounded: the trials are taken in chunks.
    """
    x = _checks.real_array(x, "x")
    y = _checks.real_array(y, "y")
    if x.ndim != 3 or y.ndim != 3 or x.shape[0] != y.shape[0] or x.shape[2] != y.shape[2]:
        raise InputError(
            "x and y must be trials x rankings x systems with equal trials and "
            f"systems, got {x.shape} and {y.shape}"
        )

    def systems_major(part):
        return (
            np.ascontiguousarray(x[part].transpose(2, 1, 0)),
            np.ascontiguousarray(y[part].transpose(2, 1, 0)),
        )

    return tau_blocks(systems_major, x.shape[0], x.shape[1], y.shape[1], x.shape[2], variant)


def kendall_tau_columns(x, y, variant: str = "b") -> np.ndarray:
    """tau between column t of ``x`` and column t of ``y`` (systems x T each), for every t:
    the pair signs and tie rule of :func:`kendall_tau`, in chunks of columns."""
    x = _checks.real_array(x, "x")
    y = _checks.real_array(y, "y")
    if x.ndim != 2 or x.shape != y.shape:
        raise InputError(
            f"x and y must be systems x columns of one shape, got {x.shape} and {y.shape}"
        )

    def systems_major(part):
        return x[:, None, part], y[:, None, part]

    return tau_blocks(systems_major, x.shape[1], 1, 1, x.shape[0], variant)[:, 0, 0]


def paired_rankings(x: TopicScores, y: TopicScores) -> Tuple[np.ndarray, np.ndarray]:
    """x and y as arrays: two scorings of the same 2 or more items, else InputError (one
    item or none has no pair to order)."""
    xs = require_finite(x, "x")  # a NaN compares as neither above nor below: a guess
    ys = require_finite(y, "y")
    if xs.shape != ys.shape or xs.ndim != 1 or len(xs) < 2:
        raise InputError("x and y must be 1-d, of equal length >= 2")
    return xs, ys


def kendall_tau(x: TopicScores, y: TopicScores, variant: str = "b") -> float:
    """Kendall's tau (variant a or b) between score vectors x and y, of the same 2 or more
    items. Where a ranking ties every item tau is 0/0: NaN, with its reason in the
    number's ``notes`` (:class:`irgauge.scores._results.NotedFloat`)."""
    x, y = paired_rankings(x, y)
    tau = kendall_tau_cross(x[None, None], y[None, None], variant)[0, 0, 0]
    return checked_number("tau", tau, *RANGES["tau"])
