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

import os

import numpy as np
import pytest
from scipy.stats import norm

from irgauge import InputError
from irgauge.cli import main
from irgauge.meta import min_detectable_diff, residual_variance, topic_set_size
from irgauge.meta._power import log_f_critical
from irgauge.meta.topicset import topics_needed
from irgauge.scores import ScoreMatrix
from tests.conftest import slow_after

mp = pytest.importorskip("mpmath")
DIGITS = 40


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
    (y (a + j - 1 + b))."""
    with mp.workdps(DIGITS):
        f, half = mp.exp(log_f), mp.mpf(mu) ** 2 / 2
        a, b = mp.mpf(df1) / 2, mp.mpf(df2) / 2
        y = df1 * f / (df1 * f + df2)
        last = int(half + 40 * mp.sqrt(half) + 300)
        term = mp.betainc(a + last, b, 0, y, regularized=True)
        step = mp.exp(
            (a + last) * mp.log(y)
            + b * mp.log1p(-y)
            - mp.log(a + last)
            - mp.log(mp.beta(a + last, b))
        )
        total = mp.mpf(0)
        for j in range(last, -1, -1):
            weight = mp.exp(-half + j * mp.log(half) - mp.loggamma(j + 1)) if half else int(j == 0)
            total += weight * term
            if j:
                step = step * (a + j) / (y * (a + j - 1 + b))
                term += step
        return mp.log(total)


def ref_holds(design, n, variance, effect, alpha, beta, systems):
    """Whether n topics meet the design, by the reference."""
    if design == "ci":
        half = ref_log_critical(alpha, 1, n - 1) / 2  # log t_{1-alpha/2, n-1}
        with mp.workdps(DIGITS):
            return mp.log(2) + half + (mp.log(2 * variance) - mp.log(n)) / 2 <= mp.log(effect)
    df1, df2 = (1, n - 1) if design == "ttest" else (systems - 1, systems * (n - 1))
    with mp.workdps(DIGITS):
        mu = mp.mpf(effect) * mp.sqrt(mp.mpf(n) / (2 * mp.mpf(variance)))
    return ref_log_miss(ref_log_critical(alpha, df1, df2), df1, df2, mu) <= mp.log(beta)


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
]


@pytest.mark.parametrize("alpha", [1e-299, 1e-310, 1e-320, 5e-324])
@pytest.mark.parametrize(
    "df1, df2", slow_after([(1, 1), (1, 2), (1, 5), (1, 100), (3, 10**4), (1, 10**7)], 5)
)
def test_critical_value_agrees_with_mpmath(alpha, df1, df2):
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
        assert topics_needed(0.01, "anova", [1e308, 1e150], systems=systems).tolist() == [2, 2]
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
