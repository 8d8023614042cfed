"""``irgauge trec_eval`` where trec_eval 10.0's own C gives an order or a ranking that a
reader would not expect, and prints values all the same: cutoffs that its comparison
misorders, and the ``-c`` stand-in of an unanswered topic over judgment groups under
``-l`` below 0.

Sources of the expected outcomes (worked out by hand from trec_eval 10.0's C, and
checked against a trec_eval 10.0 binary; with ``TREC_EVAL=/path/to/trec_eval`` the
argument lists of tests/test_trec_eval_domain_extremes.py compare with it):
- meas_init.c: get_long_cutoffs reads the cutoffs with ``atol`` and sorts them with
  glibc's qsort (a merge sort) by comp_long, ``return (int)(a - b)``; it then checks the
  first cutoff only for > 0, and neighbours only for duplicates;
- m_P.c, m_rel_P.c (and m_recall.c, m_success.c, m_map_cut.c, m_ndcg_cut.c,
  m_unjudged.c, m_P_avgjg.c): one walk down the ranking stops at ``cutoffs[i]`` only
  when the rank equals it, then looks for ``cutoffs[i + 1]``; a cutoff it never meets
  takes the whole ranking's count over the cutoff (P), over min(cutoff, R) (relative_P;
  0 when R is 0), as C divides doubles (x/0 = inf, 0/0 = -nan);
- trec_eval.c and form_res_rels_jg.c: with -c an unanswered topic is evaluated on one
  document outside the qrels (level -1) under every judgment group of the topic, and
  ``-l -1`` makes that document relevant.
"""

from __future__ import annotations

import pytest

from irgauge.cli import main
from irgauge.measures.trec_eval_words import compare_longs, lines

# topic 1: 8 relevant documents; 4 of the 7 retrieved are relevant, 2 within the first 5.
# topic 2: 1 relevant document, not retrieved
QRELS = "".join(f"1 0 d{i} 1\n" for i in range(1, 9)) + "1 0 x1 0\n2 0 r 1\n"
RUN = (
    "".join(
        f"1 Q0 {doc} {rank} {8 - rank} t\n"
        for rank, doc in enumerate(["d1", "x1", "d2", "x2", "x3", "d3", "d4"], 1)
    )
    + "2 Q0 n 1 1 t\n"
)


