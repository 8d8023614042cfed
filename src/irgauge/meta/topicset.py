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

from typing import Any, Dict, Optional, Sequence, Union

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError, InputSizeError
from irgauge.meta.design_arguments import (
    MAX_TOPICS,
    broadcast_shape,
    checked_alpha,
    checked_alpha_beta,
    checked_beta,
    checked_design,
    checked_systems,
    each_checked,
    positive_values,
)
from irgauge.meta.result import MetaResult
from irgauge.scores import check_matrices
from irgauge.scores._results import checked_number
from irgauge.scores.frames import as_score_matrices, as_score_matrix
from irgauge.scores.matrix import ScoreMatrix
from irgauge.stats.resampling import require_topics
from irgauge.types import ScoresLike

TABLE_COLUMNS = ("design", "measure", "statistic", "value")
SEARCH_LIMIT = float(2**53)  # a design needing more topics than this is refused
_SMALLEST = 5e-324  # the smallest positive double
_LOG_LOW, _LOG_HIGH = float(np.log(_SMALLEST)), float(np.log(np.finfo(float).max))
_ROOT_STEPS = 200  # a bound: bisection alone narrows [_LOG_LOW, _LOG_HIGH] in 54 steps
_ROOT_TOLERANCE = 1e-13  # relative, in D


def residual_variance(matrix: ScoresLike) -> float:
    """V_E, the residual mean square of a two-way ANOVA without replication on ``matrix``
    (a ScoreMatrix or an array, systems x topics, or one measure's score data in any form
    :func:`irgauge.scores.as_score_matrix` reads, as every other statistic):
    sum_ij (x_ij - xbar_i. - xbar_.j + xbar..)^2 / ((m - 1)(n - 1)); 0 where it is
    rounding noise (see :func:`rounding_floor`)."""
    if isinstance(matrix, ScoreMatrix):
        values = matrix.values
    elif isinstance(matrix, np.ndarray) or (
        isinstance(matrix, (list, tuple)) and not any(isinstance(m, ScoreMatrix) for m in matrix)
    ):
        values = _checks.real_array(matrix, "matrix")
    else:  # a DataFrame (its labels read as ids), an EvalResult, {measure: ...}
        values = as_score_matrix(matrix).values
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
    variance = float(np.sum(residual**2) / ((m - 1) * (n - 1)))
    return 0.0 if variance <= rounding_floor(values) else variance


def rounding_floor(values) -> float:
    """The residual variance that rounding alone gives scores of this magnitude:
    (64 eps max|x|)^2. Additive scores (system effect + topic effect, no interaction) have
    V_E = 0, but their residuals, computed in floating point, are a few eps max|x| each;
    a V_E at or below this floor is 0."""
    scale = float(np.max(np.abs(values))) if np.size(values) else 0.0
    return (64 * np.finfo(float).eps * scale) ** 2


# ------------------------------------------------------------------ power and width


def _log_miss(n, min_diff, variance, alpha, df1: int, df2):
    """log of the type II error (1 - power) of the F test with (df1, df2) degrees of
    freedom and lambda = n D^2 / (2 V_E) (df1 = 1: the two-sided t-test, lambda = delta^2);
    see :mod:`irgauge.meta._power`."""
    from irgauge.meta import _power
    from irgauge.stats import tails

    mu = _mu(n, min_diff, variance)
    return _power.log_miss(tails.log_f_critical(alpha, df1, df2), df1, df2, mu)


def _mu(n, min_diff, variance):
    """mu = sqrt(lambda) = D sqrt(n / (2 V_E)), the noncentrality's square root."""
    with np.errstate(over="ignore"):  # an infinite noncentrality: the test never misses
        # D (sqrt(n) / sqrt(2 V_E)): sqrt(n / (2 V_E)) overflows for a subnormal V_E, and
        # D sqrt(n) for a D near the largest double, where the product itself is finite
        scale = np.sqrt(np.asarray(n, float)) / np.sqrt(2 * variance)
        return np.asarray(min_diff, float) * scale


def _log_ttest_miss(n, min_diff, variance, alpha):
    n = np.asarray(n, dtype=float)
    return _log_miss(n, min_diff, variance, alpha, 1, n - 1)


def _log_anova_miss(n, min_diff, variance, alpha, systems: int):
    n = np.asarray(n, dtype=float)
    return _log_miss(n, min_diff, variance, alpha, systems - 1, systems * (n - 1))


