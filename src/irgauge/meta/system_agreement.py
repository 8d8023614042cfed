"""Do two qrels rank the systems alike? Rank and significance agreement of the systems'
scores under qrels A and under qrels B, for many topic weightings at once.

A weighting is a row of topic counts (all ones: the topics as given; a bootstrap sample:
how often each topic was drawn), so every statistic of every bootstrap sample comes from
matrix products of the (samples x topics) counts with per-topic values:

* Kendall's tau_b between the mean scores under A and under B (as ``irgauge correlate``:
  :func:`irgauge.meta.kendall.kendall_tau_cross`; means within 1e-12 tie; tau_b corrects
  for ties in either ranking);
* tau_AP (Yilmaz, Aslam and Robertson 2008) of the ranking under B against the reference
  ranking under A, ties in B averaged over their orderings (``tau_ap_a`` of
  :mod:`irgauge.meta.correlation`, equal to Yilmaz's tau_AP without ties; NaN where A
  ties every system); with
  H(m) = sum_{j<=m} 1/j, its sums over a tie group are harmonic-number differences, so it
  vectorises over the samples (:func:`irgauge.meta.correlation.tau_ap_of_parts`);
* the largest rank change, |rank_A - rank_B| (rank 1 best, ties at their average rank);
* top_same: 1 when a system ranked first under A (ties included) is first under B;
* significance calls of every system pair under A and under B with a paired test (t-test
  from the per-topic sums of the differences and their squares; sign test from per-topic
  win and tie counts), p-values corrected over the pairs (none, Holm, BH): sig_both (both
  significant, same direction), sig_a_only, sig_b_only, sig_reversed (both significant,
  opposite directions), as numbers of pairs.

The chunks of weightings are independent steps: tasks on a Dask cluster under
``use_engine("dask")``, on the weightings drawn by the caller, with the same numbers: each
is whole blocks of one grid of the weightings, as the paired bootstrap's pairs
(:func:`irgauge.stats.resampling.block_chunks`).
"""

from __future__ import annotations

from typing import Dict, Optional, Tuple

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.evaluation.tasks import run_steps
from irgauge.meta.correlation import tau_ap_of_parts
from irgauge.meta.kendall import kendall_tau_cross
from irgauge.stats.resampling import (
    TIE_TOLERANCE,
    block_chunks,
    in_blocks,
    pair_index,
    t_ratio,
    weighted_t,
)

SYSTEM_STATISTICS = (
    "kendall_tau_b",
    "tau_ap",
    "max_rank_change",
    "top_same",
    "sig_both",
    "sig_a_only",
    "sig_b_only",
    "sig_reversed",
)
SIGNIFICANCE_CALLS = SYSTEM_STATISTICS[4:]
TESTS = ("t", "sign")
CORRECTIONS = ("none", "holm", "bh")


