"""Checks of numeric arguments, shared by the Python API and the command line so that both
refuse a bad value with the same words (``samples: expected a number of random draws from 1
to 10000000; got 0``). Each raises InputError (a ValueError; CLI exit 2)."""

from __future__ import annotations

import functools
import math
import os
import re
import warnings
from numbers import Integral, Real
from typing import Any, Callable, Iterable, Optional, TypeVar, cast

from irgauge.errors import InputError

SEED_MAX = 2**63 - 1
# upper bounds keep a mistyped value from allocating arrays the machine cannot hold
MAX_DRAWS = 10**7  # bootstrap samples, trials, halvings, permutations
MAX_COUNT = 10**9  # topics, documents, systems, subset sizes, pool depths
# threads or Dask workers on one machine: far above any machine's cores, far below what
# would exhaust the process (each thread or worker process holds memory of its own)
MAX_JOBS = 4096
MAX_LEVEL = 2**31 - 1  # relevance levels are held as 32-bit integers at most
# 2^g of the exponential gain forms (nDCG dcg=exp-log2, ERR stop=exp) stays finite
GAIN_MAX = 1000.0


def _named(name: Optional[str], problem: str) -> str:
    return f"{name}: {problem}" if name else problem


def refused(name: Optional[str], problem: str) -> InputError:
    """The InputError refusing parameter ``name``'s value: ``name: problem``, with the
    parameter recorded so that the command line names its option instead."""
    return InputError(_named(name, problem), parameter=name)


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
        return int(math.trunc(value))
    raise TypeError(value) if not isinstance(value, Real) else ValueError(value)


def whole(
    value: Any,
    name: Optional[str] = None,
    minimum: Optional[int] = None,
    maximum: Optional[int] = None,
    what: str = "a whole number",
    text: bool = False,
) -> int:
    """``value`` (an integer, never 2.5 or True) as an int in [minimum, maximum]; its
    text (``"3"``) only with ``text`` (the command line's options)."""
    _refuse_text(value, name, what, text)
    try:
        number = as_int(value)
    except (TypeError, ValueError, OverflowError):
        raise refused(name, f"expected {what}; got {value!r}") from None
    if (minimum is not None and number < minimum) or (maximum is not None and number > maximum):
        raise refused(name, f"expected {what} {_int_range(minimum, maximum)}; got {number}")
    return number


def real(
    value: Any,
    name: Optional[str] = None,
    minimum: Optional[float] = None,
    maximum: Optional[float] = None,
    min_open: bool = False,
    max_open: bool = False,
    what: str = "a number",
    text: bool = False,
) -> float:
    """``value`` as a finite float in a range whose ends may be open (excluded); its text
    (``"0.05"``) only with ``text`` (the command line's options)."""
    _refuse_text(value, name, what, text)
    try:
        if isinstance(value, bool):
            raise TypeError(value)
        number = float(value)
    except (TypeError, ValueError):
        raise refused(name, f"expected {what}; got {value!r}") from None
    if not in_interval(number, minimum, maximum, min_open, max_open):
        span = interval(minimum, maximum, min_open, max_open, lambda v: f"{v:g}")
        raise refused(name, f"expected {what} in {span}; got {value}")
    return number


def _refuse_text(value: Any, name: Optional[str], what: str, text: bool) -> None:
    """A number's text is refused from Python, as numpy and scipy refuse it: ``"0.05"``
    there is a mistake (a value read from a file and not converted), not a choice. On the
    command line, text that is no plain number (:func:`plain_number_text`) is refused."""
    if isinstance(value, (str, bytes)) and not text:
        raise refused(name, f"expected {what}, not text; got {value!r}")
    if isinstance(value, str) and not plain_number_text(value):
        raise refused(name, f"expected {what} in ASCII digits, without '_'; got {value!r}")


def plain_number_text(text: str) -> bool:
    """False for text ``float()`` and ``int()`` read that no file or option of irgauge's
    means: ``0_5`` (digit grouping: 5.0 to ``float()``, where 0.5 was meant), digits or
    spaces beyond ASCII (full-width ``０.５``, a no-break space). The caller still parses
    the text, which rejects the rest."""
    return text.isascii() and "_" not in text


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


