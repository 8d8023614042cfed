"""Predictive power phi(A, B) (Webber, Moffat, Zobel & Sakai 2008, "Precision-at-ten
considered redundant").

Repeat P times (default 2000): split the topics at random into two halves H1 and H2; rank
the systems by the mean of measure A over H1 and by the mean of measure B over H2; take
Kendall's tau between the two rankings. ``phi(A, B)`` is the mean tau over the P splits
(reported with its standard deviation), for every ordered pair of measures including
A = B (self-predictivity). With an odd number of topics H2 holds the extra topic.

As a function of the subset size k: two disjoint subsets of k topics each (the first k and
the next k topics of the same random permutations), k <= n/2.

By default only the top 75% of systems by AP are kept (poor runs inflate tau); the fraction
and the measure are parameters (``top_fraction=1`` keeps all).

The subset sums of every system and measure are one product of the (system, measure) x topics
scores with the topics x trials count mask per chunk of trials (for halvings the second
half's sums are the totals minus the first's); the pair signs of each ranking
(:mod:`irgauge.meta.kendall`) are built once and serve every ordered pair of measures.
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.meta.correlation import measure_pairs
from irgauge.evaluation.tasks import run_steps
from irgauge.meta.kendall import VARIANTS, sign_cells, tau_blocks, trial_chunks
from irgauge.meta.result import MetaResult, check_subset_size
from irgauge.scores import check_matrices
from irgauge.scores.frames import as_score_matrices
from irgauge.stats.resampling import given_draws, index_counts, permutations, resolve_seed
from irgauge.scores import align, select_systems
from irgauge.types import Progress, ScoresLike


def _taus(
    values: np.ndarray, first: np.ndarray, second: np.ndarray, variant: str, progress=None
) -> np.ndarray:
    """tau[a, b, t] between measure a ranked on ``first[t]`` and b ranked on ``second[t]``.

    ``values``: measures x systems x topics; ``first``/``second``: trials x size indices.
    Each chunk of trials of :func:`~irgauge.meta.kendall.tau_blocks` is a step (a task on
    a cluster), computed as tau_blocks computes it, so the taus do not depend on where.
    """
    n_measures, n_systems, n_topics = values.shape
    # rows = (system, measure): a product with a topics x trials mask is systems-major
    by_system = values.transpose(1, 0, 2).reshape(n_systems * n_measures, n_topics)
    trials = first.shape[0]
    parts = list(trial_chunks(trials, n_measures, n_measures, n_systems))
    blocks = run_steps(
        tau_chunk,
        [(first[part], second[part]) for part in parts],
        (by_system, n_measures, variant, sign_cells()),
        progress=progress and (lambda done, total: progress(parts[done - 1].stop, trials)),
    )
    return np.concatenate(blocks, axis=0).transpose(1, 2, 0)


def tau_chunk(
    subsets, by_system: np.ndarray, n_measures: int, variant: str, max_cells: Optional[int] = None
) -> np.ndarray:
    """tau[t, a, b] of the trials of ``subsets`` = (first, second), trials x size topic
    indices, on ``by_system``: the (system, measure) x topics scores; their pair signs
    ``max_cells`` at a time (:func:`~irgauge.meta.kendall.tau_blocks`)."""
    first, second = subsets
    n_topics = by_system.shape[1]
    n_systems = by_system.shape[0] // n_measures
    totals = by_system.sum(axis=1, keepdims=True)
    complementary = first.shape[1] + second.shape[1] == n_topics

    def means(part):
        size = part.stop - part.start
        shape = (n_systems, n_measures, size)
        sums = by_system @ index_counts(first[part], n_topics).T
        if complementary:  # halvings: the second half's sums are the rest of the totals
            rest = totals - sums
        else:
            rest = by_system @ index_counts(second[part], n_topics).T
        return (sums / first.shape[1]).reshape(shape), (rest / second.shape[1]).reshape(shape)

    return tau_blocks(
        means, first.shape[0], n_measures, n_measures, n_systems, variant, max_cells=max_cells
    )


def _sd(values: np.ndarray) -> float:
    """Sample standard deviation (n - 1); nan, without a warning, for a single halving."""
    return float(values.std(ddof=1)) if len(values) > 1 else float("nan")


def default_filter_measure(names: Sequence[str]) -> Optional[str]:
    """The measure named AP (case-insensitive), if any."""
    return next((n for n in names if n.lower() in ("ap", "map", "average_precision")), None)


@_checks.renamed_keywords(order="indices")
def predictive_power(
    matrices: ScoresLike,
    halvings: int = 2000,
    seed: Optional[int] = None,
    top_fraction: float = 0.75,
    by: Optional[str] = None,
    subset_sizes: Sequence[int] = (),
    variant: str = "b",
    indices: Optional[np.ndarray] = None,
    progress: Optional[Progress] = None,
) -> MetaResult:
    """phi(A, B) for every ordered pair of measures; optionally phi against subset size k.

    ``indices`` (halvings x topics: each row a permutation of the topic positions) replaces
    the seeded draw, as in the other meta-evaluation functions (``order=``, its old name,
    still works, deprecated: ``order`` names a document order elsewhere).
    """
    matrices = as_score_matrices(matrices)  # ScoreMatrix, DataFrame or EvalResult
    # pandas stays out of `import irgauge.meta` (0.6-1 s on 2 cores; tests/test_startup.py)
    import pandas as pd

    _checks.choice(variant, "variant", VARIANTS)
    top_fraction = _checks.fraction(top_fraction, "top_fraction")
    subset_sizes = _checks.sequence(subset_sizes, "subset_sizes", _checks.count)
    matrices, by = _top_systems(align(dict(matrices)), top_fraction, by)
    names, systems, topics, stacked = check_matrices(matrices)
    n = len(topics)
    check_subset_size(1, n, disjoint=True)
    for k in subset_sizes:
        check_subset_size(k, n, disjoint=True)
    seed = resolve_seed(seed)
    order = _topic_orders(indices, n, halvings, seed)
    half = n // 2
    taus = _taus(stacked, order[:, :half], order[:, half:], variant, progress)
    rows = measure_pairs(names, lambda a, b: _phi(taus[a, b]))
    parameters = {
        "seed": seed,
        "halvings": order.shape[0],
        "top_fraction": top_fraction,
        "filter_measure": by if top_fraction < 1 else None,
        "variant": variant,
        "subset_sizes": [int(k) for k in subset_sizes],
        "measures": names,
    }
    curve = _phi_by_size(stacked, order, names, subset_sizes, variant)
    return MetaResult(
        "predictive_power",
        pd.DataFrame(rows),
        parameters,
        systems,
        topics,
        {"curve": pd.DataFrame(curve)},
    )


def _top_systems(matrices: dict, top_fraction: float, by: Optional[str]):
    """The matrices on the top ``top_fraction`` of systems by measure ``by`` (default: AP),
    and the measure used."""
    if _checks.fraction(top_fraction, "top_fraction") < 1:
        by = by or default_filter_measure(list(matrices))
        if by is None:
            raise InputError(
                "the top-fraction system filter needs a measure to rank by: name "
                "one (--by), include AP, or keep all systems (top fraction 1)"
            )
        matrices = select_systems(matrices, top_fraction=top_fraction, by=by)
    return matrices, by


def _topic_orders(indices, n: int, halvings: int, seed: int) -> np.ndarray:
    """halvings x n permutations of the topic positions: ``indices`` checked, or a seeded
    draw."""
    if indices is None:
        return permutations(n, _checks.draws(halvings, "halvings"), seed)
    order = given_draws(indices, n, "indices", columns=n)
    if not (np.sort(order, axis=1) == np.arange(n)).all():
        raise InputError(
            f"indices must be halvings x {n} permutations of the topic positions",
            parameter="indices",
        )
    return order


def _phi(taus: np.ndarray) -> dict:
    """phi = the mean of tau over the trials, with its sample standard deviation."""
    return {"phi": taus.mean(), "sd": _sd(taus)}


def _phi_by_size(stacked, order, names, subset_sizes, variant) -> list:
    """phi(A, B) at each subset size k: A on the first k topics of each permutation, B on
    the next k; one row per k and ordered pair of measures."""
    curve = []
    for k in subset_sizes:
        k_taus = _taus(stacked, order[:, :k], order[:, k : 2 * k], variant)
        curve += measure_pairs(names, lambda a, b: {"k": int(k), **_phi(k_taus[a, b])})
    return curve
