"""The studies' figures, drawn from the same tables as their summaries: means over the
repetitions with the 95% interval of the mean (``<column>_ci``, as the tables' SE gives it;
:func:`style.band`), clipped to the statistic's range. The
swap-rate and stability figures are :mod:`irgauge.report.figures`' own.

Each function takes a table, draws one figure and saves it through :func:`style.save`
(PDF, SVG, PNG); it returns the paths written.
"""

from __future__ import annotations

from typing import List, Optional, Tuple

import numpy as np

from irgauge.report import style


def _sd(part, column: str):
    """Half-width of the band: ``<column>_ci`` (a 95% interval) or ``<column>_sd``."""
    sd = part.get(f"{column}_ci", part.get(f"{column}_sd"))
    return np.zeros(len(part)) if sd is None else np.nan_to_num(sd.to_numpy(dtype=float))


def curves(
    table,
    directory,
    stem: str,
    x: str,
    y: str,
    xlabel: str,
    ylabel: str,
    reverse_x: bool = False,
    hline: Optional[float] = None,
    title: Optional[str] = None,
    bars: bool = False,
    group: str = "measure",
    limits: Tuple[float, float] = (-np.inf, np.inf),
    hline_label: Optional[str] = None,
    band: Optional[str] = None,
) -> List[str]:
    """``y`` against ``x`` (one series per ``group`` value) with a band of ± ``y_ci`` (or
    ``y_sd``) clipped to the statistic's range ``limits``; ``hline`` is a reference line
    labelled ``hline_label``; ``band`` says what the band is, as the legend's title."""
    fig, ax = style.new_figure(title=title)
    for index, (name, part) in enumerate(table.groupby(group, sort=False)):
        part = part.sort_values(x)
        mean = part[y].to_numpy(dtype=float)
        sd = _sd(part, y)
        style.band(
            ax,
            part[x].to_numpy(dtype=float),
            mean,
            np.clip(mean - sd, *limits),
            np.clip(mean + sd, *limits),
            index,
            str(name),
            bars=bars,
        )
    if hline is not None:
        ax.axhline(hline, color="grey", lw=0.8, ls=":", label=hline_label)
    if reverse_x:
        ax.invert_xaxis()
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    style.legend_outside(ax, band)
    return style.save(fig, directory, stem)


def heatmap(
    square, directory, stem: str, label: str, title: Optional[str] = None, digits: int = 2
) -> List[str]:
    """A measures x measures table as a heat map; the colour bar is labelled ``label``."""
    n = len(square)
    fig, ax = style.new_figure(1.6 + 0.65 * n, 1.2 + 0.6 * n, title=title)
    style.heatmap(
        ax,
        square.to_numpy(dtype=float),
        list(square.index),
        list(square.columns),
        label,
        digits=digits,
    )
    return style.save(fig, directory, stem)


def bars(
    frame, directory, stem: str, x: str, y: str, ylabel: str, title: Optional[str] = None
) -> List[str]:
    """One bar per row of ``frame`` (e.g. the mean reciprocal rank of each run)."""
    fig, ax = style.new_figure(max(4.0, 0.3 * len(frame) + 1.5), 3.5, title=title)
    ax.bar(range(len(frame)), frame[y].to_numpy(dtype=float), color=style.PALETTE[0])
    ax.set_xticks(range(len(frame)))
    ax.set_xticklabels(frame[x].astype(str), rotation=90, fontsize=6)
    ax.set_ylabel(ylabel)
    return style.save(fig, directory, stem)
