"""The studies' topic-sampling significance at a tiny level: the critical value is
-t_{alpha/2}, finite, where t_{1-alpha/2} was infinite (1 - alpha/2 rounds to 1)."""

import numpy as np
import pytest
from scipy import stats

from irgauge.scores import ScoreMatrix
from irgauge.studies._topics import discriminative_power


def test_required_difference_is_finite_at_a_tiny_alpha():
    values = np.random.default_rng(1).random((3, 12))
    matrix = ScoreMatrix(values, ["a", "b", "c"], [str(j) for j in range(12)], "m")
    resamples = np.arange(12)[None, :]  # the topics themselves, once
    share, required = discriminative_power({"m": matrix}, 1e-20, resamples)
    z = values[[0, 0, 1]] - values[[1, 2, 2]]
    se = z.std(axis=1, ddof=1) / np.sqrt(12)
    expected = stats.t.isf(0.5e-20, 11) * se.max()
    assert np.isfinite(required["m"][0])
    assert required["m"][0] == pytest.approx(expected, rel=1e-12)
    assert share["m"][0] == 0.0
