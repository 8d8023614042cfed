"""QA scores: NTCIREVAL's equivalence-class example, hand-worked lists, NQcorrect, F-measure."""

import math
import re

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irgauge.qa import qa_evaluate
from tests.conftest import examples


def scores(result, run=None):
    frame = result.per_topic
    if run is not None:
        frame = frame[frame["run"] == run]
    return {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}


# README.equivalence's example: esample.erel, esample.res, -g 1:2:3:4:5 -cutoffs 10,1000
EXPECTED_MEASURES = {  # NTCIREVAL name -> irgauge measure string
    "RR": "RR",
    "O-measure": "O-measure",
    "P-measure": "P-measure",
    "P-plus": "P-plus",
    "AP": "AP",
    "Q-measure": "Q-measure",
    "AP@0010": "AP(norm=min)@10",
    "Q@0010": "Q-measure(norm=min)@10",
    "nDCG@0010": "nDCG(dcg=jk)@10",
    "MSnDCG@0010": "MSnDCG@10",
    "P@0010": "P@10",
    "Hit@0010": "Hit@10",
    "AP@1000": "AP(norm=min)@1000",
    "Q@1000": "Q-measure(norm=min)@1000",
    "nDCG@1000": "nDCG(dcg=jk)@1000",
    "MSnDCG@1000": "MSnDCG@1000",
    "P@1000": "P@1000",
    "Hit@1000": "Hit@1000",
}


def test_esample_matches_ntcireval(samples):
    expected = {}
    for line in (samples / "esample.expected.txt").read_text().splitlines():
        match = re.match(r"^\s*(\S+)=\s+([\d.]+)$", line)
        if match:
            expected[match.group(1)] = float(match.group(2))
    assert len(expected) >= 20
    result = qa_evaluate(
        samples / "esample.erel",
        samples / "esample.res",
        list(EXPECTED_MEASURES.values()),
        gains="1:2:3:4:5",
    )
    got = scores(result)
    for ntcir, ours in EXPECTED_MEASURES.items():
        assert got[(ours, "esample")] == pytest.approx(expected[ntcir], abs=5e-5), ntcir


def test_e_test_hand_worked(samples):
    # 0001: class-1 S-like L3 answer first, an unknown, then a duplicate of class 1; R = 1.
    # 0002: unknown, class 1 (L1), class 2 (L2); R = 2, cg_I = 2, 3.
    #   Q = (BR(2) + BR(3))/2 = ((1+1)/(3+2) + (3+2)/(3+3))/2
    result = qa_evaluate(
        samples / "e-test.eqrels",
        samples / "e-testrun",
        ["RR", "AP", "Q-measure", "NQcorrect1", "NQcorrect5", "F-measure"],
    )
    got = scores(result)
    assert got[("Q-measure", "0001")] == 1.0
    assert got[("Q-measure", "0002")] == pytest.approx((2 / 5 + 5 / 6) / 2)
    assert got[("RR", "0002")] == 0.5
    assert got[("AP", "0002")] == pytest.approx((1 / 2 + 2 / 3) / 2)
    assert got[("NQcorrect1", "0002")] == 0.0 and got[("NQcorrect5", "0002")] == 1.0
    assert got[("F-measure", "0001")] == pytest.approx(2 * 1 / (3 + 1))  # c=1, L=3, R=1
    assert got[("F-measure", "0002")] == pytest.approx(2 * 2 / (3 + 2))


GOLD = {
    "q1": {
        "c1": {"level": "S", "answers": ["Paris", "paris city"]},
        "c2": {"level": "B", "answers": ["Lyon"]},
        "c0": {"level": 0, "answers": ["Berlin"]},
    },
    "q2": {"k": {"level": "A", "answers": ["42"]}},
}


def test_duplicates_count_as_incorrect():
    # S gain 3, B gain 1: ideal 3, 1 -> cg_I = 3, 4
    dup = qa_evaluate(
        GOLD, {"q1": ["Paris", "paris city", "Lyon"]}, ["Q-measure", "RR", "num_rel_ret"]
    )
    plain = qa_evaluate(GOLD, {"q1": ["Paris", "xxx", "Lyon"]}, ["Q-measure", "RR"])
    got = scores(dup)
    # Paris at 1 (BR = (3+1)/(3+1)); Lyon at 3: BR(3) = (4+2)/(4+3)
    assert got[("Q-measure", "q1")] == pytest.approx((1 + 6 / 7) / 2)
    assert got[("num_rel_ret", "q1")] == 2
    assert scores(plain)[("Q-measure", "q1")] == got[("Q-measure", "q1")]


def test_duplicate_of_lower_level_string_keeps_first_level():
    gold = {"q": {"c": {"level": 1, "answers": ["low"]}}}
    gold_records = [("q", "high", "L3", "c", 1), ("q", "low", "L1", "c", 2)]
    from irgauge.qa import AnswerGold

    g = AnswerGold.from_records(gold_records)
    low_first = scores(qa_evaluate(g, {"q": ["low", "high"]}, ["nDCG", "Q-measure"]))
    high_first = scores(qa_evaluate(g, {"q": ["high", "low"]}, ["nDCG", "Q-measure"]))
    # low first: gain 1 at rank 1, "high" then repeats class c and gains 0; ideal gain 3
    assert low_first[("nDCG", "q")] == pytest.approx(1 / 3)
    assert high_first[("nDCG", "q")] == 1.0 and high_first[("Q-measure", "q")] == 1.0
    assert qa_evaluate(gold, {"q": ["low"]}, ["nDCG"]).means["value"][0] == 1.0


