"""Figure of the topic set size design (Sakai 2016): the number of topics needed against the
minimum detectable difference D, for the paired t-test and the one-way ANOVA, at several
alpha, beta and numbers of systems M, one row of panels per measure.

Colour (with marker) tells (alpha, beta) apart; the ANOVA's line style tells M apart. The
collection's own number of topics is a dotted grey line, the asked-for D a dashed one.
Saved as ``<stem>.pdf``, ``.svg`` and ``.png`` in the one style of
:mod:`irgauge.report.style`; matplotlib (Agg) loads on first use.
"""

from __future__ import annotations

from typing import List, Mapping, Optional, Sequence

import numpy as np

from irgauge.meta.topicset import topics_needed
from irgauge.report import style

ALPHAS = (0.01, 0.05)
BETAS = (0.1, 0.2)
SYSTEMS = (2, 10)
# D spans these effect sizes D / sigma_t: about 1000 topics down to a handful
EFFECT_RANGE = (0.1, 1.5)
POINTS = 40


def difference_grid(variance: float, min_diff: Optional[float] = None) -> np.ndarray:
    """Differences D from 0.1 to 1.5 sigma_t (sigma_t^2 = 2 V_E), stretched to include
    ``min_diff``."""
    sigma = np.sqrt(2 * variance)
    low, high = EFFECT_RANGE[0] * sigma, EFFECT_RANGE[1] * sigma
    if min_diff is not None:
        low, high = min(low, min_diff), max(high, min_diff)
    return np.geomspace(low, high, POINTS)


def _designs(design: str, alphas, betas, anova_systems) -> list:
    """The (design, alpha, beta, M) of each line of a panel, in the order drawn."""
    return [
        (design, alpha, beta, m)
        for m in (anova_systems if design == "anova" else (2,))
        for alpha in alphas
        for beta in betas
    ]


def curves(variances: Sequence[float], diffs, alphas, betas, anova_systems) -> List[dict]:
    """{design: [n against D for each line of :func:`_designs`]} of each V_E of
    ``variances`` over its row of ``diffs`` (measures x points): every line of every
    panel from one search (:func:`irgauge.meta.topicset.topics_needed` over lines x
    measures x points)."""
    lines = {d: _designs(d, alphas, betas, anova_systems) for d in ("ttest", "anova")}
    column = np.asarray(variances, dtype=float)[:, None]
    # one row per line: its design, alpha, beta and M, against measures x points
    design, alpha, beta, m = (
        np.array(values)[:, None, None] for values in zip(*lines["ttest"], *lines["anova"])
    )
    found = np.asarray(topics_needed(column, design, diffs, None, alpha, beta, m))
    split = len(lines["ttest"])
    return [
        {"ttest": [n[row] for n in found[:split]], "anova": [n[row] for n in found[split:]]}
        for row in range(len(column))
    ]


def _panel(ax, diffs, design, lines, needed) -> None:
    """One panel: n against D for each (alpha, beta) and, for the ANOVA, each M."""
    pairs = len(lines) // len({m for _, _, _, m in lines})
    for line, ((_, alpha, beta, m), n) in enumerate(zip(lines, needed)):
        m_index, index = divmod(line, pairs)
        label = f"α = {alpha:g}, β = {beta:g}"
        if design == "anova":
            label += f", M = {m}"
        style.line(
            ax,
            diffs,
            n,
            index,
            label,
            linestyle=style.LINESTYLES[m_index % len(style.LINESTYLES)],
            markevery=4,
        )


def topic_set_curves(
    variances: Mapping[str, float],
    n_topics: int,
    directory,
    min_diff: Optional[float] = None,
    stem: str = "topic_set_size",
    title: Optional[str] = None,
    alphas: Sequence[float] = ALPHAS,
    betas: Sequence[float] = BETAS,
    anova_systems: Sequence[int] = SYSTEMS,
) -> List[str]:
    """n needed against D for every measure of ``variances`` ({measure: V_E}): paired
    t-test on the left, one-way ANOVA with M systems on the right; log-scaled n."""
    plt = style.pyplot()
    rows = len(variances)
    fig, axes = plt.subplots(rows, 2, figsize=(9.0, 3.2 * rows), squeeze=False, sharey="row")
    grids = np.array([difference_grid(v, min_diff) for v in variances.values()])
    needed = curves(list(variances.values()), grids, alphas, betas, anova_systems)
    for row, (measure, variance) in enumerate(variances.items()):
        diffs = grids[row]
        for col, (design, name) in enumerate((("ttest", "paired t-test"), ("anova", "ANOVA"))):
            ax = axes[row][col]
            lines = _designs(design, alphas, betas, anova_systems)
            _panel(ax, diffs, design, lines, needed[row][design])
            ax.axhline(n_topics, color="grey", lw=0.8, ls=":", label=f"this collection: {n_topics}")
            if min_diff is not None:
                ax.axvline(min_diff, color="grey", lw=0.8, ls="--", label=f"D = {min_diff:g}")
            ax.set_yscale("log")
            ax.set_title(f"{measure}: {name} (V_E = {variance:.4g})", loc="left")
            ax.set_xlabel("minimum detectable difference D")
            if col == 0:
                ax.set_ylabel("topics needed n")
        style.legend_outside(
            axes[row][1], "colour: α, β; line style: M\n(the t-test compares two systems)"
        )
    if title:
        fig.suptitle(title, x=0.01, ha="left")
    fig.tight_layout()
    return style.save(fig, directory, stem)
