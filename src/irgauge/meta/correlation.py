"""Rank correlation between system rankings (Sakai 2007; Yilmaz et al. 2008; Urbano & Marrero 2017).

For score vectors x (reference) and y (estimate) over n systems, with s(.) the sign and
nn = n(n-1)/2 pairs:

* Kendall tau_a = sum_{i<j} s(x_i - x_j) s(y_i - y_j) / nn
* Kendall tau_b = the same sum / sqrt((nn - t_x)(nn - t_y)), t_. = tied pairs in x, in y
* tau_AP (higher ranks weigh more), rank positions taken in decreasing order of y:
  with p_i = 1 + #{j : y_j > y_i} and c_i = #{j : y_j > y_i and x_j > x_i},

      tau_AP   = 2/(n-1) * sum_{i : p_i > 1} c_i / (p_i - 1) - 1             (no ties)
      tau_AP_a = 2/(n-1) * sum_i [ c_i * (1/t_i) sum_{k=1..t_i} 1/(p_i + k - 2)
                                   + 1/(2 t_i) sum_{k=1..t_i-1} k / (p_i + k - 1) ] - 1
                 with t_i the size of i's tie group in y (ties in y as the average over
                 the orderings of each tie group; equals tau_AP without ties), NaN where
                 x ties every item: with no order in the reference every c_i is 0, which
                 would read as complete disagreement (-1); partial ties in x count as
                 discordant
      tau_AP_b = (a(x, y) + a(y, x)) / 2,  a(x, y) = 2/|T| * sum_{i in T} c_i / (p_i - 1) - 1
                 over T = {i : p_i > 1} (ties in both rankings)

The significance threshold of tau for n systems at level alpha (two-sided, normal
approximation): z_{1-alpha/2} * sqrt(2(2n + 5) / (9 n (n - 1))).
Differences within 1e-12 count as ties so that equal means are not split by rounding.
Kendall's tau itself is computed in :mod:`irgauge.meta.kendall`.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, List, Sequence

import numpy as np

from irgauge import _checks
from irgauge.meta.kendall import VARIANTS, paired_rankings
from irgauge.meta.result import MetaResult
from irgauge.scores import check_matrices
from irgauge.scores._results import RANGES, checked_number
from irgauge.scores.frames import as_score_matrices
from irgauge.stats.resampling import TIE_TOLERANCE
from irgauge.types import ScoresLike, TopicScores


# rows of the system x system comparisons taken at once: the O(n^2) comparisons of tau and
# tau_AP stay in a few MB a ranking whatever the number of systems
_ROWS = 256


def _ap_parts(x: np.ndarray, y: np.ndarray):
    """p_i = 1 + #{j: y_j > y_i}, c_i = #{j: y_j > y_i and x_j > x_i}, the size of i's
    tie group in y and the pairs x does not tie, each comparison beyond TIE_TOLERANCE
    (:func:`_pair_counts` of the two rankings)."""
    x, y = paired_rankings(x, y)
    return _pair_counts(np.vstack([x, y])).ap_parts(0, 1)


def tau_ap_a(x, y) -> float:
    """tau_AP of ranking y against reference x, ties in y averaged (Urbano & Marrero)."""
    return checked_number("tau_ap", _tau_ap_a(*_ap_parts(x, y)), *RANGES["tau_ap"])


def _tau_ap_a(p, c, t, reference_untied) -> float:
    return float(tau_ap_of_parts(p, c, t, reference_untied))


def tau_ap_of_parts(p: np.ndarray, c: np.ndarray, t: np.ndarray, reference_untied) -> np.ndarray:
    """tau_AP_a (the module docstring's formula) from p, c and t over the last axis (n
    systems; any leading axes, e.g. bootstrap samples), NaN where ``reference_untied`` (the
    pairs the reference does not tie, or whether there is one; per leading index) is 0:
    the one place that decides a reference tying every system. With H(m) = sum_{j<=m} 1/j,
    sum_{k=1..t} 1/(p + k - 2) = H(p + t - 2) - H(p - 2) and
    sum_{k=1..t-1} k / (p + k - 1) = (t - 1) - (p - 1) (H(p + t - 2) - H(p - 1)); an
    untied system's term is c / (p - 1) itself (exact: tau_AP of a ranking with itself is 1)."""
    p, c, t = (np.asarray(v, np.int64) for v in (p, c, t))
    n = p.shape[-1]
    table = np.concatenate([[0.0], np.cumsum(1.0 / np.arange(1, 2 * n + 1))])

    def harmonic(m):
        return table[np.maximum(m, 0)]

    top = p + t - 2
    with np.errstate(divide="ignore", invalid="ignore"):
        tied = np.where(p > 1, c * (harmonic(top) - harmonic(p - 2)) / t, 0.0)
        first = np.where((t == 1) & (p > 1), c / (p - 1), tied)
    second = ((t - 1) - (p - 1) * (harmonic(top) - harmonic(p - 1))) / (2 * t)
    tau = 2.0 / (n - 1) * (first + second).sum(axis=-1) - 1
    return np.where(np.asarray(reference_untied) > 0, tau, np.nan)


