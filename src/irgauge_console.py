"""irgauge's console scripts, ``irgauge`` and ``irgauge-trec_eval``: the first of irgauge's
code that they run. It lies outside the package so that nothing runs before it: Python
runs a package's ``__init__`` before any of its modules.

Ctrl-C before irgauge's stop handlers are in place (while Python imports the command line,
numpy, ...) would raise KeyboardInterrupt there and print Python's traceback. So the first
statement here holds SIGINT back (:class:`EarlyStops`). The command line's handlers, once
installed (:func:`irgauge.cli.install_signal_handlers`), pass a SIGINT held on to
:mod:`irgauge.io.stops`, and the command stops before it starts, as one stopped at any
later point: exit 130, ``irgauge: interrupted``. Only the console scripts, and the
package's ``__init__`` for ``python -m irgauge`` alone, import this module: importing it
changes the process's SIGINT handler, which a library must not do.
"""

# built in, so held back before anything loads (the signal module loads enum); no stub
import _signal  # type: ignore[import-not-found]


class EarlyStops:
    """A SIGINT handler that raises nothing and keeps each signal that came in ``came``,
    for the command line's handlers to take over."""

    def __init__(self) -> None:
        self.came: "list[int]" = []

    def __call__(self, signum: int, frame: object) -> None:
        self.came.append(signum)


# ignored (nohup, a background job of a shell script), SIGINT stays ignored
if _signal.getsignal(_signal.SIGINT) != _signal.SIG_IGN:
    _signal.signal(_signal.SIGINT, EarlyStops())


def irgauge() -> int:
    """The ``irgauge`` console script (:func:`irgauge.cli.console_main`)."""
    from irgauge.cli import console_main

    return console_main()


def trec_eval() -> int:
    """The ``irgauge-trec_eval`` console script
    (:func:`irgauge.cli.cmd_trec_eval.console_main`)."""
    from irgauge.cli.cmd_trec_eval import console_main

    return console_main()
