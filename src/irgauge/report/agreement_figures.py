"""Figures of assessor agreement (:func:`irgauge.meta.agreement`), in the style of
:mod:`irgauge.report.style`: the confusion matrix of two qrels' levels as a heat map, the
systems' mean scores under qrels A against qrels B with the identity line, and the
distribution of the per-topic kappa.

Each function saves ``<stem>.pdf``, ``.svg`` and ``.png`` in ``directory`` and returns the
paths written; :func:`agreement_figures` draws all of them for a result. With two qrels the
stems are ``agree_confusion``, ``agree_means`` and ``agree_topic_kappa``; with more, the
first two get ``_<a>_vs_<b>`` (the qrels names, characters other than letters, digits,
``.``, ``-`` and ``_`` replaced by ``_``) for each pair.
"""

from __future__ import annotations

import re
from typing import List, Optional

import numpy as np

from irgauge.report import style
from irgauge.io.words import counted


def _suffix(a: str, b: str, several: bool) -> str:
    if not several:
        return ""
    return re.sub(r"[^A-Za-z0-9._-]", "_", f"_{a}_vs_{b}")


def confusion_heatmap(confusion, directory, stem="agree_confusion", title=None) -> List[str]:
    """Heat map of one pair's confusion records (columns level_a, level_b, count): rows
    the levels of A, columns those of B, each cell its count."""
    a, b = confusion["a"].iloc[0], confusion["b"].iloc[0]
    square = confusion.pivot(index="level_a", columns="level_b", values="count")
    n = len(square)
    fig, ax = style.new_figure(2.2 + 0.6 * n, 1.6 + 0.5 * n, title=title)
    style.heatmap(
        ax,
        square.to_numpy(dtype=float),
        [str(v) for v in square.index],
        [str(v) for v in square.columns],
        "pairs judged by both",
        digits=0,
    )
    ax.set_xlabel(f"level under {b}")
    ax.set_ylabel(f"level under {a}")
    return style.save(fig, directory, stem)


def means_scatter(systems, directory, stem="agree_means", title=None) -> List[str]:
    """Each system's mean score under A (x) and under B (y), one series per measure, with
    the identity line (points on it: both qrels give the system the same mean)."""
    a, b = systems["a"].iloc[0], systems["b"].iloc[0]
    fig, ax = style.new_figure(5.2, 4.0, title=title)
    for index, (measure, part) in enumerate(systems.groupby("measure", sort=False)):
        kwargs = dict(style.series_style(index), linestyle="none")
        ax.plot(part["mean_a"], part["mean_b"], label=str(measure), **kwargs)
    both = np.concatenate([systems["mean_a"], systems["mean_b"]]).astype(float)
    low, high = float(np.min(both)), float(np.max(both))
    pad = 0.05 * (high - low or 1.0)
    ax.plot([low - pad, high + pad], [low - pad, high + pad], color="grey", lw=0.8, ls="--")
    ax.set_xlim(low - pad, high + pad)
    ax.set_ylim(low - pad, high + pad)
    ax.set_aspect("equal", adjustable="box")
    ax.set_xlabel(f"mean score under {a}")
    ax.set_ylabel(f"mean score under {b}")
    style.legend_outside(ax, "measure\n(dashed: identity)")
    return style.save(fig, directory, stem)


def kappa_histogram(topic_kappa, directory, stem="agree_topic_kappa", title=None) -> List[str]:
    """Histogram of the per-topic Cohen's kappa, one step outline per pair of qrels; topics
    where kappa is undefined (p_e = 1) are counted in the legend, not drawn."""
    fig, ax = style.new_figure(6.0, 3.6, title=title)
    values = topic_kappa["cohen_kappa"].to_numpy(dtype=float)
    finite = values[np.isfinite(values)]
    low = min(-0.2, float(finite.min())) if finite.size else -1.0
    start = np.floor(low * 10 + 1e-9) / 10
    bins = start + 0.1 * np.arange(int(round((1.0 - start) * 10)) + 2)  # 0.1 wide, 1 in the last
    for index, ((a, b), part) in enumerate(topic_kappa.groupby(["a", "b"], sort=False)):
        k = part["cohen_kappa"].to_numpy(dtype=float)
        ok = k[np.isfinite(k)]
        undefined = len(k) - len(ok)
        label = f"{a} vs {b} ({counted(len(ok), 'topic')}" + (
            f", {undefined} undefined)" if undefined else ")"
        )
        colour = style.series_style(index)["color"]
        ax.hist(ok, bins=bins, histtype="step", color=colour, lw=1.4, label=label)
    ax.yaxis.get_major_locator().set_params(integer=True)  # counts of topics
    ax.set_xlabel("Cohen's kappa of a topic")
    ax.set_ylabel("topics")
    style.legend_outside(ax, "qrels pair")
    return style.save(fig, directory, stem)


def agreement_figures(result, directory, title: Optional[str] = None) -> List[str]:
    """Every figure of an agreement result (a MetaResult of :func:`irgauge.agreement`)."""
    details = result.details
    paths: List[str] = []
    confusion = details["confusion"]
    pairs = list(dict.fromkeys(zip(confusion["a"], confusion["b"])))
    several = len(pairs) > 1
    systems = details.get("systems")
    for a, b in pairs:
        suffix = _suffix(a, b, several)
        part = confusion[(confusion["a"] == a) & (confusion["b"] == b)]
        paths += confusion_heatmap(part, directory, "agree_confusion" + suffix, title)
        if systems is not None and len(systems):
            chosen = systems[(systems["a"] == a) & (systems["b"] == b)]
            paths += means_scatter(chosen, directory, "agree_means" + suffix, title)
    paths += kappa_histogram(details["topic_kappa"], directory, title=title)
    return paths
