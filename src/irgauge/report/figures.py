"""Figures of the meta-evaluation results (matplotlib, Agg backend, loaded on first use).

Each function takes a result's table, draws one figure and saves ``<stem>.png`` and
``<stem>.svg`` in ``directory``; it returns the paths written.
"""
from __future__ import annotations

from typing import List

from irgauge.report import style


def _pyplot():
    return style.pyplot()


def _save(fig, directory, stem: str) -> List[str]:
    return style.save(fig, directory, stem)


def asl_curves(pairs, directory, stem: str = "asl_curves") -> List[str]:
    """ASL against system pairs sorted by ASL, one curve per measure (discriminative power)."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for measure, part in pairs.groupby("measure", sort=False):
        ax.plot(range(1, len(part) + 1), part["asl"].sort_values().to_numpy(), label=measure)
    ax.axhline(0.05, color="grey", lw=0.8, ls="--")
    ax.set_xlabel("system pairs sorted by ASL")
    ax.set_ylabel("achieved significance level (ASL)")
    ax.legend()
    return _save(fig, directory, stem)


def swap_curves(table, directory, max_rate: float = 0.05, stem: str = "swap_rates") -> List[str]:
    """Swap rate against performance-difference bin, one curve per measure, 5% line."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for measure, part in table.groupby("measure", sort=False):
        ax.plot(part["difference"], part["swap_rate"], marker="o", ms=3, label=measure)
    ax.axhline(max_rate, color="grey", lw=0.8, ls="--", label=f"{max_rate:.0%}")
    ax.set_xlabel("performance difference (bin lower edge)")
    ax.set_ylabel("swap rate")
    ax.legend()
    return _save(fig, directory, stem)


def stability_curves(table, directory, stem: str = "minority_ties") -> List[str]:
    """Minority rate against proportion of ties (one point per fuzziness), one curve per
    measure."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for measure, part in table.groupby("measure", sort=False):
        ax.plot(part["proportion_ties"], part["minority_rate"], marker="o", ms=3, label=measure)
    ax.set_xlabel("proportion of ties")
    ax.set_ylabel("minority rate")
    ax.legend()
    return _save(fig, directory, stem)


def tau_heatmap(square, directory, stem: str = "kendall_tau") -> List[str]:
    """Heat map of a measures x measures Kendall tau table (pandas DataFrame)."""
    plt = _pyplot()
    n = len(square)
    fig, ax = plt.subplots(figsize=(1.2 + 0.6 * n, 1 + 0.6 * n))
    image = ax.imshow(square.to_numpy(dtype=float), vmin=-1, vmax=1, cmap="RdBu_r")
    ax.set_xticks(range(n))
    ax.set_xticklabels(square.columns, rotation=45, ha="right")
    ax.set_yticks(range(n))
    ax.set_yticklabels(square.index)
    for r in range(n):
        for c in range(n):
            ax.text(c, r, f"{square.iat[r, c]:.2f}", ha="center", va="center", fontsize=8)
    fig.colorbar(image, ax=ax, label="Kendall's tau")
    return _save(fig, directory, stem)


def phi_curves(curve, directory, stem: str = "phi_vs_k") -> List[str]:
    """Predictive power phi against topic subset size k, one curve per (A, B) pair."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for (a, b), part in curve.groupby(["measure_a", "measure_b"], sort=False):
        ax.plot(part["k"], part["phi"], marker="o", ms=3, label=f"{a} -> {b}")
    ax.set_xlabel("topics per subset (k)")
    ax.set_ylabel("predictive power phi")
    ax.legend(fontsize=7)
    return _save(fig, directory, stem)