def ttest_power(n, min_diff, variance, alpha: float):
    """Power of the paired two-sided t-test with n topics to detect ``min_diff`` when
    sigma_t^2 = 2 ``variance``: P(|T'| > t_{1-alpha/2, n-1}), T' ~ t'(n - 1, D sqrt(n) /
    sigma_t) (arrays broadcast); 1 - exp(log miss), computed in log space."""
    return -np.expm1(_log_ttest_miss(n, min_diff, variance, alpha))


def anova_power(n, min_diff, variance, alpha: float, anova_systems: int):
    """Power of the one-way ANOVA over ``anova_systems`` (M) systems with n topics each to
    detect a range ``min_diff``: P(F'(M-1, M(n-1), lambda) > F_{1-alpha}(M-1, M(n-1)))
    with lambda = n D^2 / (2 V_E) (arrays broadcast)."""
    return -np.expm1(_log_anova_miss(n, min_diff, variance, alpha, anova_systems))


def _log_ci_width(variance, n, alpha):
    """log(2 t_{1-alpha/2, n-1} sigma_t / sqrt(n)), t^2 the F(1, n - 1) quantile."""
    from irgauge.stats import tails

    n = np.asarray(n, dtype=float)
    half_f = 0.5 * tails.log_f_critical(alpha, 1, n - 1)
    return np.log(2.0) + half_f + 0.5 * (np.log(2 * np.asarray(variance, float)) - np.log(n))


def ci_width(variance, n_topics, alpha: float = 0.05):
    """Width of the 100(1 - alpha)% confidence interval of a difference between two
    systems over n topics: 2 t_{1-alpha/2, n-1} sigma_t / sqrt(n), sigma_t^2 = 2 V_E."""
    with np.errstate(over="ignore"):
        width = np.exp(_log_ci_width(variance, n_topics, alpha))
    return width if np.ndim(width) else float(width)


# ------------------------------------------------------------------ searches


def _smallest_n(satisfied, guess, parameter) -> np.ndarray:
    """The smallest whole n >= 2 with ``satisfied(n, where)`` for every element (n holds
    the elements ``where`` selects), for a condition monotone in n (power and the
    interval's narrowness grow with n): bracketing from ``guess`` (a normal
    approximation) by steps 1, 2, 4, ... down while it holds, up while it fails, then
    bisection between the last n that failed and the first that held. Refused only past
    SEARCH_LIMIT, where whole numbers are no longer exact in floating point: the refusal
    names ``parameter`` (one name, or one per element), the value that asks for so many."""
    guess = np.asarray(guess, dtype=float)
    start = np.clip(np.nan_to_num(np.ceil(guess), nan=2.0), 2.0, SEARCH_LIMIT)
    every = np.ones(start.shape, dtype=bool)
    ok = satisfied(start[every], every).reshape(start.shape)
    lo = np.where(ok, np.nan, start)  # the largest n known to fail (1: below the range)
    hi = np.where(ok, start, np.nan)  # the smallest n known to hold
    step = np.ones(start.shape)
    while True:
        lo = np.where(np.isnan(lo) & (hi <= 2), 1.0, lo)
        down, up = np.isnan(lo), np.isnan(hi)
        if np.any(up & (lo >= SEARCH_LIMIT)):
            named = str(np.broadcast_to(parameter, start.shape)[up & (lo >= SEARCH_LIMIT)][0])
            wider = "a wider interval" if named == "ci_width" else "a larger difference"
            raise _checks.refused(
                named,
                f"the design needs more than {SEARCH_LIMIT:.0f} topics (2^53, beyond exact "
                f"whole numbers in floating point): ask for {wider}",
            )
        moving = down | up
        if not moving.any():
            break
        trial = np.where(down, np.maximum(hi - step, 2.0), np.minimum(lo + step, SEARCH_LIMIT))
        good = np.zeros(start.shape, dtype=bool)
        good[moving] = satisfied(trial[moving], moving)
        hi = np.where(moving & good, trial, hi)
        lo = np.where(moving & ~good, trial, lo)
        step = np.where(moving, step * 2, step)
    while np.any(hi - lo > 1):
        active = hi - lo > 1
        mid = np.floor((lo + hi) / 2)
        good = np.zeros(start.shape, dtype=bool)
        good[active] = satisfied(mid[active], active)
        lo = np.where(active & ~good, mid, lo)
        hi = np.where(active & good, mid, hi)
    return hi.astype(np.int64)


