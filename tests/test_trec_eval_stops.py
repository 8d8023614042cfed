"""``irgauge trec_eval`` stops where trec_eval 10.0 stops on a document twice in a topic:
retrieved twice, judged twice (with the same level or another), or judged twice within a
judgment group of a qrels_jg file.

Sources of the expected outcomes: trec_eval 10.0's source. trec_eval.c evaluates the qrels
topics in byte order of their ids (get_qrels.c sorts them), skips run topics without
qrels, and exits 4 when a measure cannot be computed for a topic, after printing (-q) the
topics before it and before any summary. For each topic, form_res_rels.c (and
form_res_rels_jg.c) sorts the run's documents by score, ties by docno descending
(comp_sim_docno), keeps the first -M, and fails on a docno kept twice ("form_res_qrels:
duplicate docs"); form_res_rels.c then fails on a docno judged twice ("form_res_rels:
duplicate docs"). Neither is called by runid and num_q, which never fail. get_qrels_jg.c
refuses, as it reads the file, a group judging a docno twice (exit 2, nothing printed).
Where a binary is at hand (``TREC_EVAL=/path/to/trec_eval``), the same cases and
generated ones are compared with it.
"""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_streaming import WHOLE, _write
from test_trec_eval_drop_in import compare_with_trec_eval, slow_settings, trec_eval_binary

from irgauge.cli import main
from irgauge.evaluation.trec_eval import line_scoring as trec_eval_scoring
from irgauge.evaluation.trec_eval import output as trec_eval_output
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
from irgauge.measures.trec_eval_words import TrecEvalError
from tests.conftest import examples

QRELS = ["1 0 a 1", "1 0 b 0", "2 0 a 1", "2 0 c 2", "3 0 a 1"]
RUN = ["1 Q0 a 1 3 r", "1 Q0 b 2 2 r", "2 Q0 a 1 5 r", "2 Q0 c 2 4 r", "3 Q0 a 1 1 r"]
# topic 2 retrieves 'a' again (line 5), ranked third: -M 2 leaves it unseen
RUN_TWICE = RUN[:4] + ["2 Q0 a 3 1 r"] + RUN[4:]
# topic 2 judges 'a' again (line 4), with another level
QRELS_AGAIN = QRELS[:3] + ["2 0 a 0"] + QRELS[3:]
TOPIC_1 = "P_1                   \t1\t1.0000\n"
# every topic's first document is judged 1: P_1 = 1 in each, and in the mean
ALL_TOPICS = "".join(f"P_1                   \t{t}\t1.0000\n" for t in ("1", "2", "3", "all"))


def drop_in(capsys, tmp_path, qrels, run, *argv):
    """(exit status, stdout, stderr) of ``irgauge trec_eval ARGV q r``."""
    q, r = _write(tmp_path / "q", qrels), _write(tmp_path / "r", run)
    code = main(["trec_eval", *argv, q, r])
    out, err = capsys.readouterr()
    return code, out, err


def outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, part, words=("P.1",)):
    """What trec_eval_output gives with the run read in parts of ``part`` bytes: the
    output, or a failure's status, output before it and message."""
    q, r = _write(tmp_path / "q", qrels), _write(tmp_path / "r", run)
    monkeypatch.setattr(trec_eval_scoring, "part_bytes", lambda budget, runs: part)
    try:
        return trec_eval_output.trec_eval_output(q, r, list(words), options)
    except TrecEvalError as err:
        return err.status, err.output, str(err)


# ------------------------------------------------------------------ without trec_eval

PART_SIZES = [WHOLE, 1, 20]  # the run read whole, and in parts of a topic or two


@pytest.mark.parametrize("qrels, run, line", [(QRELS, RUN_TWICE, 5), (QRELS_AGAIN, RUN, 4)])
@pytest.mark.parametrize("per_topic", [True, False])
def test_a_document_twice_stops_where_trec_eval_evaluates_its_topic(
    capsys, tmp_path, qrels, run, line, per_topic
):
    argv = ["-q"] if per_topic else []
    code, out, err = drop_in(capsys, tmp_path, qrels, run, *argv, "-m", "P.1")
    assert code == 4 and out == (TOPIC_1 if per_topic else "")
    file = "r" if run is RUN_TWICE else "q"
    assert f"{tmp_path / file}:{line}:" in err and "topic '2'" in err
    assert "duplicate docs a\n" in err  # trec_eval's own line


