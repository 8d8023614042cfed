"""Topic set size design at extreme alpha, beta, D, W and M, against an independent
high-precision computation in mpmath: the smallest n must hold there and n - 1 must not.

The reference shares nothing with irgauge's numerics: the miss P(F' <= f) of the F test
(df1 = 1: the two-sided t-test, F' = T'^2) is the Poisson mixture of central F
distributions, sum_j P(J = j) I_y(df1/2 + j, df2/2), with I_y from one mpmath betainc and a
backward recurrence (sums of positive terms only), at 40 digits; the critical value is the
root of I_q(df2/2, df1/2) = alpha by the secant method. irgauge integrates a normal mixture
(df1 = 1) and zooms over the mixture's terms (df1 > 1) in double precision.

IRGAUGE_FUZZ_EXAMPLES=N draws N more designs at random."""

from __future__ import annotations

import functools
import os

import numpy as np
import pytest
from scipy.stats import norm

from irgauge import InputError
from irgauge.cli import main
from irgauge.meta import min_detectable_diff, residual_variance, topic_set_size
from irgauge.stats.tails import log_f_critical
from irgauge.meta.topicset import topics_needed
from irgauge.scores import ScoreMatrix
from tests.conftest import slow_after

mp = pytest.importorskip("mpmath")
DIGITS = 40


@functools.lru_cache(maxsize=None)  # one root per level and degrees of freedom
def ref_log_critical(alpha, df1, df2):
    """log F_{1-alpha}(df1, df2): q = df2 / (df1 f + df2) solves I_q(df2/2, df1/2) = alpha,
    by the secant method in log q, started from irgauge's value (only a start: the root
    is mpmath's)."""
    start = float(log_f_critical(alpha, df1, df2))
    with mp.workdps(DIGITS):
        a, b, target = mp.mpf(df2) / 2, mp.mpf(df1) / 2, mp.log(mp.mpf(alpha))
        first = mp.log(mp.mpf(df2)) - mp.log(mp.mpf(df2) + df1 * mp.exp(start))  # log q

        def gap(log_q):
            return mp.log(mp.betainc(a, b, 0, mp.exp(log_q), regularized=True)) - target

        log_q = mp.findroot(gap, (first, first * (1 + mp.mpf(10) ** -8)), tol=mp.mpf(10) ** -60)
        q = mp.exp(log_q)
        return mp.log(mp.mpf(df2) / df1) + mp.log1p(-q) - mp.log(q)


def ref_log_miss(log_f, df1, df2, mu):
    """log P(F'(df1, df2, mu^2) <= e^log_f), the Poisson mixture summed from its last
    term down: I(a + j) = I(a + j + 1) + T(a + j), T(a + j - 1) = T(a + j) (a + j) /
    (y (a + j - 1 + b)), and the Poisson weights by w(j - 1) = w(j) j / (mu^2 / 2). The
    terms left below j, each I(a + k) <= I(a) times w(k), sum to at most I(a) P(J < j) <=
    I(a) e^-half (e half / j)^j (Chernoff's bound, j < half): the sum stops where that is
    below its 10^-(DIGITS - 5)."""
    with mp.workdps(DIGITS):
        f, half = mp.exp(log_f), mp.mpf(mu) ** 2 / 2
        a, b = mp.mpf(df1) / 2, mp.mpf(df2) / 2
        y = df1 * f / (df1 * f + df2)
        if not half:
            return mp.log(mp.betainc(a, b, 0, y, regularized=True))
        last = int(half + 40 * mp.sqrt(half) + 300)
        term = mp.betainc(a + last, b, 0, y, regularized=True)
        step = mp.exp(
            (a + last) * mp.log(y)
            + b * mp.log1p(-y)
            - mp.log(a + last)
            - mp.log(mp.beta(a + last, b))
        )
        weight = mp.exp(-half + last * mp.log(half) - mp.loggamma(last + 1))
        first = mp.betainc(a, b, 0, y, regularized=True)  # I(a), the largest I
        total, small = mp.mpf(0), mp.mpf(10) ** (5 - DIGITS)
        for j in range(last, -1, -1):
            total += weight * term
            if 0 < j < half and j % 256 == 0:  # Chernoff: P(J < j) <= e^-half (e half / j)^j
                if first * mp.exp(j - half + j * mp.log(half / j)) <= small * total:
                    break
            if j:
                step = step * (a + j) / (y * (a + j - 1 + b))
                term += step
                weight = weight * j / half
        return mp.log(total)