def _normal_guess(variance, effect, alpha, beta=None):
    """n = 2 V_E (z_{alpha/2} + z_beta)^2 / effect^2: the normal approximation the search
    starts from (the answer is exact whatever the guess)."""
    from irgauge.stats import tails

    z = tails.z_upper(np.log(alpha) - np.log(2.0))
    z = z + (0.0 if beta is None else tails.z_upper(np.log(beta)))
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        return 2 * variance * np.maximum(z, 0.0) ** 2 / np.asarray(effect, float) ** 2


def _scalar(array):
    return array.item() if np.ndim(array) == 0 else array


@_checks.renamed_keywords(systems="anova_systems")
def topics_needed(
    variance: Any,
    design: Union[str, Sequence[str], np.ndarray] = "ttest",
    min_diff: Any = None,
    ci_width: Any = None,
    alpha: Any = 0.05,
    beta: Any = 0.20,
    anova_systems: Any = 2,
) -> Union[int, np.ndarray]:
    """Smallest number of topics n >= 2 of ``design`` (``ttest``, ``anova`` or ``ci``; see
    the module docstring) for a collection whose residual variance is ``variance`` (V_E),
    to detect ``min_diff`` (D, for ttest and anova) with power 1 - ``beta`` at level
    ``alpha`` (the ANOVA over ``anova_systems`` systems M), or for an interval at most
    ``ci_width`` (W, for ci) wide.

    Every argument may be an array: they broadcast together, and the answer has their
    shape (an int where all are numbers), element for element the number of one call with
    that element's values. All elements are one search: a search costs the same fixed
    overhead per step whatever its number of elements, so a figure's curves (designs x
    measures x differences) take one search in place of one per curve. (``systems=``, the
    old name of ``anova_systems``, still works, deprecated.)"""
    shape, each = _elements(variance, design, min_diff, ci_width, alpha, beta, anova_systems)
    named = np.where(each["power"], "min_diff", "ci_width")  # what a refusal names
    return _scalar(_smallest_n(_condition(each), each["guess"], named).reshape(shape))


def _elements(variance, design, min_diff, ci_width, alpha, beta, anova_systems) -> tuple:
    """(the broadcast shape of :func:`topics_needed`'s arguments, each element's values
    flattened, checked as a scalar call checks them): ``power`` (a test's element, not the
    interval's), ``variance``, ``alpha``, ``effect`` (D, or log W), ``log_beta``, ``df1``,
    ``groups`` (df2 / (n - 1)) and the search's ``guess``."""
    designs = each_checked(design, checked_design)
    variance = positive_values(variance, "variance")
    alphas = each_checked(alpha, checked_alpha)
    power = designs != "ci"
    shapes = {"variance": variance.shape, "design": designs.shape, "alpha": alphas.shape}
    if power.any():
        diff = positive_values(min_diff, "min_diff")
        betas = each_checked(beta, checked_beta)
        m = np.asarray(anova_systems, dtype=object)  # checked where the design is anova
        shapes.update(min_diff=diff.shape, beta=betas.shape, anova_systems=m.shape)
    if not power.all():
        log_width = np.log(positive_values(ci_width, "ci_width"))
        shapes["ci_width"] = log_width.shape
    shape = broadcast_shape(shapes)

    def full(values) -> np.ndarray:
        return np.broadcast_to(values, shape).ravel()

    designs, size = full(designs), int(np.prod(shape))
    power = designs != "ci"
    each = {"power": power, "variance": full(variance), "alpha": full(alphas)}
    each.update({key: np.empty(size) for key in ("effect", "log_beta", "df1", "groups", "guess")})
    if power.any():
        _power_elements(each, designs == "anova", full(diff), full(betas), full(m))
    if not power.all():
        # (the log of W as given, the exp of that log the guess's: as a search of W alone)
        ci = ~power
        each["effect"][ci] = full(log_width)[ci]
        half_width = np.exp(each["effect"][ci]) / 2
        each["guess"][ci] = _guesses(each["variance"][ci], half_width, each["alpha"][ci], None)
    return shape, each


