"""Significance tests: vectorised code against naive loops and scipy; behaviour under H0."""

import numpy as np
import pytest
from scipy import stats as st
from statsmodels.stats.multitest import multipletests

import meta_naive as naive
from irgauge.stats import (
    benjamini_hochberg,
    compare_pairs,
    holm,
    paired_bootstrap_test,
    paired_t_test,
    randomisation_test,
    randomised_tukey_hsd,
    sign_test,
)
from irgauge.stats.bootstrap import bootstrap_pairs
from irgauge.stats.randomisation import random_signs
from irgauge.stats.resampling import bootstrap_indices, index_counts, pair_index


def test_bootstrap_equals_naive_on_real_pairs(small):
    values = small["ap"].values
    idx = bootstrap_indices(values.shape[1], 300, seed=11)
    for a, b in [(0, 1), (0, 5), (3, 4), (2, 14)]:
        res = paired_bootstrap_test(values[a], values[b], seed=11, samples=300)
        t_obs, asl, _ = naive.bootstrap(list(values[a]), list(values[b]), idx.tolist())
        assert res.pvalue == asl
        assert res.statistic == pytest.approx(t_obs, rel=1e-12)
        assert res.seed == 11 and res.samples == 300


def test_bootstrap_identical_and_shifted_systems():
    x = np.linspace(0, 1, 20)
    assert paired_bootstrap_test(x, x, seed=1).pvalue == 1.0
    assert paired_bootstrap_test(x + 0.1, x, seed=1).pvalue == 0.0


def test_bootstrap_pairs_chunking_does_not_change_results(small):
    values = small["p10"].values
    i, j = pair_index(len(values))
    counts = index_counts(bootstrap_indices(values.shape[1], 200, 5), values.shape[1])
    whole = bootstrap_pairs(values[i] - values[j], counts, (0.05,))
    pieces = bootstrap_pairs(values[i] - values[j], counts, (0.05,), max_cells=1000)
    np.testing.assert_array_equal(whole.asl, pieces.asl)
    # BLAS may round differently for other block shapes: equal to the last bits only
    np.testing.assert_allclose(whole.required[0.05], pieces.required[0.05], rtol=1e-12)


def test_sign_test_matches_scipy(small):
    values = small["p10"].values
    for a, b in [(0, 1), (0, 7), (5, 6)]:
        res = sign_test(values[a], values[b])
        wins = int(np.sum(values[a] > values[b]))
        untied = int(np.sum(values[a] != values[b]))
        assert res.statistic == wins and res.n_untied == untied
        assert res.pvalue == pytest.approx(st.binomtest(wins, untied, 0.5).pvalue, rel=1e-12)


def test_t_test_matches_scipy(small):
    values = small["ap"].values
    for a, b in [(0, 1), (0, 7), (5, 6)]:
        res = paired_t_test(values[a], values[b])
        ref = st.ttest_rel(values[a], values[b])
        assert res.statistic == pytest.approx(ref.statistic, rel=1e-10)
        assert res.pvalue == pytest.approx(ref.pvalue, rel=1e-10)


def test_randomisation_equals_naive(small):
    values = small["rr"].values
    signs = random_signs(values.shape[1], 500, 3)
    for a, b in [(0, 1), (2, 9)]:
        res = randomisation_test(values[a], values[b], permutations=500, seed=3)
        assert res.pvalue == naive.randomisation(list(values[a]), list(values[b]), signs.tolist())


def test_tests_reject_at_about_alpha_under_the_null():
    # 400 independent pairs whose per-topic scores are exchangeable (iid within topic)
    rng = np.random.default_rng(2024)
    topic_effect = rng.beta(2, 5, size=(400, 1, 50))
    scores = np.clip(topic_effect + rng.normal(0, 0.1, size=(400, 2, 50)), 0, 1)
    z = scores[:, 0] - scores[:, 1]
    counts = index_counts(bootstrap_indices(50, 1000, 7), 50)
    asl = bootstrap_pairs(z, counts).asl
    from irgauge.stats.randomisation import randomisation_pvalues

    perm = randomisation_pvalues(z, random_signs(50, 1000, 7))
    for p in (asl, perm):
        assert 0.025 <= np.mean(p < 0.05) <= 0.08
        assert np.mean(p < 0.01) <= 0.03


def test_corrections_known_values():
    p = np.array([0.01, 0.04, 0.03, 0.005])
    # by hand, Holm: sorted p times 4, 3, 2, 1 = 0.02, 0.03, 0.06, 0.04, made non-decreasing
    # (0.04 -> 0.06); BH: sorted p times 4/1, 4/2, 4/3, 4/4 = 0.02, 0.02, 0.04, 0.04
    np.testing.assert_allclose(holm(p), [0.03, 0.06, 0.06, 0.02])
    np.testing.assert_allclose(benjamini_hochberg(p), [0.02, 0.04, 0.04, 0.02])
    for method, ours in (("holm", holm), ("fdr_bh", benjamini_hochberg)):
        np.testing.assert_allclose(ours(p), multipletests(p, method=method)[1], rtol=1e-12)
    assert np.all(holm(p) >= benjamini_hochberg(p))