def ref_log_miss_far(log_f, df1, df2, mu):
    """log P(F'(df1, df2, mu^2) <= e^log_f) for a noncentrality too large for the mixture's
    terms: the integral over x of the noncentral chi-square's density (its Bessel form),
    1/2 exp(-(sqrt(x) - mu)^2 / 2) (x / lambda)^((df1 - 2)/4) I_nu(mu sqrt(x)) e^(-mu
    sqrt(x)), times P(V >= df2 x / (f df1)), V ~ chi^2(df2), over x = lambda + d, d =
    s u, s^2 = 4 lambda + 2 df1; d is kept apart from lambda (sqrt(x) - mu = d / (sqrt(x) +
    mu)), so that a lambda of 1e200 loses nothing at 30 digits. The integrand is taken in
    logs, its peak found by parabolic steps (its log is near -u^2 / 2 plus a slowly
    turning log Q) and the integral taken 16 on each side of it, divided by its value
    there, so that mpmath's quadrature, which stops at an absolute error, meets a
    relative one whatever the miss (1e-300 with the integrand undivided left 1e-3)."""
    with mp.workdps(30):
        f, mu = mp.exp(log_f), mp.mpf(mu)
        lam, nu = mu**2, mp.mpf(df1) / 2 - 1
        s = mp.sqrt(4 * lam + 2 * df1)

        def log_integrand(u):
            d = s * u
            x = lam + d
            root = mp.sqrt(x)
            z = mu * root
            if df1 == 1:  # I_{-1/2}(z) = sqrt(2 / (pi z)) cosh(z), mpmath's slow at 1e600
                scaled = mp.sqrt(2 / (mp.pi * z)) * (1 + mp.exp(-2 * z)) / 2
            else:
                scaled = mp.besseli(nu, z) * mp.exp(-z)  # a product: no digits cancel
            log_density = (
                -((d / (root + mu)) ** 2) / 2
                + (mp.mpf(df1) - 2) / 4 * mp.log(x / lam)
                + mp.log(scaled / 2)
            )
            tail = mp.gammainc(mp.mpf(df2) / 2, df2 * x / (2 * f * df1), mp.inf, regularized=True)
            return log_density + mp.log(tail) + mp.log(s)

        peak = mp.mpf(0)
        for _ in range(3):  # the vertex of the parabola through peak - 1, peak, peak + 1
            low, mid, high = (log_integrand(peak + k) for k in (-1, 0, 1))
            peak += max(-8, min(8, (low - high) / (2 * (low - 2 * mid + high))))
        top = log_integrand(peak)
        ends = [peak + k for k in (-16, -4, 0, 4, 16)]
        value = mp.quad(lambda u: mp.exp(log_integrand(u) - top), ends, method="gauss-legendre")
        return mp.log(value) + top


def ref_miss(log_f, df1, df2, mu):
    """The reference's log miss: the mixture's sum, or past lambda / 2 = 10^6 the
    integral (df1 = 1 too: a t-test at alpha = 1e-300 on 2 topics has lambda near 1e600)."""
    if float(mp.mpf(mu) ** 2 / 2) > 1e6:
        return ref_log_miss_far(log_f, df1, df2, mu)
    return ref_log_miss(log_f, df1, df2, mu)


