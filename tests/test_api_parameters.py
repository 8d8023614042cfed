"""Parameters of the public Python API: numbers, sequences of numbers, options with a fixed
set of values and the labels of a matrix are checked before they are used, and refused with
an InputError naming the parameter (never a TypeError or IndexError from deep inside)."""

import inspect

import numpy as np
import pandas as pd
import pytest

import irgauge
from irgauge import InputError, ScoreMatrix
from irgauge import meta, stats

VALUES = np.random.default_rng(0).random((4, 8))
SYSTEMS, TOPICS = list("abcd"), [str(t) for t in range(1, 9)]
MATRICES = {
    "AP": ScoreMatrix(VALUES, SYSTEMS, TOPICS, "AP"),
    "P@10": ScoreMatrix(VALUES[::-1].copy(), SYSTEMS, TOPICS, "P@10"),
}
FAST = dict(samples=10, trials=10, halvings=10, permutations=10, seed=1)

# every public function taking score matrices, called with its fast options
ON_MATRICES = {
    "discriminative_power": meta.discriminative_power,
    "stability": meta.stability,
    "swap_rates": meta.swap_rates,
    "predictive_power": meta.predictive_power,
    "rank_correlations": meta.rank_correlations,
    "compare_table": irgauge.compare_table,
    "topic_set_size": lambda m, **kw: meta.topic_set_size(m, kw.pop("min_diff", 0.1), **kw),
}
TARGETS = {**ON_MATRICES, "compare_pairs": lambda m, **kw: stats.compare_pairs(VALUES, **kw)}


def _call(name, **options):
    target = TARGETS[name]
    signature = inspect.signature(
        {"compare_pairs": stats.compare_pairs}.get(name, target)
        if name != "topic_set_size"
        else meta.topic_set_size
    )
    fast = {k: v for k, v in FAST.items() if k in signature.parameters}
    if name == "compare_pairs":
        fast.update(systems=SYSTEMS, tests=["t"])
    return target(MATRICES, **{**fast, **options})


def _parameters(kind):
    """(function, parameter) for every parameter of ``kind`` a target takes."""
    names = {
        "fraction": ("top_fraction",),
        "number": ("alpha", "level", "confidence", "beta", "min_diff"),
        "sequence": ("alphas", "fuzziness", "subset_sizes"),
        "choice": ("variant", "swap_mode", "test", "correction", "interval", "names", "design"),
    }[kind]
    found = []
    for target in sorted(TARGETS):
        function = {
            "compare_pairs": stats.compare_pairs,
            "topic_set_size": meta.topic_set_size,
        }.get(target, TARGETS[target])
        for parameter in inspect.signature(function).parameters:
            if parameter in names:
                found.append((target, parameter))
    return found


@pytest.mark.parametrize("target,parameter", _parameters("number") + _parameters("fraction"))
def test_a_number_given_as_text_is_refused_naming_the_parameter(target, parameter):
    with pytest.raises(InputError, match=f"^{parameter}: .*(not text|not strings)"):
        _call(target, **{parameter: "0.5"})


@pytest.mark.parametrize("target,parameter", _parameters("sequence"))
def test_a_bare_number_is_a_one_value_sequence(target, parameter):
    one = 2 if parameter == "subset_sizes" else 0.05
    assert _call(target, **{parameter: one}).parameters == (
        _call(target, **{parameter: [one]}).parameters
    )


@pytest.mark.parametrize("target,parameter", _parameters("sequence"))
@pytest.mark.parametrize("bad", ["0.05", {"a": 0.05}, None])
def test_text_or_a_mapping_for_a_sequence_is_refused_naming_it(target, parameter, bad):
    with pytest.raises(InputError, match=f"^{parameter}: expected a sequence"):
        _call(target, **{parameter: bad})


@pytest.mark.parametrize("target,parameter", _parameters("choice"))
def test_an_unknown_option_value_is_refused_with_the_choices(target, parameter):
    with pytest.raises(InputError, match=f"^{parameter}: unknown value 'x'; choose from "):
        _call(target, **{parameter: "x"})


