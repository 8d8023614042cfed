"""The comparison table of IR papers: runs as rows, measures as columns, mean scores marked
where differences are significant.

For every measure, the p-values come from :func:`irgauge.stats.compare_pairs` (the function
behind ``irgauge compare``), with the same seed, so a mark here always matches a row there:

* letters (no baseline): runs are lettered a, b, c, ...; run x carries the letter of run y
  when x's mean is higher and the (corrected) p-value of the pair is below alpha;
* baseline: every other run is compared with the baseline only (the correction runs over
  those pairs); a superscript ``+`` marks a run significantly better than the baseline,
  ``-`` one significantly worse.

Significant means ``p < alpha`` (as the discriminative power counts ASL < alpha). The best
mean of each column is set in bold. Optional: a confidence interval of each mean (Student's t,
``mean +/- t_{n-1} * sd / sqrt(n)``, t_{n-1} the upper (1 - level)/2 quantile, taken
from the survival function so that a level near 1 keeps its tail) or its standard error
``sd / sqrt(n)``, and
effect sizes, Cohen's d_z for paired data ``mean(x - y) / sd(x - y)``, against the baseline
(or the first run).

Rendering (terminal, Markdown, LaTeX, HTML, CSV, JSON) is in
:mod:`irgauge.stats.comparison_formats`.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional

import numpy as np

from irgauge.errors import InputError
from irgauge.scores._results import CheckedResult
from irgauge.scores import as_score_matrices, check_matrices
from irgauge.stats.comparison_formats import (
    CORRECTIONS,
    EFFECT_LABEL,
    INTERVALS,
    TESTS,
    caption,
    render,
)
from irgauge.stats.pairs import compare_pairs
from irgauge.stats.resampling import require_topics
from irgauge import _checks
from irgauge._checks import resolve_seed
from irgauge.io.words import counted
from irgauge.types import Progress, ScoresLike


def letters(n: int) -> List[str]:
    """a, b, ..., z, aa, ab, ... for n runs."""
    out = []
    for k in range(n):
        label, k = "", k + 1
        while k:
            k, r = divmod(k - 1, 26)
            label = chr(97 + r) + label
        out.append(label)
    return out


@dataclass(frozen=True)
class ComparisonTable(CheckedResult):
    """Runs x measures: means, marks and, on request, intervals and effect sizes.

    ``means``, ``low``/``high`` (interval; nan without one), ``se`` and ``effect`` are
    runs x measures arrays; ``marks[r][m]`` lists the letters (or ``+``/``-``) of run r for
    measure m; ``pvalues[m]`` is the pairwise table of that measure (compare's rows).
    """

    runs: List[str]
    labels: List[str]
    measures: List[str]
    means: np.ndarray
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray
    effect: Optional[np.ndarray]
    marks: List[List[List[str]]]
    pvalues: Dict[str, Any]
    parameters: Dict[str, Any] = field(default_factory=dict)

    nan_reasons = {
        "low": "no interval was asked for (interval none)",
        "high": "no interval was asked for (interval none)",
    }

    @property
    def best(self) -> np.ndarray:
        """runs x measures booleans: the highest mean of each column (ties all bold)."""
        return self.means == self.means.max(axis=0, keepdims=True)

    def mark_text(self, r: int, m: int) -> str:
        """Run r's marks for measure m as written: letters run together ("bd"), longer
        labels separated by commas."""
        sep = "," if max(map(len, self.labels)) > 1 else ""
        return sep.join(self.marks[r][m])

    def caption(self) -> str:
        """What the marks mean: test, correction, alpha, topics, collection, seed."""

        return caption(self)

    @_checks.renamed_keywords(fmt="format")
    def render(self, format: str = "table", digits: int = 3, ansi: bool = False) -> str:
        """The table as ``format``, as ``--format`` and ``compare --table FORMAT`` name it:
        table (terminal), markdown, latex, html, csv or json; ``ansi``: the best values in
        bold on a terminal. (``fmt=``, its old name, still works, deprecated.)"""

        return render(self, format, digits, ansi)

    def to_frame(self):
        """One row per run and measure: label, run, measure, mean, se, low, high, marks,
        effect (pandas DataFrame)."""
        import pandas as pd  # kept out of `import irgauge.stats` (tests/test_startup.py)

        rows = []
        for r, run in enumerate(self.runs):
            for m, measure in enumerate(self.measures):
                rows.append(
                    {
                        "label": self.labels[r],
                        "run": run,
                        "measure": measure,
                        "mean": self.means[r, m],
                        "se": self.se[r, m],
                        "low": self.low[r, m],
                        "high": self.high[r, m],
                        "best": bool(self.best[r, m]),
                        "marks": self.mark_text(r, m),
                        **({"effect_dz": self.effect[r, m]} if self.effect is not None else {}),
                    }
                )
        return pd.DataFrame(rows)

    def __str__(self) -> str:
        return self.render("table")

    def __repr__(self) -> str:
        return (
            f"<ComparisonTable: {counted(len(self.runs), 'run')} x "
            f"{counted(len(self.measures), 'measure')}>\n" + self.render("table")
        )

    def _repr_html_(self) -> str:
        return self.render("html")

    def _repr_markdown_(self) -> str:
        return self.render("markdown")


@_checks.renamed_keywords(level="confidence")
def compare_table(
    matrices: ScoresLike,
    baseline: Optional[str] = None,
    test: str = "t",
    correction: str = "none",
    alpha: float = 0.05,
    interval: str = "none",
    confidence: float = 0.95,
    effect: bool = False,
    samples: int = 1000,
    permutations: int = 10000,
    seed: Optional[int] = None,
    names: str = "letters",
    collection: Optional[str] = None,
    progress: Optional[Progress] = None,
) -> ComparisonTable:
    """The comparison table of ``{measure: ScoreMatrix}`` (systems x topics, aligned), or of
    any score data :func:`irgauge.as_score_matrices` takes, an EvalResult among them (whose
    qrels file then names the collection unless ``collection`` is given).

    ``test``: t, randomisation, bootstrap, tukey (or sign); ``correction``: none, holm, bh
    (not applied to Tukey HSD, which controls the family-wise error itself); ``alpha``:
    significance level; ``interval``: none, ci (Student's t interval at ``confidence``, as
    ``--confidence`` and every function name it; ``level=``, its old name, still works,
    deprecated) or se;
    ``effect``: add Cohen's d_z against the baseline (or the first run); ``samples`` and
    ``permutations``: bootstrap samples / Tukey trials and random sign flips; ``names``:
    "letters" labels runs a, b, c, ..., "runs" uses their names as labels;
    ``collection``: how the caption names the collection.
    """
    if collection is None:
        collection = getattr(matrices, "collection", None)
    alpha, level = _check_options(test, correction, names, interval, alpha, confidence)
    measures, systems, n, stacked, seed = _checked_scores(matrices, baseline, seed)
    m = len(systems)
    base = systems.index(baseline) if baseline is not None else None
    reference = base if base is not None else 0
    labels = letters(m) if names == "letters" else list(systems)
    column = pvalue_column(test, correction)
    tables = _pvalue_tables(
        stacked, measures, systems, base, test, samples, permutations, seed, correction, progress
    )
    parameters = {
        "test": test,
        "correction": correction if test != "tukey" else "none",
        "alpha": alpha,
        "baseline": baseline,
        "interval": interval,
        "level": level if interval == "ci" else None,
        "effect": EFFECT_LABEL if effect else None,
        "effect_reference": systems[reference] if effect else None,
        "seed": seed,
        "bootstrap_samples": samples,
        "permutations": permutations,
        "tukey_trials": samples,
        "n_topics": n,
        "n_runs": m,
        "collection": collection,
        "significant_if": "p < alpha",
        "pvalue_column": column,
    }
    means, se, low, high = _intervals(stacked, interval, level)
    effects = _effect_sizes(stacked, reference) if effect else None
    marks = _marks(tables, measures, systems, labels, column, alpha, base)
    return ComparisonTable(
        list(systems),
        labels,
        list(measures),
        means,
        se,
        low,
        high,
        effects,
        marks,
        tables,
        parameters,
    )


def _pvalue_tables(
    stacked, measures, systems, base, test, samples, permutations, seed, correction, progress
) -> Dict[str, Any]:
    """compare_pairs' table of each measure: every pair of runs, or with a baseline (index
    ``base``) only its pairs, so that the correction runs over those alone."""
    pairs = None if base is None else [(base, k) for k in range(len(systems)) if k != base]
    return {
        measure: compare_pairs(
            stacked[k], systems, [test], samples, permutations, seed, correction, pairs, progress
        ).table
        for k, measure in enumerate(measures)
    }


def _checked_scores(matrices, baseline: Optional[str], seed):
    """Measures, systems, the number of topics, the measures x systems x topics scores and
    the seed, refusing a baseline that is not a run and fewer than 2 topics."""
    measures, systems, topics, stacked = check_matrices(as_score_matrices(matrices))
    if baseline is not None and baseline not in systems:
        raise InputError(f"baseline {baseline!r} is not among the runs ({', '.join(systems)})")
    seed = resolve_seed(seed)
    require_topics(len(topics), "a paired test")
    return measures, systems, len(topics), stacked, seed


def _check_options(test, correction, names, interval, alpha, level) -> tuple:
    """Every option checked before any is used; the checked alpha and level."""
    _checks.choice(test, "test", TESTS)
    _checks.choice(correction, "correction", CORRECTIONS)
    _checks.choice(names, "names", ("letters", "runs"))
    _checks.choice(interval, "interval", INTERVALS)
    return _checks.alpha(alpha), _checks.confidence(level, "confidence")


def _intervals(stacked: np.ndarray, interval: str, level: float):
    """Means, standard errors and the interval's ends, each systems x measures."""
    from irgauge.stats.tails import t_critical

    n = stacked.shape[2]
    means = stacked.mean(axis=2).T
    se = (stacked.std(axis=2, ddof=1) / np.sqrt(n)).T
    # 1 - level is exact for a level of 0.5 or more (Sterbenz), where ppf((1 + level) / 2)
    # rounds the tail away
    half = {"ci": t_critical(1 - level, n - 1) * se, "se": se}.get(interval)
    if half is None:
        nothing = np.full_like(means, np.nan)
        return means, se, nothing, nothing.copy()
    return means, se, means - half, means + half


