"""Figures of the meta-evaluation results, in the one style of :mod:`irgauge.report.style`
(Okabe-Ito colours with markers, legends outside the axes, PDF + SVG + PNG).

Each function takes a result's table, draws one figure and saves ``<stem>.pdf``, ``.svg``
and ``.png`` in ``directory``; it returns the paths written. ``title`` names the collection
and the parameters (see :func:`irgauge.report.style.describe`). Where the numbers come from
sampling, the figure shows their uncertainty when the sample sizes are given:

* ASL (bootstrap with B samples): ASL +/- 1.96 sqrt(ASL (1 - ASL) / B);
* swap rates: Wilson 95% interval of swaps / comparisons per bin; empty bins are dropped;
* minority rate and proportion of ties: Wilson 95% intervals over trials x pairs;
* means over repeated experiments (the studies' tables): with ``<column>_ci`` columns the
  95% interval of the mean (1.96 Monte Carlo SE, as the tables give SE), else mean +/- sd
  (``<column>_sd``), clipped to [0, 1] for rates and shares;
* predictive power phi (mean tau over halvings): mean +/- t_{0.975, h-1} sd / sqrt(h).
"""

from __future__ import annotations

from typing import List, Optional

import numpy as np

from irgauge.report import style


def _sd(part, column: str) -> np.ndarray:
    """The half-width of the band of ``column``: its ``<column>_ci`` column (the 95%
    interval of a mean over repetitions, as the tables' SE gives it) when there is one,
    else ``<column>_sd`` (NaN as 0: a single repetition claims no error)."""
    name = f"{column}_ci" if f"{column}_ci" in part else f"{column}_sd"
    return np.nan_to_num(part[name].to_numpy(dtype=float))


def _legend_title(shape: str, wilson: bool, spread: bool, ci: bool = False) -> str:
    """ "measure", and what the figure's bands or bars (``shape``) show."""
    if wilson:
        return f"measure\n({shape}: Wilson 95%)"
    if ci:
        return f"measure\n({shape}: 95% interval, Monte Carlo)"
    if spread:
        return f"measure\n({shape}: ± sd over the repetitions)"
    return "measure"


def asl_curves(
    pairs,
    directory,
    stem: str = "asl_curves",
    title: Optional[str] = None,
    samples: Optional[int] = None,
    alpha: float = 0.05,
) -> List[str]:
    """ASL against system pairs sorted by ASL, one curve per measure (discriminative power);
    with ``samples`` (B), a band of +/- 1.96 binomial standard errors of each ASL."""
    fig, ax = style.new_figure(title=title)
    for index, (measure, part) in enumerate(pairs.groupby("measure", sort=False)):
        asl = np.sort(part["asl"].to_numpy(dtype=float))
        x = np.arange(1, len(asl) + 1)
        if samples:
            half = 1.96 * np.sqrt(asl * (1 - asl) / samples)
            style.band(
                ax,
                x,
                asl,
                np.clip(asl - half, 0, 1),
                np.clip(asl + half, 0, 1),
                index,
                str(measure),
            )
        else:
            style.line(ax, x, asl, index, str(measure))
    ax.axhline(alpha, color="grey", lw=0.8, ls="--", label=f"α = {alpha:g}")
    ax.set_xlabel("system pairs, sorted by ASL")
    ax.set_ylabel("achieved significance level (ASL)")
    style.legend_outside(ax, "measure" + (f"\n(band: ±1.96 SE, B = {samples})" if samples else ""))
    return style.save(fig, directory, stem)


def swap_curves(
    table, directory, max_rate: float = 0.05, stem: str = "swap_rates", title: Optional[str] = None
) -> List[str]:
    """Swap rate against performance-difference bin, one curve per measure, with a band: the
    Wilson 95% interval of each bin (swaps out of comparisons), or mean +/- sd over repeated
    experiments (a ``swap_rate_sd`` column); bins without comparisons are dropped, not drawn
    as zeros."""
    fig, ax = style.new_figure(title=title)
    for index, (measure, part) in enumerate(table.groupby("measure", sort=False)):
        part = part[part["comparisons"] > 0] if "comparisons" in part else part
        part = part[part["swap_rate"].notna()].sort_values("difference", kind="stable")
        x = part["difference"].to_numpy(dtype=float)
        rate = part["swap_rate"].to_numpy(dtype=float)
        if "swaps" in part:
            low, high = style.wilson(part["swaps"], part["comparisons"])
            style.band(ax, x, rate, low, high, index, str(measure))
        elif "swap_rate_sd" in part:
            sd = _sd(part, "swap_rate")
            # a rate lies in [0, 1]: so does its band
            low, high = np.clip(rate - sd, 0, 1), np.clip(rate + sd, 0, 1)
            style.band(ax, x, rate, low, high, index, str(measure))
        else:
            style.line(ax, x, rate, index, str(measure))
    ax.axhline(max_rate, color="grey", lw=0.8, ls="--", label=f"{max_rate:.0%} swap rate")
    ax.set_xlabel("difference in mean score between the systems (bin lower edge)")
    ax.set_ylabel("swap rate (share of subset pairs that swap)")
    style.legend_outside(
        ax,
        _legend_title("band", "swaps" in table, "swap_rate_sd" in table, "swap_rate_ci" in table),
    )
    return style.save(fig, directory, stem)


