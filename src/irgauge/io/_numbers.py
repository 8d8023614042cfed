"""Numbers parsed from token bytes with whole-array operations, by the rules of C's
``strtod``/``atol`` as trec_eval reads them, bit-exact with Python's ``float``/``int``.

Scores: a decimal number ``[+-]digits[.digits][(e|E)[+-]digits]`` (at least one digit
before the exponent). With mantissa m (the digits without the point) and decimal exponent
q, when m <= 2^53 and |q| <= 22 both m and 10^|q| are exact doubles, so one IEEE
multiplication or division gives the correctly rounded value (Clinger's fast path); the
rare other decimals (more than 15-16 significant digits, far exponents) go through
Python's ``float``, which rounds correctly too. Anything else is refused at FILE:LINE:
``1_0`` (Python accepts underscores, C's strtod does not), ``nan``, ``inf``, hexadecimal
floats, and decimals too large for a double.

Integers (relevance levels): ``[+-]digits`` within the signed 64-bit range; anything else
is refused at FILE:LINE.
"""
from __future__ import annotations

from typing import Tuple

import numpy as np

from irgauge._ids import Ids
from irgauge.errors import InputError

_POW10_U64 = np.array([10 ** k for k in range(20)], dtype=np.uint64)
_POW10_F64 = np.array([10.0 ** k for k in range(23)], dtype=np.float64)
_EXACT = 1 << 53
_MAX_DIGITS = 19  # 10^19 - 1 < 2^64: 19 digits sum in uint64 without overflow
DIGIT, DOT, SIGN, EXP = 1, 2, 4, 8
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


def _bytes_of(ids: Ids):
    """Per byte of every token: the byte, its token index, its offset within the token;
    and each token's first byte index."""
    n = len(ids)
    first = ids.starts_compact()
    pos = Ids._positions(ids.starts, ids.lens)
    b = ids.pool[pos]
    tok = np.repeat(np.arange(n), ids.lens)
    within = np.arange(len(b)) - first[tok]
    return b, tok, within, first


def _weighted_sum(b: np.ndarray, flag: np.ndarray, tok: np.ndarray, first: np.ndarray,
                  count: np.ndarray) -> np.ndarray:
    """Per token, the flagged digits read as one decimal integer (uint64; exact while a
    token has at most 19 flagged digits, garbage beyond, which callers exclude)."""
    cum = np.cumsum(flag, dtype=np.int64)
    before = cum[first] - flag[first]  # flagged bytes before each token
    k = count[tok] - (cum - before[tok])  # flagged digits after this one in its token
    values = np.where(flag, (b - 48).astype(np.uint64) * _POW10_U64[np.clip(k, 0, 19)],
                      np.uint64(0))
    with np.errstate(over="ignore"):
        return np.add.reduceat(values, first) if len(first) else np.zeros(0, np.uint64)


