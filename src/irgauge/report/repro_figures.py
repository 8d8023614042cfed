"""Figures of a reproducibility study (:func:`irgauge.reproducibility`): KTU, RBO and RMSE
against the cutoff, as in Breuer et al. (SIGIR 2020), one series per repeated pair and
run (and measure, for RMSE), each with its bootstrap interval as a band.

:func:`repro_figure` draws one statistic's figure; :func:`repro_figures` saves
``repro_ktu``, ``repro_rbo`` and ``repro_rmse`` (PDF, SVG and PNG) in a folder and returns
the paths written. A replication has no document-order or RMSE rows: no figures.
"""

from __future__ import annotations

from typing import Dict, List, Optional

import numpy as np

from irgauge.report import style

CURVES = {"KTU": "repro_ktu", "RBO": "repro_rbo", "RMSE": "repro_rmse"}
LABELS = {"KTU": "KTU", "RBO": "RBO (extrapolated)", "RMSE": "RMSE"}


def _series(table, statistic: str):
    """(label, cutoffs, value, low, high) of each series of ``statistic`` at a cutoff."""
    import pandas as pd

    # a cutoff read back from TSV is a number or NaN, from JSON or the API "" where none
    cutoff = pd.to_numeric(table["cutoff"].replace("", None), errors="coerce")
    rows = table[(table["statistic"] == statistic) & cutoff.notna()].assign(cutoff=cutoff)
    keys = [c for c in ("repeated", "run", "measure") if c in rows and rows[c].astype(str).any()]
    for key, part in rows.groupby(keys, sort=False) if keys else []:
        key = key if isinstance(key, tuple) else (key,)
        order = np.argsort(part["cutoff"].to_numpy(dtype=float))
        columns = [part[c].to_numpy(dtype=float)[order] for c in ("cutoff", "value", "low", "high")]
        yield (", ".join(str(k) for k in key if str(k)), *columns)


def repro_figure(table, statistic: str, title: Optional[str] = None):
    """The figure of ``statistic`` (KTU, RBO or RMSE) against the cutoff, or None when the
    table has no such rows at a cutoff."""
    series = list(_series(table, statistic))
    if not series:
        return None
    fig, ax = style.new_figure(title=title)
    for index, (label, x, value, low, high) in enumerate(series):
        style.band(ax, x, value, low, high, index, label, bars=len(x) < 3)
    ax.set_xscale("log")
    ticks = sorted({float(v) for _, x, *_ in series for v in x})
    ax.set_xticks(ticks, [f"{v:g}" for v in ticks])
    ax.minorticks_off()
    ax.set_xlabel("cutoff (top-k documents)")
    ax.set_ylabel(LABELS[statistic])
    style.legend_outside(ax, "series (band: bootstrap interval)")
    return fig


def repro_figure_set(table, title: Optional[str] = None) -> Dict[str, object]:
    """``{stem: figure}`` of every curve the table holds."""
    found = {}
    for statistic, stem in CURVES.items():
        fig = repro_figure(table, statistic, title)
        if fig is not None:
            found[stem] = fig
    return found


def repro_figures(result, directory, title: Optional[str] = None) -> List[str]:
    """Save every curve of ``result`` (a result with a ``table``, or the table itself) in
    ``directory``; the paths written."""
    paths: List[str] = []
    table = getattr(result, "table", result)
    for stem, fig in repro_figure_set(table, title).items():
        paths += style.save(fig, directory, stem)
        style.pyplot().close(fig)
    return paths