@pytest.mark.parametrize("part", PART_SIZES)
@pytest.mark.parametrize("scattered", [False, True])
@pytest.mark.parametrize("max_docs, stops", [(None, True), (3, True), (2, False)])
def test_a_document_retrieved_twice_counts_only_within_max_docs(
    monkeypatch, tmp_path, part, scattered, max_docs, stops
):
    run = RUN_TWICE
    if scattered:  # topic 2 on lines 1, 5 and 6: the copy of 'a' with score 1 first
        run = [RUN_TWICE[4], *RUN_TWICE[:2], RUN_TWICE[5], *RUN_TWICE[2:4]]
    options = TrecEvalOptions(per_topic=True, max_docs=max_docs)
    got = outcome_in_parts(monkeypatch, tmp_path, QRELS, run, options, part)
    if stops:
        status, out, message = got
        first = 1 if scattered else 3  # the copies of 'a' in file order: the second named
        assert status == 4 and out == TOPIC_1
        assert (
            f":5: document 'a' is retrieved again for topic '2' (also on line {first})" in message
        )
    else:  # the copy ranked third is beyond -M 2: trec_eval never sees it
        assert got == ALL_TOPICS


@pytest.mark.parametrize("part", PART_SIZES)
def test_a_judgment_repeated_with_another_level_stops_whole_or_in_parts(
    monkeypatch, tmp_path, part
):
    options = TrecEvalOptions(per_topic=True)
    status, out, message = outcome_in_parts(monkeypatch, tmp_path, QRELS_AGAIN, RUN, options, part)
    assert status == 4 and out == TOPIC_1 and "q:4: topic '2' judges document 'a'" in message


@pytest.mark.parametrize("qrels, run", [(QRELS, RUN_TWICE), (QRELS_AGAIN, RUN)])
def test_runid_and_num_q_alone_never_stop(capsys, tmp_path, qrels, run):
    # neither reads a topic's documents, so trec_eval computes them whatever they hold
    code, out, err = drop_in(capsys, tmp_path, qrels, run, "-m", "runid", "-m", "num_q")
    assert code == 0, err
    assert out == "runid                 \tall\tr\nnum_q                 \tall\t3\n"


def test_a_document_twice_in_a_topic_without_qrels_stops_nothing(capsys, tmp_path):
    run = RUN + ["9 Q0 x 1 1 r", "9 Q0 x 2 1 r"]  # trec_eval skips topic 9
    code, out, err = drop_in(capsys, tmp_path, QRELS, run, "-q", "-m", "P.1")
    assert code == 0 and out == ALL_TOPICS, err


JG_QRELS = ["1 0 a 1", "1 1 a 0", "2 0 a 1", "2 0 c 2", "3 0 a 1"]
# P_avgjg_1 per topic: 1: (1 + 0) / 2; 2 and 3: 1; mean (0.5 + 1 + 1) / 3
JG_ALL_TOPICS = "".join(
    f"P_avgjg_1             \t{t}\t{v}\n"
    for t, v in (("1", "0.5000"), ("2", "1.0000"), ("3", "1.0000"), ("all", "0.8333"))
)


@pytest.mark.parametrize("level", ["1", "0"])  # the same level, or another
def test_a_group_judging_a_document_twice_is_refused_as_trec_eval_refuses_it(
    capsys, tmp_path, level
):
    qrels = JG_QRELS[:4] + [f"2 0 a {level}"] + JG_QRELS[4:]
    argv = ("-q", "-R", "qrels_jg", "-m", "P_avgjg.1")
    code, out, err = drop_in(capsys, tmp_path, qrels, RUN, *argv)
    assert code == 2 and out == ""
    assert "trec_eval.get_qrels: duplicate docs a\n" in err and f"{tmp_path / 'q'}:5:" in err
    # groups 0 and 1 each judging 'a' once is no repeat
    code, out, err = drop_in(capsys, tmp_path, JG_QRELS, RUN, *argv)
    assert code == 0 and out == JG_ALL_TOPICS, err


