"""Swap rates by performance-difference bin (Voorhees & Buckley 2002; Fig. 2 of Sakai 2004).

For each trial draw two disjoint topic subsets Q and Q' of size c (one shared draw for all
pairs and measures); for each system pair (x, y):

    d = M(x, Q) - M(y, Q),   d' = M(x, Q') - M(y, Q')

|d| goes to bin floor(|d| / 0.01), capped at 20 (21 bins; the last is |d| >= 0.20). A swap is
``d * d' < 0`` or, in the strict form (default), exactly one of d, d' being zero; the
``original`` form counts sign changes only. ``swap_rate(bin) = swaps / comparisons``.

Required difference at confidence 95%: the lower edge of the smallest bin from which the swap
rate stays <= 5% (over the non-empty bins). Also reported: the largest subset mean seen, the
relative difference (required / largest mean) and the share of comparisons whose |d| reaches
the required difference (Table 1 of Sakai 2004).

Subset means for every system and trial are one product of the trials x topics mask with the
scores; differences are formed for all pairs at once (chunked over pairs). Differences within
1e-12 of zero count as zero and bin edges allow 1e-9 of rounding, so mathematically equal
means (e.g. of P@10) are not split by floating-point summation order. Each measure is an
independent step: a task on a Dask cluster under ``use_engine("dask")``, same result.
"""

from __future__ import annotations

from typing import Optional

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.evaluation.tasks import run_steps
from irgauge.meta.result import MetaResult, check_subset_size
from irgauge.scores import check_matrices
from irgauge.scores.frames import as_score_matrices
from irgauge.stats.resampling import (
    TIE_TOLERANCE,
    chunks,
    disjoint_subset_indices,
    given_draws,
    pair_index,
    resolve_seed,
    subset_means,
)
from irgauge.types import Indices, Progress, ScoresLike

BINS = 21
BIN_WIDTH = 0.01
MODES = ("strict", "original")


def difference_bins(d: np.ndarray, width: float = BIN_WIDTH, bins: int = BINS) -> np.ndarray:
    """Bin index of |d|: floor(|d| / width), capped at ``bins - 1``."""
    return np.minimum(np.floor(np.abs(d) / width + 1e-9), bins - 1).astype(np.int64)


def is_swap(d: np.ndarray, d2: np.ndarray, mode: str = "strict") -> np.ndarray:
    """Swap indicator: opposite signs, or (strict) exactly one difference zero."""
    s1 = np.where(np.abs(d) <= TIE_TOLERANCE, 0, np.sign(d))
    s2 = np.where(np.abs(d2) <= TIE_TOLERANCE, 0, np.sign(d2))
    swap = s1 * s2 < 0
    if mode == "strict":
        swap |= (s1 == 0) != (s2 == 0)
    elif mode != "original":
        raise InputError(f"unknown swap mode {mode!r}; choose from {', '.join(MODES)}")
    return swap


