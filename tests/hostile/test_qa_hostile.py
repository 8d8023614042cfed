"""QA inputs at the edges, and judged-only lists as NTCIREVAL's ``label -j -ec`` builds them."""

from __future__ import annotations

import json

import numpy as np
import pytest

from irgauge import InputError
from irgauge.qa import qa_evaluate, read_gold

GOLD = "q1;Paris;L2;c1\nq1;paris city;L1;c1\nq1;Lyon;L0;c2\nq1;Nice;L1;c3\n"
RUN = (
    "q1;0;Paris;1;6;r\nq1;0;Berlin;2;5;r\nq1;0;paris city;3;4;r\nq1;0;Lyon;4;3;r\n"
    "q1;0;Paris;5;2;r\nq1;0;Nice;6;1;r\n"
)


@pytest.fixture
def qa_files(tmp_path):
    gold, run = tmp_path / "g.eqrels", tmp_path / "r.semi"
    gold.write_text(GOLD)
    run.write_text(RUN)
    return str(gold), str(run)


def test_judged_only_keeps_duplicates_as_ntcireval_label_j_ec(qa_files):
    """Expected values derived by hand from NTCIREVAL's eval_label (ntcir_eval.c, 190111):
    each ranked string is looked up in the rel list; with -ec the first string of a class
    not seen yet is printed with its level and marks the class seen, a string of a class
    already seen is printed bare (nonrelevant, but it stays in the list); a string not in
    the rel list is printed only without -j. So ``label -j -ec`` turns the run
    Paris(c1,L2) Berlin(unknown) 'paris city'(c1) Lyon(c2,L0) Paris(c1 again) Nice(c3,L1)
    into the condensed list  Paris:L2, 'paris city', Lyon:L0, Paris, Nice:L1  with gains
    2, 0, 0, 0, 1 (gain = level); R = 2 (c1, c3), ideal gains 2, 1.

    Q-measure (beta 1): BR(r) = (cg(r) + count(r)) / (cg_I(r) + r) at the relevant ranks
    1 and 5: (2+1)/(2+1) = 1 and (3+2)/(3+5) = 5/8, so Q = (1 + 5/8)/2 = 13/16.
    P@3 = 1/3 (only rank 1 is relevant). Had the duplicates been dropped like unjudged
    answers, the list would be Paris, Lyon, Nice: Q = (1 + 5/6)/2 and P@3 = 2/3.
    Without -j Berlin stays at rank 2 and Nice is at rank 6: Q = (1 + 5/9)/2."""
    gold, run = qa_files
    judged = qa_evaluate(gold, [run], ["Q-measure", "P@3"], judged_only=True).means
    values = dict(zip(judged["measure"], judged["value"]))
    assert values["Q-measure"] == pytest.approx(13 / 16, abs=1e-12)
    assert values["P@3"] == pytest.approx(1 / 3, abs=1e-12)
    full = qa_evaluate(gold, [run], ["Q-measure"]).means
    assert full["value"].iloc[0] == pytest.approx((1 + 5 / 9) / 2, abs=1e-12)


def test_cli_labels_repeated_string_as_duplicate(cli, qa_files):
    code, out, err = cli("qa", "label", *qa_files)
    assert code == 0, err
    statuses = [
        line.split("\t")[3]
        for line in out.splitlines()
        if line and not line.startswith(("#", "topic"))
    ]
    assert statuses == ["correct", "unknown", "duplicate", "incorrect", "duplicate", "correct"]


@pytest.mark.parametrize("score", ["nan", "inf", "-inf"])
def test_non_finite_answer_score_refused(cli, tmp_path, qa_files, score):
    run = tmp_path / "bad.semi"
    run.write_text(f"q1;0;Paris;1;6;r\nq1;0;Nice;2;{score};r\n")
    code, out, err = cli("qa", "eval", qa_files[0], run)
    assert code == 2 and out == ""
    assert f"{run}:2: score '{score}' is not a finite number" in err


