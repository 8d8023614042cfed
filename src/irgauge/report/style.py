"""One style for every figure irgauge draws: print-ready and colour-blind safe.

- Okabe–Ito colours, each series also with its own marker and line style, so a figure
  reads in black and white;
- legends outside the axes; titles carry the collection and the parameters;
- sampled quantities drawn with error bars or bands (:func:`band`);
- heat maps scaled to their data, each cell labelled with its value (:func:`heatmap`);
- saved as PDF and SVG (vector) and PNG, each written atomically (:func:`save`).

matplotlib is imported on first use, so importing this module does not load it. A
library draws without touching its host's matplotlib: figures are
``matplotlib.figure.Figure`` objects (not pyplot's, so no backend is chosen or switched
and no window opens), and irgauge's style applies inside ``matplotlib.rc_context`` while
a figure is created, while this module's helpers draw and while it is saved; the caller's
``rcParams`` are never changed.
"""

from __future__ import annotations

import contextlib
import io
from pathlib import Path
from typing import Dict, List, Optional, Sequence

import numpy as np

from irgauge.io.atomic import make_folders, remove_folders, write_bytes

# Okabe & Ito (2008), "Color Universal Design": distinguishable under common colour-vision
# deficiencies; black last, for an 8th series.
PALETTE = ("#0072B2", "#D55E00", "#009E73", "#CC79A7", "#E69F00", "#56B4E9", "#F0E442", "#000000")
MARKERS = ("o", "s", "^", "D", "v", "P", "X", "*")
LINESTYLES = ("-", "--", "-.", ":")
FORMATS = ("pdf", "svg", "png")
PNG_DPI = 200

_RC = {
    "font.size": 9,
    "axes.titlesize": 9,
    "axes.labelsize": 9,
    "legend.fontsize": 8,
    "xtick.labelsize": 8,
    "ytick.labelsize": 8,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "grid.linewidth": 0.5,
    "lines.linewidth": 1.4,
    "lines.markersize": 4,
    "savefig.bbox": "tight",
    "pdf.fonttype": 42,  # TrueType in PDF, editable and accepted by publishers
    "svg.fonttype": "none",  # text stays text in SVG
    "svg.hashsalt": "irgauge",  # stable ids: the same figure gives the same bytes
}


def styled():
    """A context in which irgauge's style applies (matplotlib.rc_context: the caller's
    rcParams are back as they were on exit)."""
    import matplotlib

    return matplotlib.rc_context(_RC)


class _Figures:
    """What irgauge's figure code used of pyplot (``subplots``, ``close``), made of
    ``matplotlib.figure.Figure`` objects: no backend switch, no global figure list."""

    @staticmethod
    def subplots(nrows: int = 1, ncols: int = 1, figsize=None, **options):
        from matplotlib.figure import Figure

        with styled():
            fig = Figure(figsize=figsize)
            axes = fig.subplots(nrows, ncols, **options)
        return fig, axes

    @staticmethod
    def close(fig) -> None:
        """Nothing to release: the figure is not registered anywhere (kept for callers
        written against pyplot)."""


def pyplot() -> _Figures:
    """pyplot's ``subplots`` and ``close`` for irgauge's figures, without pyplot (see the
    module: the caller's backend and rcParams stay as they are)."""
    return _Figures()


