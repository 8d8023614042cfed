"""What a strategy returns: the pool entries it chooses, each topic's in the order to
judge them, with each one's inclusion probability. Every strategy module defines
``PAPER`` (its reference), ``PARAMETERS`` (its parameters' defaults, all recorded with
the pool) and ``select(candidates, budget, rng, **parameters) -> Selection``."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

import numpy as np


@dataclass(eq=False)
class Selection:
    entries: np.ndarray  # pool entries, topic by topic (ascending), each in judging order
    inclusion: np.ndarray  # probability that the entry is in the pool (1: deterministic)
    # a sample's design beyond what it drew: the pool entries left unsampled and their
    # inclusion probabilities, which infAP's estimator reads (None: a deterministic pool)
    unsampled: Optional[np.ndarray] = None
    unsampled_inclusion: Optional[np.ndarray] = None


def deterministic(entries: np.ndarray) -> Selection:
    return Selection(entries.astype(np.int64), np.ones(len(entries)))


def first_per_topic(topic: np.ndarray, limit: np.ndarray) -> np.ndarray:
    """Mask of the first ``limit[t]`` rows of each topic in rows grouped by topic."""
    if not len(topic):
        return np.zeros(0, dtype=bool)
    heads = np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1])))
    place = np.arange(len(topic)) - np.repeat(heads, np.diff(np.append(heads, len(topic))))
    return place < limit[topic]
