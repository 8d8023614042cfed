"""Figures of the incomplete-judgment study (as Figs. 1-3 of Sakai 2007, "Alternatives to
bpref"): one curve per measure against the reduction rate j (100 on the left); original
lists dotted, condensed solid.

Each function takes ``IncompleteResult.table`` and writes ``<stem>.pdf``, ``.svg`` and
``.png`` in ``directory``; it returns the paths written. matplotlib (Agg) loads on first use.
"""

from __future__ import annotations

from typing import List, Optional

from irgauge.report import style

FIGURES = {  # column -> (stem, y label)
    "mean": ("incomplete_mean", "mean score over systems and topics"),
    "tau": ("incomplete_tau", "Kendall's tau with the full-qrels ranking"),
    "discriminative_power": ("incomplete_discpower", "discriminative power (share of pairs)"),
}


def rate_curves(
    table, column: str, directory, stem: Optional[str] = None, title: Optional[str] = None
) -> List[str]:
    """``column`` of the study's table against the rate, one curve per measure (original
    lists dotted, condensed solid; points without a value are left out)."""
    default_stem, label = FIGURES.get(column, (f"incomplete_{column}", column))
    fig, ax = style.new_figure(6.4, 4.0, title=title)
    for index, (measure, rows) in enumerate(table.groupby("measure", sort=False)):
        rows = rows.sort_values("rate", ascending=False)
        dotted = rows["lists"].iloc[0] == "original"
        style.line(
            ax, rows["rate"], rows[column], index, str(measure), linestyle=":" if dotted else "-"
        )
    ax.set_xlim(max(table["rate"]) + 2, min(table["rate"]) - 2)
    ax.set_xlabel("relevance data kept (% of the judgments)")
    ax.set_ylabel(label)
    style.legend_outside(ax, "measure (dotted: original lists)")
    return style.save(fig, directory, stem or default_stem)


def incomplete_figures(table, directory, title: Optional[str] = None) -> List[str]:
    """The three figures: mean score, Kendall's tau and discriminative power against j."""
    paths = []
    for column in FIGURES:
        paths += rate_curves(table, column, directory, title=title)
    return paths
