"""The library's side of progress: the steps of a long computation, counted to an optional
``progress(done, total)`` callback. The library never draws; the command line's bars are
:mod:`irgauge.cli._bars`."""

from __future__ import annotations

from typing import Callable, Optional


def step_counter(progress: Optional[Callable[[int, int], None]], total: int):
    """``step(k=1)``: advance the callback ``progress(done, total)`` by k of ``total`` steps
    (it is drawn at 0 at once; nothing happens when ``progress`` is None)."""
    done = [0]
    if progress is not None:
        progress(0, total)

    def step(k: int = 1) -> None:
        if progress is not None and k:
            done[0] += int(k)
            progress(done[0], total)

    return step
