"""User code under its guard (issue 33): a registered measure answering any array (any
dtype, any shape, NaN and ±inf among floats, Python objects, lists) is either scored
exactly, each topic's value the float64 of its row, or refused in one line naming the
measure; never printed as a score it is not, never a traceback or a warning. The command
line and ``irgauge.evaluate`` are both held to it."""

from __future__ import annotations


import hypothesis.extra.numpy as hnp
import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

import irgauge
from irgauge import UserCodeError
from irgauge.measures.user_code import LIMIT

from fuzz_checks import check, run_in
from fuzz_strategies import fuzz_settings

pytestmark = pytest.mark.slow  # a hypothesis search over user measures' answers

TOPICS = ("q1", "q2", "q3", "q4")
ANSWER = {"value": None}  # what the registered measure returns, set by each example
NAME = "FuzzAnswer"


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    """(folder, qrels, run, row of each topic in the measure's batch): the rows are found
    by a first answer that is each row's own index."""
    folder = tmp_path_factory.mktemp("user_code")
    qrels, run = folder / "qrels.txt", folder / "run.txt"
    qrels.write_text("".join(f"{t} 0 d{i} {i % 2}\n" for t in TOPICS for i in range(3)))
    run.write_text("".join(f"{t} Q0 d{i} {i} {3 - i} r\n" for t in TOPICS for i in range(3)))
    irgauge.register_measure(NAME, lambda ranked: ANSWER["value"](ranked), cutoff=False)
    ANSWER["value"] = lambda ranked: np.arange(ranked.n_rows, dtype=np.float64)
    try:
        frame = irgauge.evaluate(str(qrels), [str(run)], [NAME]).per_topic
        rows = {t: int(v) for t, v in zip(frame["topic"], frame["value"])}
        assert sorted(rows) == list(TOPICS) and sorted(rows.values()) == [0, 1, 2, 3]
        yield folder, str(qrels), str(run), rows
    finally:
        irgauge.unregister_measure(NAME)


N = len(TOPICS)
SHAPES = st.sampled_from([(N,), (N,), (N,), (N,), (), (N, 1), (1, N), (N + 1,), (0,)])
OBJECTS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(10**400), max_value=10**400),
    st.floats(),
    st.complex_numbers(),
    st.text(max_size=3),
)
DTYPES = st.one_of(
    hnp.scalar_dtypes(),
    hnp.unicode_string_dtypes(max_len=3),
    hnp.byte_string_dtypes(max_len=3),
)
ARRAYS = st.one_of(
    hnp.arrays(DTYPES, SHAPES),
    hnp.arrays(np.dtype(object), SHAPES, elements=OBJECTS),
)
ANSWERS = st.one_of(ARRAYS, ARRAYS.map(lambda a: a.tolist()))


def expected(answer):
    """The float64 of each row, or None where the answer must be refused: one real number
    within +-LIMIT (integers, floats, booleans; as Python objects, no text, None or
    complex) per row."""
    array = np.asarray(answer)
    if array.shape != (N,) or array.dtype.kind not in "biufO":
        return None
    if array.dtype.kind != "O":
        values = array.astype(np.float64).tolist()
    elif all(isinstance(x, (bool, int, float)) for x in array.tolist()):
        try:
            values = [float(x) for x in array.tolist()]
        except OverflowError:  # an integer beyond the largest double
            return None
    else:
        return None
    return values if all(abs(v) <= LIMIT for v in values) else None


@fuzz_settings(30)
@given(answer=ANSWERS)
def test_an_answer_is_scored_exactly_or_refused_in_one_line(collection, answer):
    folder, qrels, run, rows = collection
    ANSWER["value"] = lambda ranked: answer
    want = expected(answer)
    outcome = run_in(folder, "eval", qrels, run, "-m", NAME, "-q", "--format", "tsv")
    check(outcome, [f"measure {NAME} (function "])
    assert (outcome.code == 0) == (want is not None), (answer, outcome.err)
    try:
        frame = irgauge.evaluate(qrels, [run], [NAME]).per_topic
    except UserCodeError as err:
        assert want is None and "\n" not in str(err), (answer, err)
        assert str(err).startswith(f"measure {NAME} (function ")
        return
    assert want is not None, answer
    got = dict(zip(frame["topic"], frame["value"]))
    printed = {
        fields[2]: float(fields[3])
        for fields in (line.split("\t") for line in outcome.out.splitlines())
        if len(fields) == 4 and fields[1] == NAME and fields[2] in rows
    }
    for topic, row in rows.items():
        assert got[topic] == printed[topic] == want[row], (topic, answer)
