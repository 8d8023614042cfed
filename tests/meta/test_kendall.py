"""Kendall's tau on many rankings at once (irgauge.meta.kendall) against scipy and a loop."""

import itertools

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as hs
from scipy import stats as st

from irgauge.meta import kendall
from irgauge.meta.kendall import kendall_tau, kendall_tau_cross, pair_signs
from tests.conftest import examples


def loop_tau_a(x, y):
    pairs = list(itertools.combinations(range(len(x)), 2))
    return sum(np.sign(x[i] - x[j]) * np.sign(y[i] - y[j]) for i, j in pairs) / len(pairs)


def reference(x, y, variant):
    """tau[t, a, b] from scipy (b) or the loop (a), one pair of vectors at a time."""
    trials, n_x, _ = x.shape
    out = np.empty((trials, n_x, y.shape[1]))
    for t, a, b in np.ndindex(out.shape):
        out[t, a, b] = (
            st.kendalltau(x[t, a], y[t, b]).statistic
            if variant == "b"
            else loop_tau_a(x[t, a], y[t, b])
        )
    return out


@settings(max_examples=examples(60), deadline=None)
@given(
    trials=hs.integers(1, 4),
    n_x=hs.integers(1, 3),
    n_y=hs.integers(1, 3),
    n=hs.integers(2, 23),
    levels=hs.integers(2, 6),
    variant=hs.sampled_from("ab"),
    seed=hs.integers(0, 2**32 - 1),
)
def test_cross_matches_scipy_and_loop(trials, n_x, n_y, n, levels, variant, seed):
    # few distinct levels: ties within and across rankings are common
    rng = np.random.default_rng(seed)
    x = rng.integers(0, levels, size=(trials, n_x, n)) / levels
    y = rng.integers(0, levels, size=(trials, n_y, n)) / levels
    got = kendall_tau_cross(x, y, variant)
    np.testing.assert_allclose(got, reference(x, y, variant), atol=1e-12)


@pytest.mark.parametrize("n", [2, 3, 8, 9])
def test_every_pair_once(n):
    # distinct scores: each unordered pair appears in exactly one cell, with either sign
    x = np.arange(n, dtype=float)[:, None]
    signs = pair_signs(x)[:, 0]
    assert np.count_nonzero(signs) == n * (n - 1) // 2
    half = n // 2
    met = {
        frozenset((i, (i + d) % n))
        for d in range(1, half + 1)
        for i in range(n)
        if signs[(d - 1) * n + i] != 0
    }
    assert met == {frozenset(p) for p in itertools.combinations(range(n), 2)}


def test_rounding_differences_are_ties():
    x = np.array([0.1 + 0.2, 0.3, 0.5])  # 0.30000000000000004 and 0.3 are one score
    y = np.array([1.0, 2.0, 3.0])
    assert kendall_tau(x, y, "a") == pytest.approx(2 / 3)
    assert kendall_tau(x, y) == pytest.approx(st.kendalltau([0.3, 0.3, 0.5], y).statistic)


def test_all_ties_is_nan_for_tau_b():
    assert np.isnan(kendall_tau([1, 1, 1], [1, 2, 3]))
    assert kendall_tau([1, 1, 1], [1, 2, 3], "a") == 0


def test_chunks_and_buffer_reuse_change_nothing(monkeypatch):
    rng = np.random.default_rng(7)
    x = rng.integers(0, 5, size=(37, 3, 12)).astype(float)
    y = rng.integers(0, 5, size=(37, 2, 12)).astype(float)
    whole = kendall_tau_cross(x, y)
    monkeypatch.setattr(kendall, "_CHUNK_CELLS", 1000)  # 330 cells a trial: chunks of 3, last of 1
    np.testing.assert_array_equal(kendall_tau_cross(x, y), whole)
    np.testing.assert_allclose(whole, reference(x, y, "b"), atol=1e-12)


def test_many_systems_use_a_wide_accumulator():
    # 300 systems: 44,850 pairs overflow an int16 sum
    rng = np.random.default_rng(3)
    x = rng.random(300)
    y = x + rng.normal(0, 0.01, 300)
    assert kendall_tau(x, y) == pytest.approx(st.kendalltau(x, y).statistic, abs=1e-12)
    assert kendall_tau(x, x) == 1