def ref_holds(design, n, variance, effect, alpha, beta, systems):
    """Whether n topics meet the design, by the reference."""
    if design == "ci":
        half = ref_log_critical(alpha, 1, n - 1) / 2  # log t_{1-alpha/2, n-1}
        with mp.workdps(DIGITS):
            return mp.log(2) + half + (mp.log(2 * variance) - mp.log(n)) / 2 <= mp.log(effect)
    df1, df2 = (1, n - 1) if design == "ttest" else (systems - 1, systems * (n - 1))
    with mp.workdps(DIGITS):
        mu = mp.mpf(effect) * mp.sqrt(mp.mpf(n) / (2 * mp.mpf(variance)))
    return ref_miss(ref_log_critical(alpha, df1, df2), df1, df2, mu) <= mp.log(beta)


def check_smallest(design, variance, effect, alpha, beta=0.2, systems=2):
    """irgauge's n holds by the reference, and n - 1 does not (n = 2: the smallest)."""
    if design == "ci":
        n = topics_needed(variance, "ci", None, effect, alpha)
    else:
        n = topics_needed(variance, design, effect, None, alpha, beta, systems)
    assert isinstance(n, int) and n >= 2
    case = (design, variance, effect, alpha, beta, systems, n)
    assert ref_holds(design, n, variance, effect, alpha, beta, systems), case
    assert n == 2 or not ref_holds(design, n - 1, variance, effect, alpha, beta, systems), case
    return n


# (design, V_E, D or W, alpha, beta, M); the first lines are the issue's cases, each wrong
# or refused before: D = 5 gave 14 and 3 where n = 2 already has the power, beta = 1e-300
# 1493 (the power rounded to 1 there), alpha = 1e-300 was refused as needing 1e9 topics
CASES = [
    ("ttest", 0.1, 5.0, 0.05, 0.2, 2),
    ("ttest", 0.01, 5.0, 0.05, 0.2, 2),
    ("ttest", 0.013608, 0.05, 0.05, 1e-300, 2),
    ("ttest", 0.013608, 0.05, 1e-300, 0.2, 2),
    ("anova", 0.013608, 0.05, 1e-300, 0.2, 2),
    ("anova", 0.013608, 0.1, 1e-20, 0.2, 100),
    ("anova", 0.013608, 0.05, 0.05, 1e-300, 5),
    ("ci", 0.013608, 0.01, 1e-300, None, 2),
    ("ttest", 0.02, 0.3, 0.5, 0.4, 2),
    ("ttest", 1e-4, 0.3, 1e-10, 1e-10, 2),
    ("anova", 0.05, 2.0, 1e-100, 1e-30, 3),
    ("ci", 0.02, 3.0, 0.9, None, 2),
    # alpha among the subnormal numbers, where scipy's Beta quantiles lose their digits
    # (alpha below 1e-300 was refused; 5e-324 had given 268435458 topics)
    ("ttest", 0.013608, 0.05, 5e-324, 0.2, 2),
    ("anova", 0.013608, 0.05, 1e-310, 0.2, 4),
    ("ci", 0.013608, 0.01, 1e-320, None, 2),
    # V_E at the ends of the doubles (a subnormal one: sqrt(n / (2 V_E)) overflowed) and
    # M = 50 systems
    ("ttest", 1e-320, 1e-161, 0.05, 0.2, 2),
    ("ci", 1e-320, 1e-160, 0.05, None, 2),
    ("ttest", 1e198, 1e98, 1e-10, 1e-10, 2),
    ("anova", 1e-300, 1e-151, 0.05, 0.2, 50),
]


@pytest.mark.parametrize("alpha", [1e-299, 1e-310, 1e-320, 5e-324])
@pytest.mark.parametrize(
    "df1, df2", slow_after([(1, 1), (1, 2), (1, 5), (1, 100), (3, 10**4), (1, 10**7)], 5)
)
def test_critical_value_agrees_with_mpmath(alpha, df1, df2):
    value = float(log_f_critical(alpha, df1, np.asarray(float(df2))))
    assert value == pytest.approx(float(ref_log_critical(alpha, df1, df2)), rel=1e-12)


