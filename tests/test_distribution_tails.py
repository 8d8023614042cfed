"""The tails every test and interval reads, at extreme levels and sizes, against mpmath at 50
digits: the two-sided critical values of Student's t and of the normal, the sign test's
exact binomial p-value, and scores too large for the tests' sums of squares.

The references share nothing with irgauge's numerics: t from the root of
I_x(df/2, 1/2) = alpha (x = df / (df + t^2)) found by mpmath in log x; z from the root of
erfc(z / sqrt 2) = alpha; the binomial tail as the sum of its terms from the last down,
each by the ratio k / (m - k + 1). A few points by default; IRGAUGE_FUZZ_EXAMPLES=N draws N
more of each at random (each noncentral or many-topic reference costs mpmath a little)."""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs

from irgauge import InputError, ScoreMatrix, compare_pairs, paired_t_test, rank_correlations
from irgauge import paired_bootstrap_test, randomisation_test, sign_test
from irgauge.meta.correlation import tau_threshold
from irgauge.stats import welch_t_test
from irgauge.stats.classic import sign_pvalues, t_pvalues
from irgauge.stats.tails import t_critical, z_critical
from irgauge.studies._topics import discriminative_power
from tests.conftest import slow_after

mp = pytest.importorskip("mpmath")
DIGITS = 50
EXAMPLES = int(os.environ.get("IRGAUGE_FUZZ_EXAMPLES") or 0)
LONGER = settings(max_examples=max(EXAMPLES, 3), deadline=None, derandomize=not EXAMPLES)


@functools.lru_cache(maxsize=None)
def ref_t(alpha: float, df: float):
    """t with P(|T_df| > t) = alpha: I_x(df/2, 1/2) = alpha solved in u = log x, started
    from the series' first term x^a / (a B(a, 1/2)) (exact as x vanishes), t^2 = df (1 -
    x) / x."""
    with mp.workdps(DIGITS):
        a, b, target = mp.mpf(df) / 2, mp.mpf(1) / 2, mp.log(mp.mpf(alpha))

        def gap(u):
            return mp.log(mp.betainc(a, b, 0, mp.exp(u), regularized=True)) - target

        start = min((target + mp.log(a) + mp.log(mp.beta(a, b))) / a, mp.mpf(-1e-3))
        u = mp.findroot(gap, (start, start * (1 - mp.mpf(10) ** -6)), tol=mp.mpf(10) ** -40)
        x = mp.exp(u)
        return mp.sqrt(df * (1 - x) / x)


def ref_z(alpha: float):
    """z with erfc(z / sqrt 2) = alpha, i.e. P(|Z| > z) = alpha."""
    with mp.workdps(DIGITS):
        target = mp.log(mp.mpf(alpha))
        start = mp.sqrt(-2 * target)
        return mp.findroot(lambda z: mp.log(mp.erfc(z / mp.sqrt(2))) - target, start)


def ref_sign(low: int, untied: int):
    """min(1, 2 P(X <= low)), X ~ Binomial(untied, 1/2): C(m, k) 2^-m times the sum of the
    terms' ratios to the last, summed from k down until they no longer count."""
    with mp.workdps(DIGITS):
        term, total, j = mp.mpf(1), mp.mpf(0), low
        while j >= 0 and term >= total * mp.mpf(10) ** -(DIGITS - 5):
            total += term
            term *= mp.mpf(j) / (untied - j + 1)
            j -= 1
        return min(mp.mpf(1), 2 * mp.binomial(untied, low) * total / mp.mpf(2) ** untied)


def close(value, reference, rel):
    """value within rel of an mpmath reference (both 0 where the reference is below the
    smallest double, 5e-324, whose nearest double is 0)."""
    if reference < mp.mpf(2.5e-324):  # half the smallest double: rounds to 0
        return value == 0
    if reference < mp.mpf(2.2250738585072014e-308):  # subnormal: within 1 ulp, not 0
        return value > 0 and abs(mp.mpf(value) - reference) <= mp.mpf(5e-324)
    return abs(mp.mpf(value) - reference) <= rel * reference


# ------------------------------------------------------------------ Student's t


@pytest.mark.parametrize(
    "alpha, df",
    [
        (0.05, 11),
        (1e-12, 1),
        (1e-300, 3),  # scipy's stdtrit and t.isf: +inf, the wrong sign, below 1e-238
        (1e-300, 9),  # ... below 1e-291
        (1e-320, 20),
        (5e-324, 50),
        (1e-300, 2.5),  # Welch's degrees of freedom are not whole
        (1e-300, 10**5),
    ],
)
def test_t_critical_agrees_with_mpmath(alpha, df):
    assert close(t_critical(alpha, df), ref_t(alpha, df), 1e-12)  # mpmath reference