def draws(value: Any, name: Optional[str], text: bool = False) -> int:
    """A number of random draws: bootstrap samples, trials, halvings, permutations."""
    return whole(value, name, 1, MAX_DRAWS, what="a number of random draws", text=text)


def count(value: Any, name: Optional[str], text: bool = False) -> int:
    return whole(value, name, 1, MAX_COUNT, text=text)


def depth(value: Any, name: Optional[str] = "depth", text: bool = False) -> int:
    """A pool depth: a whole number in [1, MAX_COUNT], the API's as the command line's."""
    return whole(value, name, 1, MAX_COUNT, what="a depth", text=text)


def jobs(value: Any, name: Optional[str] = "jobs", text: bool = False) -> int:
    """Threads or workers to use: a whole number in [1, MAX_JOBS]."""
    return whole(value, name, 1, MAX_JOBS, what="a number of threads", text=text)


def seed(value: Any, name: Optional[str] = "seed", text: bool = False) -> int:
    return whole(value, name, 0, SEED_MAX, what="a seed", text=text)


def resolve_seed(value: Optional[int], name: str = "seed") -> int:
    """The seed to use and to record: ``value`` itself, or a fresh random one (32 bits, so
    that it is easy to copy from an output) when None."""
    if value is None:
        # os.urandom, as secrets does, without secrets' imports (random, hmac, hashlib)
        return int.from_bytes(os.urandom(4), "little")
    return seed(value, name)


def alpha(value: Any, name: Optional[str] = "alpha", text: bool = False) -> float:
    return real(value, name, 0.0, 1.0, True, True, what="a significance level", text=text)


def fraction(value: Any, name: Optional[str], text: bool = False) -> float:
    return real(value, name, 0.0, 1.0, min_open=True, what="a fraction", text=text)


def probability(value: Any, name: Optional[str], text: bool = False) -> float:
    return real(value, name, 0.0, 1.0, what="a probability", text=text)


def confidence(value: Any, name: Optional[str] = "confidence", text: bool = False) -> float:
    return real(value, name, 0.0, 1.0, True, True, what="a confidence level", text=text)


def sequence(
    value: Any,
    name: str,
    check: Callable[[Any, str], Any],
    one_value: bool = True,
    what: str = "a sequence of numbers",
) -> list:
    """Each element of ``value`` (a list, tuple, numpy array or other iterable) through
    ``check(element, name)``. A bare number is a one-element sequence when ``one_value``
    (as the command line's ``--alphas 0.05`` is), refused otherwise; text and mappings are
    refused, not iterated (``"0.05"`` would be four characters, a dict its keys)."""
    if isinstance(value, (str, bytes)) or hasattr(value, "keys"):
        raise InputError(f"{name}: expected {what}; got {value!r}")
    try:
        items = list(value)
    except TypeError:  # a bare number (a numpy 0-d array too), or no sequence at all
        if one_value and (isinstance(value, Real) or getattr(value, "ndim", None) == 0):
            return [check(value, name)]
        raise InputError(f"{name}: expected {what}; got {value!r}") from None
    return [check(item, name) for item in items]


def items(text: Any, name: Optional[str], what: str = "values", spaces: bool = True) -> list:
    """The items of a comma-separated list (``"5,10"``, ``"5, 10"``; with ``spaces``,
    ``"5 10"`` too), stripped: every list option and list string reads its text here.

    An empty list and an empty item (``"5,,10"``, ``"5,"``, ``",5"``) are refused naming
    ``name``: the value left out between the commas is not guessed, and an empty text
    does not stand for the default (``--tests ''`` ran every test)."""
    parts = [part.strip() for part in str(text).split(",")]
    if parts == [""]:
        raise refused(name, f"no {what} given; got {text!r}")
    if "" in parts:
        raise refused(name, f"an empty item in {text!r}: a value between two commas is missing")
    return [word for part in parts for word in part.split()] if spaces else parts


