"""Round trips: irgauge's measures inside ir_measures (``to_ir_measures``) and PyTerrier."""

from __future__ import annotations

import pandas as pd
import pytest

import irgauge
from irgauge import evaluate

ir_measures = pytest.importorskip("ir_measures")  # a test extra

from test_ir_measures_names import collection  # noqa: E402  (ties, unjudged documents)

NAMES = [
    "Q-measure",
    "P-plus",
    "NWRR",
    "bpref_relative",
    "rpref_N",
    "AP@0010",
    "NCUrb,P",
    "nDCG(dcg=jk,b=2)@20",
    "AP",
    "P@5",
    "nDCG@10",
]


def per_topic(result):
    return {
        (m, t): v
        for m, t, v in zip(
            result.per_topic["measure"], result.per_topic["topic"], result.per_topic["value"]
        )
    }


def test_iter_calc_and_calc_aggregate_give_irgauges_values():
    qrels, run = collection(11)
    objects = irgauge.to_ir_measures(NAMES)
    assert [str(o) for o in objects] == NAMES
    ours = per_topic(evaluate(qrels, {"r": run}, NAMES, empty_topics="zero"))
    through = {
        (str(m.measure), m.query_id): m.value for m in ir_measures.iter_calc(objects, qrels, run)
    }
    assert through.keys() == ours.keys()
    for key, value in through.items():
        assert value == pytest.approx(ours[key], abs=1e-12), key
    aggregate = ir_measures.calc_aggregate(objects, qrels, run)
    means = evaluate(qrels, {"r": run}, NAMES, empty_topics="zero").table()
    for obj in objects:
        assert aggregate[obj] == pytest.approx(means.loc["r", str(obj)], abs=1e-12)


def test_shared_measures_agree_with_ir_measures_own_and_stay_distinct():
    """irgauge's AP, P@5, nDCG@10 through ir_measures equal ir_measures' own (pytrec_eval),
    and are separate entries beside them in the result."""
    qrels, run = collection(12)
    ours = irgauge.to_ir_measures(["AP", "P@5", "nDCG@10"])
    theirs = [ir_measures.AP, ir_measures.P @ 5, ir_measures.nDCG @ 10]
    result = ir_measures.calc_aggregate(ours + theirs, qrels, run)
    assert len(result) == 6
    for a, b in zip(ours, theirs):
        assert result[a] == pytest.approx(result[b], abs=1e-9)
    assert irgauge.to_ir_measures("AP") == ours[0]  # one name, one object


def test_pyterrier_experiment_with_irgauge_measures():
    pt = pytest.importorskip("pyterrier")  # DataFrame systems need no Java
    qrels, run = collection(13)
    other = {q: {d: -s for d, s in docs.items()} for q, docs in run.items()}
    frame = pd.DataFrame(
        [(q, d, rel) for q, docs in qrels.items() for d, rel in docs.items()],
        columns=["qid", "docno", "label"],
    )

    def system(scores):
        rows = [(q, d, s) for q, docs in scores.items() for d, s in docs.items()]
        return pd.DataFrame(rows, columns=["qid", "docno", "score"])

    topics = pd.DataFrame({"qid": sorted(qrels), "query": "unused"})
    names = ["Q-measure", "P-plus", "NWRR", "bpref"]
    table = pt.Experiment(
        [system(run), system(other)],
        topics,
        frame,
        eval_metrics=irgauge.to_ir_measures(names),
        names=["a", "b"],
    )
    expected = evaluate(
        frame, {"a": system(run), "b": system(other)}, names, empty_topics="zero"
    ).table()
    for name in names:
        assert list(table[name]) == pytest.approx(list(expected[name]), abs=1e-12)