def test_bad_arguments():
    with pytest.raises(ValueError, match="variant: unknown value"):
        kendall_tau([1, 2], [1, 2], "c")
    with pytest.raises(ValueError, match="trials x rankings x systems"):
        kendall_tau_cross(np.zeros((2, 1, 3)), np.zeros((2, 1, 4)))


def test_topic_resamples_use_the_one_tau_and_its_tie_rule():
    # the studies' topic resamples once had their own tau, without the tie rule: on these
    # means, one rounding apart for systems 0 and 1, it gave 1.0 where kendall_tau gives 0.913
    from irgauge.scores import ScoreMatrix
    from irgauge.studies import _topics

    x = np.array([0.3, 0.3 + 1e-13, 0.5, 0.1])
    y = np.array([0.1, 0.2, 0.3, 0.05])
    matrices = {
        name: ScoreMatrix(np.tile(v[:, None], (1, 3)), list("abcd"), ["1", "2", "3"], name)
        for name, v in (("x", x), ("y", y))
    }
    resamples = np.array([[0, 1, 2], [2, 2, 0]])
    taus = _topics.taus(matrices, resamples)[("x", "y")]
    np.testing.assert_array_equal(taus, [kendall_tau(x, y)] * 2)
    assert kendall_tau(x, y) == pytest.approx(st.kendalltau([0.3, 0.3, 0.5, 0.1], y).statistic)


@settings(max_examples=examples(25), deadline=None)
@given(hs.integers(2, 9), hs.integers(1, 7), hs.integers(0, 2**32 - 1))
def test_columns_match_one_pair_at_a_time(systems, columns, seed):
    rng = np.random.default_rng(seed)
    x = rng.integers(0, 4, size=(systems, columns)) / 3
    y = rng.integers(0, 4, size=(systems, columns)) / 3
    for variant in kendall.VARIANTS:
        expected = [kendall_tau(x[:, t], y[:, t], variant) for t in range(columns)]
        np.testing.assert_array_equal(kendall.kendall_tau_columns(x, y, variant), expected)
    with pytest.raises(ValueError, match="systems x columns"):
        kendall.kendall_tau_columns(x, y[:, :0])


@pytest.mark.parametrize("jobs", [1, 2, 3])
def test_the_predictive_steps_share_the_chunks_cells_among_the_threads(monkeypatch, jobs):
    # each step of trials made pair signs for a whole chunk of _CHUNK_CELLS, however many
    # threads ran steps at once: the signs in flight grew with --jobs. They now share the
    # chunk's cells (a part of the pairs at a time), and the products' grid of trials (the
    # means' bits) stays the chunk's
    import irgauge
    from irgauge.evaluation.tasks import use_jobs

    monkeypatch.delenv("IRGAUGE_THREADS", raising=False)
    rng = np.random.default_rng(11)
    systems, topics = [f"s{k}" for k in range(9)], [f"t{k}" for k in range(20)]
    scores = {  # quarters: many ties
        m: pd.DataFrame(rng.integers(0, 4, size=(20, 9)) / 4, index=topics, columns=systems)
        for m in ("AP", "P10")
    }
    per_trial = 2 * 2 * (9 * 8 // 2)  # two measures each side, 36 pairs of systems
    monkeypatch.setattr(kendall, "_CHUNK_CELLS", 12 * per_trial)
    with use_jobs(1):
        alone = irgauge.predictive_power(scores, halvings=50, seed=3, top_fraction=1).table
    signed = []
    real = kendall.pair_signs
    monkeypatch.setattr(
        kendall, "pair_signs", lambda x, *a: signed.append(real(x, *a).size) or real(x, *a)
    )
    with use_jobs(jobs):
        shared = irgauge.predictive_power(scores, halvings=50, seed=3, top_fraction=1).table
    at_once = [x + y for x, y in zip(signed[::2], signed[1::2])]  # both sides of a part
    distance = 9 * 4 * 12  # the cells of a distance: 9 pairs of 4 rankings, the chunk's 12 trials
    share = 12 * per_trial // jobs  # each thread's share of the chunk's cells
    assert max(at_once) == share // distance * distance  # whole distances within it
    assert sum(at_once) == 50 * per_trial  # every trial's pairs, once
    assert shared.equals(alone)