def stability_curves(
    table,
    directory,
    stem: str = "minority_ties",
    title: Optional[str] = None,
    comparisons: Optional[int] = None,
) -> List[str]:
    """Minority rate against proportion of ties (one point per fuzziness value), one curve
    per measure; with ``comparisons`` (trials x pairs), Wilson 95% error bars both ways, and
    for means over repeated experiments (``_sd`` columns), +/- sd both ways."""
    fig, ax = style.new_figure(title=title)
    spread = "minority_rate_sd" in table
    for index, (measure, part) in enumerate(table.groupby("measure", sort=False)):
        part = part.sort_values("proportion_ties")
        x = part["proportion_ties"].to_numpy(dtype=float)
        y = part["minority_rate"].to_numpy(dtype=float)
        if comparisons:
            ylow, yhigh = style.wilson(y * comparisons, comparisons)
            xlow, xhigh = style.wilson(x * comparisons, comparisons)
            xerr, yerr = [x - xlow, xhigh - x], [y - ylow, yhigh - y]
        elif spread:
            # shares lie in [0, 1]: the bars stop there
            hx, hy = _sd(part, "proportion_ties"), _sd(part, "minority_rate")
            xerr = [x - np.clip(x - hx, 0, 1), np.clip(x + hx, 0, 1) - x]
            yerr = [y - np.clip(y - hy, 0, 1), np.clip(y + hy, 0, 1) - y]
        else:
            style.line(ax, x, y, index, str(measure))
            continue
        ax.errorbar(
            x, y, yerr=yerr, xerr=xerr, capsize=2, label=str(measure), **style.series_style(index)
        )
    ax.set_xlabel("proportion of ties (share of subset pairs within the fuzziness)")
    ax.set_ylabel("minority rate (share of subset pairs in the minority)")
    style.legend_outside(
        ax, _legend_title("bars", bool(comparisons), spread, "minority_rate_ci" in table)
    )
    return style.save(fig, directory, stem)


def tau_heatmap(
    square,
    directory,
    stem: str = "kendall_tau",
    title: Optional[str] = None,
    label: str = "Kendall's tau",
    xlabel: str = "measure",
    ylabel: str = "measure",
) -> List[str]:
    """Heat map of a measures x measures Kendall tau table (pandas DataFrame), its colour
    scale spanning the data (a diagonal of ones, each measure with itself, is left blank and
    out of the scale), each value written in its cell."""
    n = len(square)
    fig, ax = style.new_figure(1.6 + 0.62 * n, 1.2 + 0.55 * n, title=title)
    values = square.to_numpy(dtype=float)
    # a diagonal of ones (each measure with itself) says nothing; phi's diagonal does
    trivial = list(square.index) == list(square.columns) and np.allclose(np.diag(values), 1)
    style.heatmap(
        ax,
        values,
        [str(i) for i in square.index],
        [str(c) for c in square.columns],
        label,
        diagonal=not trivial,
    )
    ax.set_xlabel(xlabel)
    ax.set_ylabel(ylabel)
    return style.save(fig, directory, stem)


def phi_curves(
    curve,
    directory,
    stem: str = "phi_vs_k",
    title: Optional[str] = None,
    halvings: Optional[int] = None,
) -> List[str]:
    """Predictive power phi against topic subset size k, one curve per (A, B) pair; with
    ``halvings`` (h), the 95% interval of the mean tau, mean +/- t sd / sqrt(h)."""
    # scipy.special underneath, not scipy.stats, which takes about a second to load
    from irgauge.stats.tails import t_critical

    fig, ax = style.new_figure(title=title)
    for index, ((a, b), part) in enumerate(curve.groupby(["measure_a", "measure_b"], sort=False)):
        k = part["k"].to_numpy(dtype=float)
        phi = part["phi"].to_numpy(dtype=float)
        label = f"{a} predicts {b}"
        if halvings and halvings > 1 and "sd" in part:
            spread = part["sd"].to_numpy(dtype=float) / np.sqrt(halvings)
            half = t_critical(0.05, halvings - 1) * spread
            style.band(ax, k, phi, phi - half, phi + half, index, label)
        else:
            style.line(ax, k, phi, index, label)
    ax.set_xlabel("topics per subset (k)")
    ax.set_ylabel("predictive power φ (mean Kendall's tau)")
    style.legend_outside(ax, "(band: 95% CI of the mean)" if halvings else None)
    return style.save(fig, directory, stem)
