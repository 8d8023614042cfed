"""``sample``: a sample of each topic's pool with known inclusion probabilities, for the
statistical estimators (statAP, infAP).

Two designs, each of a fixed size n (the budget) per topic:

- ``statap`` (Aslam, Pavlu and Yilmaz 2006, "A statistical method for system evaluation
  using incomplete judgments", SIGIR; the sampling of statAP): the AP prior. A run s
  whose list for the topic holds Z documents (to depth K) gives rank r the weight

      w_s(r) = (1 / 2Z) * (1 + 1/r + 1/(r+1) + ... + 1/Z),   sum over r of w_s(r) = 1,

  a document's prior is the mean of its weights over the runs answering the topic
  (0 where a run does not retrieve it), and its inclusion probability is
  ``pi_d = min(1, c * prior_d)``, c chosen so that the pi sum to n (documents whose
  share would exceed 1 are taken for sure, the rest share n minus their number);
- ``infap`` (Yilmaz and Aslam 2006, "Estimating average precision with incomplete and
  imperfect judgments", CIKM): a uniform sample of the pool, within depth strata when
  ``strata`` lists depths d1 < d2 < ...: stratum h holds the documents whose best rank
  is in (d_{h-1}, d_h] (the last one everything deeper), and gets n_h of the n by
  proportional allocation (largest remainders), so ``pi_d = n_h / N_h``.

The sample is drawn by randomised systematic sampling (Hartley and Rao 1962), which
gives each document exactly its pi_d and a sample of exactly n: within each topic (or
stratum) the documents are put in random order, C_i is the running sum of their pi,
and with one uniform u in [0, 1) the documents i with a point u + j (j = 0, 1, ...) in
(C_{i-1}, C_i] are taken. Equal pi make it simple random sampling without
replacement. Seeded; the chosen documents are judged in pool order (best rank, then
docno).
"""

from __future__ import annotations

from typing import Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.collection.pooling.candidates import Candidates
from irgauge.collection.pooling.selection import Selection
from irgauge.errors import InputError

PAPER = (
    "statAP's sampling (Aslam, Pavlu and Yilmaz 2006); infAP's uniform sample within depth "
    "strata (Yilmaz and Aslam 2006)"
)
PARAMETERS = {"design": "statap", "strata": None}
DESIGNS = ("statap", "infap")


def ap_prior(candidates: Candidates) -> np.ndarray:
    """The AP prior of every pool entry (sums to 1 within each topic)."""
    ranked = candidates.ranked
    length = (ranked >= 0).sum(axis=2)  # Z of each (run, topic)
    width = ranked.shape[2]
    harmonic = np.concatenate(([0.0], np.cumsum(1.0 / np.arange(1, width + 1))))
    rank = np.arange(1, width + 1)
    z = np.maximum(length, 1)[:, :, None]
    weight = (1 + harmonic[z] - harmonic[rank - 1]) / (2 * z)
    there = ranked >= 0
    prior = np.bincount(ranked[there], weights=weight[there], minlength=len(candidates.pool))
    answering = (length > 0).sum(axis=0)  # runs with a list for each topic
    return prior / np.maximum(answering, 1)[candidates.pool.topic]


def capped_inclusion(prior: np.ndarray, group: np.ndarray, n: np.ndarray) -> np.ndarray:
    """``pi = min(1, c * prior)`` with c per group such that the pi sum to ``n[group]``.

    Sorted by prior descending within each group, the first m are capped, m the
    smallest such that the next one's share ``(n - m) * p_(m+1) / sum_{i > m} p_(i)``
    is at most 1 (once one fits, all the smaller ones fit)."""
    order = np.lexsort((-prior, group))
    p, g = prior[order], group[order]
    heads = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1])))
    sizes = np.diff(np.append(heads, len(g)))
    place = np.arange(len(g)) - np.repeat(heads, sizes)
    total = np.add.reduceat(p, heads)
    before = np.cumsum(p) - p - np.repeat(np.cumsum(total) - total, sizes)  # sum above i
    rest = np.repeat(total, sizes) - before  # sum from i on
    fits = (n[g] - place) * p <= rest * (1 + 1e-12)
    big = len(g) + 1
    m = np.minimum.reduceat(np.where(fits, place, big), heads)
    m = np.repeat(m, sizes)
    share = (n[g] - m) * p / _at_place(rest, heads, sizes, m)
    pi = np.where(place < m, 1.0, np.minimum(share, 1.0))
    out = np.empty(len(prior))
    out[order] = pi
    return out


