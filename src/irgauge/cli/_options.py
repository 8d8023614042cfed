"""Argument types shared by every command: numbers checked at the boundary, and measure
lists split only outside parentheses.

Each type is a callable for ``add_argument(type=...)``; argparse turns its
``ArgumentTypeError`` into ``irgauge COMMAND: error: argument -B: ...`` and exit 2.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Iterable, List, Optional

from irgauge import _checks
from irgauge._checks import MAX_COUNT, MAX_DRAWS, MAX_LEVEL, SEED_MAX  # noqa: F401  (re-exported)
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


def integer(
    minimum: Optional[int] = None, maximum: Optional[int] = None, what: str = "a whole number"
) -> Callable[[str], int]:
    """An ``int`` in ``[minimum, maximum]`` (either bound may be open)."""
    return _argparse_type(lambda text: _checks.whole(text, None, minimum, maximum, what), "integer")


def number(
    minimum: Optional[float] = None,
    maximum: Optional[float] = None,
    min_open: bool = False,
    max_open: bool = False,
    what: str = "a number",
) -> Callable[[str], float]:
    """A finite ``float`` in a range whose ends may be open (excluded)."""
    return _argparse_type(
        lambda text: _checks.real(text, None, minimum, maximum, min_open, max_open, what), "number"
    )


def list_of(item: Callable[[str], Any]) -> Callable[[str], list]:
    """An argparse type for ``"a,b,c"`` (commas or spaces), each value checked by ``item``
    (another type of this module, so every value is bounded)."""

    def parse(text: str) -> list:
        parts = [t for t in text.replace(" ", ",").split(",") if t]
        if not parts:
            raise argparse.ArgumentTypeError(f"expected a comma-separated list; got {text!r}")
        return [item(t) for t in parts]

    parse.__name__ = "list"
    return parse


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
rel_level = integer(1, MAX_LEVEL, what="a relevance level")
nonnegative = number(0.0, 1e6, what="a non-negative number")


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
    parser.add_argument(
        "--no-header",
        action="store_true",
        help="leave out the '# key: value' metadata lines of tsv/table output "
        "(for tools that cannot skip comment lines; pandas can: "
        "read_csv(..., sep='\\t', comment='#'))",
    )


def without_header(text: str, args) -> str:
    """``text`` without its leading ``#`` lines when ``--no-header`` was given."""
    if not getattr(args, "no_header", False) or getattr(args, "format", "") == "json":
        return text
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "".join(lines[first:])
