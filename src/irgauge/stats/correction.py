"""Multiple-comparison corrections of p-values (vectorised, order-preserving).

* Holm (step-down, controls the family-wise error rate): with p sorted ascending,
  p_adj(i) = max_{k <= i} min(1, (m - k + 1) * p(k)).
* Benjamini-Hochberg (step-up, controls the false discovery rate): with p sorted ascending,
  p_adj(i) = min_{k >= i} min(1, m * p(k) / k).
"""

from __future__ import annotations

import numpy as np

from irgauge import _checks

METHODS = ("none", "holm", "bh")


def holm(pvalues) -> np.ndarray:
    p = _checks.real_array(pvalues, "pvalues")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, (m - np.arange(m)) * p[order])
    adjusted = np.empty(m)
    adjusted[order] = np.maximum.accumulate(scaled)
    return adjusted


def benjamini_hochberg(pvalues) -> np.ndarray:
    p = _checks.real_array(pvalues, "pvalues")
    m = p.size
    order = np.argsort(p, kind="stable")
    scaled = np.minimum(1.0, m * p[order] / np.arange(1, m + 1))
    adjusted = np.empty(m)
    adjusted[order] = np.minimum.accumulate(scaled[::-1])[::-1]
    return adjusted


def adjust(pvalues, method: str) -> np.ndarray:
    """Adjust p-values by ``method`` in METHODS ("none" returns them unchanged)."""
    _checks.choice(method, "method", METHODS)
    if method == "none":
        return _checks.real_array(pvalues, "pvalues")
    if method == "holm":
        return holm(pvalues)
    return benjamini_hochberg(pvalues)