def tau_ap(x: TopicScores, y: TopicScores) -> float:
    """Yilmaz et al.'s tau_AP of ranking y against reference x (= tau_AP_a without ties)."""
    return tau_ap_a(x, y)


def _tau_ap_b_asym(p, c) -> float:
    top = p > 1
    if not top.any():  # every item tied with the first: undefined (0/0)
        return float("nan")
    return float(2.0 / top.sum() * np.sum(c[top] / (p[top] - 1)) - 1)


def tau_ap_b(x, y) -> float:
    """Symmetric tau_AP_b for rankings with ties in both (Urbano & Marrero): NaN where a
    ranking ties every item (0/0), with its reason in the number's ``notes``."""
    tau = _tau_ap_b(_ap_parts(x, y), _ap_parts(y, x))
    return checked_number("tau_ap_b", tau, *RANGES["tau_ap_b"])


def _tau_ap_b(parts_xy, parts_yx) -> float:
    return (_tau_ap_b_asym(*parts_xy[:2]) + _tau_ap_b_asym(*parts_yx[:2])) / 2


@dataclass
class _PairCounts:
    """What tau and tau_AP of every ordered pair of rankings are made of: ``net[a, b]``, the
    concordant minus the discordant pairs of systems; ``untied[a]``, the pairs ranking a
    does not tie; per system, ``p[b]`` (1 + the systems ranked above it by b), ``c[a, b]``
    (of those, the ones a ranks above it too) and ``tied[b]`` (its tie group in b)."""

    net: np.ndarray
    untied: np.ndarray
    p: np.ndarray
    c: np.ndarray
    tied: np.ndarray

    def ap_parts(self, a: int, b: int):
        """tau_AP's (p, c, tied, untied pairs of the reference) of estimate b against
        reference a."""
        return self.p[b], self.c[a, b], self.tied[b], self.untied[a]


