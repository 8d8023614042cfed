"""Checks of numeric arguments, shared by the Python API and the command line so that both
refuse a bad value with the same words (``samples: expected a number of random draws from 1
to 10000000; got 0``). Each raises InputError (a ValueError; CLI exit 2)."""

from __future__ import annotations

import math
import os
import re
from numbers import Integral, Real
from typing import Any, Callable, Optional

from irgauge.errors import InputError

SEED_MAX = 2**63 - 1
# upper bounds keep a mistyped value from allocating arrays the machine cannot hold
MAX_DRAWS = 10**7  # bootstrap samples, trials, halvings, permutations
MAX_COUNT = 10**9  # topics, documents, systems, subset sizes
MAX_LEVEL = 2**31 - 1  # relevance levels are held as 32-bit integers at most
# 2^g of the exponential gain forms (nDCG dcg=exp-log2, ERR stop=exp) stays finite
GAIN_MAX = 1000.0


def _named(name: Optional[str], problem: str) -> str:
    return f"{name}: {problem}" if name else problem


def as_int(value: Any) -> int:
    """An int from a decimal string or an integer-valued number; True and 2.5 raise
    TypeError/ValueError instead of becoming 1 and 2."""
    if isinstance(value, bool):
        raise TypeError(value)
    if isinstance(value, str):
        return int(value.strip(), 10)
    if isinstance(value, Integral):
        return int(value)
    if isinstance(value, Real) and float(value).is_integer():
        return int(value)
    raise TypeError(value) if not isinstance(value, Real) else ValueError(value)


def whole(
    value: Any,
    name: Optional[str] = None,
    minimum: Optional[int] = None,
    maximum: Optional[int] = None,
    what: str = "a whole number",
) -> int:
    """``value`` (a string or an integer, never 2.5 or True) as an int in [minimum, maximum]."""
    try:
        number = as_int(value)
    except (TypeError, ValueError, OverflowError):
        raise InputError(_named(name, f"expected {what}; got {value!r}")) from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise InputError(
            _named(name, f"expected {what} {_int_range(minimum, maximum)}; got {number}")
        )
    return number


def real(
    value: Any,
    name: Optional[str] = None,
    minimum: Optional[float] = None,
    maximum: Optional[float] = None,
    min_open: bool = False,
    max_open: bool = False,
    what: str = "a number",
) -> float:
    """``value`` as a finite float in a range whose ends may be open (excluded)."""
    try:
        if isinstance(value, bool):
            raise TypeError(value)
        number = float(value)
    except (TypeError, ValueError):
        raise InputError(_named(name, f"expected {what}; got {value!r}")) from None
    if not in_interval(number, minimum, maximum, min_open, max_open):
        span = interval(minimum, maximum, min_open, max_open, lambda v: f"{v:g}")
        raise InputError(_named(name, f"expected {what} in {span}; got {value}"))
    return number


def in_interval(
    number: float,
    low: Optional[float],
    high: Optional[float],
    low_open: bool = False,
    high_open: bool = False,
) -> bool:
    """Whether ``number`` is finite and lies between ``low`` and ``high`` (None: no bound),
    each end excluded when open."""
    if not math.isfinite(number):
        return False
    if low is not None and (number <= low if low_open else number < low):
        return False
    return high is None or (number < high if high_open else number <= high)


def interval(
    low: Optional[float],
    high: Optional[float],
    low_open: bool = False,
    high_open: bool = False,
    show: Callable[[float], str] = str,
) -> str:
    """An interval as text: ``[0, 1)``, ``(1, inf)``."""
    left = "(-inf" if low is None else f"{'(' if low_open else '['}{show(low)}"
    right = "inf)" if high is None else f"{show(high)}{')' if high_open else ']'}"
    return f"{left}, {right}"


def _int_range(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f"from {minimum} to {maximum}"
    if minimum is not None:
        return f">= {minimum}"
    return f"<= {maximum}"


def draws(value: Any, name: str) -> int:
    """A number of random draws: bootstrap samples, trials, halvings, permutations."""
    return whole(value, name, 1, MAX_DRAWS, what="a number of random draws")


def count(value: Any, name: str) -> int:
    return whole(value, name, 1, MAX_COUNT)


def seed(value: Any, name: str = "seed") -> int:
    return whole(value, name, 0, SEED_MAX, what="a seed")


def resolve_seed(value: Optional[int], name: str = "seed") -> int:
    """The seed to use and to record: ``value`` itself, or a fresh random one (32 bits, so
    that it is easy to copy from an output) when None."""
    if value is None:
        # os.urandom, as secrets does, without secrets' imports (random, hmac, hashlib)
        return int.from_bytes(os.urandom(4), "little")
    return seed(value, name)


def alpha(value: Any, name: str = "alpha") -> float:
    return real(value, name, 0.0, 1.0, min_open=True, max_open=True, what="a significance level")


def fraction(value: Any, name: str) -> float:
    return real(value, name, 0.0, 1.0, min_open=True, what="a fraction")


def probability(value: Any, name: str) -> float:
    return real(value, name, 0.0, 1.0, what="a probability")


def confidence(value: Any, name: str = "confidence") -> float:
    return real(value, name, 0.0, 1.0, min_open=True, max_open=True, what="a confidence level")


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE)


def memory_size(value: Any, name: str = "memory") -> int:
    """Bytes from ``512M``, ``1G``, ``1.5g``, ``2GB``, ``800MiB`` or an int (units are
    powers of 1024)."""
    if isinstance(value, bool):
        raise InputError(f"{name} must be a size such as 512M or 2G, got {value!r}")
    if isinstance(value, int):
        size = value
    else:
        match = _SIZE.fullmatch(str(value))
        if not match:
            raise InputError(
                f"{name} must be a size such as 512M or 2G (K, M, G, T: powers of 1024), "
                f"got {value!r}"
            )
        scaled = float(match.group(1)) * SIZE_UNITS[match.group(2).upper()]
        size = math.floor(scaled) if scaled < 1 << 62 else 1 << 62
    if size > 1 << 60:
        raise InputError(f"{name} must be at most 1048576T, got {value!r}")
    if size < 1 << 20:
        raise InputError(f"{name} must be at least 1M, got {value!r}")
    return int(size)