def choice(value: Any, name: str, choices: Iterable[str]) -> str:
    """``value`` if it is one of ``choices``; else an InputError listing them."""
    choices = tuple(choices)
    if not isinstance(value, str) or value not in choices:
        raise InputError(f"{name}: unknown value {value!r}; choose from {', '.join(choices)}")
    return value


def labels(
    value: Any,
    name: str,
    length: Optional[int] = None,
    per: str = "row",
    source: Optional[str] = None,
) -> list:
    """Names of a matrix's rows or columns (systems, topics) as a list of str: a sequence
    (not one string, which would become its characters) of distinct, non-empty str or
    integer ids, ``length`` long when given."""
    if isinstance(value, (str, bytes)) or hasattr(value, "keys"):
        raise InputError(f"{name}: expected a sequence of names; got {value!r}", source)
    try:
        items = list(value)
    except TypeError:
        raise InputError(f"{name}: expected a sequence of names; got {value!r}", source) from None
    if length is not None and len(items) != length:
        raise InputError(
            f"{name}: expected {length} names, one per {per}; got {len(items)}", source
        )
    names = [_label(item, name, source) for item in items]
    seen: set = set()
    for label in names:
        if label in seen:
            raise InputError(f"{name}: duplicate name {label!r}; names must be distinct", source)
        seen.add(label)
    return names


def _label(item: Any, name: str, source: Optional[str]) -> str:
    if isinstance(item, bool) or not isinstance(item, (str, Integral)):
        raise InputError(f"{name}: a name must be text or an integer id; got {item!r}", source)
    label = str(int(item)) if isinstance(item, Integral) else item
    if not label:
        raise InputError(f"{name}: empty name", source)
    return label


SIZE_UNITS = {"": 1, "K": 1 << 10, "M": 1 << 20, "G": 1 << 30, "T": 1 << 40}
_SIZE = re.compile(r"\s*(\d+(?:\.\d*)?|\.\d+)\s*([KMGT]?)(?:I?B)?\s*", re.IGNORECASE | re.ASCII)


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


def real_array(
    values: Any,
    name: str,
    shape: str = "an array",
    source: Optional[str] = None,
    copy: bool = False,
):
    """``values`` as a float64 numpy array: ``values`` itself when it is one already,
    unless ``copy`` (an owner's array, which the caller's later changes must not reach).
    Strings, bytes, complex numbers and ragged rows are refused rather than cast (numpy
    would parse ``"0.5"``, drop an imaginary part with a warning, or fail with its own
    words)."""
    import numpy as np  # not at the top: the command line's option checks need no numpy

    try:
        raw = np.asarray(values)
        kind = raw.dtype.kind
        if kind in "cUS":  # complex, text, bytes
            raise TypeError(kind)
        if kind == "O" and any(isinstance(v, (str, bytes, complex)) for v in raw.ravel()):
            raise TypeError(kind)
        array = raw.astype(np.float64, copy=copy)
    except (TypeError, ValueError):
        raise InputError(
            f"{name}: expected {shape} of real numbers (not strings, complex numbers or rows "
            f"of different lengths); got {type(values).__name__}",
            source,
        ) from None
    return array


Fn = TypeVar("Fn", bound=Callable[..., Any])


def renamed_keywords(**new_names: str) -> Callable[[Fn], Fn]:
    """A public function whose keywords ``old`` were renamed ``new_names[old]``, as their
    options were (``cli.option_spellings.add_renamed``) or to name a concept as its sibling
    functions do: ``old=`` still works for a release, so that scripts still run, with a
    FutureWarning naming the keyword to use; both at once are refused."""

    def rename(function: Fn) -> Fn:
        @functools.wraps(function)
        def renamed(*args: Any, **kwargs: Any) -> Any:
            for old, new in new_names.items():
                if old not in kwargs:
                    continue
                if new in kwargs:
                    raise InputError(
                        f"{old}: the old name of {new}; give {new} only", parameter=old
                    )
                warnings.warn(
                    f"{function.__name__}({old}=...) is the old name of {new}, deprecated; "
                    f"write {new}=",
                    FutureWarning,
                    stacklevel=2,
                )
                kwargs[new] = kwargs.pop(old)
            return function(*args, **kwargs)

        return cast(Fn, renamed)

    return rename
