"""Kendall's tau union (KTU) of two top-k lists (Breuer et al., SIGIR 2020), per topic.

The lists A and B of the original and the repeated run (top k each, in evaluation order)
hold different documents in general, so tau is taken over their union U: each document
of U is ranked by its position in A, and every document missing from A shares the rank
just below A's last (|A| + 1), tied; likewise in B. KTU is Kendall's tau_b of the two
rankings of U (ties corrected: the documents missing from a list tie there). Identical
lists give 1, one reversed -1, and two disjoint lists -2k / (3k - 1) (every document of A
above every one of B in A, and below it in B).

The pairs are counted without listing them (c documents in both lists, a = |A|, b = |B|):

    both in A and B        c(c-1)/2 - 2 * inversions of B's ranks in A's order
    common x A-only        ordered alike in A iff the common one is above (in B it is)
    common x B-only        likewise in B
    A-only x B-only        -(a - c)(b - c): always in opposite orders
    A-only x A-only        tied in B, not counted (and B-only pairs in A)

untied_A = |U|(|U|-1)/2 - (b-c)(b-c-1)/2, untied_B likewise, and KTU = tau_b(net,
untied_A, untied_B) (:func:`irgauge.meta.kendall.tau_b`).
"""

from __future__ import annotations

import numpy as np

from irgauge.meta.kendall import tau_b
from irgauge.meta.repro.lists import TopK

# cells of one chunk of the inversion count (topics x c x c booleans)
_CHUNK_CELLS = 1 << 24


def ktu(top: TopK) -> np.ndarray:
    """KTU of each topic (NaN where the union holds one document)."""
    n = top.n_topics
    c = np.bincount(top.common_topic, minlength=n).astype(float)
    a, b = top.a_len.astype(float), top.b_len.astype(float)
    u = a + b - c
    net = c * (c - 1) / 2 - 2 * inversions(top.common_topic, top.common_a, top.common_b, n)
    net += _cross(top.a_only_topic, top.a_only_rank, c, n)
    net += _cross(top.b_only_topic, top.b_only_rank, c, n)
    net -= (a - c) * (b - c)
    pairs = u * (u - 1) / 2
    return tau_b(net, pairs - (b - c) * (b - c - 1) / 2, pairs - (a - c) * (a - c - 1) / 2)


def _cross(topic: np.ndarray, rank: np.ndarray, c: np.ndarray, n: int) -> np.ndarray:
    """Sum over the documents only one list holds of (common documents above it - those
    below it) in that list: above = rank - 1 - (the list's one-list documents above it)."""
    order = np.lexsort((rank, topic))
    topic, rank = topic[order], rank[order]
    if not len(topic):
        return np.zeros(n)
    heads = np.flatnonzero(np.concatenate(([True], topic[1:] != topic[:-1])))
    before = np.arange(len(topic)) - np.repeat(heads, np.diff(np.append(heads, len(topic))))
    above = rank - 1 - before
    return np.bincount(topic, weights=2 * above - c[topic], minlength=n)


def inversions(topic: np.ndarray, first: np.ndarray, second: np.ndarray, n: int) -> np.ndarray:
    """Per topic, the pairs of its items ordered one way by ``first`` and the other by
    ``second`` (no ties within either): a topics x c x c comparison, in chunks of topics."""
    out = np.zeros(n)
    if not len(topic):
        return out
    order = np.lexsort((first, topic))
    topic, second = topic[order], second[order].astype(float)
    counts = np.bincount(topic, minlength=n)
    heads = np.concatenate(([0], np.cumsum(counts)[:-1]))
    width = int(counts.max())
    padded = np.full((n, width), np.inf)  # padding sorts after every item: never inverted
    padded[topic, np.arange(len(topic)) - heads[topic]] = second
    later = np.triu(np.ones((width, width), bool), 1)
    step = max(1, _CHUNK_CELLS // max(1, width * width))
    for start in range(0, n, step):
        block = padded[start : start + step]
        out[start : start + step] = ((block[:, :, None] > block[:, None, :]) & later).sum(
            axis=(1, 2)
        )
    return out