@pytest.mark.parametrize("part", PART_SIZES)
@pytest.mark.parametrize("max_docs, stops", [(None, True), (2, False)])
def test_a_document_retrieved_twice_stops_judgment_groups_within_max_docs(
    monkeypatch, tmp_path, part, max_docs, stops
):
    options = TrecEvalOptions(per_topic=True, max_docs=max_docs, rel_format="qrels_jg")
    got = outcome_in_parts(monkeypatch, tmp_path, JG_QRELS, RUN_TWICE, options, part, ["P_avgjg.1"])
    if stops:
        status, out, message = got
        assert status == 4 and out == JG_ALL_TOPICS.splitlines(True)[0]
        assert "r:5: document 'a' is retrieved again for topic '2'" in message
    else:
        assert got == JG_ALL_TOPICS


# topic 1, first in byte order, has negative levels only: trec_eval's table of levels,
# sized by it, has no room, and its first measure fails (form_res_rels.c, after the checks
# of the topic's documents)
NEGATIVE_FIRST = ["1 0 a -1", "2 0 b 1"]
NEGATIVE_FIRST_AGAIN = ["1 0 a -1", "1 0 a -1", "2 0 b 1"]
RUN_NEGATIVE_FIRST = ["1 Q0 a 1 2 r", "2 Q0 b 1 1 r"]


@pytest.mark.parametrize(
    "qrels, words",
    [
        (NEGATIVE_FIRST, "negative qrels levels only"),
        (NEGATIVE_FIRST_AGAIN, "trec_eval.form_res_rels: duplicate docs a\n"),
    ],
)
def test_a_first_topic_of_negative_levels_stops_after_its_repeats(capsys, tmp_path, qrels, words):
    code, out, err = drop_in(capsys, tmp_path, qrels, RUN_NEGATIVE_FIRST, "-q", "-m", "P.1")
    assert code == 4 and out == "" and words in err, err


def test_eval_still_refuses_both_at_read_time(capsys, tmp_path):
    for qrels, run, line in ((QRELS, RUN_TWICE, "r:5"), (QRELS_AGAIN, RUN, "q:4")):
        q, r = _write(tmp_path / "q", qrels), _write(tmp_path / "r", run)
        assert main(["eval", q, r, "-m", "P@1"]) == 2
        assert line in capsys.readouterr().err


# ------------------------------------------------------------------ against trec_eval

needs_trec_eval = pytest.mark.skipif(
    trec_eval_binary() is None, reason="no trec_eval binary (set TREC_EVAL=/path/to/trec_eval)"
)
ARGUMENT_LISTS = [
    ["-m", "P.1"],
    ["-q", "-m", "P.1"],
    ["-q", "-M2", "-m", "P.1"],
    ["-q", "-M3", "-m", "all_trec"],
    ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "-m", "runid", "-m", "num_q"],
]
JG_ARGUMENT_LISTS = [
    ["-q", "-R", "qrels_jg", "-m", "P_avgjg.1"],
    ["-q", "-M2", "-R", "qrels_jg", "-m", "qrels_jg"],
]
FIXED = [
    (QRELS, RUN_TWICE),
    (QRELS_AGAIN, RUN),
    (JG_QRELS, RUN_TWICE),
    (NEGATIVE_FIRST, RUN_NEGATIVE_FIRST),
    (NEGATIVE_FIRST_AGAIN, RUN_NEGATIVE_FIRST),
]


def _text(lines) -> str:
    return "".join(line + "\n" for line in lines)


@needs_trec_eval
@pytest.mark.parametrize("qrels, run", FIXED)
@pytest.mark.parametrize("argv", ARGUMENT_LISTS + JG_ARGUMENT_LISTS, ids=" ".join)
def test_same_stops_as_trec_eval(tmp_path, qrels, run, argv):
    compare_with_trec_eval(trec_eval_binary(), tmp_path, _text(qrels), _text(run), argv)