def _effect_sizes(stacked: np.ndarray, reference: int) -> np.ndarray:
    """Cohen's d_z of every system against ``reference``, systems x measures."""
    z = stacked - stacked[:, reference : reference + 1, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        sizes = (z.mean(axis=2) / z.std(axis=2, ddof=1)).T
    sizes[reference] = np.nan
    return sizes


def _marks(tables, measures, systems, labels, column, alpha, base) -> list:
    """Each run's marks per measure: the labels of the runs it beats (no baseline), or
    + / - against the baseline; letters in run order, whatever the pairs' order."""
    marks: List[List[List[str]]] = [[[] for _ in measures] for _ in systems]
    for k, measure in enumerate(measures):
        table = tables[measure]
        for a, b, p, diff in zip(
            table["system_a"], table["system_b"], table[column], table["difference"]
        ):
            if not p < alpha or diff == 0:
                continue
            i, j = systems.index(a), systems.index(b)
            if base is None:
                winner, loser = (i, j) if diff > 0 else (j, i)
                marks[winner][k].append(labels[loser])
            else:  # a is the baseline, b the run
                marks[j][k].append("+" if diff < 0 else "-")
    for row in marks:
        for cell in row:
            cell.sort(key=lambda x: (len(x), x))
    return marks


def pvalue_column(test: str, correction: str) -> str:
    """The column of :func:`irgauge.stats.compare_pairs`'s table that decides the marks."""
    if correction == "none" or test == "tukey":
        return f"p_{test}"
    return f"p_{test}_{correction}"