def _power_elements(each: dict, anova, diff, betas, m) -> None:
    """The tests' elements of ``each`` (:func:`_elements`) filled in, beta and M checked."""
    power, alphas = each["power"], each["alpha"]
    for a, b in set(zip(alphas[power].tolist(), betas[power].tolist())):
        checked_alpha_beta(a, b)
    systems = np.ones(len(power))
    for value in set(m[anova].tolist()):
        systems[anova & (m == value)] = checked_systems(value)
    each["effect"][power] = diff[power]
    each["df1"][power] = np.where(anova, systems - 1, 1)[power]
    each["groups"][power] = systems[power]  # 1 for the t-test, M for the ANOVA
    # np.log of each beta as the scalar it is, as a search of one beta takes it
    logs = {b: np.log(b) for b in set(betas[power].tolist())}
    each["log_beta"][power] = [logs[b] for b in betas[power].tolist()]
    each["guess"][power] = _guesses(
        each["variance"][power], diff[power], alphas[power], betas[power]
    )


def _condition(each: dict):
    """``satisfied(n, where)`` of :func:`_smallest_n` over the elements of ``each``
    (:func:`_elements`): a test's power is at least 1 - beta, the interval at most W wide."""

    def satisfied(n, where):
        ok = np.empty(n.shape, dtype=bool)
        power, variance, alpha = each["power"][where], each["variance"][where], each["alpha"][where]
        effect = each["effect"][where]
        if power.any():
            log_miss = _log_miss_each(
                n[power],
                effect[power],
                variance[power],
                alpha[power],
                each["df1"][where][power],
                each["groups"][where][power],
            )
            ok[power] = _checked(log_miss) <= each["log_beta"][where][power]
        for a in set(alpha[~power].tolist()):  # the interval's, one critical value per alpha
            these = ~power & (alpha == a)
            ok[these] = _log_ci_width(variance[these], n[these], a) <= effect[these]
        return ok

    return satisfied


def _guesses(variance, effect, alphas, betas) -> np.ndarray:
    """:func:`_normal_guess` of each element (``betas`` None: the interval's), computed
    once per distinct (alpha, beta)."""
    guess = np.empty(len(effect))
    for a in set(alphas.tolist()):
        for b in [None] if betas is None else set(betas[alphas == a].tolist()):
            these = (alphas == a) & (True if b is None else betas == b)
            guess[these] = _normal_guess(variance[these], effect[these], a, b)
    return guess


def _log_miss_each(n, min_diff, variance, alpha, df1, groups):
    """:func:`_log_miss` elementwise over arrays of alpha and of the degrees of freedom
    (df1, df2 = groups (n - 1)): one critical value per distinct (alpha, df1, df2), one
    :func:`irgauge.meta._power.log_miss` per distinct df1."""
    from irgauge.meta import _power
    from irgauge.stats import tails

    df2 = groups * (n - 1)
    log_f = np.empty(n.shape)
    for a, d1 in set(zip(alpha.tolist(), df1.tolist())):
        chosen = (alpha == a) & (df1 == d1)
        distinct, back = np.unique(df2[chosen], return_inverse=True)
        log_f[chosen] = tails.log_f_critical(a, int(d1), distinct)[back.reshape(-1)]
    mu = _mu(n, min_diff, variance)
    value = np.empty(n.shape)
    for d1 in set(df1.tolist()):
        chosen = df1 == d1
        value[chosen] = _power.log_miss(log_f[chosen], int(d1), df2[chosen], mu[chosen])
    return value


def _checked(log_miss):
    """``log_miss`` unless a value is NaN: a power that cannot be computed is refused, not
    read as too small."""
    if np.any(np.isnan(log_miss)):
        raise InputError("the power cannot be computed for these values (alpha, beta, D, M)")
    return log_miss


