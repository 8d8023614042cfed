"""Command-line interface: a thin layer over the Python API.

Each sub-command lives in a module ``cmd_<name>.py`` of this package that defines
``register(subparsers)``; the module adds its parser and sets ``func`` to the
function that runs it. Modules import the API they call inside that function: ``irgauge
--help`` registers every command, and with the imports at module top it would load pandas,
scipy and matplotlib for it (measured: 0.08 s wall and 20 MB with the imports inside
``run``, 1.8-2.3 s and 204 MB with every command's API loaded).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import pkgutil
import sys
from typing import List, Optional

from irgauge import __version__
from irgauge.cli._process import apply_process_settings
from irgauge.errors import InputError, MeasureError, OutputError

EXIT_WRITE_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it
DEBUG_VARIABLE = "IRGAUGE_DEBUG"


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default only when there is one to show (not None or False) and its
    help does not already say it. A flag (an option without a value, such as
    ``store_false``) has no default to show: its default is the state it turns off."""

    def _get_help_string(self, action):
        flag = action.nargs == 0
        if flag or action.default in (None, False) or "default" in (action.help or ""):
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
    for name in [wanted] if wanted in names else names:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def main(argv: Optional[List[str]] = None) -> int:
    """Run one command. Bad input exits 2, a failed write 1, Ctrl-C 130, each with one
    line on stderr; ``IRGAUGE_DEBUG=1`` re-raises instead, for a traceback in bug reports."""
    debug = os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")
    try:
        if argv is None:
            argv = sys.argv[1:]
        parser = build_parser(argv)
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_BAD_INPUT
        return int(args.func(args) or 0)
    except (InputError, MeasureError) as err:
        if debug:
            raise
        print(f"irgauge: error: {err}", file=sys.stderr)
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # stdout closed early (``| head``): not an error; silence the flush at exit too
        with contextlib.suppress(OSError):
            sys.stdout = open(os.devnull, "w")
        return 0
    except OutputError as err:
        if debug:
            raise
        print(f"irgauge: error: {err}", file=sys.stderr)
        return EXIT_WRITE_FAILED
    except KeyboardInterrupt:
        if debug:
            raise
        print("irgauge: interrupted", file=sys.stderr)
        return EXIT_INTERRUPTED


def console_main() -> int:
    """The ``irgauge`` console script: the process is irgauge's own, so its settings
    (numpy's BLAS threads and huge pages, glibc's heap) are made first, before any command
    module loads numpy; then :func:`main`."""
    apply_process_settings()
    return main()


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console_main())