def test_answers_not_in_gold_and_incorrect_class():
    got = scores(
        qa_evaluate(
            GOLD,
            {"q1": ["Berlin", "Rome", "Lyon"], "q2": ["41"]},
            ["RR", "Hit@1", "P", "num_rel_ret", "instR"],
        )
    )
    assert got[("RR", "q1")] == pytest.approx(1 / 3)
    assert got[("Hit@1", "q1")] == 0.0
    assert got[("P", "q1")] == pytest.approx(1 / 3)
    assert got[("instR", "q1")] == pytest.approx(1 / 2)
    assert got[("RR", "q2")] == 0.0 and got[("num_rel_ret", "q2")] == 0


def test_empty_answer_lists_score_zero_and_are_averaged():
    result = qa_evaluate(GOLD, {"q1": ["Paris"], "q2": []}, ["RR", "F-measure"])
    got = scores(result)
    assert got[("RR", "q2")] == 0.0 and got[("F-measure", "q2")] == 0.0
    assert result.means.set_index("measure")["value"]["RR"] == 0.5
    skipped = qa_evaluate(GOLD, {"q1": ["Paris"], "q2": []}, ["RR"], complete=False)
    assert skipped.means["value"][0] == 1.0
    assert skipped.metadata["topics_missing_from_run"] == {"run": ["q2"]}


def test_gains_change_q_but_not_rr():
    run = {"q1": ["Lyon", "Paris"]}
    flat = scores(qa_evaluate(GOLD, run, ["Q-measure", "RR"], gains="1:1:1"))
    default = scores(qa_evaluate(GOLD, run, ["Q-measure", "RR"]))
    mild = scores(qa_evaluate(GOLD, run, ["Q-measure", "RR"], gains="1:1.5:2"))
    # flat: every answer correct at ranks 1, 2 with R = 2 -> Q = 1
    assert flat[("Q-measure", "q1")] == 1.0
    # 3:2:1: BR(1) = (1+1)/(3+1), BR(2) = (4+2)/(4+2)
    assert default[("Q-measure", "q1")] == pytest.approx((0.5 + 1) / 2)
    # 2:1.5:1: BR(1) = (1+1)/(2+1), BR(2) = (3+2)/(3+2)
    assert mild[("Q-measure", "q1")] == pytest.approx((2 / 3 + 1) / 2)
    assert flat[("RR", "q1")] == default[("RR", "q1")] == 1.0


@pytest.mark.parametrize(
    "answers, precision, recall",
    [
        (["Paris", "Lyon"], 1.0, 1.0),
        (["Paris", "paris city", "Lyon", "Rome"], 0.5, 1.0),  # duplicate and unknown
        (["Berlin"], 0.0, 0.0),
        (["paris city"], 1.0, 0.5),
    ],
)
def test_f_measure_over_answer_sets(answers, precision, recall):
    got = scores(qa_evaluate(GOLD, {"q1": answers}, ["instP", "instR", "F-measure"]))
    assert got[("instP", "q1")] == pytest.approx(precision)
    assert got[("instR", "q1")] == pytest.approx(recall)
    f = 0.0 if precision + recall == 0 else 2 * precision * recall / (precision + recall)
    assert got[("F-measure", "q1")] == pytest.approx(f)


POOL = ["Paris", "paris city", "Lyon", "Berlin", "Rome", "Nice", "Oslo"]


@settings(max_examples=examples(60), deadline=None)
@given(st.lists(st.sampled_from(POOL), min_size=1, max_size=5, unique=True))
def test_nqcorrect5_is_rr_positive_on_lists_of_five(answers):
    got = scores(qa_evaluate(GOLD, {"q1": answers}, ["RR", "NQcorrect5", "NQcorrect1"]))
    rr = got[("RR", "q1")]
    assert got[("NQcorrect5", "q1")] == float(rr > 0)
    assert got[("NQcorrect1", "q1")] == float(rr == 1)
    correct = [a for a in answers if a in ("Paris", "paris city", "Lyon")]
    assert math.isclose(rr, 0 if not correct else 1 / (answers.index(correct[0]) + 1))


def test_normalisation_options():
    gold = {"q": {"c": {"level": 1, "answers": ["ＡＢＣ  Def"]}}}
    exact = qa_evaluate(gold, {"q": ["abc def"]}, ["RR"])
    loose = qa_evaluate(gold, {"q": ["abc def"]}, ["RR"], normalise="nfkc,space,case")
    assert exact.means["value"][0] == 0.0 and loose.means["value"][0] == 1.0
    assert loose.metadata["answer_normalisation"] == "nfkc,space,case"


def test_run_without_any_answer_is_a_clear_error():
    from irgauge.errors import InputError

    with pytest.raises(InputError, match="holds no answers"):
        qa_evaluate(GOLD, {"q1": [], "zz": ["Paris"]}, ["RR"])
