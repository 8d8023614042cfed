"""Topic set size design (Sakai 2016, "Topic set size design", Information Retrieval
Journal 19(3):256-283): how many topics a test collection needs so that a planned
significance test has enough power, or a confidence interval is narrow enough.

The variance comes from a score matrix x (m systems x n topics): the residual mean square
of a two-way ANOVA without replication (system and topic effects),

    V_E = sum_ij (x_ij - xbar_i. - xbar_.j + xbar..)^2 / ((m - 1)(n - 1)),

and the variance of a per-topic difference between two systems is sigma_t^2 = 2 V_E.
Each design gives the smallest number of topics n >= 2 such that:

* ``ttest``: a paired two-sided t-test at level alpha detects a difference D with power
  at least 1 - beta: with noncentrality delta = D sqrt(n) / sigma_t and df = n - 1,
  P(|T'| > t_{1-alpha/2, n-1}) >= 1 - beta, T' noncentral t;
* ``anova``: a one-way ANOVA over M systems detects a range D (the worst case of Sakai's
  minimum detectable range): lambda = n D^2 / (2 V_E), df = (M - 1, M (n - 1)),
  P(F'(M - 1, M (n - 1), lambda) > F_{1-alpha}(M - 1, M (n - 1))) >= 1 - beta;
* ``ci``: the 100(1 - alpha)% confidence interval of a difference between two systems is
  at most W wide: 2 t_{1-alpha/2, n-1} sigma_t / sqrt(n) <= W (sigma_t taken as known).

The inverse questions: the smallest D that this collection's n topics detects in the
``ttest`` and ``anova`` designs, and the confidence interval width its n topics give.

Power grows with n (and with D), so the smallest n is found by doubling and then bisection,
vectorised over any array of differences; scipy.stats is imported on first use.
"""

from __future__ import annotations

from typing import Optional, Sequence, Union

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError, InputSizeError
from irgauge.meta.result import MetaResult
from irgauge.scores import check_matrices
from irgauge.scores.frames import as_score_matrices
from irgauge.scores.matrix import ScoreMatrix
from irgauge.stats.resampling import require_topics

DESIGNS = ("ttest", "anova", "ci")
TABLE_COLUMNS = ("design", "measure", "statistic", "value")
MAX_TOPICS = _checks.MAX_COUNT  # a design needing more topics than this is refused
_BISECTIONS = 200  # halvings of a real interval: far below float resolution


def residual_variance(matrix) -> float:
    """V_E, the residual mean square of a two-way ANOVA without replication on ``matrix``
    (a ScoreMatrix or an array, systems x topics):
    sum_ij (x_ij - xbar_i. - xbar_.j + xbar..)^2 / ((m - 1)(n - 1))."""
    values = matrix.values if isinstance(matrix, ScoreMatrix) else np.asarray(matrix, float)
    if values.ndim != 2:
        raise InputError(f"a score matrix must be systems x topics; got shape {values.shape}")
    m, n = values.shape
    if m < 2:
        raise InputSizeError(f"the residual variance needs at least 2 systems; got {m}")
    require_topics(n, "the residual variance")
    if not np.isfinite(values).all():
        raise InputError("the score matrix holds missing or non-finite values")
    residual = (
        values - values.mean(axis=1, keepdims=True) - values.mean(axis=0, keepdims=True)
    ) + values.mean()
    return float(np.sum(residual**2) / ((m - 1) * (n - 1)))


# ------------------------------------------------------------------ checks


def _alpha_beta(alpha, beta) -> tuple:
    alpha = _checks.alpha(alpha, "alpha")
    beta = _checks.real(beta, "beta", 0.0, 1.0, True, True, what="a type II error rate")
    if 1 - beta <= alpha:
        raise InputError(
            f"the power 1 - beta = {1 - beta:g} must exceed alpha = {alpha:g} "
            "(a test with power alpha needs no topics at all)"
        )
    return alpha, beta


def _design(design: str) -> str:
    return _checks.choice(design, "design", DESIGNS)


def _positive(value, name: str) -> np.ndarray:
    """``value`` (a number or an array) as a float array, every element finite and > 0."""
    if isinstance(value, bool):
        raise InputError(f"{name}: expected a number > 0; got {value!r}")
    array = _checks.real_array(value, name, "a number or an array")
    if array.size == 0 or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise InputError(f"{name}: expected a number > 0; got {value!r}")
    return array


def _systems(value) -> int:
    return _checks.whole(value, "systems", 2, MAX_TOPICS, what="a number of systems M")


# ------------------------------------------------------------------ power and width


