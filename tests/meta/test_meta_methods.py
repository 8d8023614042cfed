"""Meta-evaluation methods against the naive loops of meta_naive (same random samples), on
real adhoc8 matrices; rank correlations against scipy and the ircor fixtures."""

import csv
import json

import numpy as np
import pytest
from scipy import stats as st

import meta_naive as naive
from meta_paths import DATA
from irgauge.errors import InputError
from irgauge.meta import (
    discriminative_power,
    kendall_tau,
    predictive_power,
    rank_correlations,
    stability,
    swap_rates,
    tau_ap,
    tau_threshold,
)
from irgauge.meta.correlation import tau_ap_a, tau_ap_b
from irgauge.stats.resampling import (
    bootstrap_indices,
    disjoint_subset_indices,
    permutations,
    subset_indices,
)


def test_discriminative_power_equals_naive(small):
    n = 50
    idx = bootstrap_indices(n, 200, seed=21)
    result = discriminative_power(small, samples=200, alphas=(0.05,), seed=21)
    assert result.parameters["seed"] == 21
    for measure in ("ap", "p10"):
        row = result.table.query("measure == @measure").iloc[0]
        significant, required = naive.discpower(small[measure].values.tolist(), idx.tolist(), 0.05)
        assert row["significant"] == significant
        assert row["required_difference"] == pytest.approx(required, rel=1e-9)
    pairs = result.details["pairs"]
    assert len(pairs) == 3 * 105 and set(pairs["measure"]) == {"ap", "p10", "rr"}


def test_discriminative_power_shares_samples_across_measures(small):
    # the same matrix under two names must give identical results: same samples for both
    twin = {"a": small["ap"], "b": small["ap"]}
    result = discriminative_power(twin, samples=100, seed=3)
    a, b = (result.details["pairs"].query("measure == @m")["asl"].to_numpy() for m in "ab")
    np.testing.assert_array_equal(a, b)


@pytest.mark.parametrize("mode", ["strict", "original"])
def test_swap_rates_equal_naive(small, mode):
    q1, q2 = disjoint_subset_indices(50, 25, 100, seed=8)
    result = swap_rates({"p10": small["p10"]}, trials=100, seed=8, swap_mode=mode)
    counts, swaps = naive.swap(
        small["p10"].values.tolist(), q1.tolist(), q2.tolist(), strict=mode == "strict"
    )
    assert result.table["comparisons"].tolist() == counts
    assert result.table["swaps"].tolist() == swaps
    assert result.parameters["subset_size"] == 25 and result.parameters["mode"] == mode


def test_strict_swaps_at_least_original(small):
    strict = swap_rates(small, trials=100, seed=1).table["swaps"].sum()
    original = swap_rates(small, trials=100, seed=1, swap_mode="original").table["swaps"].sum()
    assert strict > original  # P@10 and RR have many exactly equal subset means


def test_swap_summary_definitions(small):
    result = swap_rates({"ap": small["ap"]}, trials=200, seed=2)
    table = result.table
    summary = result.details["summary"].iloc[0]
    req = summary["required_difference"]
    rate = table["swap_rate"].to_numpy()
    k = int(round(req / 0.01))
    nonempty = table["comparisons"].to_numpy() > 0
    assert np.all(rate[k:][nonempty[k:]] <= 0.05)
    assert rate[k - 1] > 0.05  # the bin below the required difference is above 5%
    reaching = table["comparisons"].to_numpy()[k:].sum() / table["comparisons"].sum()
    assert summary["share_reaching"] == pytest.approx(reaching)
    assert summary["relative_difference"] == pytest.approx(req / summary["largest_mean"])


def test_swap_with_replacement_and_bad_subset(small):
    result = swap_rates(small, trials=50, seed=1, replacement=True, subset_size=40)
    assert result.parameters["replacement"] is True
    with pytest.raises(InputError, match="disjoint subsets of 26 topics"):
        swap_rates(small, subset_size=26)


def test_stability_equals_naive(small):
    subsets = subset_indices(50, 25, 100, seed=4)
    result = stability(
        {"rr": small["rr"], "ap": small["ap"]}, trials=100, seed=4, fuzziness=(0.01, 0.05, 0.1)
    )
    for measure in ("rr", "ap"):
        for f in (0.01, 0.05, 0.1):
            row = result.table.query("measure == @measure and fuzziness == @f").iloc[0]
            mr, pt = naive.minority_ties(small[measure].values.tolist(), subsets.tolist(), f)
            assert row["minority_rate"] == mr and row["proportion_ties"] == pt
    # more fuzziness: more ties, fewer minority outcomes
    ap = result.table.query("measure == 'ap'")
    assert ap["proportion_ties"].is_monotonic_increasing
    assert ap["minority_rate"].is_monotonic_decreasing


def test_stability_fuzziness_order_and_tie_rule(small):
    forward = stability(small, trials=30, seed=2, fuzziness=(0.02, 0.07)).table
    backward = stability(small, trials=30, seed=2, fuzziness=(0.07, 0.02)).table
    key = ["measure", "fuzziness"]
    assert (
        forward.sort_values(key)
        .reset_index(drop=True)
        .equals(backward.sort_values(key).reset_index(drop=True))
    )
    # the one-pass counting agrees with the tie rule applied per fuzziness value
    from irgauge.meta.stability import outcomes, win_counts

    rng = np.random.default_rng(0)
    mx, my = rng.random((40, 30)).round(1), rng.random((40, 30)).round(1)
    levels = np.array([0.01, 0.05, 0.1, 0.5])
    gt_xy, gt_yx = win_counts(mx, my, levels)
    for k, f in enumerate(levels):
        x_wins, y_wins, _ = outcomes(mx, my, f)
        np.testing.assert_array_equal(gt_xy[:, k], x_wins.sum(axis=0))
        np.testing.assert_array_equal(gt_yx[:, k], y_wins.sum(axis=0))


