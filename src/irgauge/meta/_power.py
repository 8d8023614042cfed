"""Power of the t-test and of the one-way ANOVA in log space, where scipy's noncentral
t and F distributions fail (NaN for a large noncentrality, a far tail rounded to 0 or its
power to 1), and critical values without ``1 - alpha``, which rounds to 1 for a tiny alpha.

Both tests are one F test: the two-sided t-test at level alpha with df degrees of freedom
and noncentrality delta is the F test with (1, df) degrees of freedom and lambda = delta^2,
as T'^2 = F'. The probability that it misses (the type II error, 1 - power) is

    P(F' <= f) = P(X <= f df1 V / df2) = E_V[ P(X <= f df1 e^y) ],   V = df2 e^y,

X ~ chi'^2(df1, lambda) and V ~ chi^2(df2) independent. For df1 = 1 the inner
probability is, with mu = sqrt(lambda), Phi(sqrt(x) - mu) - Phi(-sqrt(x) - mu), and the
average over V an integral of exp(h), h built from ``log_ndtr`` and the log density of
log(V / df2) (:func:`log_integral`). For df1 > 1 it is the Poisson mixture
sum_j P(J = j) I_y(df1/2 + j, df2/2), J ~ Poisson(lambda / 2), summed in log space
(:func:`_log_mixture`). Nothing is exponentiated before the final log-sum, so a miss of
1e-300 or 1e-3000 keeps its digits.

Critical values: :func:`irgauge.stats.tails.log_f_critical`. Everything is returned as a
logarithm.
"""

from __future__ import annotations

import numpy as np
from scipy import special

from irgauge.stats.tails import FRACTION_TERMS, deviance, log_betainc, stirlerr

DROP = 40.0  # an integrand below its peak by this much (e^-40 relative) is cut
_ZOOM = 24  # points of each zooming round
_ROUNDS = 10  # zooming rounds: each narrows a peak thinner than a step by _ZOOM / 3
_POINTS = 112  # trapezoid points over the interval where the integrand lives
_TAIL = 900.0  # the chi-square's density is searched where it is within e^-900 of its mode
_OUTER = (24, 10, 128)  # (zoom, rounds, points) over the Poisson mixture's j
_TERMS = 256  # terms of the Poisson mixture summed one by one
MIXTURE_LIMIT = 1e14  # the largest lambda / 2 summed as a Poisson mixture


def log_integral(h, lo, hi, zoom: int = _ZOOM, rounds: int = _ROUNDS, points: int = _POINTS):
    """log of the integral of exp(h(x)) over [lo, hi], elementwise over the shape of
    ``lo`` and ``hi``; h is unimodal and takes x of shape (k,) + that shape.

    Zooming: h is evaluated on ``zoom`` points of the interval, and the interval shrinks to
    the points where h is within DROP of the largest value found, widened by one point on
    each side (a unimodal h stays below the cut outside them). A peak thinner than one step
    is narrowed by about zoom / 3 each round, a resolved one keeps its interval. The
    integral is then the trapezoid rule on ``points`` points of u, x = peak + s sinh(u)
    (s the last round's step), summed in log space: an integrand smooth at the scale of its
    peak and negligible at both ends is integrated to a relative error near 1e-13, as the
    tests check against mpmath (the trapezoid rule converges exponentially on such
    integrands)."""
    lo, hi = _zoom(h, lo, hi, zoom, rounds)
    shape = (-1,) + (1,) * lo.ndim
    x = lo + (hi - lo) * np.linspace(0.0, 1.0, zoom).reshape(shape)
    y = h(x)
    # the final rule: trapezoid in u, x = peak + s sinh(u), dense at the peak and sparse in
    # the tails, which may decay as slowly as exp(-x / 2) (a chi-square's left tail)
    peak = np.take_along_axis(x, np.argmax(y, axis=0)[None], 0)[0]
    peak = np.clip(peak, lo, hi)
    scale = np.maximum((hi - lo) / zoom, 1e-300)
    u_lo, u_hi = np.arcsinh((lo - peak) / scale), np.arcsinh((hi - peak) / scale)
    u = u_lo + (u_hi - u_lo) * np.linspace(0.0, 1.0, points).reshape(shape)
    y = h(peak + scale * np.sinh(u))
    weights = np.full((points,) + (1,) * lo.ndim, 1.0)
    weights[0] = weights[-1] = 0.5
    with np.errstate(divide="ignore"):
        step = np.log((u_hi - u_lo) / (points - 1)) + np.log(scale)
        return special.logsumexp(y + np.log(weights) + np.log(np.cosh(u)), axis=0) + step


