"""Label agreement between assessors (human or LLM), with bootstrap intervals over topics.

For two qrels A and B, on the (topic, docno) pairs both judge, with O the confusion matrix
of their levels (rows A, columns B, levels as judged), N = sum O, and E = r c^T / N the
counts expected from the margins r (A) and c (B):

* Cohen's (1960) kappa, binary at level l (relevant = level >= l):
  kappa = (p_o - p_e) / (1 - p_e) on the 2 x 2 collapse of O;
* weighted kappa (Cohen 1968): kappa_w = 1 - sum(W O) / sum(W E) with disagreement weights
  W_ij = |g_i - g_j| (linear) or (g_i - g_j)^2 (quadratic) on the grades g, negative grades
  clipped to 0 (judged nonrelevant, as grade 0);
* Krippendorff's (2004, 2011) alpha over any number of qrels, on the units (pairs) judged
  by at least two, grades clipped to 0 as above: with the coincidence matrix
  o_ck = sum_u #(c-k pairs in unit u) / (m_u - 1), n_c = sum_k o_ck, n = sum_c n_c,
  alpha = 1 - (n - 1) sum o_ck d2_ck / sum n_c n_k d2_ck, where d2_ck = (v_c - v_k)^2
  (interval) or (sum_{g=c..k} n_g - (n_c + n_k) / 2)^2 (ordinal);
* leniency: the mean grade difference B - A (clipped grades), the share of A's relevant
  pairs that B judges nonrelevant and the share of B's relevant pairs A judges nonrelevant.

Every statistic is a function of per-topic counts (confusion counts, coincidences, pairs),
so a bootstrap over topics is one product of the (samples x topics) count matrix with the
(topics x counts) table; the percentile interval
(:func:`irgauge.stats.resampling.percentile_interval`) is taken over the samples (NaN samples,
e.g. a kappa whose p_e is 1, left out).
"""

from __future__ import annotations

from typing import Dict, Optional

import numpy as np

from irgauge.io.words import counted
from irgauge.stats.resampling import bootstrap_indices, index_counts

LABEL_STATISTICS = (
    "pairs",
    "only_a",
    "only_b",
    "cohen_kappa",
    "weighted_kappa_linear",
    "weighted_kappa_quadratic",
    "krippendorff_alpha_ordinal",
    "krippendorff_alpha_interval",
    "mean_grade_difference",
    "a_relevant_b_not",
    "b_relevant_a_not",
)
ALL_STATISTICS = ("pairs", "krippendorff_alpha_ordinal", "krippendorff_alpha_interval")


def _ratio(top, bottom):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.asarray(top, float) / np.asarray(bottom, float)