@_checks.renamed_keywords(systems="anova_systems")
def min_detectable_diff(
    variance: float,
    n_topics: int,
    design: str = "ttest",
    alpha: float = 0.05,
    beta: float = 0.20,
    anova_systems: int = 2,
) -> float:
    """Smallest difference D that ``n_topics`` topics detect with power 1 - beta in the
    ``ttest`` or ``anova`` design: the root of g(x) = log(-log miss(e^x)) - log(-log beta)
    in x = log D (g rises with D, nearly as 2 x for a large D; miss = 1 - power).

    Bracket: from the normal approximation, x moves up while D is missed (down while it
    is detected) by steps 1, 2, 4, ..., each move doubling the step, so that the whole
    range of doubles [5e-324, 1.8e308] is crossed in at most 11 moves. Narrow: regula
    falsi in x (Illinois: the end kept twice has its value halved), with a bisection
    every third step unless the bracket has halved, at most _ROOT_STEPS = 200 steps.
    Stop: the ends differ by a relative _ROOT_TOLERANCE = 1e-13 in D, or no double lies
    between them. Returns the detected end, so any D smaller by more than a relative
    1e-12 falls short; inf where not even the largest double is detected (no double is
    the answer). A power that cannot be computed is refused (InputError)."""
    design = checked_design(design)
    if design == "ci":
        raise InputError("design ci has no detectable difference: see ci_width()")
    variance = float(positive_values(variance, "variance"))
    n = _checks.whole(n_topics, "n_topics", 2, MAX_TOPICS, what="a number of topics")
    alpha, beta = checked_alpha_beta(alpha, beta)
    systems = 2 if design == "ttest" else checked_systems(anova_systems)
    log_beta = np.log(beta)

    guess = float(np.sqrt(_normal_guess(variance, 1.0, alpha, beta) / n))
    start = np.log(guess) if np.isfinite(guess) and guess > 0 else 0.5 * np.log(2 * variance)
    log_log_beta = np.log(-log_beta)

    def gap(x):  # >= 0 where D = e^x is detected; nearly 2 x + constant for a large D
        d = np.exp(x)
        if design == "ttest":
            log_miss = _log_ttest_miss(n, d, variance, alpha)
        else:
            log_miss = _log_anova_miss(n, d, variance, alpha, systems)
        log_miss = float(_checked(log_miss))
        with np.errstate(divide="ignore"):
            value = float(np.log(-log_miss)) - log_log_beta
        # the sign from log miss <= log beta itself: the log of the log rounds away
        # differences of up to 1e-12 in the log miss near log beta = -690
        return max(value, 0.0) if log_miss <= log_beta else min(value, -_SMALLEST)

    # inf where no double is detected: a number whose notes say so
    return checked_number("min_detectable_diff", _log_root(gap, float(start)), 0.0)


def _log_root(gap, start: float) -> float:
    """The smallest D = e^x with ``gap(x) >= 0``, for a ``gap`` increasing in x = log D:
    min_detectable_diff's search (see its docstring). Returns inf where not even the
    largest double is detected."""
    x_lo = x_hi = min(max(start, _LOG_LOW), _LOG_HIGH)
    g_lo = g_hi = gap(x_hi)
    step = 1.0  # doubled at each move: the whole range of doubles in at most 11 moves
    while g_hi < 0:  # up until detected
        if x_hi >= _LOG_HIGH:
            return float("inf")
        x_lo, g_lo, x_hi = x_hi, g_hi, min(x_hi + step, _LOG_HIGH)
        g_hi, step = gap(x_hi), step * 2
    step = 1.0
    while g_lo >= 0:  # down until missed (at D = 0 the miss is 1 - alpha > beta)
        if x_lo <= _LOG_LOW:
            return _SMALLEST
        x_hi, g_hi, x_lo = x_lo, g_lo, max(x_lo - step, _LOG_LOW)
        g_lo, step = gap(x_lo), step * 2
    kept, width = 0, x_hi - x_lo
    for count in range(_ROOT_STEPS):
        d_lo, d_hi = np.exp(x_lo), np.exp(x_hi)
        if d_hi - d_lo <= _ROOT_TOLERANCE * d_hi:
            break
        x = 0.5 * (x_lo + x_hi)
        # regula falsi, but a bisection every third step unless the last two steps
        # halved the bracket: the count of steps stays bounded whatever the shape of gap
        if np.isfinite(g_lo) and np.isfinite(g_hi) and (count % 3 != 2 or x_hi - x_lo < width / 2):
            secant = x_hi - g_hi * (x_hi - x_lo) / (g_hi - g_lo)
            # strictly inside in D too: a secant next to an end in x can round onto it in
            # D, which is no reason to stop while the midpoint lies between
            x = secant if x_lo < secant < x_hi and d_lo < np.exp(secant) < d_hi else x
        if count % 3 == 2:
            width = x_hi - x_lo
        if not x_lo < x < x_hi or not d_lo < np.exp(x) < d_hi:
            break  # no double between the ends
        g = gap(x)
        if g >= 0:  # Illinois: the end kept twice in a row has its value halved
            x_hi, g_hi = x, g
            g_lo, kept = (g_lo / 2 if kept == -1 else g_lo), -1
        else:
            x_lo, g_lo = x, g
            g_hi, kept = (g_hi / 2 if kept == 1 else g_hi), 1
    return float(np.exp(x_hi))