def ttest_power(n, min_diff, variance, alpha: float):
    """Power of the paired two-sided t-test with n topics to detect ``min_diff`` when
    sigma_t^2 = 2 ``variance``: P(|T'| > t_{1-alpha/2, n-1}), T' ~ t'(n - 1, D sqrt(n) /
    sigma_t) (arrays broadcast)."""
    # scipy.stats only here: importing irgauge.meta must not load it (tests/test_startup.py)
    from scipy import stats

    n = np.asarray(n, dtype=float)
    delta = np.asarray(min_diff, dtype=float) * np.sqrt(n / (2 * np.asarray(variance, float)))
    critical = stats.t.isf(alpha / 2, n - 1)
    return stats.nct.sf(critical, n - 1, delta) + stats.nct.cdf(-critical, n - 1, delta)


def anova_power(n, min_diff, variance, alpha: float, systems: int):
    """Power of the one-way ANOVA over ``systems`` (M) systems with n topics each to detect
    a range ``min_diff``: P(F'(M-1, M(n-1), lambda) > F_{1-alpha}(M-1, M(n-1))) with
    lambda = n D^2 / (2 V_E) (arrays broadcast)."""
    # scipy.stats only here: importing irgauge.meta must not load it (tests/test_startup.py)
    from scipy import stats

    n = np.asarray(n, dtype=float)
    df1, df2 = systems - 1, systems * (n - 1)
    lam = n * np.asarray(min_diff, dtype=float) ** 2 / (2 * np.asarray(variance, float))
    return stats.ncf.sf(stats.f.isf(alpha, df1, df2), df1, df2, lam)


def ci_width(variance, n_topics, alpha: float = 0.05):
    """Width of the 100(1 - alpha)% confidence interval of a difference between two
    systems over n topics: 2 t_{1-alpha/2, n-1} sigma_t / sqrt(n), sigma_t^2 = 2 V_E."""
    # scipy.stats only here: importing irgauge.meta must not load it (tests/test_startup.py)
    from scipy import stats

    n = np.asarray(n_topics, dtype=float)
    width = 2 * stats.t.isf(alpha / 2, n - 1) * np.sqrt(2 * np.asarray(variance, float) / n)
    return width if np.ndim(width) else float(width)


# ------------------------------------------------------------------ searches


def _smallest_n(satisfied, shape) -> np.ndarray:
    """The smallest integer n >= 2 with ``satisfied(n)`` (vectorised, monotone in n) for
    every element: doubling from 2 until satisfied, then bisection between the last n that
    failed and the first that passed."""
    hi = np.full(shape, 2.0)
    lo = np.ones(shape)  # below the range: never evaluated
    ok = satisfied(hi)
    while not ok.all():
        if np.any(hi[~ok] >= MAX_TOPICS):
            raise InputError(
                f"the design needs more than {MAX_TOPICS} topics: ask for a larger difference "
                "or a wider interval"
            )
        lo = np.where(ok, lo, hi)
        hi = np.where(ok, hi, hi * 2)
        ok = satisfied(hi)
    while np.any(hi - lo > 1):
        mid = np.where(hi - lo > 1, np.floor((lo + hi) / 2), hi)
        good = satisfied(mid)
        lo, hi = np.where(good, lo, mid), np.where(good, mid, hi)
    return hi.astype(np.int64)


def _scalar(array):
    return array.item() if np.ndim(array) == 0 else array


def topics_needed(
    variance: float,
    design: str = "ttest",
    min_diff=None,
    ci_width=None,
    alpha: float = 0.05,
    beta: float = 0.20,
    systems: int = 2,
):
    """Smallest number of topics n >= 2 of ``design`` (``ttest``, ``anova`` or ``ci``; see
    the module docstring) for a collection whose residual variance is ``variance`` (V_E);
    ``min_diff`` (D, for ttest and anova) or ``ci_width`` (W, for ci) may be arrays."""
    design = _design(design)
    variance = float(_positive(variance, "variance"))
    if design == "ci":
        alpha = _checks.alpha(alpha, "alpha")
        width = _positive(ci_width, "ci_width")
        n = _smallest_n(lambda k: _ci_width_array(variance, k, alpha) <= width, width.shape)
        return _scalar(n)
    alpha, beta = _alpha_beta(alpha, beta)
    diff = _positive(min_diff, "min_diff")
    if design == "ttest":
        n = _smallest_n(lambda k: ttest_power(k, diff, variance, alpha) >= 1 - beta, diff.shape)
    else:
        systems = _systems(systems)
        n = _smallest_n(
            lambda k: anova_power(k, diff, variance, alpha, systems) >= 1 - beta, diff.shape
        )
    return _scalar(n)


def _ci_width_array(variance, n, alpha):
    return np.asarray(ci_width(variance, n, alpha), dtype=float)


