"""Argument types shared by every command: numbers checked at the boundary, and measure
lists split only outside parentheses.

Each type is a callable for ``add_argument(type=...)``; argparse turns its
``ArgumentTypeError`` into ``irgauge COMMAND: error: argument -B: ...`` and exit 2.
"""
from __future__ import annotations

import argparse
import math
from typing import Callable, Iterable, List, Optional

SEED_MAX = 2**63 - 1


def integer(minimum: Optional[int] = None, maximum: Optional[int] = None,
            what: str = "a whole number") -> Callable[[str], int]:
    """An ``int`` in ``[minimum, maximum]`` (either bound may be open)."""

    def parse(text: str) -> int:
        try:
            value = int(text, 10)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"expected {what}; got {text!r}") from None
        if (minimum is not None and value < minimum) or (maximum is not None and value > maximum):
            raise argparse.ArgumentTypeError(f"expected {what} {_range(minimum, maximum)}; "
                                             f"got {value}")
        return value

    parse.__name__ = "integer"
    return parse


def number(minimum: Optional[float] = None, maximum: Optional[float] = None,
           min_open: bool = False, max_open: bool = False,
           what: str = "a number") -> Callable[[str], float]:
    """A finite ``float`` in a range whose ends may be open (excluded)."""

    def parse(text: str) -> float:
        try:
            value = float(text)
        except (TypeError, ValueError):
            raise argparse.ArgumentTypeError(f"expected {what}; got {text!r}") from None
        low_bad = minimum is not None and (value <= minimum if min_open else value < minimum)
        high_bad = maximum is not None and (value >= maximum if max_open else value > maximum)
        if not math.isfinite(value) or low_bad or high_bad:
            lo = "" if minimum is None else f"{'(' if min_open else '['}{minimum:g}"
            hi = "" if maximum is None else f"{maximum:g}{')' if max_open else ']'}"
            span = f"in {lo or '(-inf'}, {hi or 'inf)'}"
            raise argparse.ArgumentTypeError(f"expected {what} {span}; got {text}")
        return value

    parse.__name__ = "number"
    return parse


def _range(minimum, maximum) -> str:
    if minimum is not None and maximum is not None:
        return f"from {minimum} to {maximum}"
    if minimum is not None:
        return f">= {minimum}"
    return f"<= {maximum}"


positive_int = integer(1, what="a whole number")
nonnegative_int = integer(0, what="a whole number")
seed = integer(0, SEED_MAX, what="a seed")
alpha = number(0.0, 1.0, min_open=True, max_open=True, what="a significance level")
fraction = number(0.0, 1.0, min_open=True, what="a fraction")


def split_measures(items: Optional[Iterable[str]]) -> Optional[List[str]]:
    """Measure names from repeated ``-m`` values, each a comma- or space-separated list.

    Separators inside parentheses belong to parameters, so ``nDCG(dcg=jk,b=2)@1000,AP``
    is two measures (and NTCIREVAL's ``NCUrb,P`` one). Every command reads ``-m`` through
    this function. Unbalanced parentheses are left for the measure parser to report.
    """
    if items is None:
        return None
    from irgauge.measures.parse import split_list

    return split_list(items)


def add_no_header(parser) -> None:
    """``--no-header``: TSV and table output without the ``# key: value`` metadata lines."""
    parser.add_argument("--no-header", action="store_true",
                        help="leave out the '# key: value' metadata lines of tsv/table output "
                             "(for tools that cannot skip comment lines; pandas can: "
                             "read_csv(..., sep='\\t', comment='#'))")


def without_header(text: str, args) -> str:
    """``text`` without its leading ``#`` lines when ``--no-header`` was given."""
    if not getattr(args, "no_header", False) or getattr(args, "format", "") == "json":
        return text
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "".join(lines[first:])
