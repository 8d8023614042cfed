"""Every public result type passes the one results check (irgauge.scores._results) and
records why a value is not finite in its ``notes``.

The result types are found, not listed: every class of irgauge named ``...Result`` and
every class a public function of irgauge, irgauge.stats or irgauge.meta returns; each must
derive from CheckedResult, so a result type added later is held without a change here.
The statistics' results on degenerate scores (constant samples, all ties, all zeros) name
each field that is not finite in a note.
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import pkgutil

import numpy as np
import pytest

import irgauge
from irgauge import stats
from irgauge.scores import _results
from irgauge.scores._results import ResultError
from tests.conftest import pair_tests

# looked up, not imported: on a version without it each test fails, not the collection
CheckedResult = getattr(_results, "CheckedResult", type("Missing", (), {}))

PUBLIC = ("irgauge", "irgauge.stats", "irgauge.meta")
DEFINING = ("irgauge.stats", "irgauge.meta", "irgauge.studies", "irgauge.evaluation")


def _modules():
    """The modules of the packages that define results, imported."""
    for package in DEFINING:
        root = importlib.import_module(package)
        yield root
        for info in pkgutil.walk_packages(root.__path__, package + "."):
            yield importlib.import_module(info.name)


def _classes():
    """Every class defined in a module of ``DEFINING``, by name."""
    found = {}
    for module in _modules():
        for name, value in vars(module).items():
            if inspect.isclass(value) and value.__module__ == module.__name__:
                found.setdefault(name, value)
    return found


def result_types():
    """The classes named ``...Result`` and those public functions return."""
    classes = _classes()
    types = {c for name, c in classes.items() if name.endswith("Result")}
    for package in PUBLIC:
        module = importlib.import_module(package)
        for name in module.__all__:
            function = getattr(module, name)
            if inspect.isclass(function) or not callable(function):
                continue
            returned = inspect.signature(function).return_annotation
            named = returned if isinstance(returned, str) else getattr(returned, "__name__", "")
            chosen = classes.get(str(named).split(".")[-1])
            if chosen is not None and dataclasses.is_dataclass(chosen):
                types.add(chosen)
    return sorted(types, key=lambda c: c.__qualname__)


RESULT_TYPES = result_types()


def test_the_walk_finds_the_result_types_of_every_layer():
    names = {c.__name__ for c in RESULT_TYPES}
    # one of each layer: a walk that lost a package would pass the test below vacuously
    assert {"TTestResult", "PairsResult", "MetaResult", "EvalResult", "StudyResult"} <= names
    assert "ComparisonTable" in names  # returned by compare_table, not named ...Result


@pytest.mark.parametrize("result_type", RESULT_TYPES, ids=lambda c: c.__qualname__)
def test_every_result_type_passes_the_results_check(result_type):
    assert issubclass(result_type, CheckedResult), (
        f"{result_type.__module__}.{result_type.__qualname__} does not derive from "
        "irgauge.scores._results.CheckedResult: its NaN would carry no reason"
    )


def nonfinite_fields(result):
    """The numeric fields of a dataclass result holding a value that is not finite."""
    names = []
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        if isinstance(value, (bool, str)) or value is None:
            continue
        try:
            array = np.asarray(value, dtype=float)
        except (TypeError, ValueError):
            continue
        if not np.isfinite(array).all():
            names.append(field.name)
    return names


SAMPLES = {  # x, y: degenerate per-topic scores
    "both constant, equal": ([0.5] * 5, [0.5] * 5),
    "both constant, apart": ([0.75] * 5, [0.25] * 5),
    "all zero": ([0.0] * 4, [0.0] * 4),
    "two topics": ([0.5, 0.25], [0.25, 0.0]),
    "all ties": ([1.0, 1.0, 0.0, 0.0], [1.0, 0.0, 1.0, 0.0]),
    "a constant shift": ([0.5, 0.625, 0.75], [0.25, 0.375, 0.5]),
}


PAIR_TESTS = pair_tests()
SMALL = {"samples": 20, "permutations": 20, "seed": 1}  # few draws: fast


def _call(function, *args):
    accepted = inspect.signature(function).parameters
    return function(*args, **{k: v for k, v in SMALL.items() if k in accepted})


def test_the_pair_tests_are_found():
    assert {"paired_t_test", "welch_t_test", "sign_test", "paired_bootstrap_test"} <= set(
        PAIR_TESTS
    )
    assert {"kendall_tau", "tau_ap", "tau_ap_b"} <= set(PAIR_TESTS)


@pytest.mark.parametrize("sample", list(SAMPLES))
@pytest.mark.parametrize("test", list(PAIR_TESTS))
def test_a_test_result_names_each_value_that_is_not_finite(test, sample):
    result = _call(PAIR_TESTS[test], *map(np.array, SAMPLES[sample]))
    if isinstance(result, float):  # a number: its reason rides on it
        if not np.isfinite(result):
            assert getattr(result, "notes", None), (test, result)
        return
    for name in nonfinite_fields(result):
        assert any(f" {name} value" in note for note in result.notes), (name, result)
    assert len(result.notes) == len(nonfinite_fields(result))


@pytest.mark.parametrize("test", list(PAIR_TESTS))
def test_a_test_refuses_one_topic_or_none(test):
    for x, y in (([0.5], [0.25]), ([], [])):
        with pytest.raises(irgauge.InputError):
            _call(PAIR_TESTS[test], np.array(x), np.array(y))


def test_a_number_result_says_why_it_is_not_finite():
    from irgauge.meta import min_detectable_diff

    tied = irgauge.kendall_tau([0.5, 0.5, 0.5], [0.25, 0.5, 0.75])
    assert np.isnan(tied) and "ties every system" in tied.notes[0]
    # no double is detected at a huge variance on 2 topics at a tiny alpha
    far = min_detectable_diff(1e300, 2, alpha=1e-300)
    assert far == np.inf and "exceeds the largest double" in far.notes[0]
    assert type(irgauge.kendall_tau([1, 2, 3], [1, 3, 2])) is float  # finite: a plain float


def test_welch_on_two_constant_samples_says_why_df_is_nan():
    result = stats.welch_t_test([0.5] * 3, [0.5] * 3)
    assert np.isnan(result.df)
    assert any(note.startswith("1 df value is not finite: both samples") for note in result.notes)


def test_welch_df_is_free_of_the_scores_scale():
    x, y = np.array([0.25, 0.5, 0.875]), np.array([0.125, 0.5])
    small = stats.welch_t_test(x, y)
    # 1e99: near the largest score a ScoreMatrix reads; its squared variance overflowed
    huge = stats.welch_t_test(x * 1e99, y * 1e99)
    assert huge.df == pytest.approx(small.df) and not huge.notes


def _constant_matrix():
    return irgauge.ScoreMatrix(np.full((3, 4), 0.5), ["a", "b", "c"], list("wxyz"), "m")


@pytest.mark.parametrize(
    "make",
    [
        lambda: irgauge.compare_table(_constant_matrix(), effect=True, samples=20, seed=1),
        lambda: irgauge.compare_pairs(np.full((3, 4), 0.5), ["a", "b", "c"], **SMALL),
        lambda: stats.randomised_tukey_hsd(np.full((3, 4), 0.5), trials=20, seed=1),
    ],
    ids=["compare_table", "compare_pairs", "tukey"],
)
def test_a_table_result_names_each_column_that_is_not_finite(make):
    result = make()
    for field in dataclasses.fields(result):
        value = getattr(result, field.name)
        frames = value.values() if isinstance(value, dict) else [value]
        for frame in frames:
            columns = getattr(frame, "columns", None)
            if columns is None:
                continue
            for column in columns:
                values = frame[column]
                if values.dtype.kind == "f" and not np.isfinite(values).all():
                    assert any(f" {column} value" in n for n in result.notes), column
    for name in nonfinite_fields(result):
        assert any(f" {name} value" in note for note in result.notes), name


def test_a_result_refuses_a_value_out_of_range_and_a_nan_p_value():
    from irgauge.stats.classic import TTestResult

    with pytest.raises(ResultError, match="pvalue"):
        TTestResult(statistic=1.0, pvalue=1.5, df=2, mean_difference=0.1)
    with pytest.raises(ResultError, match="pvalue is not finite"):
        TTestResult(statistic=1.0, pvalue=float("nan"), df=2, mean_difference=0.1)


def test_a_study_s_table_notes_reach_its_manifest(tmp_path):
    import json

    import pandas as pd

    from irgauge.studies._common import Record, study_writer

    frame = pd.DataFrame({"measure": ["AP", "P@5"], "tau": [0.5, np.nan]})
    with study_writer(tmp_path, "demo", "Demo") as writer:
        writer.table("taus", frame, "Kendall's tau")
        result = writer.finish_with(Record({}, {}, ["a", "b"], ["1", "2"], {}), ["a line"])
    manifest = json.loads((tmp_path / "demo" / "manifest.json").read_text())
    assert any("1 tau value is not finite: a ranking ties" in n for n in manifest["notes"])
    assert result.notes and result.manifest["notes"] == manifest["notes"]
