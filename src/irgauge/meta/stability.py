"""Minority rate and proportion of ties (Buckley & Voorhees 2000; Fig. 1 of Sakai 2004).

For each of T trials draw a topic subset of size c without replacement (one draw shared by
all pairs and measures). For a pair (x, y) with subset means M(x), M(y) and fuzziness f:

    margin = f * max(M(x), M(y));  tie (EQ) if |M(x) - M(y)| < margin, else a win (GT) for
    the larger.
    MinorityRate = sum_pairs min(GT(x, y), GT(y, x)) / sum_pairs T
    PropTies     = sum_pairs EQ(x, y) / sum_pairs T

for f = 0.01, 0.02, ..., 0.10 by default. Equal means (within 1e-12) are ties, and a
difference equal to the margin up to rounding is not, so float summation order cannot flip
a comparison. Each measure is an independent step: a task on a Dask cluster under
``use_engine("dask")``, with the same result.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.evaluation.tasks import run_steps
from irgauge.meta.result import MetaResult, check_subset_size
from irgauge.scores import check_matrices
from irgauge.scores.frames import as_score_matrices
from irgauge.stats.resampling import (
    TIE_TOLERANCE,
    chunks,
    given_draws,
    pair_index,
    resolve_seed,
    subset_indices,
    subset_means,
)
from irgauge.types import Indices, Progress, ScoresLike

DEFAULT_FUZZINESS = tuple(round(0.01 * k, 2) for k in range(1, 11))


def outcomes(mx: np.ndarray, my: np.ndarray, f: float):
    """(x wins, y wins, ties) boolean arrays for means ``mx``, ``my`` and fuzziness f."""
    d = mx - my
    margin = f * np.maximum(mx, my)
    tie = (np.abs(d) < margin - TIE_TOLERANCE) | (np.abs(d) <= TIE_TOLERANCE)
    return ~tie & (d > 0), ~tie & (d < 0), tie


def win_counts(mx: np.ndarray, my: np.ndarray, fuzziness: np.ndarray):
    """Per pair (columns) and sorted fuzziness value: (GT(x, y), GT(y, x)) over the trials.

    A comparison is a win at f unless it is a tie, i.e. iff |d| > tol and
    f <= (|d| + tol) / max(M(x), M(y)) (the tie rule of :func:`outcomes` solved for f).
    So one pass finds, per comparison, how many of the sorted f values it wins at; a
    histogram per pair and a reverse cumulative sum give the counts at every f at once.
    """
    d = mx - my
    absd = np.abs(d)
    with np.errstate(divide="ignore", invalid="ignore"):
        level = (absd + TIE_TOLERANCE) / np.maximum(mx, my)
    wins_upto = np.searchsorted(fuzziness, level, side="right")
    wins_upto[absd <= TIE_TOLERANCE] = 0
    k = len(fuzziness)
    pairs = d.shape[1]
    column = np.broadcast_to(np.arange(pairs) * (k + 1), d.shape)
    counts = []
    for side in (d > 0, d < 0):
        hist = np.bincount((column + wins_upto)[side], minlength=pairs * (k + 1))
        hist = hist.reshape(pairs, k + 1)
        # wins at f_k = comparisons winning at more than k values: sum of hist[:, k+1:]
        above = np.cumsum(hist[:, ::-1], axis=1)[:, ::-1]
        counts.append(above[:, 1:])
    return counts[0], counts[1]


def measure_stability(measure, indices, pairs, fuzziness, progress=None) -> list:
    """Rows (measure, fuzziness, minority rate, proportion of ties) of ``measure`` = (name,
    systems x topics scores) on the subsets ``indices`` (trials x c)."""
    name, values = measure
    i, j = pairs
    trials = indices.shape[0]
    order = np.argsort(fuzziness, kind="stable")
    levels = np.asarray(fuzziness, dtype=float)[order]
    means = subset_means(values, indices)
    minority = np.zeros(len(levels))
    wins = np.zeros(len(levels))
    for part in chunks(len(i), trials):
        gt_xy, gt_yx = win_counts(means[:, i[part]], means[:, j[part]], levels)
        minority += np.minimum(gt_xy, gt_yx).sum(axis=0)
        wins += (gt_xy + gt_yx).sum(axis=0)
        if progress is not None:
            progress(part.stop, len(i))
    total = len(i) * trials
    rank = np.argsort(order)  # position of each caller's fuzziness value among the sorted
    return [
        {
            "measure": name,
            "fuzziness": f,
            "minority_rate": minority[rank[given]] / total,
            "proportion_ties": (total - wins[rank[given]]) / total,
        }
        for given, f in enumerate(fuzziness)
    ]


def stability(
    matrices: ScoresLike,
    subset_size: Optional[int] = None,
    trials: int = 1000,
    fuzziness: Sequence[float] = DEFAULT_FUZZINESS,
    seed: Optional[int] = None,
    indices: Indices = None,
    progress: Optional[Progress] = None,
) -> MetaResult:
    """Minority rate and proportion of ties per measure and fuzziness value.

    ``indices`` (trials x c topic indices) replaces the seeded draw of subsets.
    """
    matrices = as_score_matrices(matrices)  # ScoreMatrix, DataFrame or EvalResult
    # pandas on first use: tests/test_startup.py keeps importing irgauge.meta free of it
    import pandas as pd

    names, systems, topics, stacked = check_matrices(matrices)
    fuzziness = _checks.sequence(fuzziness, "fuzziness", _checks.probability)
    n = len(topics)
    c = n // 2 if subset_size is None else _checks.count(subset_size, "subset_size")
    check_subset_size(c, n, disjoint=False)
    seed = resolve_seed(seed)
    drawn = (
        subset_indices(n, c, _checks.draws(trials, "trials"), seed)
        if indices is None
        else given_draws(indices, n, "indices", columns=c)
    )
    trials = drawn.shape[0]
    i, j = pair_index(len(systems))
    n_pairs = len(i)
    measured = run_steps(  # each measure a step: a task on a cluster
        measure_stability,
        list(zip(names, stacked)),
        (drawn, (i, j), fuzziness),
        progress=progress and (lambda done, total: progress(n_pairs, n_pairs)),
        step_progress=progress and (lambda k: progress),
    )
    rows = [row for measure_rows in measured for row in measure_rows]
    parameters = {
        "seed": seed,
        "trials": trials,
        "subset_size": int(drawn.shape[1]),  # of the subsets used, as drawn or given
        "fuzziness": list(fuzziness),
        "measures": names,
        "pairs": int(len(i)),
    }
    return MetaResult("stability", pd.DataFrame(rows), parameters, systems, topics)
