"""Argument types shared by every command: numbers checked at the boundary, and measure
lists split only outside parentheses.

Each type is a callable for ``add_argument(type=...)``; argparse turns its
``ArgumentTypeError`` into ``irgauge COMMAND: error: argument -B: ...`` and exit 2.
"""
from __future__ import annotations

import argparse
from typing import Any, Callable, Iterable, List, Optional

from irgauge import _checks
from irgauge._checks import MAX_COUNT, MAX_DRAWS, SEED_MAX  # noqa: F401  (re-exported)
from irgauge.errors import InputError


def _argparse_type(check: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """An argparse type from a check of ``_checks``: the same words as the API's error."""

    def parse(text: str):
        try:
            return check(text)
        except InputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = name
    return parse


def integer(minimum: Optional[int] = None, maximum: Optional[int] = None,
            what: str = "a whole number") -> Callable[[str], int]:
    """An ``int`` in ``[minimum, maximum]`` (either bound may be open)."""
    return _argparse_type(lambda text: _checks.whole(text, None, minimum, maximum, what),
                          "integer")


def number(minimum: Optional[float] = None, maximum: Optional[float] = None,
           min_open: bool = False, max_open: bool = False,
           what: str = "a number") -> Callable[[str], float]:
    """A finite ``float`` in a range whose ends may be open (excluded)."""
    return _argparse_type(lambda text: _checks.real(text, None, minimum, maximum, min_open,
                                                    max_open, what), "number")


positive_int = integer(1, what="a whole number")
nonnegative_int = integer(0, what="a whole number")
count = integer(1, MAX_COUNT, what="a whole number")
draws = _argparse_type(lambda text: _checks.draws(text, None), "draws")
seed = _argparse_type(lambda text: _checks.seed(text, None), "seed")
alpha = _argparse_type(lambda text: _checks.alpha(text, None), "alpha")
fraction = _argparse_type(lambda text: _checks.fraction(text, None), "fraction")
probability = _argparse_type(lambda text: _checks.probability(text, None), "probability")
confidence = _argparse_type(lambda text: _checks.confidence(text, None), "confidence")
digits = integer(0, 15, what="a number of decimals")
rel_level = integer(1, MAX_COUNT, what="a relevance level")
nonnegative = number(0.0, 1e6, what="a non-negative number")


def split_measures(items: Optional[Iterable[str]]) -> Optional[List[str]]:
    """Measure names from repeated ``-m`` values, each a comma- or space-separated list.

    Separators inside parentheses belong to parameters, so ``nDCG(dcg=jk,b=2)@1000,AP``
    is two measures. Unbalanced parentheses are left for the measure parser to report.
    """
    if items is None:
        return None
    names: List[str] = []
    for item in items:
        depth, start = 0, 0
        for i, char in enumerate(item):
            if char == "(":
                depth += 1
            elif char == ")":
                depth = max(depth - 1, 0)
            elif depth == 0 and (char == "," or char.isspace()):
                if item[start:i].strip():
                    names.append(item[start:i].strip())
                start = i + 1
        if item[start:].strip():
            names.append(item[start:].strip())
    return names