def _zoom(h, lo, hi, zoom: int, rounds: int):
    """The interval where the unimodal h is within DROP of its peak (see log_integral)."""
    lo, hi = np.broadcast_arrays(np.asarray(lo, float), np.asarray(hi, float))
    grid = np.linspace(0.0, 1.0, zoom).reshape((-1,) + (1,) * lo.ndim)
    for _ in range(rounds):
        x = lo + (hi - lo) * grid
        y = h(x)
        keep = y > np.max(y, axis=0) - DROP  # nowhere when h is -inf: the interval stays
        found = keep.any(axis=0)
        first = np.argmax(keep, axis=0)
        last = zoom - 1 - np.argmax(keep[::-1], axis=0)
        below = np.take_along_axis(x, np.maximum(first - 1, 0)[None], 0)[0]
        above = np.take_along_axis(x, np.minimum(last + 1, zoom - 1)[None], 0)[0]
        lo, hi = np.where(found, below, lo), np.where(found, above, hi)
    return lo, hi


def _log_chi2_mode(half):
    """K(z) = z log z - z - lgamma(z), z = df / 2: the log density of y = log(V / df),
    V ~ chi^2(df), is K(z) + z (y - expm1(y)). By Stirling's series for a large z, where
    the direct form cancels (z log z and lgamma(z) agree to the last digit)."""
    z = np.asarray(half, float)
    big = np.maximum(z, 30.0)
    stirling = (
        0.5 * np.log(big)
        - 0.5 * np.log(2 * np.pi)
        - (1 / (12 * big) - 1 / (360 * big**3) + 1 / (1260 * big**5) - 1 / (1680 * big**7))
    )
    small = np.minimum(z, 30.0)
    direct = small * np.log(small) - small - special.gammaln(small)
    return np.where(z >= 30.0, stirling, direct)


def _log_chi2_density(y, df, mode):
    """Log density of y = log(V / df), V ~ chi^2(df); ``mode`` is K(df / 2)."""
    return mode + 0.5 * df * (y - np.expm1(y))


def _chi2_bracket(df):
    """[lo, hi] of y = log(V / df), V ~ chi^2(df), outside which the density is below its
    mode by more than _TAIL: (df/2)(e^y - 1 - y) >= _TAIL at both ends, with
    a = 2 _TAIL / df and b = sqrt(2 a): hi = log(1 + a + b); lo = -2b where 2b <= 1.38
    (e^y - 1 - y >= y^2 e^y / 2 there), else -(1 + a)."""
    df = np.asarray(df, float)
    a = 2 * _TAIL / df
    b = np.sqrt(2 * a)
    return np.where(2 * b <= 1.38, -2 * b, -(1 + a)), np.log1p(a + b)


def log_normal_interval(log_r, mu):
    """log P(|Z + mu| <= r) = log(Phi(r - mu) - Phi(-r - mu)) for r = exp(log_r) >= 0 and
    mu >= 0, from log_ndtr: log Phi(a) + log(1 - exp(log Phi(b) - log Phi(a)))."""
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        r = np.exp(log_r)  # inf past the largest double: the interval holds everything
        upper = special.log_ndtr(r - mu)
        lower = special.log_ndtr(-r - mu)
        value = upper + np.log(-np.expm1(lower - upper))
    return np.where(np.isinf(mu), -np.inf, np.where(np.isnan(value), -np.inf, value))


def _log_poisson(j, mean):
    """log P(J = j), J ~ Poisson(mean), for a real j >= 0, in Loader's form, which keeps its
    digits for a large mean (j log(mean) - mean - lgamma(j + 1) cancels them):
    -log(2 pi j) / 2 - stirlerr(j) - mean phi((j - mean) / mean), phi(t) = (1 + t) log(1 + t)
    - t (:func:`irgauge.stats.tails.deviance`, :func:`irgauge.stats.tails.stirlerr`)."""
    j, mean = np.broadcast_arrays(np.asarray(j, float), np.asarray(mean, float))
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        phi = deviance((j - mean) / mean)
        value = -0.5 * np.log(2 * np.pi * j) - stirlerr(j) - mean * phi
        at_zero = np.where(j == 0, -mean, -np.inf)
        return np.where(mean > 0, np.where(j > 0, value, at_zero), np.where(j == 0, 0.0, -np.inf))


