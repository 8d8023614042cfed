"""Predictive power phi(A, B) (Webber, Moffat, Zobel & Sakai, seed 004).

Repeat P times (default 2000): split the topics at random into two halves H1 and H2; rank
the systems by the mean of measure A over H1 and by the mean of measure B over H2; take
Kendall's tau between the two rankings. ``phi(A, B)`` is the mean tau over the P splits
(reported with its standard deviation), for every ordered pair of measures including
A = B (self-predictivity). With an odd number of topics H2 holds the extra topic.

As a function of the subset size k: two disjoint subsets of k topics each (the first k and
the next k topics of the same random permutations), k <= n/2.

By default only the top 75% of systems by AP are kept (poor runs inflate tau); the fraction
and the measure are parameters (``top_fraction=1`` keeps all).

All subset means are products of the trials x topics mask with the scores; the pairwise
sign matrices (trials x system pairs, int8) of every measure and half are built once per
chunk of trials and every ordered pair of measures reuses them.
"""
from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from irgauge.errors import InputError
from irgauge.meta.result import MetaResult, check_matrices, check_subset_size
from irgauge.stats.resampling import (chunks, pair_index, pair_signs, permutations,
                                      resolve_seed, subset_mask)


def _taus(values: np.ndarray, first: np.ndarray, second: np.ndarray, variant: str,
          progress=None) -> np.ndarray:
    """tau[a, b, t] between measure a ranked on ``first[t]`` and b ranked on ``second[t]``.

    ``values``: measures x systems x topics; ``first``/``second``: trials x size indices.
    """
    n_measures, n_systems, n_topics = values.shape
    i, j = pair_index(n_systems)
    nn = len(i)
    trials = first.shape[0]
    taus = np.empty((n_measures, n_measures, trials))
    for part in chunks(trials, nn * n_measures * 2):
        # one mask per half and chunk, shared by every measure
        mask1, mask2 = subset_mask(first[part], n_topics), subset_mask(second[part], n_topics)
        s1 = [pair_signs(mask1 @ v.T, i, j) for v in values]
        s2 = [pair_signs(mask2 @ v.T, i, j) for v in values]
        ties1 = [(s == 0).sum(axis=1) for s in s1]
        ties2 = [(s == 0).sum(axis=1) for s in s2]
        for a in range(n_measures):
            for b in range(n_measures):
                num = np.multiply(s1[a], s2[b]).sum(axis=1, dtype=np.int64).astype(float)
                if variant == "a":
                    taus[a, b, part] = num / nn
                else:
                    with np.errstate(invalid="ignore", divide="ignore"):
                        taus[a, b, part] = num / np.sqrt(
                            (nn - ties1[a]) * (nn - ties2[b]).astype(float))
        if progress is not None:
            progress(part.stop, trials)
    return taus


def default_filter_measure(names: Sequence[str]) -> Optional[str]:
    """The measure named AP (case-insensitive), if any."""
    return next((n for n in names if n.lower() in ("ap", "map", "average_precision")), None)


def predictive_power(matrices, halvings: int = 2000, seed: Optional[int] = None,
                     top_fraction: float = 0.75, by: Optional[str] = None,
                     subset_sizes: Sequence[int] = (), variant: str = "b",
                     order: Optional[np.ndarray] = None, progress=None) -> MetaResult:
    """phi(A, B) for every ordered pair of measures; optionally phi against subset size k.

    ``order`` (trials x topics permutations) replaces the seeded draw.
    """
    import pandas as pd

    from irgauge.scores import align, select_systems

    matrices = align(dict(matrices))
    if top_fraction < 1:
        by = by or default_filter_measure(list(matrices))
        if by is None:
            raise InputError("the top-fraction system filter needs a measure to rank by: name "
                             "one (--by), include AP, or keep all systems (top fraction 1)")
        matrices = select_systems(matrices, top_fraction=top_fraction, by=by)
    names, systems, topics, stacked = check_matrices(matrices)
    n = len(topics)
    check_subset_size(1, n, disjoint=True)
    for k in subset_sizes:
        check_subset_size(int(k), n, disjoint=True)
    seed = resolve_seed(seed)
    if order is None:
        order = permutations(n, halvings, seed)
    halvings = order.shape[0]
    half = n // 2
    taus = _taus(stacked, order[:, :half], order[:, half:], variant, progress)
    rows = []
    for a, name_a in enumerate(names):
        for b, name_b in enumerate(names):
            rows.append({"measure_a": name_a, "measure_b": name_b,
                         "phi": taus[a, b].mean(), "sd": taus[a, b].std(ddof=1)})
    curve = []
    for k in subset_sizes:
        k_taus = _taus(stacked, order[:, :k], order[:, k:2 * k], variant)
        for a, name_a in enumerate(names):
            for b, name_b in enumerate(names):
                curve.append({"measure_a": name_a, "measure_b": name_b, "k": int(k),
                              "phi": k_taus[a, b].mean(), "sd": k_taus[a, b].std(ddof=1)})
    parameters = {"seed": seed, "halvings": halvings, "top_fraction": top_fraction,
                  "filter_measure": by if top_fraction < 1 else None, "variant": variant,
                  "subset_sizes": [int(k) for k in subset_sizes], "measures": names}
    return MetaResult("predictive_power", pd.DataFrame(rows), parameters, systems, topics,
                      {"curve": pd.DataFrame(curve)})
