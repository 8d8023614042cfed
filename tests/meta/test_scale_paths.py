"""The paths that let the meta commands scale in systems compute what the direct
definitions compute: every pair of measures in one pass (correlate: Kendall's tau against
the circulant pairs of irgauge.meta.kendall, tau_AP without ties against Yilmaz et al.'s
formula written out here), and Tukey HSD over the systems named (compare --systems A B)."""

from __future__ import annotations

import numpy as np
import pytest

from irgauge.meta.correlation import rank_correlations, tau_ap_a, tau_ap_b
from irgauge.meta.kendall import kendall_tau
from irgauge.scores import ScoreMatrix
from irgauge.stats import compare_pairs
from irgauge.stats.tukey import randomised_tukey_hsd


@pytest.mark.parametrize("seed", range(20))
@pytest.mark.parametrize("variant", ["a", "b"])
def test_one_pass_equals_each_pair_computed_alone(seed, variant):
    rng = np.random.default_rng(seed)
    n, t = int(rng.integers(3, 300)), int(rng.integers(2, 8))
    ties = seed % 2 == 0
    matrices = {}
    for name in "ABC":
        values = rng.integers(0, 4, (n, t)) / 4.0 if ties else rng.random((n, t))
        systems = [f"s{i}" for i in range(n)]
        matrices[name] = ScoreMatrix(values, systems, [str(k) for k in range(t)], name)
    means = {k: m.values.mean(axis=1) for k, m in matrices.items()}
    for row in rank_correlations(matrices, variant=variant).table.itertuples():
        x, y = means[row.measure_a], means[row.measure_b]
        expected = (kendall_tau(x, y, variant), tau_ap_a(x, y), tau_ap_b(x, y))
        np.testing.assert_array_equal((row.tau, row.tau_ap, row.tau_ap_b), expected)
        if not ties:
            assert row.tau_ap == pytest.approx(yilmaz_tau_ap(x, y), abs=1e-12)


def yilmaz_tau_ap(reference, estimate) -> float:
    """2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1 over the estimate's order, C(i) the items it
    ranks above item i that the reference ranks above it too (no ties)."""
    order = sorted(range(len(estimate)), key=lambda k: -estimate[k])
    total = sum(
        sum(reference[j] > reference[order[i]] for j in order[:i]) / i for i in range(1, len(order))
    )
    return 2.0 / (len(order) - 1) * total - 1


def test_tukey_of_named_systems_is_tukey_over_those_systems():
    rng = np.random.default_rng(5)
    values = rng.random((40, 25))
    systems = [f"s{i}" for i in range(40)]
    named = compare_pairs(values, systems, ["tukey"], samples=300, seed=2, pairs=[(3, 17)])
    alone = randomised_tukey_hsd(values[[3, 17]], 300, 2).pvalues[0, 1]
    assert named.table.p_tukey.iloc[0] == alone
    assert named.parameters["tukey_family_systems"] == 2
    every = compare_pairs(values, systems, ["tukey"], samples=300, seed=2)
    assert every.parameters["tukey_family_systems"] == 40
    row = every.table[(every.table.system_a == "s3") & (every.table.system_b == "s17")]
    assert row.p_tukey.iloc[0] == randomised_tukey_hsd(values, 300, 2).pvalues[3, 17]