def _at_place(values: np.ndarray, heads: np.ndarray, sizes: np.ndarray, m: np.ndarray):
    """``values`` at place m of each row's group (m within the group)."""
    start = np.repeat(heads, sizes)
    at = np.minimum(start + m, len(values) - 1)
    return np.where(values[at] > 0, values[at], 1.0)


def systematic(pi: np.ndarray, group: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Mask of the documents drawn by randomised systematic sampling within each group
    (see the module docstring); the pi of each group sum to a whole number."""
    if not len(pi):
        return np.zeros(0, dtype=bool)
    shuffle = np.lexsort((rng.random(len(pi)), group))
    p, g = pi[shuffle], group[shuffle]
    heads = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1])))
    sizes = np.diff(np.append(heads, len(g)))
    running = np.cumsum(p)
    offset = np.repeat(running[heads] - p[heads], sizes)
    upper = running - offset
    totals = np.add.reduceat(p, heads)
    # rounding: each group's running sum ends on its whole number exactly
    upper = upper * np.repeat(np.round(totals) / np.where(totals > 0, totals, 1), sizes)
    lower = upper - p * np.repeat(np.round(totals) / np.where(totals > 0, totals, 1), sizes)
    u = np.repeat(rng.random(len(heads)), sizes)
    taken = np.floor(upper - u) > np.floor(lower - u)
    mask = np.zeros(len(pi), dtype=bool)
    mask[shuffle] = taken
    return mask


def strata_of(candidates: Candidates, strata: Optional[Sequence[int]]) -> np.ndarray:
    """Stratum of each entry by its best rank: 0 for ranks <= d1, 1 for (d1, d2], ..."""
    if not strata:
        return np.zeros(len(candidates.pool), dtype=np.int64)
    return np.searchsorted(np.asarray(strata), candidates.pool.best_rank, side="left")


def proportional(sizes: np.ndarray, group_topic: np.ndarray, n: np.ndarray) -> np.ndarray:
    """Largest-remainder allocation of each topic's n to its strata, in proportion to
    their sizes (ties in the remainders to the shallower stratum)."""
    topic_total = np.bincount(group_topic, weights=sizes, minlength=len(n))
    quota = n[group_topic] * sizes / topic_total[group_topic]
    whole = np.floor(quota).astype(np.int64)
    left = n - np.bincount(group_topic, weights=whole, minlength=len(n)).astype(np.int64)
    order = np.lexsort((np.arange(len(sizes)), -(quota - whole), group_topic))
    g = group_topic[order]
    heads = np.flatnonzero(np.concatenate(([True], g[1:] != g[:-1])))
    place = np.arange(len(g)) - np.repeat(heads, np.diff(np.append(heads, len(g))))
    extra = np.zeros(len(sizes), dtype=np.int64)
    extra[order] = place < left[g]
    return whole + extra


def select(candidates: Candidates, budget, rng, design: str = "statap", strata=None) -> Selection:
    if design not in DESIGNS:
        raise InputError(
            f"design: {design!r} is not a sampling design; choose from {', '.join(DESIGNS)}",
            parameter="design",
        )
    if budget is None:
        raise InputError(
            "budget: a sample needs its size: give the documents per topic to judge (--budget)",
            parameter="budget",
        )
    pool = candidates.pool
    n = np.full(candidates.n_topics, budget, dtype=np.int64)
    if design == "statap":
        if strata:
            raise InputError(
                "strata: statAP's design has no strata (they are infAP's)", parameter="strata"
            )
        group = pool.topic
        pi = capped_inclusion(ap_prior(candidates), group, n)
    else:
        strata = _strata(strata)
        stratum = strata_of(candidates, strata)
        group_key = pool.topic * (len(strata) + 1) + stratum
        keys, group = np.unique(group_key, return_inverse=True)
        sizes = np.bincount(group)
        take = proportional(sizes, keys // (len(strata) + 1), n)
        pi = take[group] / sizes[group]
    taken = systematic(pi, group, rng)
    drawn, rest = np.flatnonzero(taken), np.flatnonzero(~taken)  # in pool order already
    return Selection(drawn, pi[drawn], rest, pi[rest])


def _strata(strata) -> list:
    if strata is None:
        return []
    values = _checks.sequence(strata, "strata", lambda d, name: _checks.whole(d, name, 1))
    if sorted(set(values)) != list(values):
        raise InputError(f"strata: depths must increase; got {values}", parameter="strata")
    return list(values)
