"""Figures the meta-evaluation module does not draw: one curve per measure against a
study's condition (e.g. the reduction rate of seed 002). Saved as PNG and SVG like
:mod:`irgauge.report.figures`."""
from __future__ import annotations

from typing import List

from irgauge.report.figures import _pyplot, _save


def condition_curves(table, directory, stem: str, x: str, y: str, xlabel: str, ylabel: str,
                     reverse_x: bool = True, hline=None) -> List[str]:
    """``y`` against ``x``, one curve per ``measure`` (names ending in ' dashed)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6.5, 4.2))
    for measure, part in table.groupby("measure", sort=False):
        part = part.sort_values(x)
        style = "--" if str(measure).endswith("'") else "-"
        ax.plot(part[x], part[y], marker="o", ms=3, ls=style, label=measure)
    if hline is not None:
        ax.axhline(hline, color="grey", lw=0.8, ls=":")
    if reverse_x:
        ax.invert_xaxis()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    ax.legend(fontsize=7, ncol=2)
    return _save(fig, directory, stem)
