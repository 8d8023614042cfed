"""The results check at every public statistic's boundary (irgauge.scores._results): degenerate
score matrices (constant columns and rows, one system or topic apart, ties, huge and tiny
magnitudes) through the meta-evaluation statistics. Every value of a result is finite and
in its range, or is not finite with its reason among the result's notes; or the input is
refused with one InputError. Never an unexplained NaN."""

from __future__ import annotations

import numpy as np
import pytest
from fuzz_strategies import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st

from irgauge import InputError
from irgauge.scores._results import (
    DEFAULT_REASON,
    RANGES,
    REASONS,
    ResultError,
    check_result_values,
)
from irgauge.meta import (
    discriminative_power,
    rank_correlations,
    stability,
    swap_rates,
    topic_set_size,
)
from irgauge.meta.result import MetaResult
from irgauge.scores import ScoreMatrix
from tests.conftest import pair_tests

pytestmark = pytest.mark.slow  # a hypothesis search over score matrices

SCALES = [1.0, 1e-300, 1e-160, 1e-20, 1e20, 1e99]  # ScoreMatrix refuses |x| > 1e100


@st.composite
def degenerate_matrices(draw):
    """Two measures over the same systems x topics, each built from one degenerate shape."""
    m = draw(st.integers(2, 5))
    n = draw(st.integers(1, 6))
    shapes = st.sampled_from(["random", "constant", "ties", "additive", "one row", "one column"])
    matrices = {}
    for name in ("a", "b"):
        kind = draw(shapes)
        scale = draw(st.sampled_from(SCALES))
        seed = draw(st.integers(0, 2**16))
        rng = np.random.default_rng(seed)
        values = rng.random((m, n))
        if kind == "constant":
            values[:] = 0.5
        elif kind == "ties":
            values = np.round(values * 2) / 2
        elif kind == "additive":
            values = np.add.outer(rng.random(m), rng.random(n))
        elif kind == "one row":
            values[1:] = values[0]
        elif kind == "one column":
            values[:, 1:] = values[:, :1]
        matrices[name] = ScoreMatrix(
            values * scale, [f"s{i}" for i in range(m)], [f"t{j}" for j in range(n)], name
        )
    return matrices


STATISTICS = {
    "discpower": lambda x: discriminative_power(x, samples=20, seed=1),
    "correlation": lambda x: rank_correlations(x),
    "stability": lambda x: stability(x, subset_size=1, trials=5, seed=1),
    "swap": lambda x: swap_rates(x, subset_size=1, trials=5, seed=1),
    "topics": lambda x: topic_set_size(x, 0.05, ci_width=0.1),
}


def named_values(frame):
    """(name, float values) of each numeric column of ``frame``; in a long table each
    statistic's values under the statistic's name."""
    columns = list(frame.columns)
    if "statistic" in columns and "value" in columns:
        for name in frame["statistic"].unique():
            chosen = frame["value"][frame["statistic"] == name]
            if all(isinstance(v, (int, float)) and not isinstance(v, bool) for v in chosen):
                yield str(name), chosen.to_numpy(dtype=float)
        columns = [c for c in columns if c not in ("statistic", "value")]
    for column in columns:
        if frame[column].dtype.kind in "fiu":
            yield str(column), frame[column].to_numpy(dtype=float)


def unexplained(result: MetaResult):
    """The names whose values are not all finite and that no note of ``result`` names."""
    tables = [("", result.table)] + [(f"{k}: ", f) for k, f in result.details.items()]
    return [
        prefix + name
        for prefix, frame in tables
        for name, values in named_values(frame)
        if not np.isfinite(values).all()
        and not any(n.startswith(prefix) and f" {name} value" in n for n in result.notes)
    ]


@pytest.mark.parametrize("statistic", list(STATISTICS))
@fuzz_settings(12)
@given(matrices=degenerate_matrices())
def test_every_value_is_in_range_or_explained(statistic, matrices):
    try:
        result = STATISTICS[statistic](matrices)
    except InputError as error:  # refused: one line
        assert "\n" not in str(error)
        return
    assert unexplained(result) == []


def test_the_check_refuses_values_out_of_range_and_explains_nan():
    assert check_result_values("p", [0.0, 0.5, 1.0], 0, 1) == []
    assert check_result_values("p", [1.0 + 1e-12], 0, 1) == []  # rounding at the end
    with pytest.raises(ResultError, match="p: 1.5 lies outside"):
        check_result_values("p", [0.2, 1.5], 0, 1)
    notes = check_result_values("tau", [np.nan, 0.5], -1, 1)
    assert notes == ["1 tau value is not finite: " + REASONS["tau"]]
    assert check_result_values("x", [np.inf], reason="why") == ["1 x value is not finite: why"]
    long_table = check_result_values("value", [np.nan])
    assert long_table == ["1 value is not finite: " + DEFAULT_REASON]
    assert RANGES["kappa"] == (-np.inf, 1.0) and RANGES["n_topics"][0] == 2


def test_a_meta_result_records_its_nan_and_refuses_a_value_out_of_range():
    table = {"measure_a": ["x"], "measure_b": ["y"], "tau": [np.nan]}
    result = MetaResult("m", table, {}, ["s"], ["t"])
    assert result.notes and "tau value is not finite" in result.notes[0]
    with pytest.raises(ResultError, match="tau"):
        MetaResult("m", {"tau": [1.5]}, {}, ["s"], ["t"])
    long = {"design": ["ttest"], "measure": ["x"], "statistic": ["n_topics"], "value": [1]}
    with pytest.raises(ResultError, match="n_topics"):
        MetaResult("m", long, {}, ["s"], ["t"])


PAIR_TESTS = pair_tests()


@st.composite
def degenerate_pairs(draw):
    """Two samples of 2 to 6 topics: constant, tied, shifted by a constant or random, at a
    scale from SCALES."""
    n = draw(st.integers(2, 6))
    scale = draw(st.sampled_from(SCALES))
    rng = np.random.default_rng(draw(st.integers(0, 2**16)))
    x = rng.random(n)
    kind = draw(st.sampled_from(["constant", "equal", "shift", "ties", "zeros", "random"]))
    y = {
        "constant": np.full(n, 0.25),
        "equal": x.copy(),
        "shift": x - 0.125,
        "ties": np.round(rng.random(n)),
        "zeros": np.zeros(n),
        "random": rng.random(n),
    }[kind]
    if kind in ("constant", "zeros"):
        x = np.full(n, 0.5) if kind == "constant" else np.zeros(n)
    return x * scale, y * scale


@pytest.mark.parametrize("test", list(PAIR_TESTS))
@fuzz_settings(12)
@given(pair=degenerate_pairs())
def test_every_test_result_value_is_in_range_or_explained(test, pair):
    import dataclasses
    import inspect

    function = PAIR_TESTS[test]
    small = {"samples": 20, "permutations": 20, "seed": 1}
    accepted = inspect.signature(function).parameters
    try:
        result = function(*pair, **{k: v for k, v in small.items() if k in accepted})
    except InputError as error:
        assert "\n" not in str(error)
        return
    if isinstance(result, float):  # a number: its reason rides on it
        assert np.isfinite(result) or getattr(result, "notes", None), (test, result)
        return
    for field in dataclasses.fields(result):
        values = np.asarray(getattr(result, field.name), dtype=float)
        if not np.isfinite(values).all():
            assert any(f" {field.name} value" in n for n in result.notes), (field.name, result)