# a tiny alpha on many degrees of freedom, where scipy's Beta quantile is only a start: at
# (49, 450) and 1e-300 its I_q is 1e-294, a log critical value of 5.52 for 5.58; the ANOVA
# over 50 systems at alpha = 1e-300 (V_E = 0.05, D = 0.1) was given 15102 topics for 16100
@pytest.mark.parametrize(
    "alpha, df1, df2",
    slow_after(
        [(1e-300, 49, 450), (1e-280, 49, 1000), (1e-300, 19, 1000), (1e-250, 1, 1000)]
        + [(1e-300, 3, 8)],  # scipy's quantiles are NaN here
        1,
    ),
)
def test_critical_value_of_many_degrees_of_freedom_agrees_with_mpmath(alpha, df1, df2):
    value = float(log_f_critical(alpha, df1, np.asarray(float(df2))))
    assert value == pytest.approx(float(ref_log_critical(alpha, df1, df2)), rel=1e-12)


@pytest.mark.parametrize("design, variance, effect, alpha, beta, systems", slow_after(CASES, 3))
def test_smallest_n_agrees_with_mpmath(design, variance, effect, alpha, beta, systems):
    check_smallest(design, variance, effect, alpha, beta, systems)


def test_issue_cases_give_the_exact_n():
    # the power at n = 2 is 0.996 for D = 5 on V_E = 0.01: 2 topics suffice
    assert topics_needed(0.01, "ttest", 5.0) == 2
    # beta = 1e-300 on V_E = 0.0136: about 16,600 topics, where 1 - beta rounds to 1
    n = topics_needed(0.013608, "ttest", 0.05, beta=1e-300)
    assert 16000 < n < 17000


def test_an_overwhelming_difference_needs_2_topics_in_every_design():
    for systems in (2, 3, 50):  # an infinite noncentrality; 1e150 beyond the mixture
        assert topics_needed(0.01, "anova", [1e308, 1e150], anova_systems=systems).tolist() == [
            2,
            2,
        ]
    assert topics_needed(0.01, "ttest", 1e308) == 2


def test_more_topics_than_a_billion_are_given_not_refused():
    n = topics_needed(0.01, "ttest", 1e-6)  # about 1.6e10: finite, so given
    assert n > 10**10
    d = 1e-6 * np.sqrt(n / 0.02)  # the t-test is a z-test here: delta = z_.025 + z_.2
    assert d == pytest.approx(norm.isf(0.025) + norm.isf(0.2), rel=1e-5)


def test_min_detectable_diff_at_extreme_levels_is_the_threshold():
    for design, systems in (("ttest", 2), ("anova", 4)):
        for alpha, beta in ((1e-300, 0.2), (0.05, 1e-300)):
            d = min_detectable_diff(0.01, 30, design, alpha, beta, systems)
            assert np.isfinite(d) and d > 0
            assert topics_needed(0.01, design, d, None, alpha, beta, systems) <= 30
            assert topics_needed(0.01, design, d * (1 - 1e-9), None, alpha, beta, systems) > 30


# (V_E, n, alpha, M): an ANOVA over M > 2 systems on 2 topics at alpha = 1e-300 needs a
# noncentrality of 1e30 to 1e200, past the mixture's terms, where the power could not be
# computed and the question was refused; alpha = 1e-24 puts it at 1e16, where X's spread
# is still resolved. M = 3 at 1e-300 (a noncentrality of 1e200) takes mpmath's reference
# about 10 s: the full suite's; M = 5 and 20 put the quick subset past the mixture too
FAR = [
    pytest.param(0.05, 2, 1e-300, 3, marks=pytest.mark.slow),
    (0.05, 2, 1e-300, 5),
    (0.05, 2, 1e-300, 20),
    (0.05, 2, 1e-24, 3),
]


