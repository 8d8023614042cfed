"""tau_AP against a reference that ties every system: every C(i) (the systems above the
i-th that the reference ranks above it) is 0, which the formula would read as complete
disagreement (-1); it is NaN with its reason, in the scalar function, correlate's matrix
and system agreement's bootstrap path alike. A reference with an untied pair keeps the
formula's value (partial ties in it count as discordant, as before)."""

from __future__ import annotations

import itertools

import numpy as np
import pytest
from hypothesis import assume, given, settings
from hypothesis import strategies as hs

from irgauge import agreement
from irgauge.meta import tau_ap
from irgauge.meta.correlation import rank_correlations
from irgauge.meta.system_agreement import tau_ap_rows
from irgauge.scores import ScoreMatrix
from tests.conftest import examples

REASON = "the reference ranking ties every system"


def ordered_tau_ap(reference, order) -> float:
    """Yilmaz et al.'s 2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1 over ``order`` (the estimate's,
    best first), C(i) the items above the i-th that the reference ranks strictly above it."""
    total = sum(
        sum(reference[j] > reference[order[i]] for j in order[:i]) / i for i in range(1, len(order))
    )
    return 2.0 / (len(order) - 1) * total - 1


def averaged_tau_ap(reference, estimate) -> float:
    """tau_AP_a written out: Yilmaz's formula averaged over every order of the items that
    the estimate's scores allow (its tie groups in any order)."""
    n = len(estimate)
    orders = [
        o
        for o in itertools.permutations(range(n))
        if all(estimate[o[k]] >= estimate[o[k + 1]] for k in range(n - 1))
    ]
    return float(np.mean([ordered_tau_ap(reference, o) for o in orders]))


def test_a_reference_tying_every_system_gives_nan_with_its_reason():
    value = tau_ap([1, 1, 1, 1], [0.1, 0.2, 0.3, 0.4])
    assert np.isnan(value) and REASON in value.notes[0]
    # within the tolerance (1e-12) is a tie too
    assert np.isnan(tau_ap([0.5, 0.5 + 1e-13, 0.5], [0.1, 0.2, 0.2]))
    # the estimate tying every system is not the reference doing so: its orders averaged
    found, expected = tau_ap([1, 2, 3, 4], [1, 1, 1, 1]), averaged_tau_ap([1, 2, 3, 4], [1] * 4)
    assert found == pytest.approx(expected, abs=1e-12)


def test_correlate_matrix_gives_nan_where_the_reference_measure_ties_every_system():
    rng = np.random.default_rng(3)
    systems, topics = [f"s{k}" for k in range(5)], ["1", "2", "3"]
    matrices = {
        "flat": ScoreMatrix(np.full((5, 3), 0.25), systems, topics, "flat"),
        "varied": ScoreMatrix(rng.random((5, 3)), systems, topics, "varied"),
    }
    result = rank_correlations(matrices)
    table = result.table.set_index(["measure_a", "measure_b"])
    assert np.isnan(table.loc[("flat", "varied"), "tau_ap"])
    assert np.isnan(table.loc[("flat", "flat"), "tau_ap"])
    means = matrices["varied"].values.mean(axis=1)
    assert table.loc[("varied", "flat"), "tau_ap"] == tau_ap(means, np.full(5, 0.25))
    assert np.isfinite(table.loc[("varied", "varied"), "tau_ap"])
    assert any("tau_ap" in note and REASON in note for note in result.notes), result.notes


def test_system_agreement_gives_nan_where_every_run_scores_the_same_under_qrels_a(tmp_path):
    docs = ["d1", "d2", "d3"]
    runs = []
    for k in range(3):  # each run its own order of the three documents on each topic
        order = docs[k:] + docs[:k]
        lines = [f"{t} Q0 {d} {r + 1} {3 - r} run{k}" for t in "12" for r, d in enumerate(order)]
        runs.append(tmp_path / f"run{k}.trec")
        runs[-1].write_text("\n".join(lines) + "\n")
    # under A only a document no run retrieves is relevant: every run scores 0
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    a.write_text("".join(f"{t} 0 {d} {int(d == 'zz')}\n" for t in "12" for d in docs + ["zz"]))
    b.write_text("".join(f"{t} 0 {d} {int(d != 'd2')}\n" for t in "12" for d in docs + ["zz"]))
    res = agreement([str(a), str(b)], [str(r) for r in runs], measures=["AP"], samples=20, seed=1)
    rows = res.table[res.table.statistic == "tau_ap"].set_index(["a", "b"])
    assert np.isnan(rows.loc[("a.qrels", "b.qrels"), "value"])
    assert any("tau_ap" in note and REASON in note for note in res.notes), res.notes


@settings(max_examples=examples(40), deadline=None)
@given(
    n=hs.integers(2, 6),
    levels=hs.integers(2, 5),
    untied=hs.booleans(),
    seed=hs.integers(0, 2**32 - 1),
)
def test_a_reference_with_an_untied_pair_keeps_the_formulas_value(n, levels, untied, seed):
    """In [-1, 1] whatever the ties; with no ties in the reference, the average over the
    estimate's orders of Yilmaz's formula (partial ties in the reference count as
    discordant, also within the estimate's tie groups, so no average of orders gives
    them)."""
    rng = np.random.default_rng(seed)
    # few levels: ties in the estimate, and in the reference unless ``untied``
    x = rng.permutation(n) / n if untied else rng.integers(0, levels, n) / levels
    y = rng.integers(0, levels, n) / levels
    assume(np.ptp(x) > 0)
    found = tau_ap(x, y), tau_ap_rows(x[None], y[None])[0]
    assert all(-1 <= value <= 1 for value in found)
    if untied:
        assert found == pytest.approx((averaged_tau_ap(x, y),) * 2, abs=1e-12)
