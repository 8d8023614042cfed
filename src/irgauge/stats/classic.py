"""Sign test and paired t-test, for one pair or vectorised over many pairs.

Ties, as in every test of irgauge (stats.resampling.TIE_TOLERANCE): the sign test drops
topics with |x - y| <= TIE_TOLERANCE; the t-test gives p = 1 when the means tie.

* Sign test (as in Sakai 2004, "A note on the reliability of Japanese QA evaluation"):
  over the topics where x != y, the number of wins of x is
  Binomial(m, 0.5) under H0; two-sided exact p-value (as scipy.stats.binomtest).
* Paired t-test: t = mean(z) / (sd(z) / sqrt(n)), z = x - y, sd with n - 1; two-sided
  p = 2 * P(T_{n-1} >= |t|) (as scipy.stats.ttest_rel).
* Welch's unpaired t-test (two samples of topics, e.g. two collections): t = (mean(x) -
  mean(y)) / sqrt(v_x/n_x + v_y/n_y), Welch-Satterthwaite df; two-sided p =
  2 * P(T_df >= |t|) (as scipy.stats.ttest_ind(equal_var=False)).
"""

from __future__ import annotations

from dataclasses import dataclass

from typing import Optional, Tuple

import numpy as np
from numpy.typing import ArrayLike
from scipy import stats as st

from irgauge.scores._results import CheckedResult
from irgauge.stats.bootstrap import _paired
from irgauge.stats.resampling import studentised, welch_t
from irgauge.stats.resampling import TIE_TOLERANCE, require_finite, require_topics, tied
from irgauge.errors import InputError
from irgauge.types import TopicScores


@dataclass(frozen=True)
class SignTestResult(CheckedResult):
    statistic: int  # wins of x (topics with x > y)
    pvalue: float
    n_untied: int  # topics with x != y
    n_topics: int

    must_be_finite = ("pvalue",)


@dataclass(frozen=True)
class TTestResult(CheckedResult):
    statistic: float
    pvalue: float
    df: float  # n - 1 (paired); Welch-Satterthwaite's, not whole (Welch)
    mean_difference: float

    must_be_finite = ("pvalue",)
    nan_reasons = {
        "statistic": "the per-topic differences (paired) or both samples (Welch) are "
        "constant (sd 0): t is mean/0, or 0/0 where the means tie",
        "df": "both samples are constant (variance 0): Welch-Satterthwaite's df is 0/0",
    }


def sign_pvalues(wins: ArrayLike, untied: ArrayLike) -> np.ndarray:
    """Two-sided exact binomial p-values (p = 0.5) for arrays of wins out of ``untied``.

    With p = 0.5 the distribution is symmetric, so the two-sided p-value is
    min(1, 2 * P(X <= min(k, m - k))); it is 1 when m = 0.
    """
    wins = np.asarray(wins)
    untied = np.asarray(untied)
    low = np.minimum(wins, untied - wins)
    table = _sign_table(low, untied)
    if table is not None:
        p = table[untied, low]
    else:
        p = _sign_tail(low, untied)
    p = _far_tail(p, low, untied)
    # k = m/2 exactly: the tails overlap at the centre; the p-value is 1
    return np.where((untied == 0) | (2 * wins == untied), 1.0, p)


def _sign_tail(low: np.ndarray, untied: np.ndarray) -> np.ndarray:
    """min(1, 2 P(X <= low)), X ~ Binomial(untied, 0.5), cell by cell (scipy's cdf)."""
    tail: np.ndarray = np.minimum(1.0, 2.0 * st.binom.cdf(low, untied, 0.5))
    return tail


def _far_tail(p: np.ndarray, low: np.ndarray, untied: np.ndarray) -> np.ndarray:
    """``p`` with each p-value below 1e-280 computed again in log space: scipy's cdf is 0
    there from about 1,075 untied topics on, and loses the subnormal range before that.
    2 P(X <= low) in log space (:func:`irgauge.stats.tails.log_binomial_half_cdf`), once
    per distinct (untied, low): the p-value keeps its digits down to the smallest double,
    5e-324, and is 0, the nearest double, only below it."""
    p, low, untied = np.broadcast_arrays(np.asarray(p, float), low, untied)
    far = (p < 1e-280) & (low >= 0) & (low < untied)
    if not far.any():
        return p
    from irgauge.stats.tails import log_binomial_half_cdf

    cells, back = np.unique(np.stack([untied[far], low[far]]), axis=1, return_inverse=True)
    with np.errstate(under="ignore"):
        tails = np.exp(np.log(2.0) + log_binomial_half_cdf(cells[1], cells[0]))
    fixed = p.copy()
    fixed[far] = tails[back.reshape(-1)]
    return fixed