def test_t_critical_beyond_the_largest_double_is_infinite():
    """df = 1 and alpha = 1e-310: t = 2 / (pi alpha) = 6.4e309 (mpmath reference)."""
    assert ref_t(1e-310, 1) > mp.mpf("1.8e308")  # the largest double is 1.798e308
    assert t_critical(1e-310, 1) == np.inf


@LONGER
@given(
    log_alpha=hs.floats(-320.0, -1.5),
    log_df=hs.floats(0.0, 5.0),
)
def test_t_critical_over_wide_ranges_agrees_with_mpmath(log_alpha, log_df):
    alpha, df = 10.0**log_alpha, float(np.round(10.0**log_df))
    reference = ref_t(alpha, df)
    if reference > mp.mpf(1e300):
        return  # past the largest double for df = 1 (checked above)
    assert close(t_critical(alpha, df), reference, 1e-11)  # mpmath reference


def test_topic_sampling_significance_at_a_tiny_alpha_agrees_with_mpmath():
    """The studies' topic-sampling discriminative power on 4 topics (df = 3) at alpha =
    1e-300: the required difference is t_crit times the largest standard error; scipy's
    stdtrit was +inf there, so the critical value was -inf and every pair significant."""
    values = np.random.default_rng(1).random((3, 4))
    matrix = ScoreMatrix(values, ["a", "b", "c"], [str(j) for j in range(4)], "m")
    share, required = discriminative_power({"m": matrix}, 1e-300, np.arange(4)[None, :])
    z = values[[0, 0, 1]] - values[[1, 2, 2]]
    se = z.std(axis=1, ddof=1) / np.sqrt(4)
    expected = ref_t(1e-300, 3) * mp.mpf(se.max())  # mpmath reference
    assert share["m"][0] == 0.0
    assert close(required["m"][0], expected, 1e-12)


@LONGER
@given(log_t=hs.floats(-1.0, 6.0), log_df=hs.floats(0.0, 4.0))
def test_t_test_pvalues_over_wide_ranges_agree_with_mpmath(log_t, log_df):
    """2 P(T_df > |t|) = I_{df / (df + t^2)}(df/2, 1/2), from p = 1 to below the smallest
    double (t = 1e6 on 10,000 degrees of freedom)."""
    t, df = 10.0**log_t, float(np.round(10.0**log_df))
    with mp.workdps(DIGITS):
        x = mp.mpf(df) / (df + mp.mpf(t) ** 2)
        reference = mp.betainc(mp.mpf(df) / 2, mp.mpf(1) / 2, 0, x, regularized=True)
    assert close(float(t_pvalues(np.array(t), df)), reference, 1e-11)  # mpmath reference


def test_a_paired_t_tests_subnormal_pvalue_agrees_with_mpmath():
    """73 topics whose differences are 1 +- 4.8e-5: t = 1.8e5 on 72 degrees of freedom, p =
    6.9e-313, which scipy's t distribution gave as 0. t and p from the same floats in
    mpmath."""
    x = 1.0 + 4.8e-5 * np.where(np.arange(73) % 2, 1.0, -1.0)
    with mp.workdps(DIGITS):
        z = [mp.mpf(v) for v in x]
        mean = mp.fsum(z) / 73
        t = mean / mp.sqrt(mp.fsum((v - mean) ** 2 for v in z) / 72 / 73)
        reference = mp.betainc(36, mp.mpf(1) / 2, 0, 72 / (72 + t**2), regularized=True)
    result = paired_t_test(x, np.zeros(73))
    assert close(result.statistic, t, 1e-12)  # mpmath reference
    assert mp.mpf(5e-324) < reference < mp.mpf(2.2e-308)
    assert close(result.pvalue, reference, 1e-11)  # mpmath reference


# ------------------------------------------------------------------ the normal


@pytest.mark.parametrize("alpha", [0.05, 1e-12, 1e-300, 1e-320, 5e-324])
def test_z_critical_agrees_with_mpmath(alpha):
    assert close(z_critical(alpha), ref_z(alpha), 1e-13)  # mpmath reference


