"""TREC QA runs and answer patterns (qa/formats.py), and the qa study on them."""

import pytest

from irgauge.errors import InputError
from irgauge.qa import qa_evaluate
from irgauge.qa.answer_formats import gold_from_patterns, read_trec_patterns, read_trec_qa_run

PATTERNS = """\
1 (Frank\\s+Lloyd\\s+)?Wright
1 F\\. ?L\\. Wright
2 1894
3 Mount\\s+Everest|Everest
"""
RUN_A = """\
1 tagA APW1 Frank Lloyd Wright
1 tagA APW2 Wright
1 tagA APW3 Le Corbusier
2 tagA NYT1 1895
2 tagA NYT2 1894
3 tagA NIL NIL
"""
RUN_B = """\
1 tagB XIE1 Gaudi
2 tagB XIE2 in 1894
3 tagB XIE3 mount everest
"""


@pytest.fixture
def trec(tmp_path):
    (tmp_path / "patterns").write_text(PATTERNS)
    (tmp_path / "a.txt").write_text(RUN_A)
    (tmp_path / "b.txt").write_text(RUN_B)
    return tmp_path


def test_run_reader_keeps_order_and_drops_nil(trec):
    run = read_trec_qa_run(trec / "a.txt")
    assert run.name == "tagA"
    assert run.answers["1"] == ["Frank Lloyd Wright", "Wright", "Le Corbusier"]
    assert run.answers["3"] == []


def test_patterns_give_one_class_per_question(trec):
    runs = [read_trec_qa_run(trec / n) for n in ("a.txt", "b.txt")]
    gold = gold_from_patterns(trec / "patterns", runs)
    assert gold.lookup("1", "Frank Lloyd Wright")[0] == gold.lookup("1", "Wright")[0]
    assert gold.lookup("1", "Le Corbusier") is None and gold.lookup("1", "Gaudi") is None
    assert gold.lookup("3", "mount everest") is not None  # case-insensitive search
    assert gold.n_classes() == {"1": 1, "2": 1, "3": 1}


def test_reciprocal_rank_by_hand(trec):
    runs = [read_trec_qa_run(trec / n) for n in ("a.txt", "b.txt")]
    gold = gold_from_patterns(trec / "patterns", runs)
    result = qa_evaluate(gold, runs, ["RR", "NQcorrect5"])
    table = result.per_topic.set_index(["run", "measure", "topic"])["value"]
    # run A: q1 correct at rank 1 (rank 2 repeats the class), q2 at rank 2, q3 no answer
    assert table[("tagA", "RR", "1")] == 1.0 and table[("tagA", "RR", "2")] == 0.5
    assert table[("tagA", "RR", "3")] == 0.0
    assert table[("tagA", "NQcorrect5", "1")] == 1.0  # one class, found once
    # run B: q1 wrong, q2 "in 1894" contains the pattern, q3 right
    assert [table[("tagB", "RR", q)] for q in "123"] == [0.0, 1.0, 1.0]


def test_bad_pattern_names_file_and_line(trec):
    (trec / "bad").write_text("1 Wright\n2 (1894\n")
    with pytest.raises(InputError) as err:
        read_trec_patterns(trec / "bad")
    assert "bad:2" in str(err.value) and "regular expression" in str(err.value)
    (trec / "badrun").write_text("1 tag\n")
    with pytest.raises(InputError) as err:
        read_trec_qa_run(trec / "badrun")
    assert "badrun:1" in str(err.value)


@pytest.mark.slow  # runs a study
def test_study_on_trec_qa_data(trec, tmp_path):
    from irgauge.studies.qa import run_qa

    runs = []
    for k in range(4):  # four runs answering better or worse
        lines = [
            f"{q} tag{k} D{q} {'Everest' if (q + k) % 3 else 'Lhotse'}\n" for q in range(1, 13)
        ]
        path = trec / f"r{k}.txt"
        path.write_text("".join(lines))
        runs.append(path)
    (trec / "p12").write_text("".join(f"{q} Everest\n" for q in range(1, 13)))
    result = run_qa(
        trec / "p12",
        runs,
        tmp_path / "out",
        seed=1,
        trials=20,
        repetitions=2,
        qa_options={"gold_format": "trec-patterns", "run_format": "trec-qa"},
    )
    assert result.manifest["parameters"]["qa_options"]["gold_format"] == "trec-patterns"
    assert result.manifest["derived"] is False
    assert "DERIVED" not in " ".join(result.summary)