def series_style(index: int) -> Dict[str, object]:
    """Colour, marker and line style of the ``index``-th series (cycling)."""
    return {
        "color": PALETTE[index % len(PALETTE)],
        "marker": MARKERS[index % len(MARKERS)],
        "linestyle": LINESTYLES[(index // len(PALETTE)) % len(LINESTYLES)],
        "linewidth": _RC["lines.linewidth"],
        "markersize": _RC["lines.markersize"],
    }


def new_figure(width: float = 6.0, height: float = 3.8, title: Optional[str] = None):
    """A figure and its axes; ``title`` names the collection and the parameters."""
    fig, ax = _Figures.subplots(figsize=(width, height))
    if title:
        with styled():
            ax.set_title(title, loc="left")
    return fig, ax


def legend_outside(ax, title: Optional[str] = None) -> None:
    """Legend to the right of the axes, never over the data."""
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        with styled():
            _legend(ax, handles, labels, title)


def _legend(ax, handles, labels, title) -> None:
    ax.legend(
        handles,
        labels,
        title=title,
        loc="upper left",
        bbox_to_anchor=(1.02, 1.0),
        borderaxespad=0.0,
        frameon=False,
    )


def band(ax, x, mean, low, high, index: int, label: str, bars: bool = False) -> None:
    """A series with its uncertainty: error bars (``bars``) or a shaded band between
    ``low`` and ``high``. Points are drawn even where a neighbour is missing."""
    with styled():
        _band(ax, x, mean, low, high, series_style(index), label, bars)


def _band(ax, x, mean, low, high, style, label: str, bars: bool) -> None:
    if bars:
        mean_arr = np.asarray(mean, dtype=float)
        yerr = np.vstack(
            [mean_arr - np.asarray(low, dtype=float), np.asarray(high, dtype=float) - mean_arr]
        )
        ax.errorbar(x, mean_arr, yerr=yerr, capsize=2, label=label, **style)
    else:
        ax.plot(x, mean, label=label, **style)
        ax.fill_between(x, low, high, color=style["color"], alpha=0.18, linewidth=0)


def heatmap(
    ax,
    values,
    row_labels: Sequence[str],
    col_labels: Sequence[str],
    colorbar_label: str,
    digits: int = 2,
    cmap: str = "viridis",
    diagonal: bool = True,
):
    """Heat map (see :func:`_heatmap`), drawn in irgauge's style."""
    with styled():
        return _heatmap(ax, values, row_labels, col_labels, colorbar_label, digits, cmap, diagonal)


def _heatmap(ax, values, row_labels, col_labels, colorbar_label, digits, cmap, diagonal):
    """Heat map whose colour scale spans the data (not a fixed -1..1), with each value
    written in its cell in a colour that stays legible. ``diagonal=False`` leaves a square
    table's diagonal (e.g. a measure's tau with itself, always 1) out of the colour scale
    and blank, so that it does not flatten the range that matters."""
    data = np.asarray(values, dtype=float)
    if not diagonal and data.shape[0] == data.shape[1]:
        data = data.copy()
        np.fill_diagonal(data, np.nan)
    finite = data[np.isfinite(data)]
    low, high = (float(finite.min()), float(finite.max())) if finite.size else (0.0, 1.0)
    if high - low < 1e-12:
        low, high = low - 0.5, high + 0.5
    image = ax.imshow(data, vmin=low, vmax=high, cmap=cmap, aspect="auto")
    ax.set_xticks(range(len(col_labels)))
    ax.set_xticklabels(col_labels, rotation=45, ha="right")
    ax.set_yticks(range(len(row_labels)))
    ax.set_yticklabels(row_labels)
    ax.grid(False)
    middle = (low + high) / 2
    for r in range(data.shape[0]):
        for c in range(data.shape[1]):
            value = data[r, c]
            if np.isfinite(value):
                ax.text(
                    c,
                    r,
                    f"{value:.{digits}f}",
                    ha="center",
                    va="center",
                    fontsize=7,
                    color="white" if value < middle else "black",
                )
    ax.figure.colorbar(image, ax=ax, label=colorbar_label)
    return image


def save(fig, directory, stem: str, formats: Sequence[str] = FORMATS) -> List[str]:
    """Write ``<stem>.pdf``, ``.svg`` and ``.png`` into ``directory`` (created if need be),
    each atomically; return the paths written. Every format is drawn before the folder is
    made, and folders made are removed again if writing fails."""
    directory = Path(directory)
    drawn = []
    with styled():
        crop = _tight_box(fig)
        for ext in formats:
            buffer = io.BytesIO()
            metadata = (
                {"CreationDate": None}
                if ext == "pdf"
                else ({"Date": None} if ext == "svg" else None)
            )
            fig.savefig(buffer, format=ext, dpi=PNG_DPI, metadata=metadata, bbox_inches=crop)
            drawn.append((directory / f"{stem}.{ext}", buffer.getvalue()))
    created = make_folders(directory)
    with contextlib.ExitStack() as undo:
        undo.callback(remove_folders, created)
        for path, data in drawn:
            write_bytes(path, data)
        undo.pop_all()
    return [str(path) for path, _ in drawn]


def _tight_box(fig):
    """The padded box that ``bbox_inches="tight"`` crops to, measured by one draw without
    output at the PNG's resolution. Saving with "tight" draws the figure twice per format
    (once to measure, once to write); one measurement for all formats saves a third of the
    drawing, the slowest part of writing a figure. The PNG is cropped exactly as "tight"
    would; the vector formats measure text a little differently, by a small fraction of
    the padding."""
    import matplotlib

    saved_dpi = fig.dpi
    fig.dpi = PNG_DPI
    try:
        fig.draw_without_rendering()
        box = fig.get_tightbbox()
    finally:
        fig.dpi = saved_dpi
    pad = matplotlib.rcParams["savefig.pad_inches"]
    return box.padded(pad, pad)


def describe(collection: Optional[str] = None, **parameters) -> str:
    """A figure title naming the collection and the parameters, e.g.
    ``"robust04.qrels: B = 1000, seed 3"`` (parameters that are None are left out)."""
    shown = ", ".join(
        f"{k} {v}" if k == "seed" else f"{k} = {v}" for k, v in parameters.items() if v is not None
    )
    if collection and shown:
        return f"{collection}: {shown}"
    return collection or shown


def wilson(successes, n, level: float = 0.95):
    """Wilson score interval (low, high) of proportions ``successes / n`` (arrays); nan
    where n = 0. Better behaved than the normal interval near 0 and 1. The bounds hold the
    proportion and stay in [0, 1] (rounding puts the lower bound of 0/n just above 0, which
    would make a negative error bar)."""
    from irgauge.stats.tails import z_critical  # (1 + level) / 2 rounds to 1 near 1

    k = np.asarray(successes, dtype=float)
    n = np.asarray(n, dtype=float)
    z = z_critical(1 - level)
    with np.errstate(divide="ignore", invalid="ignore"):
        p = k / n
        centre = (p + z * z / (2 * n)) / (1 + z * z / n)
        half = z * np.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / (1 + z * z / n)
        low = np.clip(np.minimum(centre - half, p), 0.0, 1.0)
        high = np.clip(np.maximum(centre + half, p), 0.0, 1.0)
    return low, high


def line(ax, x, y, index: int, label: str, **options) -> None:
    """One series in the style of ``index``; points with a missing (nan) y are left out
    and the line joins the remaining points, so empty bins leave neither gaps with
    isolated dots nor fake zeros."""
    x = np.asarray(x, dtype=float)
    y = np.asarray(y, dtype=float)
    keep = np.isfinite(y)
    style = {**series_style(index), **options}
    with styled():
        ax.plot(x[keep], y[keep], label=label, **style)
