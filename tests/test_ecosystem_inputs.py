"""``irgauge.evaluate`` takes the ecosystem's data as it comes, and says what is wrong with a
bad shape (InputError naming what was expected and what was found)."""

from __future__ import annotations

import collections

import numpy as np
import pandas as pd
import pytest

from irgauge import evaluate
from irgauge.errors import InputError

QRELS = {"1": {"a": 1, "b": 0, "c": 2, "d": 1}, "2": {"a": 1, "x": 0, "y": 3}}
RUN = {"1": {"a": 0.5, "b": 0.5, "c": 0.4, "e": 0.9}, "2": {"x": 2.0, "a": 1.0, "y": 0.1}}
MEASURES = ["AP", "nDCG@3", "P@2", "RR"]


def table(result):
    return result.per_topic.set_index(["measure", "topic"])["value"].sort_index()


@pytest.fixture(scope="module")
def reference():
    return table(evaluate(QRELS, {"run": RUN}, MEASURES))


def long(mapping, value):
    return [(q, d, v) for q, docs in mapping.items() for d, v in docs.items()]


def frame(mapping, columns):
    return pd.DataFrame(long(mapping, None), columns=columns)


@pytest.mark.parametrize(
    "qrels_cols,run_cols",
    [
        (["query_id", "doc_id", "relevance"], ["query_id", "doc_id", "score"]),  # ir_measures
        (["qid", "docno", "label"], ["qid", "docno", "score"]),  # PyTerrier
    ],
)
def test_dataframes_with_ir_measures_or_pyterrier_columns(reference, qrels_cols, run_cols):
    run = frame(RUN, run_cols)
    if run_cols[0] == "qid":  # PyTerrier results carry a rank column too
        run["rank"] = run.groupby("qid")["score"].rank(ascending=False, method="first") - 1
    got = table(evaluate(frame(QRELS, qrels_cols), {"run": run}, MEASURES))
    pd.testing.assert_series_equal(got, reference)


def test_integer_topic_ids_in_a_dataframe(reference):
    qrels = frame({int(q): d for q, d in QRELS.items()}, ["qid", "docno", "label"])
    got = table(evaluate(qrels, {"run": RUN}, MEASURES))
    pd.testing.assert_series_equal(got, reference)


def test_namedtuples_of_ir_measures_and_ir_datasets(reference):
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel(q, d, r) for q, d, r in long(QRELS, None)]
    run = (ir_measures.ScoredDoc(q, d, s) for q, d, s in long(RUN, None))  # a generator
    pd.testing.assert_series_equal(table(evaluate(qrels, {"run": run}, MEASURES)), reference)
    # ir_datasets' TrecQrel has the fields query_id, doc_id, relevance, iteration
    TrecQrel = collections.namedtuple("TrecQrel", "query_id doc_id relevance iteration")
    ScoredDoc = collections.namedtuple("ScoredDoc", "query_id doc_id score")
    try:
        from ir_datasets.formats import GenericScoredDoc as ScoredDoc  # noqa: F811
        from ir_datasets.formats import TrecQrel  # noqa: F811
    except ImportError:
        pass
    qrels = [TrecQrel(q, d, r, "0") for q, d, r in long(QRELS, None)]
    run = [ScoredDoc(q, d, s) for q, d, s in long(RUN, None)]
    # a list of records is one run, not a list of runs
    got = evaluate(qrels, run, MEASURES)
    assert got.per_topic["run"].nunique() == 1
    pd.testing.assert_series_equal(table(got), reference)


@pytest.mark.slow  # ranx, interpreted (tests/conftest.py): seconds
def test_ranx_qrels_and_run(reference):
    ranx = pytest.importorskip("ranx")
    qrels = ranx.Qrels(QRELS)
    run = ranx.Run(RUN, name="mine")
    got = evaluate(qrels, run, MEASURES)
    assert set(got.per_topic["run"]) == {"mine"}
    pd.testing.assert_series_equal(table(got), reference)
    # and ranx's own value agrees where its definition is trec_eval's (no score ties)
    untied = {
        q: {d: s + i * 1e-3 for i, (d, s) in enumerate(docs.items())} for q, docs in RUN.items()
    }
    ours = evaluate(QRELS, ranx.Run(untied), ["AP", "P@2"]).table()
    theirs = ranx.evaluate(qrels, ranx.Run(untied), ["map", "precision@2"])
    assert ours["AP"].iloc[0] == pytest.approx(theirs["map"])
    assert ours["P@2"].iloc[0] == pytest.approx(theirs["precision@2"])


@pytest.mark.parametrize(
    "make,problem",
    [
        (lambda: pd.DataFrame([["1", "a", 1]]), "column labels 0, 1, 2"),  # header=None
        (
            lambda: pd.DataFrame({"qid": ["1", np.nan], "docno": ["a", "b"], "label": [1, 0]}),
            "row 1 has no value in column 'qid'",
        ),
        (
            lambda: pd.DataFrame({"topic_id": ["1"], "docno": ["a"], "label": [1]}),
            "needs a column query_id or qid or topic",
        ),
        (lambda: [("1", "a", 1)], "the first item is tuple"),
        (lambda: 42, "got int"),
    ],
)
def test_bad_qrels_shapes(make, problem):
    with pytest.raises(InputError, match=problem.replace("(", r"\(")):
        evaluate(make(), {"run": RUN}, ["AP"])


@pytest.mark.parametrize(
    "make,problem",
    [
        (lambda: pd.DataFrame([["1", "a", 0.5]]), "column labels 0, 1, 2"),
        (
            lambda: pd.DataFrame({"qid": [np.nan, "1"], "docno": ["a", "b"], "score": [1.0, 0.5]}),
            "row 0 has no value in column 'qid'",
        ),
        (lambda: pd.DataFrame({"qid": ["1"], "docno": ["a"]}), "needs a column score"),
    ],
)
def test_bad_run_shapes(make, problem):
    with pytest.raises(InputError, match=problem):
        evaluate(QRELS, make(), ["AP"])


def test_duplicate_records_are_refused():
    ir_measures = pytest.importorskip("ir_measures")
    run = [ir_measures.ScoredDoc("1", "a", 1.0), ir_measures.ScoredDoc("1", "a", 2.0)]
    with pytest.raises(InputError, match="more than once"):
        evaluate(QRELS, run, ["AP"])


def test_irgauge_evaluate_is_callable_after_the_submodule_import():
    """``import irgauge.evaluation`` binds the submodule over the exported function."""
    code = (
        "import irgauge.evaluation, irgauge\n"
        "r = irgauge.evaluate({'1': {'a': 1}}, {'1': {'a': 1.0}}, ['AP'])\n"
        "from irgauge import evaluate\n"
        "assert evaluate({'1': {'a': 1}}, {'1': {'a': 1.0}}, ['AP']).table().iloc[0, 0] == 1\n"
        "print(r.table().iloc[0, 0])"
    )
    import subprocess
    import sys

    out = subprocess.run(
        [sys.executable, "-c", code], check=True, capture_output=True, text=True
    ).stdout
    assert out.strip() == "1.0"