def _scan_decimals(ids: Ids) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(grammar ok, fast path ok, value where fast) for each token."""
    n = len(ids)
    if n == 0:
        return np.zeros(0, bool), np.zeros(0, bool), np.zeros(0)
    b, tok, within, first = _bytes_of(ids)
    digit = (b - 48) < 10  # uint8 arithmetic: bytes below '0' wrap to large values
    dot = b == 46
    exp = (b | 32) == 101
    sign = (b == 43) | (b == 45)
    count = lambda flag: np.bincount(tok, weights=flag, minlength=n).astype(np.int64)  # noqa: E731
    n_exp = count(exp)
    e_pos = np.full(n, 1 << 40, dtype=np.int64)
    e_pos[tok[exp]] = within[exp]
    after_e = within > e_pos[tok]
    dot_pos = np.full(n, 1 << 40, dtype=np.int64)
    dot_pos[tok[dot]] = within[dot]
    misplaced = (~(digit | dot | exp | sign)
                 | (sign & (within != 0) & (within != e_pos[tok] + 1))
                 | (dot & after_e))
    mant = digit & ~after_e
    frac = mant & (within > dot_pos[tok])
    expd = digit & after_e
    n_mant, n_frac, n_expd = count(mant), count(frac), count(expd)
    grammar = ((count(misplaced) == 0) & (n_exp <= 1) & (count(dot) <= 1) & (n_mant >= 1)
               & ((n_exp == 0) | (n_expd >= 1)))
    m = _weighted_sum(b, mant, tok, first, n_mant)
    e = _weighted_sum(b, expd, tok, first, n_expd).astype(np.int64)
    e_neg = np.zeros(n, dtype=bool)
    e_neg[tok[sign & after_e]] = b[sign & after_e] == 45
    q = np.where(e_neg, -e, e) - n_frac
    fast = grammar & (n_mant <= _MAX_DIGITS) & (n_expd <= 5) & (m <= _EXACT) & (np.abs(q) <= 22)
    qf = np.where(fast, q, 0)
    mf = m.astype(np.float64)
    value = np.where(qf >= 0, mf * _POW10_F64[np.clip(qf, 0, 22)],
                     mf / _POW10_F64[np.clip(-qf, 0, 22)])
    value = np.where(b[first] == 45, -value, value)
    return grammar, fast, value


def parse_floats(ids: Ids, path: str, lines: np.ndarray, what: str) -> np.ndarray:
    """float64 of decimal tokens; an InputError names the first line that is not a finite
    decimal number."""
    grammar, fast, values = _scan_decimals(ids)
    if fast.all():
        return values
    for i in np.flatnonzero(~fast):  # rare: many digits, far exponents, or bad tokens
        token = ids[int(i)]
        value = float(token) if grammar[i] else None
        if value is None or not np.isfinite(value):
            problem = "" if value is not None or _special(token) else \
                " (a decimal such as 12, -0.5 or 1.5e-3, as C's strtod reads it)"
            raise InputError(f"{what} {_show(token)} is not a finite number{problem}", path,
                             int(lines[i]))
        values[i] = value
    return values


def _special(token: bytes) -> bool:
    return token.lstrip(b"+-").lower() in (b"nan", b"inf", b"infinity")


def _show(token: bytes) -> str:
    text = token.decode("utf-8", "backslashreplace")
    return repr(text if len(text) <= 40 else text[:37] + "...")


def scan_ints(ids: Ids) -> Tuple[np.ndarray, np.ndarray]:
    """(is ``[+-]digits`` with at most 18 digits, its int64 value) for each token."""
    n = len(ids)
    if n == 0:
        return np.zeros(0, bool), np.zeros(0, np.int64)
    b, tok, within, first = _bytes_of(ids)
    digit = (b - 48) < 10
    sign = ((b == 43) | (b == 45)) & (within == 0)
    n_digits = np.bincount(tok, weights=digit, minlength=n).astype(np.int64)
    ok = (n_digits >= 1) & (np.bincount(tok, weights=~(digit | sign), minlength=n) == 0)
    magnitude = _weighted_sum(b, digit, tok, first, n_digits).astype(np.int64)
    return ok & (n_digits <= 18), np.where(b[first] == 45, -magnitude, magnitude)


def parse_ints(ids: Ids, path: str, lines: np.ndarray, what: str, hint: str = "") -> np.ndarray:
    """int64 of integer tokens ``[+-]digits``; an InputError names the first line whose
    token is not an integer or lies outside the signed 64-bit range."""
    fast, values = scan_ints(ids)
    for i in np.flatnonzero(~fast):  # rare: 19 digits or more, or not an integer
        token = ids[int(i)]
        body = token[1:] if token[:1] in (b"+", b"-") else token
        if not (body.isdigit() and body.isascii()):
            raise InputError(f"{what} {_show(token)} is not an integer{hint}", path,
                             int(lines[i]))
        value = int(token)
        if not INT64_MIN <= value <= INT64_MAX:
            raise InputError(f"{what} {_show(token)} is outside the 64-bit integer range",
                             path, int(lines[i]))
        values[i] = value
    return values