def _compared(v: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(above, tied) of each row of ``v`` (rows x systems): above[r, i, j] = v[r, j] -
    v[r, i] > TIE_TOLERANCE, tied[r, i, j] = |v[r, j] - v[r, i]| <= TIE_TOLERANCE, from
    one rows x systems x systems difference (every comparison of a block of weightings
    made its own: ten of them, 11 MB each at 300 systems)."""
    difference = v[:, None, :] - v[:, :, None]
    above = difference > TIE_TOLERANCE
    tied = np.abs(difference, out=difference) <= TIE_TOLERANCE
    return above, tied


def tau_ap_rows(x: np.ndarray, y: np.ndarray, compared=None) -> np.ndarray:
    """tau_AP of each row of ``y`` (estimate) against the row of ``x`` (reference), ties in
    y averaged (as :func:`irgauge.meta.correlation.tau_ap_a`; NaN where the row of x ties
    every system); ``compared``: the :func:`_compared` of x and of y, where the caller
    has them."""
    (above_x, _), (above_y, tied_y) = compared or (_compared(x), _compared(y))
    p = 1 + above_y.sum(axis=2)
    c = (above_y & above_x).sum(axis=2)
    return tau_ap_of_parts(p, c, tied_y.sum(axis=2), above_x.any(axis=(1, 2)))


def average_ranks(v: np.ndarray, compared=None) -> np.ndarray:
    """Rank of each system in each row (1 = highest mean; ties at their average rank);
    ``compared``: the :func:`_compared` of v, where the caller has it."""
    above, tied = compared or _compared(v)
    return 1 + above.sum(axis=2) + (tied.sum(axis=2) - 1) / 2


def adjust_rows(p: np.ndarray, method: str) -> np.ndarray:
    """Holm or Benjamini-Hochberg adjustment of each row of p-values (as
    :func:`irgauge.stats.correction.adjust` on each row)."""
    if method == "none":
        return p
    m = p.shape[1]
    order = np.argsort(p, axis=1, kind="stable")
    ranked = np.take_along_axis(p, order, axis=1)
    if method == "holm":
        adjusted = np.maximum.accumulate(np.minimum(1.0, (m - np.arange(m)) * ranked), axis=1)
    else:
        scaled = np.minimum(1.0, m * ranked / np.arange(1, m + 1))
        adjusted = np.minimum.accumulate(scaled[:, ::-1], axis=1)[:, ::-1]
    out = np.empty_like(p)
    np.put_along_axis(out, order, adjusted, axis=1)
    return out


def pair_pvalues(z: np.ndarray, weights: np.ndarray, test: str):
    """Mean differences and two-sided p-values (rows x pairs) of the per-topic differences
    ``z`` (pairs x topics) under each row of topic counts ``weights``."""
    return parts_pvalues(pair_parts(z, test), weights, test)


def pair_parts(z: np.ndarray, test: str) -> Tuple[Optional[np.ndarray], ...]:
    """What :func:`parts_pvalues` takes of the per-topic differences ``z`` (pairs x
    topics), the same for every weighting and so computed once for all: each pair's mean
    ``c`` (the sums are centred, so that the variance does not cancel), ``z - c``, and
    for the t-test ``(z - c)^2``, for the sign test ``z > 0`` and ``z != 0`` (as 0/1)
    beyond TIE_TOLERANCE."""
    centre = z.mean(axis=1, keepdims=True)
    centred = z - centre
    if test == "t":
        return centre, centred, centred * centred, None, None
    wins = (z > TIE_TOLERANCE).astype(float)
    return centre, centred, None, wins, (np.abs(z) > TIE_TOLERANCE).astype(float)


def parts_pvalues(parts, weights: np.ndarray, test: str):
    """:func:`pair_pvalues` from the :func:`pair_parts` of the differences."""
    # scipy.stats (through the classic tests) on first use: importing irgauge.meta stays light
    from irgauge.stats.classic import sign_pvalues, t_pvalues

    centre, centred, squares, wins, untied = parts
    n = weights[0].sum()
    if test == "t":
        mean_c, se, _ = (v.T for v in weighted_t(centred, weights.T, squares))
        mean = mean_c + centre.T
        is_tied = np.abs(mean) <= TIE_TOLERANCE
        p = np.where(is_tied, 1.0, t_pvalues(t_ratio(mean, se), int(n) - 1))
    else:
        mean = ((centred @ weights.T) / n).T + centre.T
        won, counted = np.rint(weights @ wins.T), np.rint(weights @ untied.T)
        p = sign_pvalues(won.astype(int), counted.astype(int))
    return mean, p


def significance_calls(mean_a, p_a, mean_b, p_b, alpha: float) -> Dict[str, np.ndarray]:
    """Boolean calls (rows x pairs): significant under both in the same or the opposite
    direction, under A only, under B only."""
    sig_a, sig_b = p_a < alpha, p_b < alpha
    same = np.sign(mean_a) == np.sign(mean_b)
    return {
        "sig_both": sig_a & sig_b & same,
        "sig_a_only": sig_a & ~sig_b,
        "sig_b_only": sig_b & ~sig_a,
        "sig_reversed": sig_a & sig_b & ~same,
    }


def check_test(test: str, correction: str) -> None:
    if test not in TESTS:
        raise InputError(
            f"system agreement recomputes the test on every bootstrap sample; choose the test "
            f"from {', '.join(TESTS)} (got {test!r})"
        )
    _checks.choice(correction, "correction", CORRECTIONS)


def system_statistics(
    xa: np.ndarray,
    xb: np.ndarray,
    weights: np.ndarray,
    test: str = "t",
    alpha: float = 0.05,
    correction: str = "none",
    max_cells: int = 1 << 22,
) -> Dict[str, np.ndarray]:
    """Every statistic of SYSTEM_STATISTICS for each row of ``weights`` (rows x topics),
    from the systems x topics scores ``xa`` (under A) and ``xb`` (under B); the weightings
    in chunks of about ``max_cells`` cells in all
    (:func:`irgauge.evaluation.tasks.step_cells`), whole blocks of BLOCK_CELLS, with the
    same numbers however cut."""
    check_test(test, correction)
    i, j = pair_index(len(xa))
    cells = _cells_per_row(len(xa))
    parts = pair_parts(xa[i] - xa[j], test), pair_parts(xb[i] - xb[j], test)
    # chunks of weightings: tasks on a cluster, whole blocks of one grid of the weightings
    # (the rows of the matrix products), so the same bits however many run and where
    found = run_steps(
        statistics_chunk,
        [weights[part] for part in block_chunks(len(weights), cells, max_cells, BLOCK_CELLS)],
        (xa, xb, *parts, test, alpha, correction),
    )
    return {name: np.concatenate([f[name] for f in found]) for name in SYSTEM_STATISTICS}


# Weightings a block: a block's products stream the pairs' parts (pairs x topics, each side)
# once for all its weightings, so blocks of 2^18 cells (one weighting from 300 systems up)
# cost more than they save: 300 systems x 50 topics, 1,001 weightings took 41 s of one
# CPU for the t-test against 36 s in blocks of 4M cells, the chunks before the grid.
BLOCK_CELLS = 1 << 22


def _cells_per_row(systems: int) -> int:
    """The cells a weighting takes in a chunk: a systems x systems comparison, and four
    values of each system pair."""
    return systems * systems + 4 * (systems * (systems - 1) // 2)


def statistics_chunk(w, xa, xb, parts_a, parts_b, test, alpha, correction) -> Dict[str, np.ndarray]:
    """:func:`system_statistics` of the weightings ``w`` (rows x topics), given the
    :func:`pair_parts` of the pairs' per-topic differences under A and B; a block of
    weightings at a time (:func:`irgauge.stats.resampling.in_blocks`)."""
    found: Dict[str, np.ndarray] = in_blocks(
        lambda part: _statistics_block(w[part], xa, xb, parts_a, parts_b, test, alpha, correction),
        len(w),
        _cells_per_row(len(xa)),
        BLOCK_CELLS,
    )
    return found


def _statistics_block(
    w, xa, xb, parts_a, parts_b, test, alpha, correction
) -> Dict[str, np.ndarray]:
    """:func:`statistics_chunk` of a block of its weightings."""
    n_topics = xa.shape[1]
    out = {name: np.empty(len(w)) for name in SYSTEM_STATISTICS}
    ma, mb = np.asarray(w @ xa.T) / n_topics, np.asarray(w @ xb.T) / n_topics
    out["kendall_tau_b"][:] = kendall_tau_cross(ma[:, None], mb[:, None], "b")[:, 0, 0]
    compared = _compared(ma), _compared(mb)
    out["tau_ap"][:] = tau_ap_rows(ma, mb, compared)
    ranks_a, ranks_b = (average_ranks(v, c) for v, c in zip((ma, mb), compared))
    out["max_rank_change"][:] = np.abs(ranks_a - ranks_b).max(axis=1)
    top_a, top_b = (~np.any(above, axis=2) for above, _ in compared)
    out["top_same"][:] = np.any(top_a & top_b, axis=1)
    if n_topics < 2:  # a paired test needs 2 topics: no calls, not "none significant"
        for name in SIGNIFICANCE_CALLS:
            out[name][:] = np.nan
        return out
    mean_a, p_a = parts_pvalues(parts_a, w, test)
    mean_b, p_b = parts_pvalues(parts_b, w, test)
    calls = significance_calls(
        mean_a, adjust_rows(p_a, correction), mean_b, adjust_rows(p_b, correction), alpha
    )
    for name, call in calls.items():
        out[name][:] = call.sum(axis=1)
    return out