@pytest.mark.parametrize("variance, n, alpha, systems", FAR)
def test_min_detectable_diff_past_the_mixture_agrees_with_mpmath(variance, n, alpha, systems):
    """The threshold to a relative 1e-9 (both computations hold it to about 1e-13)."""
    d = min_detectable_diff(variance, n, "anova", alpha, 0.2, systems)
    assert ref_holds("anova", n, variance, d * (1 + 1e-9), alpha, 0.2, systems)
    assert not ref_holds("anova", n, variance, d * (1 - 1e-9), alpha, 0.2, systems)


# lambda / 2 = mu**2 / 2 just past the hand-over: 1.4143e7**2 / 2 = 1.00013e14
@pytest.mark.parametrize(
    "mu, df1, df2",
    # the hand-over and the far end in the quick subset, the grid in the full suite
    slow_after(
        [(1.4143e7, 9, 30), (1e9, 2, 6), (2e7, 2, 6), (2e7, 9, 30), (1.4143e7, 2, 6)]
        + [(1e9, 9, 30)],
        2,
    ),
)
def test_the_far_power_agrees_with_mpmath(mu, df1, df2):
    """Past lambda / 2 = 1e14, where the mixture hands over, at critical values that put
    the miss between 1e-6 and 1 - 1e-6."""
    from irgauge.meta._power import log_miss

    for log_f in (2 * np.log(mu) - np.log(df1) + np.log(x) for x in (0.5, 1.0, 3.0)):
        value = float(log_miss(log_f, df1, float(df2), mu))
        reference = float(ref_log_miss_far(log_f, df1, df2, mu))
        assert -15 < reference < -1e-6 and value == pytest.approx(reference, rel=1e-10)


@pytest.mark.parametrize(
    "mu, df2", slow_after([(1e30, 1), (1e300, 3), (300, 1), (1e4, 10), (1e8, 450), (40, 30)], 1)
)
def test_the_t_tests_power_at_a_large_noncentrality_agrees_with_mpmath(mu, df2):
    """The t-test's miss averaged over V steps where sqrt(f V / df2) passes mu, within a
    relative 1 / mu: past mu of about 100 its integral held only a relative 1e-3 (the
    threshold D at alpha = 1e-300 on 2 topics by as much). Averaged over Z it is smooth
    there; from the deep tail (x = 0.05) to a miss near 1."""
    from irgauge.meta._power import log_miss

    for x in (0.05, 0.3, 1.0, 3.0):
        log_f = 2 * np.log(mu) + np.log(x)
        value = float(log_miss(log_f, 1, float(df2), mu))
        reference = float(ref_miss(log_f, 1, df2, mu))
        assert value == pytest.approx(reference, rel=1e-10, abs=1e-10), x


@pytest.mark.parametrize(
    "half, df1, df2",
    # just below the hand-over (where 1 - y lost its digits) in the quick subset
    slow_after(
        [(9.9e13, 9, 30), (9.9e13, 2, 6), (1e10, 2, 6), (1e10, 9, 30), (1e12, 2, 6)]
        + [(1e12, 9, 30)],
        2,
    ),
)
def test_the_mixture_keeps_its_digits_below_the_far_form(half, df1, df2):
    """Just below lambda / 2 = 1e14 the mixture's y = df1 f / (df1 f + df2) is within
    1e-13 of 1: 1 - y taken from y held a relative 1e-2 (log miss -0.763 for -0.860 at
    9.9e13), 1 - y from logs keeps the log miss to 1e-9 of mpmath's (1e-10 absolute near
    0), from a miss near 1 (x = 3) to the far tail (x = 0.05, a miss near e^-245). The
    1e-5 once seen in that tail was the reference's: its quadrature, stopping at an
    absolute error, met a miss of 1e-107 at once."""
    from irgauge.meta._power import log_miss

    mu = np.sqrt(2 * half)
    for x in (0.05, 0.3, 1.0, 3.0):
        log_f = 2 * np.log(mu) - np.log(df1) + np.log(x)
        value = float(log_miss(log_f, df1, float(df2), mu))
        reference = float(ref_log_miss_far(log_f, df1, df2, mu))
        assert value == pytest.approx(reference, rel=1e-9, abs=1e-10), x


