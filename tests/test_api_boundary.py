"""The Python API's boundary: qrels, runs and score matrices as users hold them (dicts,
DataFrames, arrays) are read correctly or refused with an InputError naming the problem,
through every entry point that takes them, and never changed."""

import copy
import re

import numpy as np
import pandas as pd
import pytest

import irgauge
from irgauge import InputError, ScoreMatrix

QRELS = {"1": {"d1": 1, "d2": 0}, "2": {"d1": 1}}
RUN = {"1": {"d1": 0.9, "d2": 0.5}, "2": {"d1": 0.3}}
QRELS_FRAME = pd.DataFrame(
    {"query_id": ["1", "1", "2"], "doc_id": ["d1", "d2", "d1"], "relevance": [1, 0, 1]}
)
RUN_FRAME = pd.DataFrame(
    {"query_id": ["1", "1", "2"], "doc_id": ["d1", "d2", "d1"], "score": [0.9, 0.5, 0.3]}
)

QRELS_ENTRY_POINTS = {
    "evaluate": lambda qrels: irgauge.evaluate(qrels, RUN, ["AP"]),
    "read_qrels": irgauge.read_qrels,
    "score_matrices": lambda qrels: irgauge.score_matrices(qrels, RUN, ["AP"]),
}
RUN_ENTRY_POINTS = {
    "evaluate": lambda run: irgauge.evaluate(QRELS, run, ["AP"]),
    "read_run": irgauge.read_run,
    "score_matrices": lambda run: irgauge.score_matrices(QRELS, {"a": run, "b": RUN}, ["AP"]),
}

BAD_QRELS = {  # input -> words the error must hold
    "None topic key": ({None: {"d1": 1}}, "None"),
    "float topic key": ({1.0: {"d1": 1}}, "1.0"),
    "tuple document key": ({"1": {("d1",): 1}}, "('d1',)"),
    "bool topic key": ({True: {"d1": 1}}, "True (bool)"),
    "empty topic id": ({"": {"d1": 1}}, "empty"),
    "whitespace in a document id": ({"1": {"d 1": 1}}, "'d 1'"),
    "a list of documents for a topic": ({"1": ["d1"]}, "qrels['1']"),
    "bool level": ({"1": {"d1": True}}, "True"),
    "two columns for the topic": (QRELS_FRAME.assign(QID="1"), "QID"),
    "a column given twice": (
        pd.concat([QRELS_FRAME, QRELS_FRAME[["relevance"]]], axis=1),
        "relevance",
    ),
    "fractional float ids": (QRELS_FRAME.assign(query_id=[1.5, 1.0, 2.0]), "1.5"),
    "date ids": (QRELS_FRAME.assign(query_id=pd.to_datetime(["2020-01-01"] * 3)), "Timestamp"),
    "empty id in a frame": (QRELS_FRAME.assign(doc_id=["", "d2", "d1"]), "empty"),
    "whitespace id in a frame": (QRELS_FRAME.assign(doc_id=["d 1", "d2", "d1"]), "'d 1'"),
    "float and str ids": (
        QRELS_FRAME.assign(query_id=pd.Series([1.0, "1", "2"], dtype=object)),
        "1.0",
    ),
}

BAD_RUNS = {
    "str score": ({"1": {"d1": "0.5"}}, "str"),
    "bool score": ({"1": {"d1": True}}, "bool"),
    "score beyond a double": ({"1": {"d1": 10**400}}, "score must be a number"),
    "None topic key": ({None: {"d1": 0.5}}, "None"),
    "empty document id": ({"1": {"": 0.5}}, "empty"),
    "str in a score column": (
        RUN_FRAME.assign(score=pd.Series([0.9, "x", 0.3], dtype=object)),
        "'x'",
    ),
    "bool score column": (RUN_FRAME.assign(score=[True, False, True]), "bool"),
    "empty topic id in a frame": (RUN_FRAME.assign(query_id=["", "1", "2"]), "empty"),
    "two columns for the score": (RUN_FRAME.assign(SCORE=1.0), "SCORE"),
}


@pytest.mark.parametrize("entry", sorted(QRELS_ENTRY_POINTS))
@pytest.mark.parametrize("case", sorted(BAD_QRELS))
def test_bad_qrels_are_refused_by_every_entry_point(entry, case):
    qrels, words = BAD_QRELS[case]
    kept = copy.deepcopy(qrels)
    with pytest.raises(InputError) as caught:
        QRELS_ENTRY_POINTS[entry](qrels)
    assert words in str(caught.value)
    assert repr(qrels) == repr(kept)


@pytest.mark.parametrize("entry", sorted(RUN_ENTRY_POINTS))
@pytest.mark.parametrize("case", sorted(BAD_RUNS))
def test_bad_runs_are_refused_by_every_entry_point(entry, case):
    run, words = BAD_RUNS[case]
    with pytest.raises(InputError) as caught:
        RUN_ENTRY_POINTS[entry](run)
    assert words in str(caught.value)