def test_tukey_equals_naive():
    values = np.random.default_rng(1).random((5, 8))
    res = randomised_tukey_hsd(values, trials=60, seed=9)
    keys = np.random.default_rng(9).random((60, 8, 5)).tolist()
    expected = naive.tukey_pvalues(values.tolist(), keys)
    for (a, b), p in expected.items():
        assert res.pvalues[a, b] == p == res.pvalues[b, a]


@pytest.mark.parametrize("trials_per_chunk", [1, 7, 60])
def test_tukey_chunks_of_trials_read_one_stream(monkeypatch, trials_per_chunk):
    """Each chunk of trials (a step, maybe a task elsewhere) and each block of a chunk's
    trials draws its own keys: they must be the keys of one stream of the seed, as the
    naive loop reads them, however cut."""
    from irgauge.stats import resampling
    from irgauge.stats.tukey import permuted_ranges

    values = np.random.default_rng(1).random((5, 8))
    monkeypatch.setattr(resampling, "BLOCK_CELLS", 7 * values.size)  # blocks of 7 trials
    ranges = permuted_ranges(values, 60, 9, max_cells=trials_per_chunk * values.size)
    keys = np.random.default_rng(9).random((60, 8, 5))
    for b in range(60):
        means = values[np.argsort(keys[b], axis=1, kind="stable").T, np.arange(8)].mean(axis=1)
        assert ranges[b] == pytest.approx(means.max() - means.min(), rel=1e-12)


def test_compare_pairs_table_and_reproducibility(small):
    m = small["ap"]
    one = compare_pairs(
        m.values[:6], m.systems[:6], samples=200, permutations=500, seed=4, correction="holm"
    )
    two = compare_pairs(
        m.values[:6], m.systems[:6], samples=200, permutations=500, seed=4, correction="holm"
    )
    assert len(one.table) == 15
    assert one.table.equals(two.table)
    assert one.parameters["seed"] == 4
    row = one.table.iloc[0]
    assert row["p_t"] == pytest.approx(st.ttest_rel(m.values[0], m.values[1]).pvalue)
    assert (one.table["p_bootstrap_holm"] >= one.table["p_bootstrap"]).all()


def test_permutations_are_portable_when_keys_tie(monkeypatch):
    # tied random keys (never seen in practice) must not leave the order to the sort kind
    class TiedKeys:
        def random(self, shape):
            keys = np.zeros(shape)
            keys[:, ::2] = 0.5
            return keys

    from irgauge.stats import resampling

    monkeypatch.setattr(resampling.np.random, "default_rng", lambda seed: TiedKeys())
    order = resampling.permutations(40, 3, seed=0)
    expected = np.r_[np.arange(1, 40, 2), np.arange(0, 40, 2)]
    assert (order == expected).all()


def test_permutations_are_uniform_permutations():
    from irgauge.stats.resampling import permutations

    order = permutations(5, 12000, seed=2)
    assert (np.sort(order, axis=1) == np.arange(5)).all()
    first = np.bincount(order[:, 0], minlength=5) / 12000
    assert np.abs(first - 0.2).max() < 0.02


def test_many_sign_tests_read_one_table_of_whole_counts(monkeypatch):
    # system agreement tests every pair under every weighting: counts up to the topics',
    # hundreds of thousands of cells. scipy's cdf, cell by cell, took three quarters of
    # its time; a table of every (untied, low) is the same bits in far fewer cells
    from irgauge.stats import classic

    rng = np.random.default_rng(4)
    untied = rng.integers(0, 31, size=(20, 300))
    wins = (rng.random(untied.shape) * (untied + 1)).astype(int)
    low = np.minimum(wins, untied - wins)
    cell_by_cell = np.minimum(1.0, 2.0 * st.binom.cdf(low, untied, 0.5))
    expected = np.where((untied == 0) | (2 * wins == untied), 1.0, cell_by_cell)
    cells = []
    real = classic._sign_tail
    monkeypatch.setattr(
        classic, "_sign_tail", lambda k, m: cells.append(np.broadcast(k, m).size) or real(k, m)
    )
    found = classic.sign_pvalues(wins, untied)
    assert found.tobytes() == expected.tobytes()  # the same bits
    assert cells == [31 * 31]  # one table, not a cell per test
    # counts that are not whole, or a single test, are computed cell by cell
    assert classic.sign_pvalues(3, 10) == pytest.approx(st.binomtest(3, 10).pvalue, rel=1e-12)
    assert cells[-1] == 1