TOPICS = ["1", "10", "2", "9"]
DOCS = ["a", "b", "c", "d", "e"]


@st.composite
def collections_with_repeats(draw, groups: int = 1):
    """qrels and runs whose topics may judge a document twice (with the same level or
    another, within a group) or retrieve one twice (with the same score or another), some
    topics judged and not answered and the reverse."""
    qrels = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)):
        for group in range(draw(st.integers(1, groups))):
            for doc in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=5)):
                qrels.append(f"{topic} {group} {doc} {draw(st.integers(-1, 2))}")
    run = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)):
        for rank, doc in enumerate(draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=6))):
            run.append(f"{topic} Q0 {doc} {rank} {draw(st.sampled_from([1, 2, 3]))} r")
    return _text(qrels), _text(draw(st.permutations(run)) if draw(st.booleans()) else run)


@needs_trec_eval
@pytest.mark.parametrize("argv", ARGUMENT_LISTS, ids=" ".join)
@slow_settings
@given(data=collections_with_repeats())
def test_same_stops_as_trec_eval_on_generated_repeats(tmp_path, argv, data):
    compare_with_trec_eval(trec_eval_binary(), tmp_path, *data, argv)


@needs_trec_eval
@pytest.mark.parametrize("argv", JG_ARGUMENT_LISTS, ids=" ".join)
@slow_settings
@given(data=collections_with_repeats(groups=2))
def test_same_stops_as_trec_eval_on_generated_group_repeats(tmp_path, argv, data):
    compare_with_trec_eval(trec_eval_binary(), tmp_path, *data, argv)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    data=collections_with_repeats(groups=2),
    part=st.sampled_from([1, 20, 60]),
    max_docs=st.sampled_from([None, 1, 2, 3]),
    rel_format=st.sampled_from(["qrels", "qrels_jg"]),
)
def test_generated_repeats_in_parts_give_the_whole_reads_outcome(
    monkeypatch, tmp_path, data, part, max_docs, rel_format
):
    qrels, run = (text.splitlines() for text in data)  # (-R qrels ignores the group)
    options = TrecEvalOptions(per_topic=True, max_docs=max_docs, rel_format=rel_format)
    words = ["P.1", "map"] if rel_format == "qrels" else ["qrels_jg"]
    whole = outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, WHOLE, words)
    assert outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, part, words) == whole


def test_a_hash_collision_hides_no_document_retrieved_twice():
    from irgauge.collection.repeated_documents import repeated_docs
    from irgauge.io.ids import as_ids
    from irgauge.io.records import Run

    docnos = as_ids(np.array([b"x", b"y", b"x"]))
    run = Run("r", as_ids(np.array([b"1"] * 3)), docnos, np.ones(3))
    # every key alike, as if x and y hashed to one value: x's copies sit apart
    same_keys = np.zeros(3, np.uint64)
    found = repeated_docs(run, (None, None), same_keys, np.zeros(3, np.int64), docnos)
    assert found is not None and found.docnos == [b"x"]
    assert (found.first_lines, found.lines) == ([1], [3])


def test_a_hash_collision_hides_no_document_retrieved_twice_from_the_refusal():
    # eval's refusal pairs the copies as the drop-in's record does (_repeated_pairs)
    from irgauge.collection.repeated_documents import reject_duplicates
    from irgauge.errors import InputError
    from irgauge.io.ids import as_ids
    from irgauge.io.records import Run

    docnos = as_ids(np.array([b"x", b"y", b"x"]))
    run = Run("r", as_ids(np.array([b"1"] * 3)), docnos, np.ones(3))
    same_keys = np.zeros(3, np.uint64)  # x and y hashed alike
    with pytest.raises(InputError, match="'x' is retrieved twice") as err:
        reject_duplicates(run, None, same_keys, np.zeros(3, np.int64), docnos)
    assert "also on line 1" in str(err.value) and err.value.line == 3
    distinct = as_ids(np.array([b"x", b"y", b"z"]))
    reject_duplicates(run, None, same_keys, np.zeros(3, np.int64), distinct)  # no copies
