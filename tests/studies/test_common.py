"""Shared study helpers: summary sentences, LaTeX/text tables, manifests, collection summary."""

import json

import pandas as pd

from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise


def test_ordering_sorts_and_marks_values_within_noise():
    values = {"RR": (0.2, 0.01), "P-plus": (0.5, 0.01), "O": (0.4, 0.01), "NWRR": (0.4, 0.01)}
    text = _noise.ordering(_noise.from_means("share", values)).text
    assert text.startswith(
        "P-plus (0.500 ± 0.010) > O (0.400 ± 0.010) ~ NWRR (0.400 ± 0.010) > RR (0.200 ± 0.010)"
    )
    assert "not distinguishable here: O and NWRR (d = +0.000" in text
    low = _noise.from_means("d", {"a": (0.1, 0.01), "b": (0.3, 0.01)}, higher_is_better=False)
    assert _noise.ordering(low).text == "a (0.100 ± 0.010) < b (0.300 ± 0.010)"


def test_latex_table_escapes_and_has_booktabs():
    frame = pd.DataFrame({"measure": ["bpref_N", "P@10 & 5%"], "share": [0.5, 0.25]})
    tex = common.latex_table(frame, caption="Disc. power_x", label="tab:x", digits=2)
    assert r"bpref\_N" in tex and r"P@10 \& 5\%" in tex
    assert r"\toprule" in tex and r"\begin{tabular}{lr}" in tex and "0.25" in tex
    assert r"\caption{Disc. power\_x}" in tex


def test_text_table_aligns_numbers():
    text = common.text_table(pd.DataFrame({"m": ["AP", "RR"], "v": [0.5, float("nan")]}), 3)
    lines = text.splitlines()
    assert lines[0].split() == ["m", "v"]
    assert lines[2].endswith("0.500") and lines[3].endswith("–")


def test_collection_summary(collection, tmp_path):
    qrels, runs = collection
    manifest = collection_record.collection_summary(qrels, runs, tmp_path, order="file")
    assert manifest["n_topics"] == 24 and manifest["n_runs"] == 8
    assert set(manifest["judgments_by_level"]) == {"0", "1", "2", "3"}
    # pooled to depth 20 in file order: every run's top 20 is judged, its top 30 is not
    assert manifest["judged_depth"] == 20
    shares = {row["k"]: row["judged_share"] for row in manifest["judged_share_at_depth"]}
    assert shares[20] == 1.0 and shares[30] < 1.0
    # trec_eval's order re-sorts tied scores by docno, so fewer ranks may be fully judged
    manifest = collection_record.collection_summary(qrels, runs, tmp_path)
    assert 1 <= manifest["judged_depth"] <= 20
    stored = json.loads((tmp_path / "collection" / "manifest.json").read_text())
    applied = stored["evaluation"]["conventions"]["measure_conventions"]
    assert applied["nDCG@10"]["gains"] == "1:2:3" and applied["AP"]["gains"] is None
    table = pd.read_csv(tmp_path / "collection" / "evaluation.csv")
    assert len(table) == 8 and "AP" in table.columns


def test_every_study_finishes_one_way_from_its_record(tmp_path):
    """Each study's computed data carries what its manifest records as one Record, which
    the writer's one finishing method reads: the manifest's fields are not listed again
    by each study, where one could drift from the others."""
    import dataclasses

    from irgauge.studies.incomplete_numbers import IncompleteData
    from irgauge.studies.onerel import OnerelData
    from irgauge.studies.pooling import PoolingStudy
    from irgauge.studies.predictive import PredictiveStudy
    from irgauge.studies.qa import QaData
    from irgauge.studies.topic_set_design import TopicsetStudy

    for data in (OnerelData, IncompleteData, QaData, PredictiveStudy, TopicsetStudy, PoolingStudy):
        fields = {f.name: f.type for f in dataclasses.fields(data)}
        assert fields.get("record") in (common.Record, "common.Record"), data.__name__
        assert not {"parameters", "seeds", "inputs", "system_names"} & set(fields), data.__name__
    assert [m for m in vars(common.StudyWriter) if m.startswith("finish")] == ["finish_with"]
    record = common.Record({"p": 1}, {"seed": 3}, ["s"], ["t1", "t2"], {"qrels": "q"}, ["n"])
    with common.study_writer(tmp_path, "x", "X") as writer:
        result = writer.finish_with(record, ["a line"])
    manifest = json.loads((tmp_path / "x" / "manifest.json").read_text())
    assert manifest == result.manifest
    assert (manifest["parameters"], manifest["seeds"], manifest["inputs"]) == (
        {"p": 1},
        {"seed": 3},
        {"qrels": "q"},
    )
    assert (manifest["n_systems"], manifest["n_topics"], manifest["topics"]) == (1, 2, ["t1", "t2"])
    assert manifest["summary"] == ["a line"] and manifest["notes"][0] == "n"
