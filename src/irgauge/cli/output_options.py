"""The options of what a command prints or writes: ``--format``, ``--digits`` (refused
with a format that keeps full precision), ``-o/--output``, ``--out DIR`` and
``--no-header``, and the terminal width a table is printed in."""

from __future__ import annotations


import argparse
from typing import Any, Callable, Optional, Sequence

from irgauge.cli._options import digits
from irgauge.cli.option_spellings import stated
from irgauge.errors import InputError

FULL_PRECISION = ("tsv", "json")  # formats that keep every digit: --digits is refused
DEFAULT_DIGITS = 4


def terminal_width(widest: int) -> int:
    """The columns to print in: the terminal's (``COLUMNS``, else standard output's
    terminal; ``widest`` in a pipe or a file), at most ``widest`` and at least 40."""
    import shutil

    return max(40, min(widest, shutil.get_terminal_size((widest, 24)).columns))


def add_no_header(parser: Any) -> None:
    """``--no-header``: TSV and table output without the ``# key: value`` metadata lines."""
    parser.add_argument(
        "--no-header",
        action="store_true",
        help="leave out the '# key: value' metadata lines of tsv/table output "
        "(for tools that cannot skip comment lines; pandas can: "
        "read_csv(..., sep='\\t', comment='#'))",
    )


def shown_digits(args: argparse.Namespace) -> int:
    """The decimals of ``--digits``; refused with a format that keeps full precision, where
    it would do nothing."""
    if args.digits is None:
        return DEFAULT_DIGITS
    if args.format in FULL_PRECISION:
        raise InputError(
            f"--digits {args.digits}: --format {args.format} keeps full precision; "
            "--digits is for the other formats"
        )
    given: int = args.digits
    return given


def without_header(text: str, args: argparse.Namespace) -> str:
    """``text`` without its leading ``#`` lines when ``--no-header`` was given."""
    if not getattr(args, "no_header", False) or getattr(args, "format", "") == "json":
        return text
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "".join(lines[first:])


def add_text_output(
    parser: Any, formats: Sequence[str], format_detail: str = "", digits_detail: str = ""
) -> None:
    """``--format`` (the first of ``formats`` by default), ``--digits`` (read it with
    :func:`shown_digits`), ``-o/--output`` and ``--no-header``."""
    add_format(parser, formats, format_detail)
    add_digits(parser, digits_detail)
    add_output(parser)
    add_no_header(parser)


def add_format(parser: Any, formats: Sequence[str], detail: str = "") -> None:
    """``--format``, the first of ``formats`` by default; ``detail``: what they hold."""
    action = parser.add_argument(
        "--format", choices=formats, default=formats[0], help=f"output format{detail}"
    )
    if detail:
        stated(action, detail=detail)


def add_digits(
    parser: Any,
    detail: str = "",
    default: Optional[int] = None,
    type: Callable[[str], Any] = digits,
) -> None:
    """``--digits``; ``default`` None reads as ``DEFAULT_DIGITS`` (:func:`shown_digits`)."""
    words = str(DEFAULT_DIGITS if default is None else default)
    action = parser.add_argument(
        "--digits", type=type, default=default, help=f"decimals shown{detail} (default: {words})"
    )
    stated(action, default=words, **({"detail": detail} if detail else {}))


def add_output(parser: Any, what: str = "the output", default: str = "stdout") -> None:
    """``-o/--output FILE``: the file ``what`` goes to, ``default`` without it."""
    action = parser.add_argument(
        "-o", "--output", metavar="FILE", help=f"write {what} to FILE (default: {default})"
    )
    stated(action, default=default, what=what)


def add_out(
    parser: Any,
    default: Optional[str] = None,
    required: bool = True,
    detail: str = "",
    default_words: str = "",
) -> None:
    """``--out DIR``: the folder a command writes its files into; ``detail``: what it
    writes there, ``default_words``: what happens without it (when not ``required``)."""
    words = "required" if required else f"default: {default_words or default}"
    action = parser.add_argument(
        "--out",
        default=default,
        required=required,
        metavar="DIR",
        help=f"output folder{detail} ({words})",
    )
    stated(action, default=words, **({"detail": detail} if detail else {}))
