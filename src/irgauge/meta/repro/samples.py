"""Means over topics, observed and over every bootstrap sample at once.

A statistic of the study is a function of means over topics (of KTU, of squared errors,
of scores ...). Each per-topic vector is added once, on its side (the original topics or
the repeated ones); :meth:`TopicMeans.compute` then takes every mean of every sample in
one matrix product per side, and each statistic is computed on vectors whose entry 0 is
the observed value and entries 1..B the bootstrap samples'.
"""

from __future__ import annotations

from typing import Dict, List, Tuple

import numpy as np

from irgauge.meta.repro.effects import sample_means
from irgauge.stats.resampling import bootstrap_indices, index_counts, percentile_interval

SIDES = ("original", "repeated")


def topic_counts(n_topics: int, samples: int, seed) -> np.ndarray:
    """samples x topics: how often each topic is drawn in each bootstrap sample."""
    return index_counts(bootstrap_indices(n_topics, samples, seed), n_topics)


class TopicMeans:
    """Per-topic vectors to average, on the original or the repeated side."""

    def __init__(self) -> None:
        self._rows: Dict[str, List[np.ndarray]] = {side: [] for side in SIDES}
        self._means: Dict[str, np.ndarray] = {}

    def add(self, side: str, values: np.ndarray) -> Tuple[str, int]:
        self._rows[side].append(np.asarray(values, dtype=float))
        return side, len(self._rows[side]) - 1

    def compute(self, counts: Dict[str, np.ndarray]) -> None:
        """Observed and bootstrap means of every vector added: rows x (1 + B)."""
        for side, rows in self._rows.items():
            if rows:
                values = np.stack(rows)
                self._means[side] = np.hstack(
                    [values.mean(axis=1, keepdims=True), sample_means(values, counts[side])]
                )

    def __getitem__(self, handle: Tuple[str, int]) -> np.ndarray:
        side, row = handle
        return self._means[side][row]


def intervals(vectors: np.ndarray, confidence: float):
    """(value, low, high) of each row of ``vectors`` (entry 0 observed, then the samples):
    the percentile interval of the finite samples (a sample where the statistic is
    undefined, ER over a resample whose original improvement is 0, is left out)."""
    boot = np.where(np.isfinite(vectors[:, 1:]), vectors[:, 1:], np.nan)
    low, high = percentile_interval(boot.T, confidence)
    return vectors[:, 0], low, high
