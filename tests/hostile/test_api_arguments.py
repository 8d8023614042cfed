"""The Python API's arguments that are not files: score vectors, a caller's own resamples
(``indices=``, ``signs=``), the pairs of ``compare_pairs`` and measure names. Each bad
value is refused with one InputError (MeasureError for a measure) naming the parameter,
never taken as a guess (a NaN in ``kendall_tau`` ranked as neither above nor below, ``-1``
in ``indices`` read by numpy as the last topic, ``1.5`` as 1) or failing in numpy's words
(``IndexError``, ``cannot reshape``, ``'NoneType' object has no attribute 'strip'``).

The functions are found by their signatures: every public function with a parameter
annotated ``TopicScores`` is given NaN and infinity there, and every one taking ``indices``
or ``signs`` is in DRAWS (a new one fails test_every_resampling_function_is_tried until
it is), so the checks (``stats.resampling.require_finite``, ``given_draws``) are held at
every entry point."""

from __future__ import annotations

import inspect

import numpy as np
import pandas as pd
import pytest

import irgauge
import irgauge.studies
from irgauge import InputError, MeasureError

X, Y = [0.1, 0.4, 0.3, 0.8], [0.2, 0.1, 0.5, 0.6]  # 4 topics
WIDE = pd.DataFrame(np.arange(32.0).reshape(8, 4) % 7, columns=list("ABCD"))  # 8 topics
NOT_FINITE = [float("nan"), float("inf"), -float("inf")]


def public_functions() -> dict:
    return {
        name: getattr(irgauge, name)
        for name in irgauge.__all__
        if inspect.isfunction(getattr(irgauge, name))
    }


def taking(annotation: str) -> list:
    """(name, parameter) of every public function with a parameter so annotated."""
    return [
        (name, p.name)
        for name, f in sorted(public_functions().items())
        for p in inspect.signature(f).parameters.values()
        if str(p.annotation).strip("'") == annotation
    ]


SCORE_VECTORS = taking("TopicScores")


def test_the_walk_finds_the_score_vectors():
    names = {name for name, _ in SCORE_VECTORS}
    assert {"kendall_tau", "tau_ap", "paired_t_test", "randomisation_test"} <= names


@pytest.mark.parametrize("name, parameter", SCORE_VECTORS)
@pytest.mark.parametrize("bad", NOT_FINITE, ids=["nan", "inf", "-inf"])
def test_a_score_vector_that_is_not_finite_is_refused(name, parameter, bad):
    given = {"x": list(X), "y": list(Y)}
    given[parameter][2] = bad
    with pytest.raises(InputError, match=parameter):
        public_functions()[name](**given)


# function -> (its arguments, the resamples' parameter, valid resamples of its shape)
DRAWS = {
    "paired_bootstrap_test": ((X, Y), "indices", [[0, 1, 1, 3]] * 2),
    "randomisation_test": ((X, Y), "signs", [[1, -1, 1, 1]] * 2),
    "discriminative_power": ((WIDE,), "indices", [[0, 1, 2, 3, 4, 5, 6, 7]] * 2),
    "stability": ((WIDE,), "indices", [[0, 1, 2, 3]] * 2),
    "swap_rates": ((WIDE,), "indices", ([[0, 1, 2, 3]] * 2, [[4, 5, 6, 7]] * 2)),
    "predictive_power": ((WIDE,), "indices", [[1, 0, 2, 3, 4, 5, 6, 7]] * 2),
}
OPTIONS = {"stability": {"subset_size": 4}, "swap_rates": {"subset_size": 4},
           "predictive_power": {"top_fraction": 1}}  # fmt: skip


def spoiled(draws, how: str):
    """``draws`` with one value made bad (every array of a pair)."""
    if isinstance(draws, tuple):
        return tuple(spoiled(d, how) for d in draws)
    rows = [list(r) for r in draws]
    if how == "negative":
        rows[1][2] = -1
    elif how == "past the end":
        rows[1][2] = 99
    elif how == "fractional":
        rows[1][2] = 0.5
    elif how == "text":
        rows[1][2] = "1"
    elif how == "one row of a different length":
        rows[1] = rows[1][:-1]
    elif how == "one dimension":
        return rows[0]
    elif how == "no resample":
        return np.empty((0, len(rows[0])))
    return rows


HOW = ["negative", "past the end", "fractional", "text", "one row of a different length",
       "one dimension", "no resample"]  # fmt: skip


def test_every_resampling_function_is_tried():
    found = {
        name
        for name, f in public_functions().items()
        if {"indices", "signs"} & set(inspect.signature(f).parameters)
    }
    assert found == set(DRAWS)


@pytest.mark.parametrize("name", sorted(DRAWS))
def test_valid_resamples_are_used(name):
    args, parameter, draws = DRAWS[name]
    public_functions()[name](*args, **{parameter: draws}, **OPTIONS.get(name, {}))


@pytest.mark.parametrize("name", sorted(DRAWS))
@pytest.mark.parametrize("how", HOW)
def test_bad_resamples_are_refused_naming_the_parameter(name, how):
    args, parameter, draws = DRAWS[name]
    if how == "negative" and parameter == "signs":
        how = "past the end"  # -1 is a sign
    with pytest.raises(InputError, match=parameter):
        public_functions()[name](*args, **{parameter: spoiled(draws, how)}, **OPTIONS.get(name, {}))