def test_predictive_power_equals_naive(small):
    order = permutations(50, 60, seed=5)
    result = predictive_power(small, halvings=60, seed=5, top_fraction=1.0, subset_sizes=(10,))
    halves = [(row[:25], row[25:]) for row in order.tolist()]
    k10 = [(row[:10], row[10:20]) for row in order.tolist()]
    table, curve = result.table, result.details["curve"]
    for a, b in [("ap", "ap"), ("ap", "p10"), ("rr", "p10")]:
        phi = table.query("measure_a == @a and measure_b == @b")["phi"].iloc[0]
        assert phi == pytest.approx(
            naive.predictive(small[a].values.tolist(), small[b].values.tolist(), halves), abs=1e-12
        )
        phi_k = curve.query("measure_a == @a and measure_b == @b")["phi"].iloc[0]
        assert phi_k == pytest.approx(
            naive.predictive(small[a].values.tolist(), small[b].values.tolist(), k10), abs=1e-12
        )


def test_predictive_power_odd_topics_and_even_systems_equal_naive(small):
    # 49 topics: H2 holds 25, H1 24; 14 systems: the even-n layout of the pair signs
    odd = {
        m: small[m].take_topics(small[m].topics[:49]).take_systems(small[m].systems[:14])
        for m in ("ap", "p10")
    }
    order = permutations(49, 40, seed=9)
    result = predictive_power(odd, halvings=40, seed=9, top_fraction=1.0)
    halves = [(row[:24], row[24:]) for row in order.tolist()]
    for a, b in [("ap", "p10"), ("p10", "p10")]:
        phi = result.table.query("measure_a == @a and measure_b == @b")["phi"].iloc[0]
        assert phi == pytest.approx(
            naive.predictive(odd[a].values.tolist(), odd[b].values.tolist(), halves), abs=1e-12
        )


def test_predictive_power_rejects_indices_that_are_not_permutations(small):
    with pytest.raises(InputError, match="permutations"):  # what the CLI prints in one line
        predictive_power(small, indices=np.zeros((3, 50), dtype=int), top_fraction=1)


def test_predictive_power_default_filter(small):
    result = predictive_power(small, halvings=20, seed=1)
    assert len(result.systems) == 12  # ceil(0.75 * 15)
    assert result.parameters["filter_measure"] == "ap"
    with pytest.raises(InputError, match="needs a measure to rank by"):
        predictive_power({"p10": small["p10"]}, halvings=20, seed=1)


def test_kendall_tau_matches_scipy(small):
    means = {k: v.means() for k, v in small.items()}
    for a, b in [("ap", "p10"), ("ap", "rr"), ("p10", "rr")]:
        assert kendall_tau(means[a], means[b]) == pytest.approx(
            st.kendalltau(means[a], means[b]).statistic, abs=1e-12
        )
        assert kendall_tau(means[a], means[b], "a") == pytest.approx(
            naive_tau_a(means[a], means[b]), abs=1e-12
        )
    result = rank_correlations(small)
    assert result.details["matrix"].loc["ap", "p10"] == pytest.approx(
        st.kendalltau(means["ap"], means["p10"]).statistic, abs=1e-12
    )


def naive_tau_a(x, y):
    n = len(x)
    s = sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i in range(n) for j in range(i + 1, n))
    return s / (n * (n - 1) / 2)


def test_tau_threshold():
    # SPEC section 7: z * sqrt(2(2n+5) / (9n(n-1))), here 2 * 65 / (9 * 30 * 29) = 130 / 7830
    # under the root and scipy's z_{0.995}; SPEC rounds the result to "about 0.34"
    z = st.norm.ppf(1 - 0.01 / 2)
    assert tau_threshold(30, 0.01) == pytest.approx(z * (130 / 7830) ** 0.5, rel=1e-12)
    assert tau_threshold(30, 0.05) < tau_threshold(30, 0.01)


def test_rank_correlations_against_ircor_fixtures():
    folder = DATA / "rank_correlation_tests"
    if not folder.is_dir():
        pytest.skip("shared rank correlation fixtures not available")
    vectors = json.loads((folder / "ircor_vectors.json").read_text())
    functions = {
        "tau": lambda x, y: kendall_tau(x, y, "a"),
        "tau_a": lambda x, y: kendall_tau(x, y, "a"),
        "tau_b": lambda x, y: kendall_tau(x, y, "b"),
        "tauAP": tau_ap,
        "tauAP_a": tau_ap_a,
        "tauAP_b": tau_ap_b,
    }
    rows = list(csv.DictReader(open(folder / "ircor_expected.tsv"), delimiter="\t"))
    assert len(rows) >= 40
    for row in rows:
        x, y = (vectors[s.split("$")[0]][s.split("$")[1]] for s in (row["x"], row["y"]))
        value = functions[row["function"]](x, y)
        assert value == pytest.approx(float(row["expected"]), abs=float(row["tolerance"])), row


def test_seeded_runs_are_reproducible(small):
    for method, kwargs in [
        (discriminative_power, {"samples": 100}),
        (swap_rates, {"trials": 50}),
        (stability, {"trials": 50}),
        (predictive_power, {"halvings": 50, "top_fraction": 1.0}),
    ]:
        one, two = method(small, seed=99, **kwargs), method(small, seed=99, **kwargs)
        assert one.table.equals(two.table), method.__name__
        other = method(small, seed=100, **kwargs)
        assert not one.table.equals(other.table), method.__name__
        meta = one.metadata()
        assert meta["seed"] == 99 and meta["systems"] == small["ap"].systems
        assert len(meta["topics"]) == 50