@pytest.mark.parametrize(
    "data,message",
    [
        (
            {"q1": [{"class": "c1", "level": "L1", "answers": "Paris"}]},
            "'answers' must be a list of strings, not str",
        ),
        (
            {"q1": [{"class": "c1", "level": "L1", "answers": [["Paris"]]}]},
            "answers must be strings, not list",
        ),
        ({"q1": [{"class": "c1", "level": [1], "answers": ["Paris"]}]}, "level must be"),
        ({"q1": "Paris"}, "classes must be an object or a list, not str"),
        ([{"topic": "q1", "answer": 3, "level": "L1", "class": "c"}], "answers must be strings"),
    ],
)
def test_gold_json_schema(cli, tmp_path, data, message):
    gold = tmp_path / "g.json"
    gold.write_text(json.dumps(data))
    with pytest.raises(InputError, match=message):
        read_gold(gold)
    run = tmp_path / "r.json"
    run.write_text(json.dumps({"q1": ["Paris"]}))
    code, out, err = cli("qa", "eval", gold, run)
    assert code == 2 and message in err


def test_deeply_nested_json_refused_without_recursion_error(cli, tmp_path):
    gold = tmp_path / "g.json"
    gold.write_text("[" * 100_000 + "]" * 100_000)
    run = tmp_path / "r.json"
    run.write_text('{"q1": ["a"]}')
    code, out, err = cli("qa", "eval", gold, run)
    assert code == 2 and f"{gold}:1: JSON nested deeper than 8 levels" in err


def test_brackets_inside_answers_do_not_count_as_nesting(tmp_path):
    gold = tmp_path / "g.json"
    gold.write_text(
        json.dumps({"q1": {"c1": {"level": 1, "answers": ['[[[[[[[[[[[[ {{{{ \\" ]]']}}})
    )
    assert read_gold(gold).classes == {"q1": {"c1": 1}}


def test_large_level_accepted(tmp_path):
    """L40000 is a gain of 40000 (gain = level): P@1 and RR are 1, nDCG of the ideal
    order is 1."""
    gold, run = tmp_path / "g.eqrels", tmp_path / "r.semi"
    gold.write_text("q1;alpha;L40000;c1\nq1;beta;L1;c2\n")
    run.write_text("q1;0;alpha;1;2;r\nq1;0;beta;2;1;r\n")
    means = qa_evaluate(str(gold), [str(run)], ["RR", "P@1", "nDCG"]).means
    np.testing.assert_allclose(means["value"], [1.0, 1.0, 1.0], atol=1e-12)


@pytest.mark.parametrize("suffix", [".gz", ".bz2", ".xz"])
def test_topic_named_by_a_compressed_file_is_its_stem(cli, tmp_path, qa_files, suffix):
    """A list-format run names its topic by the file's stem, whatever the compression:
    q1.txt.bz2 was topic 'q1.txt' (only .gz was stripped), a topic the gold data lacks."""
    import bz2
    import gzip
    import lzma

    compress = {".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}[suffix]
    gold, _ = qa_files
    run = tmp_path / f"q1.txt{suffix}"
    run.write_bytes(compress(b"Paris\nLyon\n"))
    code, out, err = cli("qa", "eval", gold, run, "--run-format", "list", "-m", "RR")
    assert code == 0, err
    assert "not in the qrels" not in err


def test_derived_runs_of_the_same_file_name_are_all_kept(tmp_path):
    """Runs a/r.run and b/r.run became one runs/r.tsv, the other run silently lost."""
    from irgauge.studies.qa import qa_collection_from_adhoc

    from hostile_data import QRELS, RUN

    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    runs = []
    for folder, text in (("a", RUN), ("b", RUN.replace("d1", "d5")), (".", RUN)):
        (tmp_path / folder).mkdir(exist_ok=True)
        runs.append(tmp_path / folder / ("r.run" if folder != "." else "other.run"))
        runs[-1].write_text(text)
    written = qa_collection_from_adhoc(qrels, runs, tmp_path / "qa")["runs"]
    assert sorted(p.name for p in written) == ["other.tsv", "r#1.tsv", "r#2.tsv"]
    assert len({p.read_text() for p in written if p.name.startswith("r#")}) == 2
