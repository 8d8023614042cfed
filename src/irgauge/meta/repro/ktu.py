"""Kendall's tau union (KTU) of two top-k lists (Breuer et al., SIGIR 2020), per topic.

The lists A and B of the original and the repeated run (top k each, in evaluation order)
hold different documents in general, so tau is taken over their union U: each document
of U is ranked by its position in A, and every document missing from A shares the rank
just below A's last (|A| + 1), tied; likewise in B. KTU is Kendall's tau_b of the two
rankings of U (ties corrected: the documents missing from a list tie there). Identical
lists give 1, one reversed -1, and two disjoint lists -2k / (3k - 1) (every document of A
above every one of B in A, and below it in B).

The pairs are counted without listing them (c documents in both lists, a = |A|, b = |B|):

    both in A and B        c(c-1)/2 - 2 * inversions of B's ranks in A's order (a merge
                           sort of all topics at once, O(c log c) each)
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
    ``second`` (no ties within either): a bottom-up merge sort of every topic's ``second``
    values in ``first``'s order at once. At each level the blocks of w sorted values are
    paired, and each value of a right block counts the values of its left block above it
    (one sorted search of all blocks, made one sorted array by an offset per block) before
    the pairs merge: O(c log c) per topic, where comparing all pairs took O(c^2)."""
    out = np.zeros(n)
    if not len(topic):
        return out
    order = np.lexsort((first, topic))
    topic, second = topic[order], second[order].astype(np.int64)
    counts = np.bincount(topic, minlength=n)
    heads = np.concatenate(([0], np.cumsum(counts)[:-1]))
    width = 1 << int(np.ceil(np.log2(max(int(counts.max()), 1))))
    # padding sorts after every value and sits after a topic's items: never inverted
    big = int(second.max()) + 1
    values = np.full((n, width), big, dtype=np.int64)
    values[topic, np.arange(len(topic)) - heads[topic]] = second
    w = 1
    while w < width:
        blocks = n * (width // (2 * w))
        pairs = values.reshape(blocks, 2, w)
        offset = np.arange(blocks, dtype=np.int64)[:, None]
        left = (pairs[:, 0, :] + offset * (big + 1)).ravel()
        right = (pairs[:, 1, :] + offset * (big + 1)).ravel()
        at_most = np.searchsorted(left, right, side="right").reshape(blocks, w) - offset * w
        out += (w - at_most).reshape(n, -1).sum(axis=1)
        values = np.sort(values.reshape(blocks, 2 * w), axis=1).reshape(n, width)
        w *= 2
    return out
