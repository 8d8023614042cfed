"""The strata of a sample of judgments, as xinfAP reads them (Yilmaz, Kanoulas and Aslam,
SIGIR 2008, "A simple and efficient sampling method for estimating AP and NDCG"; TREC's
sample_eval.pl).

A stratum is a topic's documents listed with one inclusion probability: the documents
sampled for judging and, listed at a negative level and read as pooled but unjudged
(``negative="unjudged"``), those of the pool left unsampled. Per stratum h:

  N_h  documents listed (sampled or not),  n_h  sampled (judged),  r_h  judged relevant,

and its documents were sampled uniformly at the rate n_h / N_h, so a judged document of
h stands for N_h / n_h of the stratum's documents and R^ = sum_h r_h N_h / n_h.
Two strata sampled at the same rate read as one (they are told apart by the rate).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional, Tuple

import numpy as np


@dataclass(frozen=True)
class Strata:
    """``keys``: topic * len(rates) + rate code of each stratum (sorted); ``topic``,
    ``size`` (N_h), ``sampled`` (n_h) and ``relevant`` (r_h) per stratum; ``rates``: the
    distinct inclusion probabilities; ``of_judgment``: the stratum of each judgment."""

    keys: np.ndarray
    topic: np.ndarray
    size: np.ndarray
    sampled: np.ndarray
    relevant: np.ndarray
    rates: np.ndarray
    of_judgment: np.ndarray
    n_topics: int

    @classmethod
    def build(
        cls,
        judged: Tuple[np.ndarray, np.ndarray, np.ndarray],
        pooled: Tuple[np.ndarray, Optional[np.ndarray]],
        n_topics: int,
    ) -> "Strata":
        """From ``judged`` = (topic, inclusion, relevant) of each judgment and ``pooled``
        = (topic, inclusion or None) of each pooled-but-unsampled document."""
        judged_topic, judged_pi, relevant = judged
        pooled_topic, pooled_pi = pooled
        if pooled_pi is None:
            pooled_topic, pooled_pi = judged_topic[:0], np.zeros(0)
        topic = np.concatenate([judged_topic, pooled_topic]).astype(np.int64)
        pi = np.concatenate([judged_pi, pooled_pi])
        rates = np.unique(pi)
        key = topic * len(rates) + np.searchsorted(rates, pi)
        keys, stratum = np.unique(key, return_inverse=True)
        stratum = stratum.reshape(-1)
        n_judged = len(judged_topic)
        of_judgment = stratum[:n_judged]
        count = len(keys)
        return cls(
            keys=keys,
            topic=keys // max(len(rates), 1),
            size=np.bincount(stratum, minlength=count),
            sampled=np.bincount(of_judgment, minlength=count),
            relevant=np.bincount(of_judgment, weights=relevant, minlength=count),
            rates=rates,
            of_judgment=of_judgment,
            n_topics=n_topics,
        )

    @property
    def weight(self) -> np.ndarray:
        """N_h / n_h of each stratum: how many of its documents a judged one stands for
        (0 for a stratum with none judged)."""
        return np.divide(
            self.size, self.sampled, out=np.zeros(len(self.size)), where=self.sampled > 0
        )

    @property
    def estimated_R(self) -> np.ndarray:
        """R^ = sum_h r_h N_h / n_h per topic (sample_eval.pl's estimated num_rel)."""
        return np.bincount(self.topic, weights=self.relevant * self.weight, minlength=self.n_topics)

    def index(self, topic: np.ndarray, inclusion: np.ndarray) -> np.ndarray:
        """The stratum of each (topic, inclusion probability); -1 for a document the
        prels do not list (NaN probability): it lies outside the sampled universe."""
        out = np.full(np.shape(inclusion), -1, dtype=np.int64)
        if not len(self.keys):
            return out
        listed = ~np.isnan(inclusion)
        code = np.searchsorted(self.rates, inclusion[listed])
        code = np.minimum(code, len(self.rates) - 1)
        key = np.asarray(topic, dtype=np.int64)[listed] * len(self.rates) + code
        at = np.minimum(np.searchsorted(self.keys, key), len(self.keys) - 1)
        hit = (self.keys[at] == key) & (self.rates[code] == inclusion[listed])
        out[listed] = np.where(hit, at, -1)
        return out