def _pair_counts(means: np.ndarray) -> _PairCounts:
    """The counts of every pair of rankings (rows of ``means``, measures x systems) in one
    pass over blocks of systems: each block's comparisons are made once per ranking and
    shared by every pair, and memory stays a few blocks whatever the number of systems.
    Signs as in :mod:`irgauge.meta.kendall`: s(i, j) = [v_i > v_j + tol] - [v_i < v_j - tol];
    tau_AP's comparisons: j above i when v_j - v_i > tol, tied when |v_j - v_i| <= tol (i
    itself included). Every pair of systems is met twice (as (i, j) and (j, i)); the
    counts are halved."""
    m, n = means.shape
    net = np.zeros((m, m), np.int64)
    untied = np.zeros(m, np.int64)
    p, tied = np.empty((m, n), np.int64), np.empty((m, n), np.int64)
    c = np.empty((m, m, n), np.int64)
    for start in range(0, n, _ROWS):
        rows = slice(start, min(start + _ROWS, n))
        signs, above = [], []
        for a in range(m):
            v = means[a]
            sign = np.greater(v[rows, None], v[None, :] + TIE_TOLERANCE).view(np.int8) - np.less(
                v[rows, None], v[None, :] - TIE_TOLERANCE
            ).view(np.int8)
            gap = v[None, :] - v[rows, None]
            up = gap > TIE_TOLERANCE
            p[a, rows] = 1 + up.sum(axis=1)
            tied[a, rows] = (np.abs(gap) <= TIE_TOLERANCE).sum(axis=1)
            untied[a] += np.count_nonzero(sign)
            signs.append(sign)
            above.append(up)
        for a in range(m):
            for b in range(m):
                net[a, b] += np.einsum("ij,ij->", signs[a], signs[b], dtype=np.int64)
                c[a, b, rows] = (above[a] & above[b]).sum(axis=1)
    return _PairCounts(net // 2, untied // 2, p, c, tied)


def tau_threshold(n_systems: int, alpha: float = 0.05) -> float:
    """Two-sided significance threshold of Kendall's tau for ``n_systems`` (normal approx.)."""
    # z from log(alpha / 2): alpha / 2 rounds to 0 at alpha = 5e-324, 1 - alpha / 2 to 1
    # below 1e-16 (scipy.special underneath, not scipy.stats, whose import costs seconds)
    from irgauge.stats.tails import z_critical

    n = n_systems
    return z_critical(alpha) * float(np.sqrt(2 * (2 * n + 5) / (9 * n * (n - 1))))


def measure_pairs(names: Sequence[str], cells: Callable[[int, int], dict]) -> List[dict]:
    """One row per ordered pair of measures (A = B included; A-major, in ``names`` order):
    ``measure_a``, ``measure_b``, then the columns ``cells(a, b)`` gives for their
    positions in ``names``."""
    return [
        {"measure_a": name_a, "measure_b": name_b, **cells(a, b)}
        for a, name_a in enumerate(names)
        for b, name_b in enumerate(names)
    ]


def rank_correlations(matrices: ScoresLike, variant: str = "b", alpha: float = 0.05) -> MetaResult:
    """Kendall tau and tau_AP between the mean-score rankings of every pair of measures.

    Table: one row per ordered pair (measure_a = reference, measure_b = estimate) with tau
    (symmetric), tau_AP_a of b against a (``tau_ap``; it assumes an untied reference, so
    tied systems in a count as discordant and even a = b may fall just below 1; NaN where
    a ties every system), and the
    symmetric tau_AP_b for ties in both rankings; ``parameters['threshold']`` is the
    significance threshold for the number of systems; ``details['matrix']`` the tau table.
    """
    matrices = as_score_matrices(matrices)  # ScoreMatrix, DataFrame or EvalResult
    # pandas on first use: tests/test_startup.py keeps importing irgauge.meta free of it
    import pandas as pd

    _checks.choice(variant, "variant", VARIANTS)
    alpha = _checks.alpha(alpha)
    names, systems, topics, stacked = check_matrices(matrices)
    means = stacked.mean(axis=2)
    counts = _pair_counts(means)
    n_pairs = len(systems) * (len(systems) - 1) // 2

    def cells(a: int, b: int) -> dict:
        net, untied = counts.net[a, b], counts.untied
        with np.errstate(invalid="ignore", divide="ignore"):
            tau = net / n_pairs if variant == "a" else net / np.sqrt(untied[a] * untied[b])
        ab, ba = counts.ap_parts(a, b), counts.ap_parts(b, a)
        return {"tau": float(tau), "tau_ap": _tau_ap_a(*ab), "tau_ap_b": _tau_ap_b(ab, ba)}

    rows = measure_pairs(names, cells)
    table = pd.DataFrame(rows)
    square = table.pivot(index="measure_a", columns="measure_b", values="tau")
    square = square.loc[names, names]
    parameters = {
        "variant": variant,
        "alpha": alpha,
        "measures": names,
        "threshold": tau_threshold(len(systems), alpha),
    }
    return MetaResult("rank_correlation", table, parameters, systems, topics, {"matrix": square})