def _log_mixture(log_f, df1: int, df2, mu):
    """log P(F' <= f) for df1 > 1 as the Poisson mixture of central F distributions:
    sum_j P(J = j) I_y(df1/2 + j, df2/2), J ~ Poisson(mu^2 / 2), y = df1 f / (df1 f + df2).
    The terms that matter (within DROP of the largest) are found by zooming over a real j;
    where they span at most _TERMS whole numbers they are summed, else (a term smooth over
    more than ten j) the sum is the integral over j, equal to it far below 1e-12."""
    half = 0.5 * np.asarray(mu, float) ** 2
    log_total = np.logaddexp(log_f + np.log(df1), np.log(df2))
    y = np.exp(log_f + np.log(df1) - log_total)
    w = np.exp(np.log(df2) - log_total)  # 1 - y from logs: y rounds near 1

    def term(j, half=half, df2=df2, y=y, w=w):
        return _log_poisson(j, half) + log_betainc(df1 / 2 + j, df2 / 2, y, w)

    last = half + 40 * np.sqrt(half) + 400
    lo, hi = _zoom(term, np.zeros_like(last), last, *_OUTER[:2])
    start = np.ceil(lo)
    whole = hi - start < _TERMS
    j = start + np.arange(_TERMS).reshape((-1,) + (1,) * start.ndim)
    # the terms up to hi only (a few dozen of the _TERMS, as a rule), each one as over the
    # whole grid: the functions are elementwise
    inside = j <= hi
    terms = np.full(inside.shape, -np.inf)
    at = [np.broadcast_to(v, inside.shape)[inside] for v in (half, df2, y, w)]
    terms[inside] = term(np.where(whole, j, 0)[inside], *at)
    summed = special.logsumexp(terms, axis=0)
    if whole.all():
        return summed
    return np.where(whole, summed, log_integral(term, lo, hi, *_OUTER))


def log_miss(log_f, df1: int, df2, mu):
    """log P(F' <= f), F' ~ F'(df1, df2, mu^2), f = exp(log_f): the log of the type II
    error of the F test (df1 = 1: the two-sided t-test on df2 degrees of freedom with
    noncentrality mu) whose critical value is f. Elementwise over the broadcast shape of
    log_f, df2 and mu."""
    log_f, df2, mu = np.broadcast_arrays(
        np.asarray(log_f, float), np.asarray(df2, float), np.asarray(mu, float)
    )
    if df1 > 1:
        return _log_miss_many(log_f, df1, df2, mu)
    # each form's integrand steps where the other variable's factor passes from 0 to 1:
    # over V within 1 / mu of y's spread sqrt(2 / df2) (sharp for mu sqrt(df2)), over Z
    # within sqrt(f / (2 df2)) of Z's spread 1; the one less sharp is taken (at mu
    # sqrt(f) = 2 df2 they are alike), with a margin for the V form, which also keeps mu
    # below 30, where the Z form's kink at Z = -mu (df2 = 1) has weight; checked against
    # mpmath for df2 in [1, 450] and mu up to 1e300 (where the V form held only 1e-3)
    with np.errstate(over="ignore", divide="ignore"):
        over_z = (mu >= 30) & (np.log(mu) + 0.5 * log_f > np.log(16.0 * df2))
    value = np.empty(np.shape(mu))
    for chosen, form in ((~over_z, _log_miss_v), (over_z, _log_miss_z)):
        if chosen.any():
            value[chosen] = form(log_f[chosen], df2[chosen], mu[chosen])
    return value


def _log_miss_v(log_f, df2, mu):
    """log P(F' <= f) for df1 = 1 averaged over V: P(|Z + mu| <= sqrt(f V / df2)), V =
    df2 e^y, y's log density from :func:`_log_chi2_density`, the interval's from
    :func:`log_normal_interval`."""
    mode = _log_chi2_mode(df2 / 2)
    lo, hi = _chi2_bracket(df2)

    def h(y):
        return _log_chi2_density(y, df2, mode) + log_normal_interval(0.5 * (log_f + y), mu)

    return np.minimum(log_integral(h, lo, hi), 0.0)


def _log_miss_z(log_f, df2, mu):
    """log P(F' <= f) for df1 = 1 averaged over Z instead of V: P((Z + mu)^2 <= f V / df2)
    = E_Z[Q(df2/2, df2 (Z + mu)^2 / (2 f))], Q the regularized upper incomplete gamma
    function (:func:`_log_gamma_upper`), (Z + mu)^2 taken from logs, as mu may be 1e301.
    For df2 = 1 the integrand has a kink at Z = -mu (Q(1/2, t) = 1 - c sqrt(t) near t =
    0), which the trapezoid rule does not resolve: :func:`log_miss` takes this form only
    for mu >= 30, where the kink lies 30 spreads of Z from its mean."""
    a = np.asarray(df2, float) / 2
    with np.errstate(divide="ignore"):
        log_mu = np.log(mu)

    def h(z):
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            log_t = 2 * (log_mu + np.log(np.abs(1 + z / mu))) + np.log(a) - log_f
            t = np.exp(log_t)  # inf past the largest double: Q = 0 there
        return -0.5 * z**2 - 0.5 * np.log(2 * np.pi) + _log_gamma_upper(a, t)

    edge = np.full(np.shape(log_mu), 64.0)  # phi(64) = e^-2048: nothing beyond
    return np.minimum(log_integral(h, -edge, edge), 0.0)


