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
                 the orderings of each tie group; equals tau_AP without ties)
      tau_AP_b = (a(x, y) + a(y, x)) / 2,  a(x, y) = 2/|T| * sum_{i in T} c_i / (p_i - 1) - 1
                 over T = {i : p_i > 1} (ties in both rankings)

The significance threshold of tau for n systems at level alpha (two-sided, normal
approximation): z_{1-alpha/2} * sqrt(2(2n + 5) / (9 n (n - 1))).
Differences within 1e-12 count as ties so that equal means are not split by rounding.
Kendall's tau itself is computed in :mod:`irgauge.meta.kendall`.
"""

from __future__ import annotations

from typing import Callable, List, Sequence

import numpy as np

from irgauge import _checks
from irgauge.meta.kendall import kendall_tau
from irgauge.meta.result import MetaResult
from irgauge.scores import check_matrices
from irgauge.scores.frames import as_score_matrices
from irgauge.stats.resampling import TIE_TOLERANCE


def _above(v: np.ndarray) -> np.ndarray:
    """above[i, j] = v_j > v_i (beyond rounding)."""
    return (v[None, :] - v[:, None]) > TIE_TOLERANCE


def _ap_parts(x: np.ndarray, y: np.ndarray):
    x = np.asarray(x, float)
    y = np.asarray(y, float)
    if x.shape != y.shape or x.ndim != 1 or len(x) < 2:
        raise ValueError("x and y must be 1-d, of equal length >= 2")
    above_y = _above(y)
    p = 1 + above_y.sum(axis=1)
    c = (above_y & _above(x)).sum(axis=1)
    tied = (np.abs(y[None, :] - y[:, None]) <= TIE_TOLERANCE).sum(axis=1)
    return p, c, tied


def tau_ap_a(x, y) -> float:
    """tau_AP of ranking y against reference x, ties in y averaged (Urbano & Marrero)."""
    p, c, t = _ap_parts(x, y)
    n = len(p)
    total = 0.0
    for pi, ci, ti in zip(p, c, t):  # O(n) loop over systems, not pairs or samples
        k = np.arange(1, ti + 1)
        if pi > 1:
            total += ci * np.sum(1.0 / (pi + k - 2)) / ti
        total += np.sum(k[:-1] / (pi + k[:-1] - 1)) / (2 * ti)
    return float(2.0 / (n - 1) * total - 1)


def tau_ap(x, y) -> float:
    """Yilmaz et al.'s tau_AP of ranking y against reference x (= tau_AP_a without ties)."""
    return tau_ap_a(x, y)


def _tau_ap_b_asym(x, y) -> float:
    p, c, _ = _ap_parts(x, y)
    top = p > 1
    if not top.any():  # every item tied with the first: undefined (0/0)
        return float("nan")
    return float(2.0 / top.sum() * np.sum(c[top] / (p[top] - 1)) - 1)


def tau_ap_b(x, y) -> float:
    """Symmetric tau_AP_b for rankings with ties in both (Urbano & Marrero)."""
    return (_tau_ap_b_asym(x, y) + _tau_ap_b_asym(y, x)) / 2


def tau_threshold(n_systems: int, alpha: float = 0.05) -> float:
    """Two-sided significance threshold of Kendall's tau for ``n_systems`` (normal approx.)."""
    # scipy.stats on first use: tests/test_startup.py keeps importing irgauge.meta free of it
    from scipy.stats import norm

    n = n_systems
    # isf(alpha/2), not ppf(1 - alpha/2): exact for tiny alphas, where 1 - alpha/2 rounds to 1
    return float(norm.isf(alpha / 2) * np.sqrt(2 * (2 * n + 5) / (9 * n * (n - 1))))


def measure_pairs(names: Sequence[str], cells: Callable[[int, int], dict]) -> List[dict]:
    """One row per ordered pair of measures (A = B included; A-major, in ``names`` order):
    ``measure_a``, ``measure_b``, then the columns ``cells(a, b)`` gives for their
    positions in ``names``."""
    return [
        {"measure_a": name_a, "measure_b": name_b, **cells(a, b)}
        for a, name_a in enumerate(names)
        for b, name_b in enumerate(names)
    ]


def rank_correlations(matrices, variant: str = "b", alpha: float = 0.05) -> MetaResult:
    """Kendall tau and tau_AP between the mean-score rankings of every pair of measures.

    Table: one row per ordered pair (measure_a = reference, measure_b = estimate) with tau
    (symmetric), tau_AP_a of b against a (``tau_ap``; it assumes an untied reference, so
    tied systems in a count as discordant and even a = b may fall just below 1), and the
    symmetric tau_AP_b for ties in both rankings; ``parameters['threshold']`` is the
    significance threshold for the number of systems; ``details['matrix']`` the tau table.
    """
    matrices = as_score_matrices(matrices)  # ScoreMatrix, DataFrame or EvalResult
    # pandas on first use: tests/test_startup.py keeps importing irgauge.meta free of it
    import pandas as pd

    names, systems, topics, stacked = check_matrices(matrices)
    alpha = _checks.alpha(alpha)
    means = stacked.mean(axis=2)
    rows = measure_pairs(
        names,
        lambda a, b: {
            "tau": kendall_tau(means[a], means[b], variant),
            "tau_ap": tau_ap_a(means[a], means[b]),
            "tau_ap_b": tau_ap_b(means[a], means[b]),
        },
    )
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
