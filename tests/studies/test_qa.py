"""Study qa (Sakai's note on QA evaluation) on QA data derived from a generated collection."""

import json

import pandas as pd
import pytest

from irgauge.errors import InputError
from irgauge.qa import qa_evaluate
from irgauge.studies.onerel import gain_variants
from irgauge.studies.qa import qa_collection_from_adhoc, run_qa

pytestmark = pytest.mark.slow  # each test runs a study


@pytest.fixture(scope="module")
def qa_data(collection, tmp_path_factory):
    qrels, runs = collection
    return qa_collection_from_adhoc(qrels, runs, tmp_path_factory.mktemp("qa"))


def test_qa_data_has_classes_and_five_answers(qa_data):
    gold = pd.read_csv(qa_data["gold"], sep="\t", dtype=str)
    assert list(gold.columns) == ["topic", "answer", "level", "class"]
    assert gold.groupby(["topic", "class"]).size().max() == 2
    run = pd.read_csv(qa_data["runs"][0], sep="\t", dtype=str)
    assert run.groupby("topic").size().max() == 5
    # a duplicate answer from a class scores as incorrect: NQcorrect5 <= classes found
    result = qa_evaluate(qa_data["gold"], qa_data["runs"][:1], ["NQcorrect5", "RR"])
    assert result.means["value"].between(0, 1).all()


def test_outputs_and_summary(qa_data, tmp_path, read_bytes):
    result = run_qa(qa_data["gold"], qa_data["runs"], tmp_path, seed=9, trials=80, repetitions=2)
    manifest = json.loads((tmp_path / "qa" / "manifest.json").read_text())
    assert manifest["seeds"]["seed"] == 9 and manifest["parameters"]["subset_size"] == 12
    # 24 questions: c = 50 needs 100, so only c = 12 and a note saying why
    assert manifest["parameters"]["swap_subset_sizes"] == [12]
    assert any("c = 50" in note for note in manifest["notes"])
    assert {"stability", "sensitivity_c12", "sign_test"} <= set(result.tables)
    sens = result.tables["sensitivity_c12"]
    assert list(sens["measure"]) == [
        "RR",
        "NQcorrect1",
        "NQcorrect5",
        "Q 1:1:1",
        "Q 2:1.5:1",
        "Q 3:2:1",
    ]
    # derived QA data is labelled as such in every output
    assert "DERIVED" in result.summary[0] and manifest["derived"] is True
    assert "derived" in manifest["title"]
    assert "minority rate" in result.summary[1]
    assert "mean_rr_per_run" in result.tables
    captions = {e["name"]: e["caption"] for e in manifest["tables"] + manifest["figures"]}
    assert "as Tables 1 and 2 of" in captions["sensitivity_c12"]
    assert "as Figures 5 and 9 of" in captions["swap_rates_c12"]
    run_qa(qa_data["gold"], qa_data["runs"], tmp_path / "b", seed=9, trials=80, repetitions=2)
    assert read_bytes(tmp_path / "qa", "tables/*") == read_bytes(tmp_path / "b" / "qa", "tables/*")


@pytest.mark.usefixtures("undrawn_figures")
def test_list_task_f_measure(qa_data, tmp_path):
    result = run_qa(
        qa_data["gold"],
        qa_data["runs"],
        tmp_path,
        seed=1,
        trials=40,
        subset_size=6,
        second_size=10,
        list_task=True,
        repetitions=2,
    )
    assert list(result.tables["stability"]["measure"]) == ["F-measure"]
    assert "F-measure: minority rate" in result.summary[1]
    assert {"sensitivity_c6", "sensitivity_c10"} <= set(result.tables)
    # the note prints the list task's swap experiment at half the questions only: Table 3
    # and Figure 13 (its Tables 1-2 and Figures 5-10 are the factoid task's)
    manifest = json.loads((tmp_path / "qa" / "manifest.json").read_text())
    captions = {e["name"]: e["caption"] for e in manifest["tables"] + manifest["figures"]}
    assert "as Table 3 of" in captions["sensitivity_c6"]
    assert "as Figure 13 of" in captions["swap_rates_c6"]
    for name in ("sensitivity_c10", "swap_rates_c10"):
        assert "(Sakai (2004)" in captions[name] and "as Table" not in captions[name]
        assert "as Figure" not in captions[name]


@pytest.mark.parametrize(
    "options, message",
    [
        ({"sign_alphas": [0.05, 2]}, "sign_alphas: expected a significance level in (0, 1)"),
        ({"sign_alphas": "0.05"}, "sign_alphas: expected a sequence of numbers"),
        ({"gains": [3]}, "gains: each variant is text S:A:B such as '3:2:1'; got 3"),
        ({"gains": ["3:2"]}, "gain values '3:2': expected three non-negative numbers S:A:B"),
    ],
)
def test_study_options_are_checked_before_any_work(tmp_path, options, message):
    """A sign-test level of 2 made a column significant_2 of ones; a gain variant that is
    no S:A:B text failed on its characters."""
    with pytest.raises(InputError) as err:
        run_qa(tmp_path / "missing-gold", [tmp_path / "missing-run"], tmp_path / "out", **options)
    assert message in str(err.value)
    assert not (tmp_path / "out").exists()


def test_one_gain_text_is_one_variant():
    assert gain_variants("3:2:1") == ["3:2:1"]
    assert gain_variants(("1:1:1", "3:2:1")) == ["1:1:1", "3:2:1"]