def drop_in(capsys, tmp_path, *argv: str, qrels: str = QRELS, run: str = RUN):
    (tmp_path / "q").write_text(qrels)
    (tmp_path / "r").write_text(run)
    code = main(["trec_eval", *argv, str(tmp_path / "q"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    return code, out, err


def test_comp_long_compares_the_low_32_bits_of_the_difference():
    # 10^12 - 5 = 0xE8_D4A5_0FFB: its low 32 bits, 0xD4A50FFB, are a negative int
    assert compare_longs(10**12, 5) == 0xD4A50FFB - 2**32 < 0
    assert compare_longs(5, 10**12) == 2**32 - 0xD4A50FFB > 0
    assert compare_longs(2**31, 0) == -(2**31)  # INT_MIN: 2^31 sorts before 0
    assert compare_longs(7, 3) == 4 and compare_longs(3, 3) == 0


@pytest.mark.parametrize(
    "params, expected",
    [
        ("5,10", [("P_5", True), ("P_10", True)]),
        ("5,1000000000000", [("P_1000000000000", True), ("P_5", False)]),
        ("3,1000000000000,1", [("P_1000000000000", True), ("P_1", False), ("P_3", False)]),
        ("4,2147483650,0", [("P_4", True), ("P_2147483650", True), ("P_0", False)]),
        ("5,-1000000000000", [("P_5", True), ("P_-1000000000000", False)]),
    ],
)
def test_cutoffs_come_in_trec_evals_order_and_those_after_a_descent_are_not_reached(
    params, expected
):
    assert [(line.label, line.reached) for line in lines("P", params)] == expected


@pytest.mark.parametrize(
    "params, message",
    [("5,1000000000000,5", "duplicate cutoffs"), ("0,5", "Negative cutoff")],
)
def test_neighbours_equal_or_a_first_cutoff_below_1_are_refused_as_trec_eval_does(
    capsys, tmp_path, params, message
):
    code, out, err = drop_in(capsys, tmp_path, "-m", f"P.{params}")
    assert (code, out) == (2, "")
    assert err.startswith(f"trec_eval: {message}") and "initialize measure 'P'" in err


def test_a_cutoff_never_reached_is_the_whole_rankings_count_over_it(capsys, tmp_path):
    code, out, err = drop_in(capsys, tmp_path, "-q", "-m", "P.5,1000000000000")
    assert (code, err) == (0, "")
    assert out == (
        "P_1000000000000       \t1\t0.0000\n"
        "P_5                   \t1\t0.8000\n"  # 4 / 5; reached, it would be 2 / 5
        "P_1000000000000       \t2\t0.0000\n"
        "P_5                   \t2\t0.0000\n"
        "P_1000000000000       \tall\t0.0000\n"
        "P_5                   \tall\t0.4000\n"
    )


def test_relative_p_never_reached_divides_by_min_of_cutoff_and_r_as_c_divides(capsys, tmp_path):
    # order 2147483648, 0, 2 (comp_long(2^31, 0) is INT_MIN); 0 and 2 are not reached:
    # topic 1: 4 / min(2^31, 8), 4 / 0 = inf, 4 / min(2, 8); topic 2: 0 / 1, 0 / 0, 0 / 1
    code, out, err = drop_in(capsys, tmp_path, "-q", "-m", "relative_P.2147483648,0,2")
    assert (code, err) == (0, "")
    assert out == (
        "relative_P_2147483648 \t1\t0.5000\n"
        "relative_P_0          \t1\t   inf\n"
        "relative_P_2          \t1\t2.0000\n"
        "relative_P_2147483648 \t2\t0.0000\n"
        "relative_P_0          \t2\t  -nan\n"
        "relative_P_2          \t2\t0.0000\n"
        "relative_P_2147483648 \tall\t0.2500\n"
        "relative_P_0          \tall\t  -nan\n"  # inf + -nan
        "relative_P_2          \tall\t1.0000\n"
    )


def test_a_negative_cutoff_after_the_first_divides_by_it(capsys, tmp_path):
    code, out, err = drop_in(capsys, tmp_path, "-m", "P.5,-1000000000000")
    assert (code, err) == (0, "")
    # P_5 reached: (2/5 + 0) / 2; then 4 / -10^12 and 0 / -10^12, -0 summed with -0
    assert out == "P_5                   \tall\t0.2000\nP_-1000000000000      \tall\t-0.0000\n"


def test_irgauge_eval_refuses_a_cutoff_trec_eval_never_reaches(capsys, tmp_path):
    (tmp_path / "q").write_text(QRELS)
    (tmp_path / "r").write_text(RUN)
    code = main(["eval", "-m", "P.5,1000000000000", str(tmp_path / "q"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "") and "never reaches" in err


# topic 1 is answered; topic 3, judged by groups 0 and 1, is not
GROUPS = "1 0 a 1\n1 1 a 0\n3 0 z 1\n3 1 z 0\n3 1 y 2\n"


def test_complete_below_level_0_scores_the_stand_in_under_every_group(capsys, tmp_path):
    argv = ["-q", "-c", "-l", "-1", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1,2"]
    code, out, err = drop_in(capsys, tmp_path, *argv, qrels=GROUPS, run="1 Q0 a 1 1 t\n")
    assert (code, err) == (0, "")
    topic_3 = [line for line in out.splitlines() if line.split("\t")[1] == "3"]
    # the stand-in is relevant at rank 1 under both groups, whose R (levels >= 0) are 1
    # and 2: map (1/1 + 1/2) / 2; P_1 (1 + 1) / 2; P_2 (1/2 + 1/2) / 2
    assert topic_3 == [
        "map_avgjg             \t3\t0.7500",
        "P_avgjg_1             \t3\t1.0000",
        "P_avgjg_2             \t3\t0.5000",
    ]


def test_complete_below_level_0_scores_a_stand_in_line_of_no_measure(capsys, tmp_path):
    # Rprec_mult.0 is a constant line, which the stand-in's scoring once looked up
    code, out, err = drop_in(
        capsys, tmp_path, "-c", "-l", "-1", "-m", "Rprec_mult.0,0.5", qrels=QRELS + "3 0 z 1\n"
    )
    assert (code, err) == (0, "")
    assert out.splitlines()[0] == "Rprec_mult_0.00       \tall\t0.0000"