def min_detectable_diff(
    variance: float,
    n_topics: int,
    design: str = "ttest",
    alpha: float = 0.05,
    beta: float = 0.20,
    systems: int = 2,
) -> float:
    """Smallest difference D that ``n_topics`` topics detect with power 1 - beta in the
    ``ttest`` or ``anova`` design (power grows with D: bisection on D, returning a D whose
    power is at least 1 - beta; any smaller D by more than a relative 1e-12 falls short)."""
    design = _design(design)
    if design == "ci":
        raise InputError("design ci has no detectable difference: see ci_width()")
    variance = float(_positive(variance, "variance"))
    n = _checks.whole(n_topics, "n_topics", 2, MAX_TOPICS, what="a number of topics")
    alpha, beta = _alpha_beta(alpha, beta)
    if design == "ttest":

        def power(d):
            return ttest_power(n, d, variance, alpha)
    else:
        systems = _systems(systems)

        def power(d):
            return anova_power(n, d, variance, alpha, systems)

    lo, hi = 0.0, float(np.sqrt(2 * variance))
    while power(hi) < 1 - beta:
        lo, hi = hi, hi * 2
    for _ in range(_BISECTIONS):
        if hi - lo <= 1e-13 * hi:
            break
        mid = (lo + hi) / 2
        lo, hi = (lo, mid) if power(mid) >= 1 - beta else (mid, hi)
    return hi


# ------------------------------------------------------------------ the method


def _pick(scores, measure) -> dict:
    """``{measure: ScoreMatrix}`` of the measure(s) asked for (all when None)."""
    wanted = [measure] if isinstance(measure, str) else measure
    single = measure if isinstance(measure, str) else None
    matrices = as_score_matrices(scores, single)
    if wanted is not None:
        missing = [m for m in wanted if m not in matrices]
        if missing:
            raise InputError(
                f"no scores for measure(s) {', '.join(missing)} (have: {', '.join(matrices)})"
            )
        matrices = {m: matrices[m] for m in wanted}
    return matrices


def _rows(name, variance, n_topics, min_diff, ci, alpha, beta, systems) -> list:
    """(design, measure, statistic, value) rows of one measure."""
    rows = [("all", name, "variance", variance)]
    for design in ("ttest", "anova"):
        needed = topics_needed(variance, design, min_diff, None, alpha, beta, systems)
        least = min_detectable_diff(variance, n_topics, design, alpha, beta, systems)
        rows += [
            (design, name, "n_topics", int(needed)),
            (design, name, "min_detectable_diff", least),
        ]
    if ci is not None:
        rows.append(("ci", name, "n_topics", int(topics_needed(variance, "ci", None, ci, alpha))))
    rows.append(("ci", name, "ci_width", ci_width(variance, n_topics, alpha)))
    return rows


def topic_set_size(
    scores,
    min_diff: float,
    alpha: float = 0.05,
    beta: float = 0.20,
    systems: int = 2,
    ci_width: Optional[float] = None,
    measure: Union[str, Sequence[str], None] = None,
) -> MetaResult:
    """Topic set size design of Sakai (2016) for every measure of ``scores`` (any form
    :func:`irgauge.scores.as_score_matrices` reads; ``measure`` names the one(s) to use).

    From each measure's residual variance V_E (see :func:`residual_variance`): the topics
    needed by the paired t-test and by the one-way ANOVA over ``systems`` (M) systems to
    detect ``min_diff`` (D) with power 1 - ``beta`` at level ``alpha``; with ``ci_width``
    (W), the topics for a confidence interval that narrow; and what the collection's own
    topics give: the smallest D each test detects and the interval's width.

    Returns a MetaResult whose table has columns design (``all``, ``ttest``, ``anova``,
    ``ci``), measure, statistic (``variance``, ``n_topics``, ``min_detectable_diff``,
    ``ci_width``) and value.
    """
    matrices = _pick(scores, measure)
    names, systems_used, topics, stacked = check_matrices(matrices)
    require_topics(len(topics), "topic set size design")
    min_diff = float(_positive(min_diff, "min_diff"))
    alpha, beta = _alpha_beta(alpha, beta)
    systems = _systems(systems)
    if ci_width is not None:
        ci_width = float(_positive(ci_width, "ci_width"))
    rows = []
    for name, values in zip(names, stacked):
        variance = residual_variance(values)
        if variance <= 0:
            raise InputError(f"measure {name}: the residual variance is 0 (scores are additive)")
        rows += _rows(name, variance, len(topics), min_diff, ci_width, alpha, beta, systems)
    table = {key: [row[k] for row in rows] for k, key in enumerate(TABLE_COLUMNS)}
    table["value"] = np.array(table["value"], dtype=object)  # counts stay whole numbers
    parameters = {
        "min_diff": min_diff,
        "alpha": alpha,
        "beta": beta,
        "anova_systems": systems,
        "ci_width": ci_width,
        "measures": names,
        "variance": "V_E, residual mean square of two-way ANOVA without replication",
    }
    return MetaResult("topic_set_size", table, parameters, systems_used, topics)