def kappa(confusion: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """1 - sum(W O) / sum(W E) over the last two axes of ``confusion`` (rows A, columns B);
    W = 1 - I gives Cohen's unweighted kappa."""
    total = confusion.sum(axis=(-2, -1))
    expected = _ratio(
        confusion.sum(axis=-1)[..., :, None] * confusion.sum(axis=-2)[..., None, :],
        total[..., None, None],
    )
    observed = (confusion * weights).sum(axis=(-2, -1))
    return 1.0 - _ratio(observed, (expected * weights).sum(axis=(-2, -1)))


def binary_kappa(confusion: np.ndarray, levels: np.ndarray, rel_level: int) -> np.ndarray:
    """Cohen's kappa with relevant = level >= rel_level."""
    onehot = np.stack([levels < rel_level, levels >= rel_level], axis=1).astype(float)
    collapsed = onehot.T @ confusion @ onehot
    return kappa(collapsed, 1.0 - np.eye(2))


def weighted_kappa(confusion: np.ndarray, levels: np.ndarray, power: int) -> np.ndarray:
    """Weighted kappa, weights |g_i - g_j| ** power on the grades clipped to 0."""
    grades = np.maximum(levels, 0.0)
    return kappa(confusion, np.abs(grades[:, None] - grades[None, :]) ** power)


def leniency(confusion: np.ndarray, levels: np.ndarray, rel_level: int) -> Dict[str, np.ndarray]:
    """Mean grade difference B - A (grades clipped to 0) and the shares of one side's
    relevant pairs the other judges nonrelevant."""
    grades = np.maximum(levels, 0.0)
    relevant = levels >= rel_level
    total = confusion.sum(axis=(-2, -1))
    difference = (confusion * (grades[None, :] - grades[:, None])).sum(axis=(-2, -1))
    a_rel = confusion[..., relevant, :]
    b_rel = confusion[..., :, relevant]
    return {
        "mean_grade_difference": _ratio(difference, total),
        "a_relevant_b_not": _ratio(
            a_rel[..., :, ~relevant].sum(axis=(-2, -1)), a_rel.sum(axis=(-2, -1))
        ),
        "b_relevant_a_not": _ratio(
            b_rel[..., ~relevant, :].sum(axis=(-2, -1)), b_rel.sum(axis=(-2, -1))
        ),
    }


def coincidences(
    grades: np.ndarray, topic: np.ndarray, n_topics: int, domain: np.ndarray
) -> np.ndarray:
    """Per-topic coincidence matrices, topics x V x V, of the units (rows of ``grades``,
    NaN = not judged) judged at least twice; ``domain`` the V sorted values."""
    judged = ~np.isnan(grades)
    value = np.searchsorted(domain, np.where(judged, grades, domain[0]))
    cells = np.zeros((len(grades), len(domain)))
    rows = np.broadcast_to(np.arange(len(grades))[:, None], grades.shape)
    np.add.at(cells, (rows[judged], value[judged]), 1.0)
    m = judged.sum(axis=1)
    keep = m >= 2
    cells, weight, topic = cells[keep], 1.0 / (m[keep] - 1), topic[keep]
    v = len(domain)
    out = np.empty((n_topics, v, v))
    for c in range(v):  # V^2 bincounts over the units (V grades), never a loop over units
        for k in range(v):
            w = cells[:, c] * (cells[:, k] - (c == k)) * weight
            out[:, c, k] = np.bincount(topic, weights=w, minlength=n_topics)
    return out


def krippendorff_alpha(coincidence: np.ndarray, domain: np.ndarray, level: str) -> np.ndarray:
    """Alpha from coincidence matrices (..., V, V) at ``level`` "interval" or "ordinal"."""
    margins = coincidence.sum(axis=-1)
    n = margins.sum(axis=-1)
    if level == "interval":
        d2 = (domain[:, None] - domain[None, :]) ** 2
    else:
        cum = np.cumsum(margins, axis=-1)
        low = np.minimum.outer(np.arange(len(domain)), np.arange(len(domain)))
        high = np.maximum.outer(np.arange(len(domain)), np.arange(len(domain)))
        between = cum[..., high] - cum[..., low] + margins[..., low]
        d2 = (between - (margins[..., :, None] + margins[..., None, :]) / 2) ** 2
    observed = (coincidence * d2).sum(axis=(-2, -1))
    expected = (margins[..., :, None] * margins[..., None, :] * d2).sum(axis=(-2, -1))
    return 1.0 - (n - 1) * _ratio(observed, expected)


def weights_matrix(n_topics: int, samples: int, seed: int) -> np.ndarray:
    """(1 + samples) x topics: the all-ones row (the point estimate), then the bootstrap
    samples' topic counts (``bootstrap_indices`` of ``seed``). Fewer than 2 topics have no
    bootstrap: the samples' rows are NaN, so every interval is NaN (see
    :func:`too_few_topics`) while the point estimate stands."""
    if n_topics < 2:
        return np.vstack([np.ones((1, n_topics)), np.full((samples, n_topics), np.nan)])
    counts = index_counts(bootstrap_indices(n_topics, samples, seed), n_topics)
    return np.vstack([np.ones((1, n_topics)), counts])


def resampled_sums(table: np.ndarray, samples: int, seed: int) -> np.ndarray:
    """(1 + samples) x columns: the per-topic ``table`` (topics x columns) summed over all
    topics once, then over each bootstrap sample of :func:`weights_matrix`."""
    weights = weights_matrix(len(table), samples, seed)
    # NaN weights (no bootstrap) times an empty table: keep them NaN, not 0
    return np.where(np.isnan(weights).any(axis=1, keepdims=True), np.nan, weights @ table)


def too_few_topics(what: str, n_topics: int) -> Optional[str]:
    """The note of a pair of qrels (``what``) sharing too few topics for a bootstrap, or
    None: its intervals are NaN, and with no topic its statistics too."""
    if n_topics >= 2:
        return None
    undefined = "statistics and intervals" if n_topics == 0 else "intervals"
    shared = counted(n_topics, "topic")
    return f"{what} share {shared}: {undefined} NaN (a bootstrap needs 2 topics)"
