"""Numbers as trec_eval 10.0's C reads and prints them on its command line.

- ``atol``: glibc's ``atol`` (``strtol`` in base 10): C-locale white space, a sign, ASCII
  digits; no digits gives 0; a value beyond a 64-bit ``long`` saturates to
  ``LONG_MIN``/``LONG_MAX`` (``-M 99999999999999999999`` is ``-M 9223372036854775807``).
- ``atof``: glibc's ``strtod``: white space, a sign, then a decimal or hexadecimal
  (``0x1p3``) number, ``inf``/``infinity`` or ``nan``/``nan(chars)`` in any case; the
  longest such prefix, 0.0 if none; a decimal beyond the doubles is ``inf``
  (``HUGE_VAL``). Python's ``float`` rounds decimals correctly, as glibc does.
- ``c_fixed``: ``printf("%W.Pf")``, a NaN with its sign (``-nan``).
- ``c_quotient``: C's ``a / b`` of two doubles, 0 as ``b`` included.
"""

from __future__ import annotations

import math
import re

LONG_MIN, LONG_MAX = -(1 << 63), (1 << 63) - 1
_SPACE = " \t\n\v\f\r"  # isspace in the C locale
_LONG = re.compile(rf"[{_SPACE}]*([-+]?[0-9]+)")
_DECIMAL = re.compile(rf"[{_SPACE}]*([-+]?([0-9]+\.?[0-9]*|\.[0-9]+)([eE][-+]?[0-9]+)?)")
_HEX = re.compile(
    rf"[{_SPACE}]*([-+]?)0[xX](([0-9a-fA-F]+\.?[0-9a-fA-F]*|\.[0-9a-fA-F]+)([pP][-+]?[0-9]+)?)"
)
_SPECIAL = re.compile(rf"[{_SPACE}]*([-+]?)(inf(inity)?|nan(\([0-9A-Za-z_]*\))?)", re.I)


def atol(text: str) -> int:
    """C's ``atol``: the leading integer, 0 if none, saturated to a 64-bit long."""
    match = _LONG.match(text)
    if not match:
        return 0
    return min(max(int(match.group(1)), LONG_MIN), LONG_MAX)


def atof(text: str) -> float:
    """C's ``atof`` (``strtod``): the longest leading number, 0.0 if none."""
    special = _SPECIAL.match(text)
    if special:
        sign = -1.0 if special.group(1) == "-" else 1.0
        word = special.group(2).lower()
        return math.copysign(math.inf if word.startswith("inf") else math.nan, sign)
    hexa = _HEX.match(text)
    if hexa:
        mantissa, exponent = hexa.group(3), hexa.group(4) or "p0"
        try:
            value = float.fromhex(mantissa + exponent)
        except OverflowError:
            value = math.inf
        return -value if hexa.group(1) == "-" else value
    match = _DECIMAL.match(text)
    return float(match.group(1)) if match else 0.0  # float() overflows to inf, as strtod


def c_fixed(value: float, width: int, places: int) -> str:
    """``printf("%{width}.{places}f", value)``: a NaN prints its sign, as glibc does."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>{width}}"
    return f"{value:{width}.{places}f}"


def c_quotient(a: float, b: float) -> float:
    """``a / b`` as C divides two doubles on x86-64: x/0 is an infinity of x's sign (times
    0's sign), and 0/0 the processor's default NaN, whose sign bit is set (``-nan``)."""
    if b != 0:  # a NaN too: Python divides as C does, except by 0
        return a / b
    if math.isnan(a):
        return a
    if a == 0:
        return -math.nan
    return math.copysign(math.inf, a) * math.copysign(1.0, b)