def _log_miss_many(log_f, df1: int, df2, mu):
    """log P(F' <= f) for df1 > 1: the Poisson mixture up to lambda / 2 = MIXTURE_LIMIT,
    where a real j still resolves whole terms; beyond, the concentrated form
    (:func:`_log_miss_far`). An infinite mu never misses."""
    with np.errstate(over="ignore"):
        far = 0.5 * mu**2 > MIXTURE_LIMIT
    value = np.minimum(_log_mixture(log_f, df1, df2, np.where(far, 0.0, mu)), 0.0)
    if far.any():
        value = np.where(far, _log_miss_far(log_f, df1, df2, np.where(far, mu, 1e8)), value)
    return np.where(np.isinf(mu), -np.inf, value)


def _log_miss_far(log_f, df1: int, df2, mu):
    """log P(F' <= f) for lambda = mu^2 > 2 MIXTURE_LIMIT, where X ~ chi'^2(df1, lambda)
    lies within a relative 2 / mu < 1e-7 of its mean: P(F' <= f) = E[P(V >= k X)],
    k = df2 / (f df1), V ~ chi^2(df2), i.e. E[Q(df2/2, k X / 2)] with Q the regularized
    upper incomplete gamma function. X is normal there to the last digit that matters
    (its third and fourth cumulants, 8 (df1 + 3 lambda) and 48 (df1 + 4 lambda), change
    the mean of the smooth Q by a relative t^3 / lambda^2 and t^4 / lambda^3, t = k X / 2,
    far below 1e-12), so the expectation is the integral over z of phi(z) Q(df2/2,
    k (m + s z) / 2) with m = lambda + df1 and s^2 = 4 lambda + 2 df1 (:func:`log_integral`;
    log Q concave, so the integrand is unimodal), computed from log mu: lambda itself
    overflows past mu = 1.3e154, and where X's spread is below a double's resolution
    (mu above 1e8 or so) the integral is Q at the mean, as it should be."""
    log_mu = np.log(mu)
    inverse = np.exp(-2 * log_mu)  # 1 / lambda, 0 where it underflows
    log_mean = 2 * log_mu + np.log1p(df1 * inverse)
    spread = np.sqrt(4 * inverse + 2 * df1 * inverse**2) / (1 + df1 * inverse)  # s / m
    log_scale = np.log(df2) - log_f - np.log(df1) - np.log(2.0)  # log(k / 2)
    a = np.asarray(df2, float) / 2

    def h(z):
        with np.errstate(over="ignore", invalid="ignore"):
            log_t = log_scale + log_mean + np.log1p(z * spread)
        return -0.5 * z**2 - 0.5 * np.log(2 * np.pi) + _log_gamma_upper(a, np.exp(log_t))

    edge = np.full(np.shape(log_mu), 64.0)  # phi(64) = e^-2048: nothing beyond
    return np.minimum(log_integral(h, -edge, edge), 0.0)


def _log_gamma_upper(a, x):
    """log Q(a, x), the regularized upper incomplete gamma function, also where it
    underflows: there (x far above a) Q = e^-x x^a / Gamma(a) CF, CF the continued
    fraction of Numerical Recipes' gcf, evaluated by Lentz's method; where Q is near 1,
    log1p of the lower function P. x = inf gives -inf."""
    a, x = np.broadcast_arrays(np.asarray(a, float), np.asarray(x, float))
    shape = a.shape
    a, x = a.ravel(), x.ravel()
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        upper, lower = special.gammaincc(a, x), special.gammainc(a, x)
        out = np.where(lower < 0.5, np.log1p(-lower), np.log(upper))
        small = (upper < 1e-280) & np.isfinite(x)
        if small.any():
            a, x = a[small], x[small]
            out[small] = -x + a * np.log(x) - special.gammaln(a) + np.log(_gamma_fraction(a, x))
    return out.reshape(shape)


def _gamma_fraction(a, x):
    """The continued fraction of Q(a, x) (Numerical Recipes, gcf), for x above a + 1,
    where it converges in few terms."""
    tiny = 1e-300
    b = x + 1 - a
    c = np.full_like(x, 1 / tiny)
    d = 1 / np.where(np.abs(b) < tiny, tiny, b)
    h = d.copy()
    done = np.zeros(x.shape, dtype=bool)
    for i in range(1, FRACTION_TERMS):
        coefficient = -i * (i - a)
        b = b + 2
        d = coefficient * d + b
        d = 1 / np.where(np.abs(d) < tiny, tiny, d)
        c = b + coefficient / c
        c = np.where(np.abs(c) < tiny, tiny, c)
        delta = c * d
        h = np.where(done, h, h * delta)
        done |= np.abs(delta - 1) < 1e-15  # each element at its own convergence
        if done.all():
            break
    return h
