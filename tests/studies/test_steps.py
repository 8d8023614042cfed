"""Each study in three steps: compute (numbers only, nothing written), describe (the summary)
and write; ``run_<study>`` is write(compute(...)) with the same options."""

import inspect
from dataclasses import fields

import pytest

from irgauge.studies import incomplete, incomplete_numbers, onerel, qa
from tests.conftest import quick_study_figures, slow_after

FAST = {
    "onerel": dict(samples=50, trials=30, seed=7, top_k=5, repetitions=1, topic_resamples=50),
    "qa": dict(trials=30, seed=9, repetitions=1, topic_resamples=50),
    "incomplete": dict(samples=50, seed=4, top_k=5, rates=(50,), reductions=1, topic_resamples=50),
}
STEPS = {  # study -> (module, options class, compute, write)
    "onerel": (onerel, onerel.OnerelOptions, onerel.compute_onerel, onerel.write_onerel),
    "qa": (qa, qa.QaOptions, qa.compute_qa, qa.write_qa),
    "incomplete": (
        incomplete,
        incomplete_numbers.IncompleteOptions,
        incomplete_numbers.compute_incomplete,
        incomplete.write_incomplete,
    ),
}


@pytest.fixture(scope="module")
def inputs(collection, tmp_path_factory):
    qrels, runs = collection
    answers = qa.qa_collection_from_adhoc(qrels, runs, tmp_path_factory.mktemp("qa"))
    return {
        "onerel": (qrels, runs),
        "incomplete": (qrels, runs),
        "qa": (answers["gold"], answers["runs"]),
    }


@pytest.mark.parametrize("study", sorted(STEPS))
def test_options_have_the_defaults_of_run(study):
    module, options, _, _ = STEPS[study]
    run = inspect.signature(getattr(module, f"run_{study}")).parameters
    for f in fields(options):
        if f.name.endswith("_options"):  # None in run_*: no options, an empty dict here
            assert f.default_factory() == {} and run[f.name].default is None
        else:
            assert f.default == run[f.name].default, f.name


@pytest.mark.parametrize("study", slow_after(sorted(STEPS, key=lambda s: s != "qa")))
def test_compute_writes_nothing_and_run_is_write_of_compute(
    study, inputs, tmp_path, monkeypatch, read_bytes
):
    module, options, compute, write = STEPS[study]
    source, runs = inputs[study]
    work = tmp_path / "work"
    work.mkdir()
    monkeypatch.chdir(work)
    data = compute(source, runs, options(**FAST[study]))
    assert list(work.iterdir()) == []

    # figures by name only (drawing them is half the test's time; other tests draw them)
    with quick_study_figures():
        written = write(data, tmp_path / "steps")
        ran = getattr(module, f"run_{study}")(source, runs, tmp_path / "run", **FAST[study])
    assert written.summary == ran.summary
    assert written.manifest["parameters"] == ran.manifest["parameters"]
    assert written.manifest["seeds"] == ran.manifest["seeds"]
    tables = read_bytes(tmp_path / "steps" / study, "tables/*")
    assert tables and tables == read_bytes(tmp_path / "run" / study, "tables/*")
    figures = {e["name"] for e in written.manifest["figures"]}
    assert figures == {e["name"] for e in ran.manifest["figures"]}
