"""Rank-biased overlap (Webber, Moffat and Zobel, "A similarity measure for indefinite
rankings", TOIS 2010) of two top-k lists, per topic: the extrapolated value and the bounds
of the full rankings' RBO that the prefixes leave open.

With persistence p, X_d the overlap of the two lists' first d documents and s <= l the
two lists' lengths (the shorter S wholly seen, X_d for s < d <= l the overlap of S with
L's first d), Webber et al. give

    RBO_ext = (1-p)/p (sum_{d=1}^{l} X_d p^d / d + sum_{d=s+1}^{l} X_s (d - s) p^d / (s d))
              + ((X_l - X_s) / l + X_s / s) p^l                              (eq. 32)
    RBO_min = (1-p)/p (sum_{d=1}^{l} (X_d - X_l) p^d / d - X_l ln(1 - p))   (eq. 11, uneven)
    RBO_max = RBO_min + residual: every document not seen matches, as early as it can.

RBO_max sums (1-p) p^(d-1) X*_d / d, where X*_d is the largest overlap at depth d that
the seen prefixes allow: the seen overlap, plus each unseen document of one list matching
a seen, unmatched one of the other, plus the unseen ones matching each other; from depth
s + l on, X*_d = d and the tail sums to p^(s+l). Identical lists give RBO_ext = RBO_max = 1.
"""

from __future__ import annotations

from typing import Tuple

import numpy as np

from irgauge.meta.repro.lists import TopK


def overlaps(top: TopK) -> np.ndarray:
    """``X[t, d - 1]``: the overlap of topic t's two lists at depth d, d = 1 .. the longer
    list's length (constant beyond each topic's longer list): a document both hold counts
    from the depth at which both have shown it."""
    depth = max(int(max(top.a_len.max(), top.b_len.max())) if top.n_topics else 1, 1)
    at = np.maximum(top.common_a, top.common_b) - 1
    counts = np.bincount(top.common_topic * depth + at, minlength=top.n_topics * depth)
    return np.cumsum(counts.reshape(top.n_topics, depth), axis=1).astype(float)


def rbo(top: TopK, p: float) -> Tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(RBO_ext, RBO_min, RBO_max) of each topic at persistence ``p`` (0 < p < 1)."""
    x = overlaps(top)
    s = np.minimum(top.a_len, top.b_len)
    ell = np.maximum(top.a_len, top.b_len)
    width = x.shape[1]
    d = np.arange(1, width + 1, dtype=float)
    # (1-p)/p p^d as (1-p) p^(d-1): (1-p)/p overflows for a subnormal p, while the
    # weights stay finite (the first is 1) down to p = 0
    weight = p ** (d - 1) / d
    rows = np.arange(top.n_topics)
    x_s = x[rows, np.maximum(s, 1) - 1]
    x_l = x[rows, np.maximum(ell, 1) - 1]
    seen = d[None, :] <= ell[:, None]
    beyond_s = seen & (d[None, :] > s[:, None])
    with np.errstate(divide="ignore", invalid="ignore"):
        extra = np.where(beyond_s, x_s[:, None] * (d - s[:, None]) / s[:, None], 0.0)
        tail = ((x_l - x_s) / ell + x_s / s) * p**ell
    ext = (1 - p) * ((np.where(seen, x, 0.0) + extra) * weight).sum(axis=1) + tail
    # -ln(1 - p) / p: 1 as p goes to 0, where log1p(-p) is -p to the last bit
    low = (1 - p) * (
        (np.where(seen, x - x_l[:, None], 0.0) * weight).sum(axis=1) - x_l * np.log1p(-p) / p
    )
    high = _rbo_max(x, s, ell, p)
    # RBO_min <= RBO_ext <= RBO_max holds exactly; the sums' rounding may cross by 1e-16
    return np.minimum(np.maximum(ext, low), high), low, high


def _rbo_max(x: np.ndarray, s: np.ndarray, ell: np.ndarray, p: float) -> np.ndarray:
    """RBO_max of each topic (see the module's docstring)."""
    end = int((s + ell).max()) if len(s) else 1
    d = np.arange(1, end + 1)
    s_d = np.minimum(d[None, :], s[:, None])  # seen lengths at depth d
    l_d = np.minimum(d[None, :], ell[:, None])
    seen = np.take_along_axis(x, np.minimum(l_d, x.shape[1]) - 1, axis=1)
    unseen_s, unseen_l = d - s_d, d - l_d
    m1 = np.minimum(unseen_s, l_d - seen)
    m2 = np.minimum(unseen_l, s_d - seen)
    best = seen + m1 + m2 + np.minimum(unseen_s - m1, unseen_l - m2)
    inside = d[None, :] <= (s + ell)[:, None]
    head = (1 - p) * (np.where(inside, best / d, 0.0) * p ** (d - 1.0)).sum(axis=1)
    return head + p ** (s + ell).astype(float)