@pytest.mark.parametrize(
    "pairs, words",
    [
        ([(0, 7)], "7"),
        ([(0, -1)], "-1"),
        ([(1, 1)], "itself"),
        ([(0, 1.5)], "1.5"),
        ([("a", "b")], "text"),
        ([(0, 1, 2)], "two system positions"),
        ([], "no pair"),
        ("01", "sequence"),
    ],
)
def test_compare_pairs_refuses_pairs_that_are_not_two_systems(pairs, words):
    values = np.array([X, Y, X[::-1]])
    with pytest.raises(InputError, match=words) as caught:
        irgauge.compare_pairs(values, ["a", "b", "c"], tests=["t"], pairs=pairs)
    assert caught.value.parameter == "pairs"


MEASURE_CALLS = {
    "parse_measure": lambda bad: irgauge.parse_measure(bad),
    "to_ir_measures": lambda bad: irgauge.to_ir_measures(bad),
    "evaluate": lambda bad: irgauge.evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, bad),
}


@pytest.mark.parametrize(
    "name, bad",
    [(name, bad) for name in MEASURE_CALLS for bad in [None, b"AP", 5, 2.5, [None]]
     if (name, bad) != ("evaluate", None)],  # evaluate's None: its default measures
)  # fmt: skip
def test_a_measure_that_is_not_a_string_is_refused(name, bad):
    if name == "to_ir_measures":
        pytest.importorskip("ir_measures")
    with pytest.raises(MeasureError, match="a measure must be a string"):
        MEASURE_CALLS[name](bad)


SCORE_DATA = [(n, p) for n, p in taking("ScoresLike")]
REQUIRED = {"min_diff": 0.1}  # the other arguments without a default
BAD_LABELS = {  # a wide frame (topics x systems) -> words of the refusal
    "a system given twice": (WIDE.set_axis(["A", "B", "A", "D"], axis=1), "'A'"),
    "a topic without a label": (WIDE.set_axis([float("nan"), *range(1, 8)]), "NaN"),
    "a fractional topic": (WIDE.set_axis([0.5, *range(1, 8)]), "0.5"),
    "a system without a label": (WIDE.set_axis(["A", "B", None, "D"], axis=1), "NaN"),
}


def test_the_walk_finds_the_score_data():
    names = {name for name, _ in SCORE_DATA}
    assert {"as_score_matrix", "topic_set_size", "discriminative_power", "swap_rates"} <= names


@pytest.mark.parametrize("name, parameter", SCORE_DATA)
@pytest.mark.parametrize("case", sorted(BAD_LABELS))
def test_a_wide_frames_labels_are_read_as_ids(name, parameter, case):
    """A wide frame's labels were made text with str(): NaN became a topic 'nan', and a
    system given twice failed in pandas' words; they are now read as the qrels' and runs'
    frames read ids (io.adapters.id_column)."""
    frame, words = BAD_LABELS[case]
    f = public_functions()[name]
    required = {
        p.name: REQUIRED[p.name]
        for p in inspect.signature(f).parameters.values()
        if p.default is inspect.Parameter.empty and p.name != parameter
    }
    with pytest.raises(InputError, match=words):
        f(**{parameter: frame}, **required)


def test_a_wide_frames_whole_float_topics_read_as_integers():
    matrix = irgauge.as_score_matrix(WIDE.set_axis([101.0 + k for k in range(8)]))
    assert matrix.topics[:2] == ["101", "102"]


@pytest.mark.parametrize(
    "call",
    [
        lambda depth: irgauge.depth_pool([{"1": {"d": 1.0}}], depth),
        lambda depth: irgauge.pool([{"1": {"d": 1.0}}], depth=depth),
        lambda depth: irgauge.reusability(
            {"1": {"d": 1}}, {"a": {"1": {"d": 1.0}}, "b": {"1": {"e": 1.0}}}, depth
        ),
    ],
    ids=["depth_pool", "pool", "reusability"],
)
@pytest.mark.parametrize("depth", ["5", "5,10", 2.5, True, 0])
def test_one_pool_depth_is_a_whole_number_in_every_function(call, depth):
    """depth_pool (and reusability, which pools through it) read its depth as pool's list
    of depths, so "5" from Python was taken where pool(depth="5") is refused."""
    with pytest.raises(InputError, match="depth"):
        call(depth)


@pytest.mark.parametrize("name", irgauge.studies.STUDIES)
def test_run_study_refuses_an_argument_its_study_does_not_take(name, tmp_path):
    with pytest.raises(InputError, match="bogus"):
        irgauge.run_study(name, "q.txt", ["r.txt"], tmp_path, bogus=1)
    with pytest.raises(InputError, match=name):
        irgauge.run_study(name, *range(40))


def test_a_format_no_renderer_has_is_refused_naming_it():
    """ComparisonTable.render (and the tables under it) raised a plain ValueError."""
    table = irgauge.compare_table(WIDE, seed=1)
    with pytest.raises(InputError, match="format: unknown value 'nope'"):
        table.render(format="nope")


def test_write_collection_refuses_what_is_no_simulated_collection(tmp_path):
    with pytest.raises(InputError, match="collection: expected simulate_collection's result"):
        irgauge.write_collection({"qrels": "q.txt"}, tmp_path / "out")
    assert not (tmp_path / "out").exists()
