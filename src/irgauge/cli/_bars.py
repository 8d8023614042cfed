"""Progress bars of the command line: on stderr, on a terminal only, and only for a step
that lasts.

The library reports progress to an optional ``progress(done, total)`` callback
(:mod:`irgauge.io.steps`) and never draws; :func:`bar` makes such a callback. Its bar
appears once the step has run for :func:`show_after` seconds, so that a quick command
prints nothing, and tqdm is imported only then: measured with ``python -X importtime``,
``import tqdm`` costs 0.1-0.2 s (its version lookup reads the installed distributions'
metadata), about as much again as the whole start-up of ``irgauge discpower``, a price
only a step that already takes seconds should pay.
"""

from __future__ import annotations

import os
import sys
import time
from typing import Any, Callable, Optional

SHOW_AFTER = 2.0  # seconds a step runs before its bar appears
DELAY_VARIABLE = "IRGAUGE_PROGRESS_AFTER"  # another delay in seconds (0: at once)


def show_after() -> float:
    """The delay before a bar appears: $IRGAUGE_PROGRESS_AFTER, else SHOW_AFTER."""
    try:
        value = float(os.environ.get(DELAY_VARIABLE, SHOW_AFTER))
    except ValueError:
        return SHOW_AFTER
    return value if value >= 0 else SHOW_AFTER


def bar(label: str, quiet: bool = False) -> Optional[Callable[[int, int], None]]:
    """A ``(done, total)`` callback drawing a bar labelled ``label`` on stderr, or None
    with ``quiet`` or when stderr is not a terminal (logs and pipes stay clean)."""
    if quiet or not sys.stderr.isatty():
        return None
    return _Bar(label, show_after())


def bars(prefix: str, quiet: bool = False) -> Optional[Callable[[str], object]]:
    """A ``label -> callback`` factory (the studies' ``progress``), or None as :func:`bar`."""
    if quiet or not sys.stderr.isatty():
        return None
    return lambda label: bar(f"{prefix}{label}")


class _Bar:
    """Draws with tqdm once the step has lasted ``delay`` seconds; closes at done == total."""

    def __init__(self, label: str, delay: float):
        self.label, self.delay = label, delay
        # the step starts now: some computations report only as each block of work ends
        self.start = time.monotonic()
        self.tqdm: Any = None  # a tqdm bar, once drawn
        self.closed = False

    def __call__(self, done: int, total: int) -> None:
        now = time.monotonic()
        if self.closed or (self.tqdm is None and not self._due(done, total, now)):
            return
        if self.tqdm is None:
            self.tqdm = self._open(done, total, now - self.start)
        self.tqdm.total = total
        self.tqdm.update(done - self.tqdm.n)
        if done >= total:
            self.tqdm.close()
            self.closed = True

    def _due(self, done: int, total: int, now: float) -> bool:
        if done >= total:  # over before its bar was drawn: it never will be
            self.closed = True
            return False
        return now - self.start >= self.delay

    def _open(self, done: int, total: int, elapsed: float):
        from tqdm import tqdm

        try:  # a terminal that reports no width (a bare pty) would get an empty bar
            wide = os.get_terminal_size(sys.stderr.fileno()).columns > 0
        except (OSError, ValueError):
            wide = False
        shown = tqdm(
            total=total,
            initial=done,
            desc=self.label,
            file=sys.stderr,
            leave=False,
            dynamic_ncols=wide,
            ncols=None if wide else 80,
        )
        # the bar's clock starts with the step, not with the bar (rates and ETA stay right)
        shown.start_t -= elapsed
        shown.refresh()
        return shown