def test_the_tau_threshold_at_the_smallest_alpha_is_finite():
    """alpha = 5e-324: alpha / 2 rounded to 0, and the threshold was inf."""
    scale = mp.sqrt(mp.mpf(2 * (2 * 10 + 5)) / (9 * 10 * 9))
    assert close(tau_threshold(10, 5e-324), ref_z(5e-324) * scale, 1e-13)  # mpmath reference
    values = np.random.default_rng(2).random((10, 6))
    systems, topics = [f"s{k}" for k in range(10)], [str(j) for j in range(6)]
    matrices = {m: ScoreMatrix(values + k, systems, topics, m) for k, m in enumerate("AB")}
    threshold = rank_correlations(matrices, alpha=5e-324).parameters["threshold"]
    assert close(threshold, ref_z(5e-324) * scale, 1e-13)  # mpmath reference


# ------------------------------------------------------------------ the sign test


@pytest.mark.parametrize(
    "wins, untied",
    slow_after(
        [
            (40, 100),
            (0, 1075),  # p = 2^-1074, the smallest double: scipy's cdf gave 0
            (3, 1080),  # p = 3.2e-317, subnormal: 0
            (18, 1100),  # p = 1.1e-292: 0 (the cdf underflows inside scipy)
            (0, 2000),  # p = 2^-1999: below every double, 0
            (10**7 // 2 - 58000, 10**7),  # 1e-294 on ten million topics
            (10**9 // 2 - 590000, 10**9),  # 9.4e-305 on a billion: log(beta) lost 1e-6 of it
        ],
        6,  # the last, a second of mpmath: in the full suite
    ),
)
def test_sign_test_pvalue_agrees_with_mpmath(wins, untied):
    reference = ref_sign(min(wins, untied - wins), untied)
    if untied <= 5000:  # the public test on the topics themselves
        x = np.r_[np.ones(wins), np.zeros(untied - wins)]
        y = np.r_[np.zeros(wins), np.ones(untied - wins)]
        assert close(sign_test(x, y).pvalue, reference, 1e-11)  # mpmath reference
    assert close(float(sign_pvalues(wins, untied)), reference, 1e-11)  # mpmath reference


# 5 x 242,201 >= 1,101^2 cells: the table (a second and a half: in the full suite)
@pytest.mark.parametrize("copies", slow_after([1, 242_201]))
def test_sign_pvalues_of_many_pairs_keep_the_far_tail(copies):
    """Cell by cell, and from the table of every (m, k) (where the pairs outnumber its
    cells, as in system agreement), the far tail is the same."""
    untied = np.tile([1100, 1100, 1075, 50, 1000], copies)
    wins = np.tile([18, 1100 - 20, 0, 20, 1000 - 150], copies)
    got = sign_pvalues(wins, untied)
    for k in range(5):
        reference = ref_sign(int(min(wins[k], untied[k] - wins[k])), int(untied[k]))
        assert close(float(got[k]), reference, 1e-11)  # mpmath reference
        assert (got[k::5] == got[k]).all()


@LONGER
@given(log_m=hs.floats(0.3, 7.0), far=hs.floats(0.0, 45.0))
def test_sign_pvalues_over_wide_ranges_agree_with_mpmath(log_m, far):
    """far: standard deviations below the centre (p from 1 to about 1e-440)."""
    untied = int(10.0**log_m)
    low = int(max(0.0, untied / 2 - far * np.sqrt(untied) / 2))
    assert close(float(sign_pvalues(low, untied)), ref_sign(low, untied), 1e-10)  # mpmath


# ------------------------------------------------------------------ scores too large


@pytest.mark.parametrize(
    "test",
    [paired_t_test, welch_t_test, sign_test, paired_bootstrap_test, randomisation_test],
)
def test_scores_beyond_the_largest_a_test_squares_are_refused(test):
    """Scores of 1e200: their squares overflow, so sd = inf gave t = 0 and p = 1 (paired)
    or p = 0 (Welch) for a clear difference. The tests refuse them as a score matrix does,
    naming the argument and the bound."""
    x = np.array([1.0, 2.0, 3.5, 2.5]) * 1e200
    with pytest.raises(InputError, match=r"^x must be at most 1e\+100 in magnitude"):
        test(x, np.zeros(4))


def test_compare_pairs_refuses_scores_beyond_the_bound():
    values = np.array([[1.0, 2.0, 3.5], [0.0, 0.0, 0.0]]) * 1e200
    with pytest.raises(InputError, match=r"values must be at most 1e\+100"):
        compare_pairs(values, ["a", "b"], ["t"])