def _sign_table(low: np.ndarray, untied: np.ndarray) -> Optional[np.ndarray]:
    """:func:`_sign_tail` of every (m, k), k <= m <= max(untied), as a table t[m, k],
    where whole counts need fewer cells so than one each (system agreement's, up to
    the topics' count, for every pair and weighting): scipy's cdf, a function of each
    cell alone, gives the same bits either way, and its checks and temporaries took
    three quarters of system agreement's sign test (and its page faults). None where
    the counts are not whole, not in 0 <= k <= m, or fewer than the table."""
    if low.dtype.kind not in "iu" or untied.dtype.kind not in "iu" or low.size == 0:
        return None
    top = int(untied.max())
    if (top + 1) ** 2 > low.size or int(low.min()) < 0 or (low > untied).any():
        return None
    k = np.arange(top + 1)
    return _sign_tail(k[None, :], k[:, None])


def sign_counts(z: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """(wins, untied) along the last axis of differences z: a tie is |z| <= TIE_TOLERANCE."""
    untied = np.abs(z) > TIE_TOLERANCE
    return (untied & (z > 0)).sum(axis=-1), untied.sum(axis=-1)


def sign_test(x: TopicScores, y: TopicScores) -> SignTestResult:
    """Sign test of x against y over topics where they differ."""
    x, y = _paired(x, y)
    wins, untied = (int(v) for v in sign_counts(x - y))
    return SignTestResult(
        statistic=wins, pvalue=float(sign_pvalues(wins, untied)), n_untied=untied, n_topics=len(x)
    )


def t_pvalues(t: np.ndarray, df: float) -> np.ndarray:
    """Two-sided p-values of Student t statistics (nan t, i.e. identical systems: 1): 2 P(T >
    |t|) from scipy, and, where that is 0 or subnormal, P(|T| > |t|) in log space
    (:func:`irgauge.stats.tails.log_t_tail`): scipy's is 0 for any t past 1.3e154 on 1
    degree of freedom (2 topics), where p is 6e-155 or more, and loses the subnormal
    numbers (0 for 6.9e-313)."""
    p = np.asarray(2.0 * st.t.sf(np.abs(t), df), dtype=float)
    far = (p < np.finfo(float).tiny) & np.isfinite(t)
    if far.any():
        from irgauge.stats.tails import log_t_tail

        p = p.copy()
        t_far, df_far = (np.broadcast_to(v, p.shape)[far] for v in (t, df))
        with np.errstate(under="ignore"):
            p[far] = np.exp(log_t_tail(t_far, df_far))
    pvalues: np.ndarray = np.where(np.isnan(t), 1.0, p)
    return pvalues


def paired_t_test(x: TopicScores, y: TopicScores) -> TTestResult:
    """Paired t-test of x against y (two-sided)."""
    x, y = _paired(x, y)
    t = float(studentised(x - y))
    p = 1.0 if tied(np.mean(x - y)) else float(t_pvalues(np.array(t), len(x) - 1))
    return TTestResult(statistic=t, pvalue=p, df=len(x) - 1, mean_difference=float(np.mean(x - y)))


def welch_t_test(x: TopicScores, y: TopicScores) -> TTestResult:
    """Welch's unpaired t-test of x against y (two-sided; x and y may differ in length).
    Equal means (within TIE_TOLERANCE) give p = 1, as every test of irgauge."""
    x = require_finite(x, "x")
    y = require_finite(y, "y")
    if x.ndim != 1 or y.ndim != 1:
        raise InputError(f"x and y must be 1-d, got {x.shape} and {y.shape}")
    require_topics(len(x), "an unpaired test")
    require_topics(len(y), "an unpaired test")
    t, df = (float(v) for v in welch_t(x, y))
    difference = float(np.mean(x) - np.mean(y))
    p = 1.0 if tied(np.array(difference)) else float(t_pvalues(np.array(t), df))
    if np.isnan(p):  # both samples constant and unequal: the difference is certain
        p = 0.0
    return TTestResult(statistic=t, pvalue=p, df=df, mean_difference=difference)
