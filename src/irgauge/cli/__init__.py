"""Command-line interface: a thin layer over the Python API.

Each sub-command lives in a module ``cmd_<name>.py`` of this package that defines
``register(subparsers)``; the module adds its parser and sets ``func`` to the
function that runs it. Modules import heavy dependencies inside that function so
that ``irgauge --help`` and ``irgauge eval`` start fast.
"""
from __future__ import annotations

import argparse
import importlib
import pkgutil
import sys
from typing import List, Optional

from irgauge import __version__
from irgauge.errors import InputError, MeasureError

EXIT_BAD_INPUT = 2


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default only when there is one to show (not None or False) and its
    help does not already say it."""

    def _get_help_string(self, action):
        if action.default in (None, False) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


def build_parser(argv: Optional[List[str]] = None) -> argparse.ArgumentParser:
    """The parser; when ``argv`` names a command, only that command's module is imported
    (start-up stays short), otherwise every command is registered for the help."""
    parser = argparse.ArgumentParser(
        prog="irgauge",
        description="Evaluate retrieval runs and the evaluation metrics themselves.",
    )
    parser.add_argument("--version", action="version", version=f"irgauge {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("cmd_"))
    wanted = f"cmd_{argv[0]}" if argv and not argv[0].startswith("-") else None
    for name in ([wanted] if wanted in names else names):
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    try:
        return int(args.func(args) or 0)
    except (InputError, MeasureError) as err:
        print(f"irgauge: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        return 0


if __name__ == "__main__":  # pragma: no cover
    sys.exit(main())
