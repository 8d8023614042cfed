"""Discriminative power (Sakai's bootstrap sensitivity; Sakai 2006, 2007).

For every measure and every system pair (C = all pairs) run the paired bootstrap test with
the *same* B bootstrap samples of topics (so measures are compared on equal terms):

    discriminative power at alpha = #{pairs : ASL < alpha}     (and its share of |C|)

Required difference at alpha: for each pair, among its B bootstrap samples take the one with
the (B*alpha)-th largest |t(w*b)| and read |mean(w*b)| of that sample; the estimate is the
largest of these over all pairs (conservative; the papers round it to two significant
figures, reported alongside the exact value).

The chunks of pairs of every measure are independent steps: tasks on a Dask cluster under
``use_engine("dask")``, with the same samples (drawn here) and the same result.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.meta.result import MetaResult
from irgauge.scores import check_matrices
from irgauge.scores.frames import as_score_matrices
from irgauge.stats.bootstrap import bootstrap_pair_sets
from irgauge.stats.resampling import (
    PairDifferences,
    bootstrap_indices,
    given_draws,
    index_counts,
    pair_index,
    resolve_seed,
)
from irgauge.types import Progress, ScoresLike


SUMMARY_COLUMNS = (
    "measure",
    "alpha",
    "significant",
    "pairs",
    "share",
    "required_difference",
    "required_difference_2sf",
)
PAIR_COLUMNS = ("measure", "system_a", "system_b", "difference", "t", "asl")


def round_significant(value: float, digits: int = 2) -> float:
    """``value`` rounded to ``digits`` significant figures (nan and 0 unchanged)."""
    if not np.isfinite(value) or value == 0:
        return value
    return float(f"{value:.{digits - 1}e}")


def discriminative_power(
    matrices: ScoresLike,
    samples: int = 1000,
    alphas: Sequence[float] = (0.01, 0.05),
    seed: Optional[int] = None,
    indices: Optional[np.ndarray] = None,
    progress: Optional[Progress] = None,
) -> MetaResult:
    """Discriminative power of every measure in ``{measure: ScoreMatrix}``.

    ``indices`` (B x n topic indices) replaces the seeded draw of bootstrap samples.
    Returns a summary table (measure, alpha, significant pairs, share, required difference)
    and ``details['pairs']`` (measure, system_a, system_b, difference, t, ASL per pair).
    """
    matrices = as_score_matrices(matrices)  # ScoreMatrix, DataFrame or EvalResult
    names, systems, topics, stacked = check_matrices(matrices)
    alphas = tuple(_checks.sequence(alphas, "alphas", _checks.alpha))
    seed = resolve_seed(seed)
    n = len(topics)
    if indices is None:
        indices = bootstrap_indices(n, _checks.draws(samples, "samples"), seed)
    else:
        indices = given_draws(indices, n, "indices", columns=n)
    samples = indices.shape[0]
    counts = index_counts(indices, n)
    i, j = pair_index(len(systems))
    summary, pair_tables = [], []
    # made a chunk at a time where each chunk is tested (a cluster is sent the scores)
    differences = [PairDifferences(values) for values in stacked]
    tested = bootstrap_pair_sets(differences, counts, alphas, progress=progress)
    for name, res in zip(names, tested):
        for alpha in alphas:
            significant = int(np.sum(res.asl < alpha))
            req = res.required[alpha]
            required = float(np.nanmax(req)) if np.isfinite(req).any() else float("nan")
            summary.append(
                {
                    "measure": name,
                    "alpha": alpha,
                    "significant": significant,
                    "pairs": len(i),
                    "share": significant / len(i),
                    "required_difference": required,
                    "required_difference_2sf": round_significant(required),
                }
            )
        pair_tables.append(
            {
                "measure": np.full(len(i), name, dtype=object),
                "system_a": np.asarray(systems, dtype=object)[i],
                "system_b": np.asarray(systems, dtype=object)[j],
                "difference": res.difference,
                "t": np.asarray(res.statistic),
                "asl": np.asarray(res.asl),
            }
        )
    parameters = {
        "seed": seed,
        "bootstrap_samples": samples,
        "alphas": list(alphas),
        "measures": names,
        "pairs": int(len(i)),
    }
    # tables as columns: DataFrames on first use (printing them needs no pandas)
    table = {key: [row[key] for row in summary] for key in SUMMARY_COLUMNS}
    pairs = {key: np.concatenate([t[key] for t in pair_tables]) for key in PAIR_COLUMNS}
    return MetaResult("discriminative_power", table, parameters, systems, topics, {"pairs": pairs})