# the results fuzz's score scales (1e-160 gives a subnormal V_E of about 1e-320, whose
# sqrt(n / (2 V_E)) overflowed: every D looked infinite and the search never ended)
SCALES = [(5e-324, 2, "ttest"), (1e-320, 3, "anova"), (1e-300, 6, "anova"), (1e198, 2, "anova")]


@pytest.mark.parametrize("variance, n, design", SCALES)
@pytest.mark.parametrize("alpha, beta, systems", [(0.05, 0.2, 3), (1e-300, 1e-300, 50)])
def test_min_detectable_diff_is_found_in_few_steps_at_every_scale(
    monkeypatch, variance, n, design, alpha, beta, systems
):
    """The search in log D takes a bounded number of evaluations of the power (at most
    11 + 11 bracketing moves and 200 steps; a few dozen in practice) wherever D lies in
    the doubles, and its D is the threshold to a relative 1e-12."""
    from irgauge.meta import topicset

    calls = []
    for name in ("_log_ttest_miss", "_log_anova_miss"):
        original = getattr(topicset, name)

        def counted(*args, original=original):
            calls.append(args[1])
            return original(*args)

        monkeypatch.setattr(topicset, name, counted)
    d = min_detectable_diff(variance, n, design, alpha, beta, systems)
    assert 0 < d < np.inf and len(calls) <= 60
    calls.clear()
    miss = topicset._log_ttest_miss if design == "ttest" else topicset._log_anova_miss
    extra = () if design == "ttest" else (systems,)
    assert float(miss(n, d, variance, alpha, *extra)) <= np.log(beta)
    assert float(miss(n, d * (1 - 1e-12), variance, alpha, *extra)) > np.log(beta)


def test_a_secant_rounding_onto_an_end_does_not_stop_the_search():
    """V_E = 0.05, 2 topics, ANOVA over 3 systems: a secant step one ulp above the lower end
    in log D gave that end itself in D, read as no double between the ends, and the search
    stopped with the ends a relative 9e-6 apart (the detected end returned)."""
    from irgauge.meta.topicset import _log_anova_miss

    d = min_detectable_diff(0.05, 2, "anova", 0.05, 0.2, 3)
    assert float(_log_anova_miss(2, d, 0.05, 0.05, 3)) <= np.log(0.2)
    assert float(_log_anova_miss(2, d * (1 - 1e-12), 0.05, 0.05, 3)) > np.log(0.2)


def test_a_difference_past_the_largest_double_is_infinite_with_its_reason():
    """V_E = 1e200 on 2 topics at alpha = 5e-324: lambda must reach e^1488, D about 1e423;
    the answer is not a double, so it is inf and the result says why."""
    assert min_detectable_diff(1e200, 2, "ttest", 5e-324, 0.2) == np.inf
    rng = np.random.default_rng(5)
    matrix = ScoreMatrix(rng.random((3, 2)) * 1e99, ["a", "b", "c"], ["1", "2"], "x")
    result = topic_set_size({"x": matrix}, 1e200, alpha=5e-324)
    reason = "1 min_detectable_diff value is not finite: the smallest detectable difference"
    assert any(reason in note for note in result.notes), result.notes


@pytest.mark.slow  # 108 thresholds, each checked at D (1 +- 1e-9) by mpmath: minutes
@pytest.mark.skipif(not os.environ.get("IRGAUGE_FUZZ_EXAMPLES"), reason="a longer search")
@pytest.mark.parametrize("variance", [1e-300, 0.05])
@pytest.mark.parametrize("alpha", [1e-300, 0.05, 0.5])
@pytest.mark.parametrize("beta", [1e-300, 0.2, 0.45])
@pytest.mark.parametrize("systems", [2, 3, 50])
def test_min_detectable_diff_grid_agrees_with_mpmath(variance, alpha, beta, systems):
    """D to a relative 1e-9 over extreme alpha, beta, V_E and M, on 2 topics (where the
    far edge is) and 10."""
    for design, n in (("ttest" if systems == 2 else "anova", 2), ("anova", 10)):
        d = min_detectable_diff(variance, n, design, alpha, beta, systems)
        assert ref_holds(design, n, variance, d * (1 + 1e-9), alpha, beta, systems)
        assert not ref_holds(design, n, variance, d * (1 - 1e-9), alpha, beta, systems)