def required_bin(counts: np.ndarray, swaps: np.ndarray, max_rate: float) -> Optional[int]:
    """Smallest bin from which every non-empty bin has swap rate <= max_rate (None if none)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = swaps / counts
    bad = np.nonzero((counts > 0) & (rate > max_rate))[0]
    start = 0 if len(bad) == 0 else bad[-1] + 1
    nonempty = np.nonzero(counts[start:] > 0)[0]
    return None if len(nonempty) == 0 else int(start + nonempty[0])


@_checks.renamed_keywords(mode="swap_mode")
def swap_rates(
    matrices: ScoresLike,
    subset_size: Optional[int] = None,
    trials: int = 1000,
    seed: Optional[int] = None,
    swap_mode: str = "strict",
    replacement: bool = False,
    confidence: float = 0.95,
    indices: Indices = None,
    progress: Optional[Progress] = None,
) -> MetaResult:
    """Swap rates per difference bin for every measure in ``{measure: ScoreMatrix}``.

    ``swap_mode``: "strict" (a zero difference on one side only is a swap) or "original"
    (sign changes only), as the studies and ``--swap-mode`` name it (``mode=``, its old
    name, still works, deprecated). ``indices`` = (Q, Q') arrays (trials x c) replaces the
    seeded draw. Table: one row per measure and bin (bin, lower edge, comparisons, swaps,
    swap rate); ``details['summary']``: required difference, largest mean, relative
    difference, share.
    """
    matrices = as_score_matrices(matrices)  # ScoreMatrix, DataFrame or EvalResult
    # pandas stays out of `import irgauge.meta` (0.6-1 s on 2 cores; tests/test_startup.py)
    import pandas as pd

    _checks.choice(swap_mode, "swap_mode", MODES)
    names, systems, topics, stacked = check_matrices(matrices)
    confidence = _checks.confidence(confidence)
    c, seed, (q1, q2) = _subsets(len(topics), subset_size, trials, seed, replacement, indices)
    pairs = pair_index(len(systems))
    n_pairs = len(pairs[0])
    measured = run_steps(  # each measure a step: a task on a cluster
        measure_swaps,
        list(zip(names, stacked)),
        ((q1, q2), pairs, swap_mode, confidence),
        progress=progress and (lambda done, total: progress(n_pairs, n_pairs)),
        step_progress=progress and (lambda k: progress),
    )
    rows = [row for bins, _ in measured for row in bins]
    summary = [required for _, required in measured]
    parameters = {
        "seed": seed,
        "trials": q1.shape[0],
        "subset_size": int(q1.shape[1]),  # of the subsets used, as drawn or given
        "mode": swap_mode,
        "replacement": replacement,
        "confidence": confidence,
        "bins": BINS,
        "bin_width": BIN_WIDTH,
        "measures": names,
        "pairs": int(len(pairs[0])),
    }
    return MetaResult(
        "swap_rates",
        pd.DataFrame(rows),
        parameters,
        systems,
        topics,
        {"summary": pd.DataFrame(summary)},
    )


def _subsets(n: int, subset_size, trials, seed, replacement: bool, indices):
    """The subset size c (default n // 2), the seed and the topic subsets (Q, Q'), each
    trials x c: ``indices`` as given, or drawn from the seed."""
    c = n // 2 if subset_size is None else _checks.count(subset_size, "subset_size")
    check_subset_size(c, n, disjoint=not replacement)
    seed = resolve_seed(seed)
    if indices is None:
        indices = disjoint_subset_indices(n, c, _checks.draws(trials, "trials"), seed, replacement)
    elif not isinstance(indices, (tuple, list)) or len(indices) != 2:
        raise InputError(
            "indices: expected the pair (Q, Q') of trials x c arrays", parameter="indices"
        )
    else:
        indices = tuple(given_draws(q, n, "indices", columns=c) for q in indices)
        if indices[0].shape != indices[1].shape:
            raise InputError(
                f"indices: Q and Q' differ in shape: {indices[0].shape} and {indices[1].shape}",
                parameter="indices",
            )
    return c, seed, indices


def measure_swaps(measure, subsets, pairs, mode: str, confidence: float, progress=None):
    """(rows per bin, required-difference row) of ``measure`` = (name, systems x topics
    scores) on the subsets (Q, Q')."""
    name, values = measure
    m1, m2 = subset_means(values, subsets[0]), subset_means(values, subsets[1])
    counts, swaps = _bin_counts(m1, m2, pairs, mode, progress)
    return (
        _bin_rows(name, counts, swaps),
        _required_difference(name, counts, swaps, m1, m2, confidence),
    )


def _bin_counts(m1: np.ndarray, m2: np.ndarray, pairs, mode: str, progress=None):
    """Comparisons and swaps per bin of |d|, over every trial and system pair, where d and d'
    are the pair's differences of subset means on Q (``m1``) and Q' (``m2``), trials x
    systems."""
    i, j = pairs
    trials = m1.shape[0]
    counts = np.zeros(BINS)
    swaps = np.zeros(BINS)
    for part in chunks(len(i), trials):
        d = m1[:, i[part]] - m1[:, j[part]]
        d2 = m2[:, i[part]] - m2[:, j[part]]
        b = difference_bins(d).ravel()
        counts += np.bincount(b, minlength=BINS)
        swaps += np.bincount(b, weights=is_swap(d, d2, mode).ravel(), minlength=BINS)
        if progress is not None:
            progress(part.stop, len(i))
    return counts, swaps


def _bin_rows(name: str, counts: np.ndarray, swaps: np.ndarray) -> list:
    """One row per bin: its lower edge, comparisons, swaps and swap rate = swaps / comparisons
    (nan for an empty bin)."""
    with np.errstate(invalid="ignore", divide="ignore"):
        rate = swaps / counts
    return [
        {
            "measure": name,
            "bin": k,
            "difference": round(k * BIN_WIDTH, 2),
            "comparisons": int(counts[k]),
            "swaps": int(swaps[k]),
            "swap_rate": rate[k],
        }
        for k in range(BINS)
    ]


def _required_difference(name, counts, swaps, m1, m2, confidence: float) -> dict:
    """Table 1 of Sakai 2004: the required difference (lower edge of the first bin from which
    the swap rate stays <= 1 - confidence), the largest subset mean, their ratio and the
    share of comparisons whose |d| reaches the required difference."""
    k_req = required_bin(counts, swaps, 1 - confidence)
    largest = float(max(m1.max(), m2.max()))
    required = float("nan") if k_req is None else round(k_req * BIN_WIDTH, 2)
    reaching = float("nan") if k_req is None else counts[k_req:].sum() / counts.sum()
    return {
        "measure": name,
        "required_difference": required,
        "largest_mean": largest,
        "relative_difference": required / largest if largest > 0 else np.nan,
        "share_reaching": reaching,
        "comparisons": int(counts.sum()),
    }
