"""The evaluate() API and `irgauge eval`: inputs, conventions and output formats."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout

import numpy as np
import pandas as pd
import pytest

from irgauge import InputError, evaluate
from irgauge.cli import main

QRELS = {"1": {"a": 1, "b": 0, "c": 2, "d": 1}, "2": {"a": 1, "x": 0}, "3": {"z": 0}}
RUN = {"1": {"a": 0.5, "b": 0.5, "c": 0.4, "e": 0.9}, "2": {"x": 2.0, "a": 1.0}}


def cli(*args) -> str:
    out = io.StringIO()
    with redirect_stdout(out):
        assert main(list(args)) == 0
    return out.getvalue()


def test_ties_broken_by_docno_descending_with_score_order():
    # topic 1 in score order: e (0.9), then the tie a/b at 0.5 broken as b, a; then c
    result = evaluate(QRELS, {"r": RUN}, ["RR", "P@2", "AP"])
    values = result.per_topic.set_index(["measure", "topic"])["value"]
    assert values["RR", "1"] == pytest.approx(1 / 3)
    assert values["P@2", "1"] == 0.0
    # AP topic 1: relevant a (rank 3), c (rank 4) of R=3 -> (1/3 + 2/4)/3
    assert values["AP", "1"] == pytest.approx((1 / 3 + 2 / 4) / 3)


def test_file_order_keeps_the_given_order():
    frame = pd.DataFrame(
        {"qid": ["1", "1", "1"], "docno": ["c", "b", "a"], "score": [0.0, 1.0, 2.0]}
    )
    by_score = evaluate(QRELS, frame, ["RR"], order="score").per_topic["value"].tolist()
    by_file = evaluate(QRELS, frame, ["RR"], order="file").per_topic["value"].tolist()
    assert by_score == [1.0] and by_file == [1.0]
    frame["docno"] = ["b", "c", "a"]
    assert evaluate(QRELS, frame, ["RR"], order="file").per_topic["value"].tolist() == [0.5]
    assert evaluate(QRELS, frame, ["RR"], order="score").per_topic["value"].tolist() == [1.0]


def test_topics_without_relevant_documents_are_left_out_and_reported():
    result = evaluate(QRELS, {"r": RUN}, ["AP"])
    assert set(result.per_topic["topic"]) == {"1", "2"}
    assert result.metadata["topics_without_relevant"] == ["3"]
    zero = evaluate(QRELS, {"r": RUN}, ["AP"], empty_topics="zero", complete=True)
    assert set(zero.per_topic["topic"]) == {"1", "2", "3"}


def test_complete_scores_missing_topics_zero():
    run = {"1": RUN["1"]}
    partial = evaluate(QRELS, {"r": run}, ["AP"])
    full = evaluate(QRELS, {"r": run}, ["AP"], complete=True)
    assert partial.metadata["topics_missing_from_run"] == {"r": ["2"]}
    assert full.metadata["topics_scored_zero"] == {"r": ["2"]}
    assert full.means["value"].iloc[0] == pytest.approx(partial.means["value"].iloc[0] / 2)


def test_inputs_as_paths_frames_and_dicts_agree(tmp_path):
    qrels_path = tmp_path / "qrels"
    qrels_path.write_text(
        "".join(f"{q} 0 {d} {l}\n" for q, docs in QRELS.items() for d, l in docs.items())
    )
    run_path = tmp_path / "run"
    run_path.write_text(
        "".join(f"{q} Q0 {d} 0 {s} tag\n" for q, docs in RUN.items() for d, s in docs.items())
    )
    frame = pd.DataFrame(
        [(q, d, s) for q, docs in RUN.items() for d, s in docs.items()],
        columns=["query_id", "doc_id", "score"],
    )
    qframe = pd.DataFrame(
        [(q, d, l) for q, docs in QRELS.items() for d, l in docs.items()],
        columns=["query_id", "doc_id", "relevance"],
    )
    measures = ["AP", "nDCG@3", "Q-measure", "bpref"]
    a = evaluate(str(qrels_path), str(run_path), measures).per_topic["value"].tolist()
    b = evaluate(qframe, frame, measures).per_topic["value"].tolist()
    c = evaluate(QRELS, RUN, measures).per_topic["value"].tolist()
    assert a == b == c


def test_tsv_is_long_and_tidy_with_conventions(tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b 0\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2 sys\n1 Q0 c 2 1 sys\n")
    text = cli("eval", str(qrels), str(run), "-m", "AP P@1", "--format", "tsv", "--per-topic")
    lines = text.splitlines()
    meta = [line for line in lines if line.startswith("#")]
    body = [line for line in lines if not line.startswith("#")]
    assert body[0] == "run\tmeasure\ttopic\tvalue"
    assert body[1:] == [
        "sys\tAP\t1\t1.0",
        "sys\tP@1\t1\t1.0",
        "sys\tAP\tall\t1.0",
        "sys\tP@1\tall\t1.0",
    ]
    for key in ("order", "rel_level", "gains", "condensed", "topics_averaged"):
        assert any(line.startswith(f"# {key}:") for line in meta)
    data = json.loads(cli("eval", str(qrels), str(run), "-m", "AP", "--format", "json"))
    assert data["metadata"]["order"].startswith("score")
    assert data["results"] == [{"run": "sys", "measure": "AP", "topic": "all", "value": 1.0}]


def test_judged_only_switch_applies_to_every_measure():
    qrels = {"1": {"a": 1, "b": 0}}
    run = {"1": {"u1": 3.0, "a": 2.0, "b": 1.0}}  # an unjudged document on top
    normal = evaluate(qrels, run, ["RR", "nDCG", "P@1"]).means["value"].tolist()
    condensed = evaluate(qrels, run, ["RR", "nDCG", "P@1"], judged_only=True)
    assert normal[0] == 0.5 and normal[2] == 0.0
    assert condensed.means["value"].tolist() == [1.0, 1.0, 1.0]
    assert condensed.metadata["condensed"] is True
    per_measure = evaluate(qrels, run, ["RR(judged_only=true)"]).means["value"].tolist()
    assert per_measure == [1.0]


def test_rel_level_threshold_is_honoured_by_binary_measures():
    qrels = {"1": {"a": 1, "b": 2}}
    run = {"1": {"a": 2.0, "b": 1.0}}
    assert evaluate(qrels, run, ["RR"]).means["value"].tolist() == [1.0]
    assert evaluate(qrels, run, ["RR", "num_rel"], rel_level=2).means["value"].tolist() == [
        0.5,
        1.0,
    ]


def test_geometric_mean_aggregation():
    qrels = {"1": {"a": 1}, "2": {"b": 1}}
    run = {"1": {"a": 1.0}, "2": {"x": 1.0, "b": 0.5}}
    result = evaluate(qrels, run, ["RR", "RR(agg=gmean)", "gm_map"])
    # RR is 1 on topic 1 and 1/2 on topic 2 (AP alike): mean (1 + 1/2) / 2, gmean sqrt(1 * 1/2)
    mean, gmean = (1 + 1 / 2) / 2, (1 * 1 / 2) ** 0.5
    assert result.means["value"].tolist() == pytest.approx([mean, gmean, gmean])
    overall = evaluate(qrels, run, ["RR"], aggregate="gmean")
    assert overall.means["value"].iloc[0] == pytest.approx(gmean)


def test_several_runs_and_measure_labels_keep_the_users_spelling():
    result = evaluate(QRELS, {"one": RUN, "two": {"1": {"c": 1.0}}}, ["map", "P_1", "ndcg_cut_2"])
    assert list(result.table().columns) == ["map", "P_1", "ndcg_cut_2"]
    assert list(result.table().index) == ["one", "two"]
    assert result.metadata["measures"] == {
        "map": "AP(norm=R,judged_only=false)",
        "P_1": "P(judged_only=false)@1",
        "ndcg_cut_2": "nDCG(dcg=log2,b=2,levels=all,judged_only=false)@2",
    }


def test_measures_command_lists_every_family():
    text = cli("measures")
    for name in (
        "AP",
        "Q-measure",
        "P-plus",
        "NWRR",
        "bpref_relative",
        "rpref_N",
        "RBP",
        "nDCG",
        "Hit",
        "nCG",
    ):
        assert f"\n{name}" in text
    listing = json.loads(cli("measures", "--format", "json"))
    ndcg = next(m for m in listing if m["name"] == "nDCG")
    assert ndcg["params"]["dcg"]["choices"] == ["log2", "exp-log2", "jk"]


def test_a_mapping_of_runs_whose_first_run_is_empty():
    """{name: run} with an empty first run is still a mapping of runs (it was read as one
    run whose topics were the run names, and failed on float() of a dict)."""
    result = evaluate({"q1": {"d1": 1}}, {"a": {}, "b": {"q1": {"d1": 2.0}}}, ["P@1"])
    assert result.metadata["topics_averaged"] == {"a": 0, "b": 1}
    assert result.table().loc["b", "P@1"] == 1.0


def test_a_score_that_is_not_a_number_is_refused_by_its_place():
    with pytest.raises(InputError, match=r"topic 'q1', document 'd1': score must be"):
        evaluate({"q1": {"d1": 1}}, {"q1": {"d1": [1]}}, ["P@1"])


@pytest.mark.parametrize(
    "gains, message",
    [
        ({1: 2}, "gains: expected a gain per level 1, 2, ... (a list of numbers); got {1: 2}"),
        ([True, 2], "gains: expected a number; got True"),
        ([1, "x"], "gains: expected a number; got 'x'"),
        ([1, float("nan")], "gains '1:nan' must lie in [0, 1000] (2^gain of the exponential "),
    ],
)
def test_gains_from_python_are_checked_number_by_number(gains, message):
    """A mapping's keys or a bool's text once passed for gains (``{1: 2}`` gave the gain 1
    to level 1)."""
    qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0, "b": 0.5}}
    with pytest.raises(InputError) as err:
        evaluate(qrels, run, ["nDCG@10"], gains=gains)
    assert str(err.value).startswith(message)


def test_gains_as_an_array_a_tuple_or_text_agree():
    qrels, run = {"1": {"a": 1, "b": 2}}, {"1": {"a": 1.0, "b": 0.5}}
    means = [
        evaluate(qrels, run, ["nDCG@10"], gains=g).means["value"].tolist()
        for g in (np.array([1.0, 3.0]), (1, 3), "1:3", [1.0, 3.0])
    ]
    assert means[1:] == means[:-1]
    assert means[0] != evaluate(qrels, run, ["nDCG@10"]).means["value"].tolist()