def test_numpy_scalars_and_integer_ids_read_as_their_python_values():
    plain = irgauge.evaluate(QRELS, RUN, ["AP", "P@2"]).table()
    numpy_typed = irgauge.evaluate(
        {np.int64(1): {"d1": np.int64(1), "d2": np.int32(0)}, 2: {"d1": np.float32(1)}},
        {1: {"d1": np.float32(0.9), "d2": np.float64(0.5)}, 2: {"d1": np.int64(0)}},
        ["AP", "P@2"],
    ).table()
    pd.testing.assert_frame_equal(plain, numpy_typed)


def test_read_qrels_takes_the_frames_evaluate_takes():
    """read_qrels read DataFrames by itself, without PyTerrier's label column."""
    pyterrier = QRELS_FRAME.rename(
        columns={"query_id": "qid", "doc_id": "docno", "relevance": "label"}
    )
    assert len(irgauge.read_qrels(pyterrier).levels) == 3


VALUES = np.arange(12, dtype=np.float64).reshape(3, 4) / 12
SYSTEMS, TOPICS = ["a", "b", "c"], ["1", "2", "3", "4"]


@pytest.mark.parametrize(
    "values",
    [
        VALUES.astype(str),
        np.array([["x"] * 4] * 3, dtype=object),
        VALUES + 1j,
        [[0.1, 0.2], [0.3]],
    ],
    ids=["str array", "object strings", "complex", "ragged rows"],
)
def test_score_matrix_refuses_values_that_are_not_real_numbers(values):
    with pytest.raises(InputError, match="real numbers"):
        ScoreMatrix(values, SYSTEMS, TOPICS, "AP")


@pytest.mark.parametrize(
    "values",
    [VALUES, VALUES.astype(np.float32), (VALUES * 12).astype(int), np.asfortranarray(VALUES)],
    ids=["float64", "float32", "int", "fortran order"],
)
def test_score_matrix_owns_its_scores(values):
    given = np.array(values, copy=True)
    matrix = ScoreMatrix(given, SYSTEMS, TOPICS, "AP")
    given[0, 0] = 99
    assert matrix.values[0, 0] == pytest.approx(float(np.asarray(values)[0, 0]))
    with pytest.raises(ValueError):
        matrix.values[0, 0] = 99  # read-only: a result cannot change the scores under it


READERS = sorted(name for name in dir(irgauge) if name.startswith("read_"))
NOT_PATHS = {  # what a user passes for a path by mistake -> how the error shows it
    "a list of paths": (["qrels.txt"], "got list of 1 item"),
    "a number": (3, "got int"),  # os would read it as a file descriptor
    "a float": (2.5, "got float"),
    "an object": (object(), "got object"),
}


@pytest.mark.parametrize("case", sorted(NOT_PATHS))
@pytest.mark.parametrize("reader", READERS)
def test_every_reader_refuses_what_is_not_a_path(reader, case):
    """Every public reader (a new one is walked the day it is exported) refuses a value
    that is neither a path nor a form it reads with one InputError saying what was given,
    where they raised os' TypeError or read ``str()`` of it as a file name
    (``['qrels.txt']: cannot read file``)."""
    value, shown = NOT_PATHS[case]
    with pytest.raises(InputError) as caught:
        getattr(irgauge, reader)(value)
    assert shown in str(caught.value) and "cannot read" not in str(caught.value)


RUNS_ENTRY_POINTS = {
    "evaluate": lambda runs: irgauge.evaluate(QRELS, runs, ["AP"]),
    "score_matrices": lambda runs: irgauge.score_matrices(QRELS, runs, ["AP"]),
    "pool": lambda runs: irgauge.pool(runs, depth=2),
    "depth_pool": lambda runs: irgauge.depth_pool(runs, 2),
}
BAD_RUN_NAMES = {  # a {name: run} mapping -> words of the refusal
    "empty name": ({"": RUN, "b": RUN}, "empty name"),
    "None": ({None: RUN, "b": RUN}, "None"),
    "1 and '1'": ({1: RUN, "1": RUN}, "duplicate name '1'"),
    "a tuple": ({("a",): RUN, "b": RUN}, "('a',)"),
}


@pytest.mark.parametrize("entry", sorted(RUNS_ENTRY_POINTS))
@pytest.mark.parametrize("case", sorted(BAD_RUN_NAMES))
def test_the_names_of_a_mapping_of_runs_are_names(entry, case):
    """A {name: run} mapping's keys were made text with str(): '' gave way to the run's
    tag, None became a run 'None' and 1 and '1' two runs of one name."""
    runs, words = BAD_RUN_NAMES[case]
    with pytest.raises(InputError, match=re.escape(words)):
        RUNS_ENTRY_POINTS[entry](runs)