def test_every_kind_of_parameter_is_found():
    """The introspection above finds the parameters it guards (a rename would empty it)."""
    for kind, least in (("number", 7), ("sequence", 3), ("choice", 8), ("fraction", 1)):
        assert len(_parameters(kind)) >= least, kind


@pytest.mark.parametrize(
    "call",
    [
        lambda: stats.adjust([0.1, 0.2], "x"),
        lambda: meta.kendall_tau([1, 2], [2, 1], variant="x"),
        lambda: meta.min_detectable_diff(0.1, 20, design="x"),
    ],
    ids=["adjust method", "kendall_tau variant", "min_detectable_diff design"],
)
def test_options_of_the_functions_on_vectors_are_checked(call):
    with pytest.raises(InputError, match="unknown value 'x'; choose from"):
        call()


@pytest.mark.parametrize(
    "systems,words",
    [
        (list("abc"), "expected 4 names, one per row of values; got 3"),
        (list("abca"), "duplicate name 'a'"),
        ("abcd", "expected a sequence of names"),
        (["a", "b", "c", None], "None"),
    ],
)
def test_compare_pairs_checks_its_system_labels(systems, words):
    with pytest.raises(InputError, match="^systems: ") as caught:
        stats.compare_pairs(VALUES, systems, tests=["t"])
    assert words in str(caught.value)


@pytest.mark.parametrize(
    "call",
    [
        lambda: meta.kendall_tau(["a", "b"], [1, 2]),
        lambda: meta.tau_ap([1, 2], ["a", "b"]),
        lambda: stats.paired_t_test(["0.1", "0.2"], [0.1, 0.3]),
        lambda: stats.randomised_tukey_hsd([[0.1, 0.2], [0.3]], trials=10, seed=1),
        lambda: stats.compare_pairs([[0.1, 0.2], [0.3]], ["a", "b"], tests=["t"]),
        lambda: stats.holm(["a"]),
        lambda: meta.min_detectable_diff("0.1", 20),
    ],
    ids=["kendall_tau", "tau_ap", "paired_t_test", "tukey", "compare_pairs", "holm", "mdd"],
)
def test_text_or_ragged_scores_are_an_input_error(call):
    with pytest.raises(InputError, match="real numbers"):
        call()


@pytest.mark.parametrize(
    "systems,topics,words",
    [
        (["a", "b", "c", None], TOPICS, "None"),
        (["a", "b", "c", ""], TOPICS, "empty name"),
        ("abcd", TOPICS, "expected a sequence of names"),
        (SYSTEMS, TOPICS[:-1] + ["all"], "'all'"),
        (SYSTEMS, TOPICS[:-1] + [1], "duplicate name '1'"),
    ],
    ids=["None", "empty", "a string", "the topic all", "1 and '1'"],
)
def test_score_matrix_refuses_labels_that_name_no_system_or_topic(systems, topics, words):
    with pytest.raises(InputError) as caught:
        ScoreMatrix(VALUES, systems, topics, "AP")
    assert words in str(caught.value)


def test_a_tidy_frame_with_topic_1_and_text_1_is_refused():
    frame = pd.DataFrame(
        {
            "run": ["a", "a", "b", "b"],
            "measure": "AP",
            "topic": pd.Series([1, "1", 2, "2"], dtype=object),
            "value": [0.1, 0.2, 0.3, 0.4],
        }
    )
    with pytest.raises(InputError, match="name the same id '1'"):
        irgauge.as_score_matrix(frame)


@pytest.mark.parametrize(
    "call,parameter",
    [
        (lambda: irgauge.reduce_qrels({"1": {"d": 1}}, rates={"a": 50}), "rates"),
        (lambda: irgauge.simulate_collection(2, 2, 5, quality_range=1.0), "quality_range"),
    ],
)
def test_other_sequences_are_refused_naming_them(call, parameter):
    with pytest.raises(InputError, match=f"^{parameter}: expected a sequence"):
        call()
