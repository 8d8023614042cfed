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

from irgauge.io.ids import CHUNK, Ids
from irgauge.errors import InputError

_POW10_U64 = np.array([10**k for k in range(20)], dtype=np.uint64)
_POW10_F64 = np.array([10.0**k for k in range(23)], dtype=np.float64)
_EXACT = 1 << 53
_MAX_DIGITS = 19  # 10^19 - 1 < 2^64: 19 digits sum in uint64 without overflow
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1


_ASCII_ZEROS = np.uint64(0x3030303030303030)
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
_M1 = np.uint64(0x000000FF000000FF)
_C1 = np.uint64(100 + (1000000 << 32))
_C2 = np.uint64(1 + (10000 << 32))


def _eight_digits(words: np.ndarray, at: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The ``n`` (0..8) ASCII digits at pool offsets ``at`` as integers."""
    return _ascii_digits(words[at] & _LOW[n], n)


def _sixteen_digits(words, at, n):
    """Up to 16 digits: the first n - 8 (if any), then the last 8."""
    if len(n) == 0 or n.max() <= 8:
        return _eight_digits(words, at, n)
    high = np.maximum(n - 8, 0)
    return _eight_digits(words, at, high) * np.uint64(10**8) + _eight_digits(
        words, at + high, n - high
    )


_HIGH = np.uint64(0x8080808080808080)  # the top bit of each byte
_SEVEN = np.uint64(0x7F7F7F7F7F7F7F7F)
_TO_30 = np.uint64(0x5050505050505050)  # + this sets a byte's top bit iff it is >= '0'
_TO_3A = np.uint64(0x4646464646464646)  # ... iff it is > '9'
_POINTS = np.uint64(0x2E2E2E2E2E2E2E2E)
_FIRST = _LOW & _HIGH  # top bits of the first k bytes
_TO_10 = np.uint64(0x7676767676767676)  # + this sets a byte's top bit iff it is >= 10
# times a power 256^k (one byte's bit 0), the top byte holds k: byte j of this holds 7 - j
_BYTE_INDEX = np.uint64(0x0001020304050607)
_ALIGN = np.array([8 * (8 - k) for k in range(9)], dtype=np.uint64)
_ZEROS = _ASCII_ZEROS & _LOW
_BYTE, _ONE, _LAST_BYTE = np.uint64(8), np.uint64(1), np.uint64(56)
SHORT = 16  # tokens up to this many bytes are scanned as two words, not byte by byte


def _scan_plain(ids: Ids, dot: bool):
    """For plain tokens ``[+-]digits[.digits]`` (at most 16 digits on either side of the
    point and 19 in all; no point when ``dot`` is false): (plain, mantissa m as uint64,
    digits after the point, negative). Tokens of up to SHORT bytes (nearly all) are
    scanned a word at a time, the others byte by byte."""
    long_rows = np.flatnonzero(ids.lens > SHORT)
    if len(long_rows) == 0:
        return _scan_short(ids, dot)
    if len(long_rows) == len(ids):
        return _scan_bytes(ids, dot)
    found = _scan_short(ids, dot)
    for whole, part in zip(found, _scan_bytes(ids[long_rows], dot)):
        whole[long_rows] = part
    return found


def _digit_bits(w: np.ndarray) -> np.ndarray:
    """The top bit of each byte of ``w`` that is an ASCII digit (exact: no carry crosses
    a byte, since each byte's top bit is cleared before the additions)."""
    a = w & _SEVEN
    return (a + _TO_30) & ~(a + _TO_3A) & ~w & _HIGH


def _point_bits(w: np.ndarray) -> np.ndarray:
    """The top bit of each byte of ``w`` that is '.' (exact zero-byte test of w ^ '.')."""
    y = w ^ _POINTS
    return ~(((y & _SEVEN) + _SEVEN) | y | _SEVEN)


def _byte_at(bit: np.ndarray) -> np.ndarray:
    """The byte index k of a single set top bit 8k + 7 (a power of two: exact as a double)."""
    return (np.frexp(bit.astype(np.float64))[1].astype(np.int64) - 8) >> 3


def _without_byte(lo, hi, k):
    """The 16 bytes (lo, hi) with byte k (0..7, of lo) removed, the rest moved down."""
    keep = _LOW[k]
    return (lo & keep) | ((lo >> _BYTE) & ~keep) | (hi << _LAST_BYTE), hi >> _BYTE


def _ascii_digits(x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """The number written by the ``n`` (0..8) ASCII digits in the low bytes of ``x`` (bytes
    past them zero), eight at a time (SWAR: simdjson's parse_eight_digits_unrolled, on
    digits right-aligned over leading zeros)."""
    x = (x - _ZEROS[n]) << _ALIGN[n]
    x = x * np.uint64(10) + (x >> _BYTE)
    return ((x & _M1) * _C1 + ((x >> np.uint64(16)) & _M1) * _C2) >> np.uint64(32)


def _scan_word(ids: Ids, dot: bool):
    """_scan_short for tokens of at most 8 bytes (the usual score or level): one word
    each. A plain token's bytes are digits but for one point (and a sign, rare, whose
    steps are taken only where a token has one): so its only other byte is found by a
    test of every byte at once, its index k by a multiplication, and the point is removed
    with the mask of the bytes before it."""
    with np.errstate(over="ignore"):
        n_bytes = ids.lens.astype(np.intp)  # indices as numpy gathers them: no conversion
        w = ids._words()[ids.starts.astype(np.intp)] & _LOW[n_bytes]
        first = w & np.uint64(0xFF)
        signed = (first == 43) | (first == 45)
        some_signed = bool(signed.any())
        # a byte is a digit iff its xor with '0' is below 10 (bytes past the token are 0)
        x = w ^ _ASCII_ZEROS
        other = (((x & _SEVEN) + _TO_10) | x) & _FIRST[n_bytes]
        if some_signed:
            other &= ~(signed.astype(np.uint64) << np.uint64(7))
        if dot:
            # at most one other byte, and that one a point
            k = ((other >> np.uint64(7)) * _BYTE_INDEX) >> _LAST_BYTE
            has_point = other != 0
            at_k = (w >> (k << np.uint64(3))) & np.uint64(0xFF)
            plain = ((other & (other - _ONE)) == 0) & ((at_k == 46) | ~has_point)
            before = (other >> np.uint64(7)) - _ONE  # every byte when there is no point
            w = (w & before) | ((w >> _BYTE) & ~before)
            n_frac = n_bytes - 1 - k.astype(np.intp)
        else:
            plain = other == 0
            has_point, n_frac = False, 0
        n_digits = n_bytes - has_point
        if some_signed:
            w >>= signed.astype(np.uint64) << np.uint64(3)
            n_digits = n_digits - signed
        plain &= n_digits >= 1
        # bytes past a token's digits are zero; a token that is not plain converts as none
        m = _ascii_digits(w, np.where(plain, n_digits, 0))
    n_frac = np.where(plain & has_point, n_frac, 0)
    return plain, m, n_frac, (signed & (first == 45)) if some_signed else signed


def _scan_short(ids: Ids, dot: bool):
    """_scan_plain for tokens of at most SHORT bytes (longer ones come out not plain),
    read as two little-endian words straight from the pool: each byte's class (digit,
    point, other) by word arithmetic, the point and sign removed by shifts, the digits
    converted eight at a time. No per-byte array, no compaction."""
    if len(ids) == 0 or int(ids.lens.max()) <= 8:
        return _scan_word(ids, dot)
    with np.errstate(over="ignore"):
        n_bytes = ids.lens.astype(np.int64)
        short = n_bytes <= SHORT
        n_bytes = np.where(short, n_bytes, 0)
        n_lo, n_hi = np.minimum(n_bytes, 8), np.clip(n_bytes - 8, 0, 8)
        words = ids._words()
        lo = words[ids.starts] & _LOW[n_lo]
        two = bool(n_hi.any())
        hi = (
            words[np.minimum(ids.starts + 8, len(words) - 1)] & _LOW[n_hi]
            if two
            else np.zeros(len(lo), np.uint64)
        )
        first = lo & np.uint64(0xFF)
        signed = (first == 43) | (first == 45)
        other_lo = _FIRST[n_lo] & ~_digit_bits(lo) & ~(signed.astype(np.uint64) << np.uint64(7))
        other_hi = _FIRST[n_hi] & ~_digit_bits(hi) if two else hi
        if dot:
            point_lo, point_hi = (
                _point_bits(lo) & _FIRST[n_lo],
                (_point_bits(hi) & _FIRST[n_hi] if two else hi),
            )
            single = (
                ((point_lo & (point_lo - _ONE)) == 0)
                & ((point_hi & (point_hi - _ONE)) == 0)
                & ((point_lo == 0) | (point_hi == 0))
            )
            plain = short & (other_lo == point_lo) & (other_hi == point_hi) & single
            has_point = (point_lo | point_hi) != 0
            at = np.where(
                point_lo != 0,
                _byte_at(point_lo),
                np.where(point_hi != 0, 8 + _byte_at(point_hi), n_bytes),
            )
            in_lo = point_lo != 0
            lo_cut, hi_cut = _without_byte(lo, hi, np.where(in_lo, at, 7))
            lo = np.where(in_lo, lo_cut, lo)
            hi = np.where(in_lo, hi_cut, hi)
            if two:
                in_hi = point_hi != 0
                hi = np.where(
                    in_hi, _without_byte(hi, np.uint64(0), np.where(in_hi, at - 8, 7))[0], hi
                )
        else:
            plain = short & (other_lo == 0) & (other_hi == 0)
            has_point = np.zeros(len(lo), bool)
            at = n_bytes
        sign_cut = signed.astype(np.uint64) << np.uint64(3)
        lo = (lo >> sign_cut) | np.where(signed, hi << _LAST_BYTE, np.uint64(0))
        hi = hi >> sign_cut
        n_digits = n_bytes - has_point - signed
        plain &= n_digits >= 1
        n_digits = np.where(plain, n_digits, 0)
        m = _ascii_digits(lo & _LOW[np.minimum(n_digits, 8)], np.minimum(n_digits, 8))
        if two:
            n_low = np.clip(n_digits - 8, 0, 8)
            m = np.where(
                n_digits > 8, m * _POW10_U64[n_low] + _ascii_digits(hi & _LOW[n_low], n_low), m
            )
    n_frac = np.where(plain & has_point, n_bytes - at - 1, 0)
    return plain, m, n_frac, signed & (first == 45)


def _scan_bytes(ids: Ids, dot: bool):
    """_scan_plain byte by byte, for tokens of any length: per byte only a digit test;
    the few other bytes (sign, point) are examined one by one, the digits eight at a
    time."""
    ids = ids.compacted()
    n = len(ids)
    s, lens = ids.starts, ids.lens
    total = int(lens.sum())
    other = np.flatnonzero((ids.pool[:total] - 48) >= 10)  # not a digit (uint8 wraps)
    tok = np.searchsorted(s, other, side="right") - 1
    within = other - s[tok]
    byte = ids.pool[other]
    sign = (within == 0) & ((byte == 43) | (byte == 45))
    point = (byte == 46) if dot else np.zeros(len(other), dtype=bool)
    bad = np.zeros(n, dtype=bool)
    bad[tok[~(sign | point)]] = True
    n_points = np.bincount(tok[point], minlength=n)
    bad |= n_points > 1
    signed = np.zeros(n, dtype=np.int64)
    signed[tok[sign]] = 1
    at_point = lens.copy()
    at_point[tok[point]] = within[point]
    n_int = at_point - signed
    n_frac = np.where(n_points == 1, lens - at_point - 1, 0)
    plain = ~bad & (n_int + n_frac >= 1) & (n_int <= 16) & (n_frac <= 16) & (n_int + n_frac <= 19)
    n_int, n_frac = np.where(plain, n_int, 0), np.where(plain, n_frac, 0)
    words = ids._words()
    top = len(words) - 1
    int_part = _sixteen_digits(words, np.minimum(s + signed, top), n_int)
    frac_part = _sixteen_digits(words, np.minimum(s + at_point + 1, top), n_frac)
    with np.errstate(over="ignore"):
        m = int_part * _POW10_U64[n_frac] + frac_part
    negative = (signed == 1) & (ids.pool[s] == 45)
    return plain, m, n_frac, negative


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


def _weighted_sum(
    b: np.ndarray, flag: np.ndarray, tok: np.ndarray, first: np.ndarray, count: np.ndarray
) -> np.ndarray:
    """Per token, the flagged digits read as one decimal integer (uint64; exact while a
    token has at most 19 flagged digits, garbage beyond, which callers exclude)."""
    cum = np.cumsum(flag, dtype=np.int64)
    before = cum[first] - flag[first]  # flagged bytes before each token
    k = count[tok] - (cum - before[tok])  # flagged digits after this one in its token
    values = np.where(
        flag, (b - 48).astype(np.uint64) * _POW10_U64[np.clip(k, 0, 19)], np.uint64(0)
    )
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
    misplaced = (
        ~(digit | dot | exp | sign)
        | (sign & (within != 0) & (within != e_pos[tok] + 1))
        | (dot & after_e)
    )
    mant = digit & ~after_e
    frac = mant & (within > dot_pos[tok])
    expd = digit & after_e
    n_mant, n_frac, n_expd = count(mant), count(frac), count(expd)
    grammar = (
        (count(misplaced) == 0)
        & (n_exp <= 1)
        & (count(dot) <= 1)
        & (n_mant >= 1)
        & ((n_exp == 0) | (n_expd >= 1))
    )
    m = _weighted_sum(b, mant, tok, first, n_mant)
    e = _weighted_sum(b, expd, tok, first, n_expd).astype(np.int64)
    e_neg = np.zeros(n, dtype=bool)
    e_neg[tok[sign & after_e]] = b[sign & after_e] == 45
    q = np.where(e_neg, -e, e) - n_frac
    fast = grammar & (n_mant <= _MAX_DIGITS) & (n_expd <= 5) & (m <= _EXACT) & (np.abs(q) <= 22)
    qf = np.where(fast, q, 0)
    mf = m.astype(np.float64)
    value = np.where(
        qf >= 0, mf * _POW10_F64[np.clip(qf, 0, 22)], mf / _POW10_F64[np.clip(-qf, 0, 22)]
    )
    value = np.where(b[first] == 45, -value, value)
    return grammar, fast, value


def parse_floats(ids: Ids, path: str, lines: np.ndarray, what: str) -> np.ndarray:
    """float64 of decimal tokens; an InputError names the first line that is not a finite
    decimal number."""
    if len(ids) == 0:
        return np.zeros(0)
    if len(ids) > CHUNK:  # bounded temporaries
        return np.concatenate(
            [
                parse_floats(ids[a : a + CHUNK], path, lines[a : a + CHUNK], what)
                for a in range(0, len(ids), CHUNK)
            ]
        )
    plain, m, n_frac, negative = _scan_plain(ids, dot=True)
    fast = plain & (m <= _EXACT)
    values = m.astype(np.float64) / _POW10_F64[n_frac]  # both exact: one correct rounding
    np.negative(values, out=values, where=negative)
    if fast.all():
        return values
    rest = np.flatnonzero(~fast)  # exponents, many digits, or not numbers: byte by byte
    grammar, fast_rest, values_rest = _scan_decimals(ids[rest])
    values[rest] = values_rest
    for k in np.flatnonzero(~fast_rest):  # rare: many digits, far exponents, or bad tokens
        i = rest[k]
        token = ids[int(i)]
        value = float(token) if grammar[k] else None
        if value is None or not np.isfinite(value):
            problem = (
                ""
                if value is not None or _special(token)
                else " (a decimal such as 12, -0.5 or 1.5e-3, as C's strtod reads it)"
            )
            raise InputError(
                f"{what} {_show(token)} is not a finite number{problem}", path, int(lines[i])
            )
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
    if not (ids.lens != 1).any():  # one digit each (most relevance levels): one step
        digit = ids.pool[ids.starts] - np.uint8(48)  # (bytes below '0' wrap past 9)
        return digit < 10, digit.astype(np.int64)
    if n > CHUNK:  # bounded temporaries
        parts = [scan_ints(ids[a : a + CHUNK]) for a in range(0, n, CHUNK)]
        return np.concatenate([p[0] for p in parts]), np.concatenate([p[1] for p in parts])
    plain, m, _, negative = _scan_plain(ids, dot=False)
    if plain.all():
        magnitude = m.astype(np.int64)
        return plain, np.where(negative, -magnitude, magnitude)
    return _scan_ints_bytes(ids)


def _scan_ints_bytes(ids: Ids) -> Tuple[np.ndarray, np.ndarray]:
    """scan_ints one byte at a time (up to 18 digits)."""
    n = len(ids)
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
            raise InputError(f"{what} {_show(token)} is not an integer{hint}", path, int(lines[i]))
        value = int(token)
        if not INT64_MIN <= value <= INT64_MAX:
            raise InputError(
                f"{what} {_show(token)} is outside the 64-bit integer range", path, int(lines[i])
            )
        values[i] = value
    return values
