"""Tails of the distributions irgauge's tests read, in log space, where scipy's own
functions round, saturate or return the wrong end: one function for each.

- :func:`log_betainc`: log I_y(a, b), the regularized incomplete beta function, also where
  it underflows (the far tails of the t, F and binomial distributions are all I).
- :func:`log_f_critical`: log F_{1-alpha}(df1, df2), the upper alpha quantile of the F
  distribution: F_{1-alpha}(df1, df2) = (df2/df1) B / (1 - B), B the upper alpha quantile
  of Beta(df1/2, df2/2) (``betainccinv``), or 1 - B the lower alpha quantile of
  Beta(df2/2, df1/2) (``betaincinv``) where B is near 1; where even that underflows (df2 =
  1 and alpha below about 1e-300) the series' leading term I_q(a, b) = q^a / (a B(a, b))
  gives log q. Newton's method in log space then refines it.
- :func:`log_binomial_half_cdf`: the sign test's binomial tail, where scipy's binomial
  distribution function underflows (0 from about 1,075 untied topics on).
- :func:`log_t_tail`: log P(|T| > |t|) of Student's t, also where scipy's ``stdtr`` is 0:
  past t = 1.3e154 on 1 degree of freedom (t^2 overflows; p is 6e-155 there), and below
  the normal numbers (6.9e-313 at t = 1.8e5 on 72 degrees of freedom).
- :func:`t_critical`: t_{1-alpha/2, df}, the two-sided critical value of Student's t, as
  t^2 = F_{1-alpha}(1, df). scipy's ``stdtrit`` and ``t.isf`` return +inf, the wrong
  sign, far below the normal numbers' end (df = 3 and alpha/2 below 1e-238, df = 9 below
  1e-291), where t is 1e79 or 5e32; and ``ppf(1 - alpha/2)`` rounds the tail away for any
  alpha below 1e-16.
- :func:`z_upper`, :func:`z_critical`: the normal quantile of an upper tail given as a
  logarithm, and z_{1-alpha/2}, the two-sided critical value, from ``ndtri_exp``:
  ``ndtri(alpha / 2)`` is -inf at alpha = 5e-324, whose half rounds to 0.

No ``1 - alpha`` is ever formed. Each is checked against mpmath at 50 digits in
tests/test_distribution_tails.py.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from numpy.typing import ArrayLike
from scipy import special

_TINY = np.finfo(float).tiny
QUANTILE_FLOOR = 1e-300  # below it scipy's Beta quantiles of alpha are not trusted
_NEWTON_STEPS = 60  # Newton's method in log q converges in a few; a bound
FRACTION_TERMS = 5000  # a bound: a continued fraction converges in about sqrt(max(a, b)) terms


def log_betainc(a: ArrayLike, b: ArrayLike, y: ArrayLike, w: ArrayLike) -> np.ndarray:
    """log I_y(a, b), the regularized incomplete beta function, given y and w = 1 - y
    each to full relative precision (from logs: a y near 1 holds 1 - y only to an
    absolute 1e-16, a relative 1e-2 when 1 - y is 1e-14, as in the noncentral F's terms
    near lambda / 2 = 1e14). Where y > 1/2 it is I_y(a, b) = 1 - I_w(b, a), scipy's
    complement ``betaincc(b, a, w)``. Where it underflows (far below its mean) I_y(a, b)
    = y^a w^b / (a B(a, b)) CF, CF the continued fraction 1 / (1 + d_1 / (1 + d_2 / (1 +
    ...))) of Numerical Recipes' betacf, evaluated by Lentz's method."""
    a, b, y, w = np.broadcast_arrays(*(np.asarray(v, float) for v in (a, b, y, w)))
    shape = a.shape
    a, b, y, w = a.ravel(), b.ravel(), y.ravel(), w.ravel()
    with np.errstate(divide="ignore", invalid="ignore", under="ignore"):
        high = y > 0.5
        value = np.empty_like(y)  # one scipy call per element: they dominate the cost
        value[high] = special.betaincc(b[high], a[high], w[high])
        value[~high] = special.betainc(a[~high], b[~high], y[~high])
        out = np.log(value)
        small = (value < 1e-280) & (y > 0)
        if small.any():
            a, b, y, w, near = a[small], b[small], y[small], w[small], high[small]
            log_y = np.where(near, np.log1p(-w), np.log(y))  # each from the smaller one
            log_w = np.where(near, np.log(w), np.log1p(-y))
            prefix = a * log_y + b * log_w - np.log(a) - special.betaln(a, b)
            out[small] = prefix + np.log(_beta_fraction(a, b, y, w))
    return out.reshape(shape)


def _beta_fraction(a, b, y, w):
    """The continued fraction of I_y(a, b) (Numerical Recipes, betacf), for y below the
    mean, where it converges in few terms; its first denominator 1 - (a + b) y / (a + 1)
    is (1 - b + (a + b) w) / (a + 1), which keeps its digits for y near 1."""
    tiny = 1e-300
    c = np.ones_like(y)
    d = (1 - b + (a + b) * w) / (a + 1)
    d = 1 / np.where(np.abs(d) < tiny, tiny, d)
    h = d.copy()
    done = np.zeros(y.shape, dtype=bool)
    for m in range(1, FRACTION_TERMS):
        m2 = 2 * m
        for coefficient in (
            m * (b - m) * y / ((a + m2 - 1) * (a + m2)),
            -(a + m) * (a + b + m) * y / ((a + m2) * (a + m2 + 1)),
        ):
            d = 1 + coefficient * d
            d = 1 / np.where(np.abs(d) < tiny, tiny, d)
            c = 1 + coefficient / c
            c = np.where(np.abs(c) < tiny, tiny, c)
            delta = c * d
            h = np.where(done, h, h * delta)
        # each element stops at its own convergence: its later factors are 1 up to
        # rounding noise of about 1e-14, which would keep the slowest element going
        done |= np.abs(delta - 1) < 1e-15
        if done.all():
            break
    return h


def log_f_critical(alpha: float, df1: int, df2: ArrayLike) -> np.ndarray:
    """log F_{1-alpha}(df1, df2), the upper alpha quantile of the F distribution, from
    the Beta quantiles (see the module docstring); for df1 = 1 it is 2 log t_{1-alpha/2,
    df2}. scipy's Beta quantiles are only starts: for a tiny alpha and many degrees of
    freedom they lose their digits (the lower quantile 0.0354 of Beta(225, 24.5) at alpha
    = 1e-300, where I_q is 1e-294: log F 5.52 for 5.58), and below
    :data:`QUANTILE_FLOOR` among the subnormal numbers (0.75 for 0.867 at alpha = 5e-324
    and df2 = 10^4), where the series' first term is the start instead. Newton's method
    in log space (:func:`_newton_log_quantile`) then solves log I = log alpha on the side
    of the quantile that is small, to the digits of :func:`log_betainc`."""
    df2 = np.asarray(df2, float)
    a, b = df1 / 2, df2 / 2
    log_alpha = np.log(alpha)
    leading = _leading_log_q(b, a, log_alpha)
    if alpha < QUANTILE_FLOOR:
        upper, start = np.ones_like(df2), leading
    else:
        upper = special.betainccinv(a, b, alpha)  # B, upper alpha quantile of Beta(a, b)
        q = special.betaincinv(b, a, alpha)  # 1 - B, where B is near 1
        with np.errstate(divide="ignore"):
            # q underflows only for df2 = 1 or 2 and a tiny alpha: the series' first term
            start = np.where(q > _TINY * 1e6, np.log(q), leading)
    # each from the side that is small: log q = log(1 - B) for B >= 1/2, else log B; a
    # NaN of scipy's (Beta(1.5, 4) at 1e-300) leaves the series' first term as the start
    small_q = ~(upper < 0.5)
    with np.errstate(divide="ignore"):
        start = np.where(small_q, start, np.log(np.where(small_q, 0.5, upper)))
    x = _newton_log_quantile(b, a, log_alpha, start, small_q)
    with np.errstate(divide="ignore"):
        log_q = np.where(small_q, x, np.log(-np.expm1(x)))
        log_upper = np.where(small_q, np.log(-np.expm1(x)), x)
    return np.log(df2 / df1) + log_upper - log_q


def _leading_log_q(b, a, log_alpha):
    """log q from the first term of the series I_q(b, a) = q^b / (b B(b, a)) (1 + O(q)):
    exact as q vanishes."""
    return (log_alpha + np.log(b) + special.betaln(b, a)) / b


def _newton_log_quantile(b, a, log_alpha, x, small_q):
    """The lower quantile q of Beta(b, a) at e^log_alpha, I_q(b, a) = e^log_alpha, as x =
    log q where ``small_q`` and x = log(1 - q) elsewhere, by Newton's method on g(x) =
    log I_q(b, a) - log_alpha from ``x``. g is monotone in x with slope +-e^(log p - log
    I), p = q^b (1 - q)^(a - 1) / B(b, a) for x = log q, q^(b - 1) (1 - q)^a / B(b, a)
    for x = log(1 - q); log I and log p come from logs (:func:`log_betainc`), so a q of
    1e-300 or a 1 - q of 1e-20 keeps its digits. Where q is below the normal numbers
    (df2 = 1 or 2) the start, the series' first term, is the answer to double precision,
    as the next term is q times smaller."""
    x, b, small_q = np.broadcast_arrays(np.array(x, float), np.asarray(b, float), small_q)
    shape = x.shape
    x, b, small_q = x.ravel().copy(), b.ravel(), small_q.ravel()
    todo = ~small_q | (x > np.log(_TINY) + 10.0)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for _ in range(_NEWTON_STEPS):
            if not todo.any():
                break
            xs, bs, lower = x[todo], b[todo], small_q[todo]
            log_other = np.log(-np.expm1(xs))  # the other side's log, from the small one
            log_q, log_w = np.where(lower, xs, log_other), np.where(lower, log_other, xs)
            log_i = log_betainc(bs, a, np.exp(log_q), np.exp(log_w))
            log_p = (bs - 1) * log_q + (a - 1) * log_w + xs - special.betaln(bs, a)
            slope = np.where(lower, 1.0, -1.0) * np.exp(log_p - log_i)
            moved = np.minimum(xs - (log_i - log_alpha) / slope, xs / 2)  # stays below 0
            moved = np.where(np.isfinite(moved), moved, xs)
            done = np.abs(moved - xs) <= 4e-16 * np.abs(xs)
            x[todo] = moved
            todo[todo] = ~done
    return x.reshape(shape)


def stirlerr(x: ArrayLike) -> np.ndarray:
    """lgamma(x + 1) - (x + 1/2) log x + x - log(2 pi) / 2, the error of Stirling's formula
    (x > 0), by its series for x >= 30: differences of lgamma cancel their digits."""
    x = np.asarray(x, float)
    big = np.maximum(x, 30.0)
    with np.errstate(over="ignore"):  # big^7 past 1e44: its term is 0
        series = 1 / (12 * big) - 1 / (360 * big**3) + 1 / (1260 * big**5) - 1 / (1680 * big**7)
    low = np.clip(x, 1e-300, 30.0)
    direct = special.gammaln(low + 1) - (low + 0.5) * np.log(low) + low - 0.5 * np.log(2 * np.pi)
    return np.where(x >= 30, series, direct)


def deviance(t: ArrayLike) -> np.ndarray:
    """phi(t) = (1 + t) log(1 + t) - t (t >= -1), by its series sum_k>=2 (-t)^k / (k (k -
    1)) for |t| < 0.1, where the direct form cancels: Loader's bd0(x, m) = m phi((x - m) /
    m), the deviance of the Poisson and binomial terms."""
    t = np.asarray(t, float)
    with np.errstate(divide="ignore", invalid="ignore"):
        near = np.abs(t) < 0.1
        series = np.zeros(t.shape)  # the series where it is used only: 18 powers each
        if near.any():
            small = t[near]
            series[near] = sum((-1) ** k * small**k / (k * (k - 1)) for k in range(2, 20))
        return np.where(near, series, (1 + t) * np.log1p(np.where(near, 0.0, t)) - t)


def log_binomial_half_cdf(low: ArrayLike, untied: ArrayLike) -> np.ndarray:
    """log P(X <= low), X ~ Binomial(untied, 1/2), for 0 <= low < untied / 2, also where
    it underflows: P(X <= k) = I_1/2(m - k, k + 1) = P(X = k) CF / 2, CF the continued
    fraction of I (:func:`_beta_fraction`), and log P(X = k), k > 0, in Loader's form,
    stirlerr(m) - stirlerr(k) - stirlerr(m - k) - (m/2) (phi(t) + phi(-t)) + log(m / (2 pi
    k (m - k))) / 2, t = (2k - m) / m (:func:`stirlerr`, :func:`deviance`): to a relative
    1e-13 on any number of topics, where log(beta(m - k, k + 1)) lost the digits of m's
    magnitude (1e-6 on 10^9 topics). P(X = 0) = 2^-m."""
    k, m = np.broadcast_arrays(np.asarray(low, float), np.asarray(untied, float))
    shape = k.shape
    k, m = k.ravel(), m.ravel()
    t = (2 * k - m) / m
    inner = np.maximum(k, 1.0)  # (k = 0 is 2^-m, below)
    with np.errstate(divide="ignore"):
        log_term = (
            stirlerr(m)
            - stirlerr(inner)
            - stirlerr(m - inner)
            - 0.5 * m * (deviance(t) + deviance(-t))
            + 0.5 * np.log(m / (2 * np.pi * inner * (m - inner)))
        )
    log_term = np.where(k > 0, log_term, -m * np.log(2.0))
    half = np.full(k.shape, 0.5)
    fraction = _beta_fraction(m - k, k + 1, half, half)
    out: np.ndarray = (log_term + np.log(fraction) - np.log(2.0)).reshape(shape)
    return out


def log_t_tail(t: ArrayLike, df: ArrayLike) -> np.ndarray:
    """log P(|T| > |t|), T Student's t with ``df`` degrees of freedom (arrays broadcast):
    log I_x(df/2, 1/2), x = df / (df + t^2) taken from logs, log x = log df - 2 log|t| -
    log1p(df / t^2), as t^2 overflows past 1.3e154. Where x is below the normal numbers
    (df = 1 and t past 6.7e153) the series' first term x^a / (a B(a, 1/2)) is I to double
    precision. For the far tail, where scipy's ``stdtr`` loses the subnormal range."""
    t, df = np.broadcast_arrays(np.abs(np.asarray(t, float)), np.asarray(df, float))
    shape = t.shape
    t, df = t.ravel(), df.ravel()
    a = df / 2
    with np.errstate(over="ignore", divide="ignore"):
        ratio = df / (t * t)  # 0 where t^2 overflows
        log_x = np.log(df) - 2 * np.log(t) - np.log1p(ratio)
        log_w = -np.log1p(ratio)  # log(t^2 / (df + t^2))
    tiny = log_x < np.log(_TINY)
    out = a * log_x - np.log(a) - special.betaln(a, 0.5)  # where x is not a normal double
    if (~tiny).any():
        kept = ~tiny
        out[kept] = log_betainc(a[kept], 0.5, np.exp(log_x[kept]), np.exp(log_w[kept]))
    return out.reshape(shape)


def t_critical(alpha: float, df: ArrayLike) -> Any:
    """t_{1-alpha/2, df}: P(|T| > t) = alpha, T Student's t with ``df`` degrees of freedom
    (arrays broadcast), from t^2 = F_{1-alpha}(1, df) (:func:`log_f_critical`), to a
    relative 1e-12. inf only where t exceeds the largest double (df = 1 and alpha below
    about 3.5e-309)."""
    df = np.asarray(df, dtype=float)
    with np.errstate(over="ignore"):
        value = np.exp(0.5 * log_f_critical(float(alpha), 1, df))
    return value if value.ndim else float(value)


def z_upper(log_p: float) -> float:
    """z with P(Z > z) = e^log_p, Z standard normal: -ndtri_exp(log_p), the inverse of
    log Phi, exact where e^log_p underflows."""
    return float(-special.ndtri_exp(float(log_p)))


def z_critical(alpha: float) -> float:
    """z_{1-alpha/2}: P(|Z| > z) = alpha, Z standard normal (:func:`z_upper` of log alpha -
    log 2): exact where alpha / 2 underflows (alpha = 5e-324)."""
    return z_upper(np.log(float(alpha)) - np.log(2.0))