def test_topics_command_answers_extreme_beta(tmp_path, capsys):
    rng = np.random.default_rng(3)
    scores = rng.random((4, 30))
    path = tmp_path / "scores.csv"
    rows = ["topic," + ",".join(f"s{i}" for i in range(4))]
    rows += [f"t{j}," + ",".join(repr(float(v)) for v in scores[:, j]) for j in range(30)]
    path.write_text("\n".join(rows) + "\n")
    argv = ["topics", f"m={path}", "--min-diff", "0.05", "--beta", "1e-300", "--format", "tsv"]
    assert main(argv) == 0
    lines = [line.split("\t") for line in capsys.readouterr().out.splitlines()]
    found = {(r[0], r[2]): r[3] for r in lines if len(r) == 4}
    variance = float(found[("all", "variance")])
    assert variance == pytest.approx(residual_variance(scores), rel=1e-12)
    n = int(found[("ttest", "n_topics")])
    assert ref_holds("ttest", n, variance, 0.05, 0.05, 1e-300, 2)
    assert not ref_holds("ttest", n - 1, variance, 0.05, 0.05, 1e-300, 2)


def test_additive_scores_have_no_residual_variance_up_to_rounding():
    rng = np.random.default_rng(0)
    additive = np.add.outer(rng.random(5), rng.random(40))  # rounding leaves ~1e-33
    assert residual_variance(additive) == 0.0
    assert residual_variance(additive * 1e6) == 0.0  # relative to the scores' magnitude
    noisy = additive + rng.normal(0, 1e-9, additive.shape)  # a real (tiny) interaction
    assert residual_variance(noisy) > 0
    matrix = ScoreMatrix(additive, [f"s{i}" for i in range(5)], [str(j) for j in range(40)], "x")
    with pytest.raises(InputError, match="measure x: the residual variance is 0, up to rounding"):
        topic_set_size({"x": matrix}, 0.05)


def _drawn(count):
    rng = np.random.default_rng(33)
    for _ in range(count):
        design = rng.choice(["ttest", "anova", "ci"])
        alpha = float(10 ** rng.uniform(-300, np.log10(0.5)))
        beta = float(10 ** rng.uniform(-300, np.log10(0.9 * (1 - alpha))))
        effect = float(10 ** rng.uniform(-2, 1))
        yield str(design), 0.02, effect, alpha, beta, int(rng.integers(2, 30))


@pytest.mark.skipif(not os.environ.get("IRGAUGE_FUZZ_EXAMPLES"), reason="a longer search")
def test_random_designs_agree_with_mpmath():
    for design, variance, effect, alpha, beta, systems in _drawn(
        int(os.environ["IRGAUGE_FUZZ_EXAMPLES"])
    ):
        try:
            check_smallest(design, variance, effect, alpha, beta, systems)
        except InputError as error:  # only past 2^53 topics
            assert "more than 9007199254740992 topics" in str(error)


def test_a_power_at_or_below_alpha_is_refused_naming_beta(tmp_path, capsys):
    """The only answer-less (alpha, beta): 1 - beta <= alpha; one line naming --beta."""
    path = tmp_path / "scores.csv"
    rows = ["topic,a,b,c"] + [f"t{j},0.{j}1,0.{j}5,0.{9 - j}2" for j in range(4)]
    path.write_text("\n".join(rows) + "\n")
    argv = ["topics", f"m={path}", "--min-diff", "0.05", "--alpha", "0.6", "--beta", "0.5"]
    assert main(argv) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("irgauge: error: --beta: the power 1 - beta = 0.5 must exceed")
    assert "\n" not in err
