"""Figures of the incomplete-judgment study (as Figs. 1-3 of Sakai 2007, "Alternatives to
bpref"): one curve per measure
against the reduction rate j (100 on the left); original lists dotted, condensed solid.

Each function takes ``IncompleteResult.table`` and writes ``<stem>.png`` and ``<stem>.svg``
in ``directory``; it returns the paths written. matplotlib (Agg) loads on first use.
"""
from __future__ import annotations

from typing import List

from irgauge.report.figures import _pyplot, _save

FIGURES = {  # column -> (stem, y label)
    "mean": ("incomplete_mean", "mean score over systems and topics"),
    "tau": ("incomplete_tau", "Kendall's tau with the full-qrels ranking"),
    "discriminative_power": ("incomplete_discpower", "discriminative power (share of pairs)"),
}


def rate_curves(table, column: str, directory, stem: str = None) -> List[str]:
    """``column`` of the study's table against the rate, one curve per measure."""
    plt = _pyplot()
    default_stem, label = FIGURES.get(column, (f"incomplete_{column}", column))
    fig, ax = plt.subplots(figsize=(6.4, 4.4))
    for measure, rows in table.groupby("measure", sort=False):
        rows = rows.sort_values("rate", ascending=False)
        style = ":" if rows["lists"].iloc[0] == "original" else "-"
        ax.plot(rows["rate"], rows[column], style, marker="o", markersize=3, label=measure)
    ax.set_xlim(max(table["rate"]) + 2, min(table["rate"]) - 2)
    ax.set_xlabel("relevance data kept (%)")
    ax.set_ylabel(label)
    ax.grid(alpha=0.3)
    ax.legend(fontsize="small", ncol=2)
    return _save(fig, directory, stem or default_stem)


def incomplete_figures(table, directory) -> List[str]:
    """The three figures: mean score, Kendall's tau and discriminative power against j."""
    paths = []
    for column in FIGURES:
        paths += rate_curves(table, column, directory)
    return paths