# ------------------------------------------------------------------ the method


def _pick(scores, measure) -> dict:
    """``{measure: ScoreMatrix}`` of the measure(s) asked for (all when None)."""
    wanted = [measure] if isinstance(measure, str) else measure
    single = measure if isinstance(measure, str) else None
    matrices = as_score_matrices(scores, single)
    if wanted is not None:
        from irgauge.scores.lookup import pick_measures

        matrices = pick_measures(matrices, wanted)
    return matrices


def _rows(name, variance, n_topics, needed, alpha, beta, anova_systems) -> list:
    """(design, measure, statistic, value) rows of one measure; ``needed`` holds its n of
    each design (of ci where an interval's width was given)."""
    rows = [("all", name, "variance", variance)]
    for design in ("ttest", "anova"):
        least = min_detectable_diff(variance, n_topics, design, alpha, beta, anova_systems)
        rows += [
            (design, name, "n_topics", int(needed[design])),
            (design, name, "min_detectable_diff", least),
        ]
    if "ci" in needed:
        rows.append(("ci", name, "n_topics", int(needed["ci"])))
    rows.append(("ci", name, "ci_width", ci_width(variance, n_topics, alpha)))
    return rows


@_checks.renamed_keywords(systems="anova_systems")
def topic_set_size(
    scores: ScoresLike,
    min_diff: float,
    alpha: float = 0.05,
    beta: float = 0.20,
    anova_systems: int = 2,
    ci_width: Optional[float] = None,
    measure: Union[str, Sequence[str], None] = None,
) -> MetaResult:
    """Topic set size design of Sakai (2016) for every measure of ``scores`` (any form
    :func:`irgauge.scores.as_score_matrices` reads; ``measure`` names the one(s) to use).

    From each measure's residual variance V_E (see :func:`residual_variance`): the topics
    needed by the paired t-test and by the one-way ANOVA over ``anova_systems`` (M) systems
    to detect ``min_diff`` (D) with power 1 - ``beta`` at level ``alpha``; with
    ``ci_width`` (W), the topics for a confidence interval that narrow; and what the
    collection's own topics give: the smallest D each test detects and the interval's
    width. ``anova_systems`` is named as the results record M; ``systems=``, its old
    name, still works, deprecated (``systems`` are the systems' names elsewhere).

    Returns a MetaResult whose table has columns design (``all``, ``ttest``, ``anova``,
    ``ci``), measure, statistic (``variance``, ``n_topics``, ``min_detectable_diff``,
    ``ci_width``) and value.
    """
    matrices = _pick(scores, measure)
    names, systems_used, topics, stacked = check_matrices(matrices)
    require_topics(len(topics), "topic set size design")
    min_diff = float(positive_values(min_diff, "min_diff"))
    alpha, beta = checked_alpha_beta(alpha, beta)
    anova_systems = checked_systems(anova_systems)
    if ci_width is not None:
        ci_width = float(positive_values(ci_width, "ci_width"))
    variances = []
    for name, values in zip(names, stacked):
        variances.append(residual_variance(values))
        if variances[-1] <= 0:
            raise InputError(
                f"measure {name}: the residual variance is 0, up to rounding (the scores are "
                "additive: a system effect plus a topic effect), so any difference is told "
                "apart on 2 topics and there is no design to compute; leave the measure out"
            )
    # every design of every measure in one search
    designs = ["ttest", "anova"] + (["ci"] if ci_width is not None else [])
    found = topics_needed(
        np.array(variances),
        np.array(designs)[:, None],
        min_diff,
        ci_width,
        alpha,
        beta,
        anova_systems,
    )
    rows = []
    for i, (name, variance) in enumerate(zip(names, variances)):
        needed = {design: n[i] for design, n in zip(designs, np.asarray(found))}
        rows += _rows(name, variance, len(topics), needed, alpha, beta, anova_systems)
    table: Dict[str, Any] = {key: [row[k] for row in rows] for k, key in enumerate(TABLE_COLUMNS)}
    table["value"] = np.array(table["value"], dtype=object)  # counts stay whole numbers
    parameters = {
        "min_diff": min_diff,
        "alpha": alpha,
        "beta": beta,
        "anova_systems": anova_systems,
        "ci_width": ci_width,
        "measures": names,
        "variance": "V_E, residual mean square of two-way ANOVA without replication",
    }
    return MetaResult("topic_set_size", table, parameters, systems_used, topics)
