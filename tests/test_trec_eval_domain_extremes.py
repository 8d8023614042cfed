"""``irgauge trec_eval`` at the option values and measure parameters that trec_eval 10.0
takes and that the drop-in refused before: -D 0.query, ... Each is computed as trec_eval's
C computes it, and printed byte for byte on the same channels with the same exit status.

Sources of the expected outcomes:
- trec_eval 10.0's source: trec_eval.c (-D level.query: every qrels topic but the query
  is skipped before the run is searched for it; no topic evaluated: exit 7), meas_avg.c
  (with -c a mean divides by the number of qrels topics, and a geometric one adds
  log(MIN_GEO_MEAN) for each topic not evaluated), m_num_q.c (-c: num_q is the number of
  qrels topics);
- the values below are worked out from those definitions by hand (and were checked
  against a trec_eval 10.0 binary);
- where the machine has one (``TREC_EVAL=/path/to/trec_eval``), that binary itself, on
  hypothesis-generated collections: stdout, stderr and exit status.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given

from irgauge.cli import main

# topic 1: a relevant at rank 1 (AP 1); topic 2: c (level 2) at rank 2 behind z, not
# judged, and a (level 1) not retrieved (AP (1/2) / 2 = 0.25); topic 3 is not answered
QRELS = b"1 0 a 1\n1 0 b 0\n2 0 c 2\n2 0 a 1\n3 0 x 1\n"
RUN = b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 3 t\n2 Q0 z 1 4 t\n"


def drop_in(capsys, tmp_path, *argv: str, qrels: bytes = QRELS, run: bytes = RUN):
    """(exit status, stdout, stderr) of ``irgauge trec_eval ARGV q r``."""
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    code = main(["trec_eval", *argv, str(tmp_path / "q"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    return code, out, err


def summary(out: str) -> dict:
    return {
        name.strip(): value for name, topic, value in (ln.split("\t") for ln in out.splitlines())
    }


# ------------------------------------------------------------- -D level.query


def test_debug_query_evaluates_that_topic_alone(capsys, tmp_path):
    code, out, err = drop_in(capsys, tmp_path, "-q", "-D", "0.2", "-m", "map", "-m", "num_q")
    assert (code, err) == (0, "")
    assert out == (
        "map                   \t2\t0.2500\n"
        "num_q                 \tall\t1\n"
        "map                   \tall\t0.2500\n"
    )


def test_debug_query_with_complete_divides_by_every_qrels_topic(capsys, tmp_path):
    words = ("-m", "num_q", "-m", "map", "-m", "gm_map", "-m", "num_rel", "-m", "num_ret")
    code, out, err = drop_in(capsys, tmp_path, "-c", "-D", "0.2", *words)
    assert (code, err) == (0, "")
    values = summary(out)
    n = 3  # qrels topics
    gm = math.exp((math.log(0.25) + (n - 1) * math.log(1e-5)) / n)
    assert values == {
        "num_q": "3",
        "num_ret": "2",  # counts are the evaluated topic's
        "num_rel": "4",  # -c: every level > 0 of the qrels file
        "map": f"{0.25 / n:6.4f}",
        "gm_map": f"{gm:6.4f}",
    }


def test_debug_query_of_an_unanswered_topic(capsys, tmp_path):
    # without -c: the topic is looked for in the run and not found (exit 4)
    code, out, err = drop_in(capsys, tmp_path, "-D", "0.3", "-m", "map")
    assert (code, out) == (4, "")
    assert err.startswith("trec_eval: result qid '3' not found in qrels\n")
    # with -c: scored on trec_eval's stand-in ranking
    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-D", "0.3", "-m", "num_ret")
    assert (code, out, err) == (
        0,
        "num_ret               \t3\t0\nnum_ret               \tall\t0\n",
        "",
    )


@pytest.mark.parametrize("level", ["0.9", "0.", "abc.22"])
def test_debug_query_outside_the_qrels_evaluates_nothing(capsys, tmp_path, level):
    code, out, err = drop_in(capsys, tmp_path, "-D", level)
    assert (code, out) == (7, "")
    assert err.startswith("trec_eval: No queries with both results and relevance info\n")
    assert err.count("\n") == 2 and "-D" in err.splitlines()[1]


def test_debug_query_is_read_up_to_the_first_dot(capsys, tmp_path):
    qrels, run = b"1.5 0 a 1\n1 0 a 1\n", b"1.5 Q0 a 1 2 t\n1 Q0 b 1 2 t\n"
    code, out, err = drop_in(
        capsys, tmp_path, "-q", "-D", ".1.5", "-m", "P.1", qrels=qrels, run=run
    )
    assert (code, out, err) == (
        0,
        "P_1                   \t1.5\t1.0000\nP_1                   \tall\t1.0000\n",
        "",
    )


def test_debug_query_over_judgment_groups(capsys, tmp_path):
    qrels = b"1 0 a 1\n1 1 a 0\n2 0 c 1\n"
    run = b"1 Q0 a 1 2 t\n2 Q0 c 1 3 t\n"
    argv = ("-c", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "num_q")
    code, out, err = drop_in(capsys, tmp_path, "-D", "0.1", *argv, qrels=qrels, run=run)
    # topic 1: map 1 under group 0, 0 under group 1; over the 2 topics of the file
    assert (code, summary(out), err) == (0, {"num_q": "2", "map_avgjg": "0.2500"}, "")


# ------------------------------------------------- set_F's beta and rbp's p: any double


def c_set_f(beta: float, rel_ret: int, ret: int, rel: int) -> float:
    """m_set_F.c: (x + 1) P R / (x P + R), in C's (IEEE's) arithmetic; 0 without a
    relevant document retrieved."""
    if not rel_ret:
        return 0.0
    precision, recall = rel_ret / ret, rel_ret / rel
    numerator, denominator = (beta + 1.0) * precision * recall, beta * precision + recall
    if denominator == 0:  # Python raises where C divides
        return math.copysign(math.inf, numerator) if numerator else -math.nan
    return numerator / denominator


def c_rbp(p: float, gains) -> float:
    """m_rbp.c: (1 - p) times the sum of gain * p^(rank-1), a term added only where the
    gain is not 0, p^(rank-1) one product per rank."""
    total, weight = 0.0, 1.0
    for gain in gains:
        if gain != 0:
            total += gain * weight
        weight *= p
    return (1.0 - p) * total


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "-nan", "1.7e308", "-1e309", "0x1p1023"])
def test_set_f_takes_any_double(capsys, tmp_path, text):
    from irgauge.measures.c_numbers import atof, c_fixed

    beta = atof(text)
    # topic 1: 1 relevant of 2 retrieved, R = 1; topic 2: 1 of 2, R = 2 (-c: topic 3, 0)
    expected = [c_set_f(beta, 1, 2, 1), c_set_f(beta, 1, 2, 2), 0.0]
    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-m", f"set_F.{text}")
    label = f"set_F_{text}".ljust(22)
    total = 0.0
    for value in expected:
        total += value
    lines = [f"{label}\t{topic}\t{c_fixed(v, 6, 4)}" for topic, v in zip("123", expected)]
    lines.append(f"{label}\tall\t{c_fixed(total / 3, 6, 4)}")
    assert (code, out, err) == (0, "\n".join(lines) + "\n", "")


@pytest.mark.parametrize("text", ["inf", "-inf", "nan", "-nan", "-1.7e308", "0.5,p=nan"])
def test_rbp_takes_any_double(capsys, tmp_path, text):
    from irgauge.measures.c_numbers import atof, c_fixed

    p = atof(text.rpartition("=")[2])  # the last p given is m_rbp.c's
    # gains by rank: topic 1 (a: 1, b: 0), topic 2 (z: not judged, c: level 2, which is
    # the topic's highest gain, above 1, so divided by it: 1)
    expected = [c_rbp(p, [1.0, 0.0]), c_rbp(p, [0.0, 1.0])]
    qrels = QRELS.replace(b"3 0 x 1\n", b"")  # every qrels topic answered
    code, out, err = drop_in(capsys, tmp_path, "-q", "-m", f"rbp.p={text}", qrels=qrels)
    label = f"rbp_p={text}".ljust(22)
    lines = [f"{label}\t{topic}\t{c_fixed(v, 6, 4)}" for topic, v in zip("12", expected)]
    lines.append(f"{label}\tall\t{c_fixed((0.0 + expected[0] + expected[1]) / 2, 6, 4)}")
    assert (code, out, err) == (0, "\n".join(lines) + "\n", "")


# --------------------------------------------------------- utility: any double, any -N


def c_utility(coefficients, num_docs: int, rel_ret: int, ret: int, rel: int) -> float:
    """m_utility.c: the coefficients times C longs, the last one num_docs + rel_ret - ret
    - rel, which wraps past a 64-bit long."""
    a, b, c, d = coefficients
    count = (num_docs + rel_ret - ret - rel + (1 << 63)) % (1 << 64) - (1 << 63)
    with np.errstate(invalid="ignore", over="ignore"):  # 0 * inf, as in C
        terms = np.array([rel_ret, ret - rel_ret, rel - rel_ret, count], np.float64)
        products = np.array([a, b, c, d]) * terms
        return float(((products[0] + products[1]) + products[2]) + products[3])


@pytest.mark.parametrize(
    "num_docs, params",
    [
        ("-5", "1,-1,0,1"),
        ("9223372036854775807", "1,-1,0,1"),  # the count wraps
        ("-9223372036854775808", "1,-1,0,-2"),
        ("1000000000000000000", "0,0,0,0.5"),
        ("0", "inf,-1,0,0"),  # inf * 0 where nothing relevant is retrieved
        ("0", "-nan,1e308,1e308,1e308"),
    ],
)
def test_utility_takes_any_double_and_any_long(capsys, tmp_path, num_docs, params):
    from irgauge.measures.c_numbers import atof, atol, c_fixed

    coefficients = [atof(x) for x in params.split(",")]
    n = atol(num_docs)
    qrels = QRELS.replace(b"3 0 x 1\n", b"")  # every topic answered
    # (relevant retrieved, retrieved, relevant): topic 1 (1, 2, 1), topic 2 (1, 2, 2)
    expected = [c_utility(coefficients, n, *counts) for counts in ((1, 2, 1), (1, 2, 2))]
    code, out, err = drop_in(
        capsys, tmp_path, "-q", "-N", num_docs, "-m", f"utility.{params}", qrels=qrels
    )
    label = f"utility_{params}".ljust(22)
    lines = [f"{label}\t{topic}\t{c_fixed(v, 6, 4)}" for topic, v in zip("12", expected)]
    lines.append(f"{label}\tall\t{c_fixed((0.0 + expected[0] + expected[1]) / 2, 6, 4)}")
    assert (code, out, err) == (0, "\n".join(lines) + "\n", "")


def test_utility_outside_trec_evals_form_keeps_its_limits():
    from irgauge.errors import MeasureError
    from irgauge.measures import parse_measure

    for text in ("Utility(a=inf)", "Utility(d=1e13)", "Utility(num_docs=-1)"):
        with pytest.raises(MeasureError, match=r"unless form=trec_eval"):
            parse_measure(text)
    parse_measure("Utility(a=inf,num_docs=-1,form=trec_eval)")


# -------------------------------- recall levels and multiples of R past 9.2e9, in a long


def test_levels_past_9e9_are_computed_where_x_times_r_fits_a_long(capsys, tmp_path):
    # R is at most 2 here: x*R up to 9.2e18 is a long; trunc(x*R + 0.9) and lround(x*R)
    # are then past every ranking (Rprec: relevant retrieved over it, 0 to 4 places;
    # iprec_at_recall: 0), or below 1 (the highest precision: 1 and 0.5)
    argv = ("-m", "Rprec_mult.4e18", "-m", "iprec_at_recall.-4.6e18,4.6e18")
    code, out, err = drop_in(capsys, tmp_path, "-q", *argv, qrels=QRELS.replace(b"3 0 x 1\n", b""))

    def label(name, x):  # %3.2f in a buffer of the name's length + 10 bytes
        return f"{name}_{x:3.2f}"[: len(name) + 9].ljust(22)

    iprec = [label("iprec_at_recall", x) for x in (-4.6e18, 4.6e18)]
    rprec = label("Rprec_mult", 4e18)
    per_topic = {"1": ("1.0000", "0.0000", "0.0000"), "2": ("0.5000", "0.0000", "0.0000")}
    per_topic["all"] = ("0.7500", "0.0000", "0.0000")
    expected = "".join(
        f"{name}\t{topic}\t{value}\n"
        for topic, values in per_topic.items()
        for name, value in zip([*iprec, rprec], values)
    )
    assert (code, out, err) == (0, expected, "")


def test_a_level_past_a_long_for_the_qrels_own_r_is_refused(capsys, tmp_path):
    code, out, err = drop_in(capsys, tmp_path, "-m", "Rprec_mult.4.7e18")  # 4.7e18 * 2
    assert (code, out) == (2, "")
    assert err.startswith("irgauge: Rprec_mult.4.7e18: ") and "(up to 2)" in err
    # with no relevant document (-l above every level), x*R = 0 for every topic
    code, out, err = drop_in(capsys, tmp_path, "-c", "-l", "5", "-m", "Rprec_mult.4.7e18")
    assert (code, out, err) == (0, "Rprec_mult_47000000   \tall\t0.0000\n", "")


# ------------------------------------------------------------------------- -M 0


def test_max_docs_0_evaluates_empty_rankings(capsys, tmp_path):
    # trec_eval keeps no document of any topic, the -c stand-in's included: counts of 0,
    # P 0, utility c*R (utility.2,-1,1,0), relstring '', and interpolated precision 0/0
    # where the cut round(x*R) is 0 or less (11pt_avg: at any of its levels)
    words = ["num_ret", "num_rel", "iprec_at_recall.0,0.5", "P.1", "relstring.3"]
    words += ["utility.2,-1,1,0", "11pt_avg.0.5,-1"]
    argv = [arg for word in words for arg in ("-m", word)]
    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-M", "0", *argv)
    rows = {
        "num_ret": ("0", "0", "0", "0"),
        "num_rel": ("1", "2", "1", "4"),
        "iprec_at_recall_0.00": ("  -nan",) * 4,
        "iprec_at_recall_0.50": ("0.0000", "0.0000", "0.0000", "0.0000"),
        "P_1": ("0.0000",) * 4,
        "relstring_3": ("''", "''", "''", None),
        "utility_2,-1,1,0": ("1.0000", "2.0000", "1.0000", "1.3333"),
        "11pt_avg_0.5,-1": ("  -nan",) * 4,
    }
    expected = "".join(
        f"{name:<22}\t{topic}\t{values[column]}\n"
        for column, topic in enumerate(["1", "2", "3", "all"])
        for name, values in rows.items()
        if values[column] is not None
    )
    assert (code, out, err) == (0, expected, "")


# ------------------------------------------------------------- a gain level repeated


@pytest.mark.parametrize(
    "repeated, once",
    [
        ("ndcg.1=2,1=3", "ndcg.1=2"),  # the first gain, the lowest: trec_eval's for both
        ("G.1=2,+1=4,2=5", "G.1=2,2=5"),  # +1 is level 1 (atol)
        ("rbp.p=0.5,p=0.8", "rbp.p=0.8"),  # m_rbp.c keeps the last p
    ],
)
def test_a_level_given_twice_takes_trec_evals_gain(capsys, tmp_path, repeated, once):
    # setup_gains counts a level's documents under its first entry (the ideal ranking)
    # and get_gain takes the level's lowest gain (the run's): the first, when lowest
    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-m", repeated)
    label = repeated.replace(".", "_", 1)
    expected = drop_in(capsys, tmp_path, "-q", "-c", "-m", once)[1]
    assert (code, err) == (0, "")
    assert out == expected.replace(once.replace(".", "_", 1).ljust(22), label.ljust(22))


def c_log2_terms(*gains):
    """m_ndcg.c's sum of gain / log2(rank + 1) over ranks 1, 2, ... (0 gains skipped)."""
    total = 0.0
    for rank, gain in enumerate(gains, start=1):
        if gain != 0:
            total += gain / math.log2(rank + 1)
    return total


# gain_init.c, worked by hand over QRELS/RUN (-c: topic 3 scores 0). setup_gains lists the
# pairs given, then levels 0 .. L-1 not given (gain = level); the first entry of a level
# counts its documents (the ideal ranking), get_gain takes the first entry with the level
# after glibc's merge sort by comp_rel_gain, (int)(a - b): x86-64 gives INT_MIN for a NaN
# or a difference past an int. The ideal ranking walks the sorted table from its end
# while the gains are above 0. Topic 1: a (1) at rank 1, b (0) at 2; topic 2: z (not
# judged) at rank 1, c (2) at 2, a (1) not retrieved.
GAIN_TABLE_CASES = [
    # 1=3 counts a, 1=2 sorts first: a's gain 2, the ideal [3] (topic 1), [3, 2] (topic 2)
    ("ndcg.1=3,1=2", [2 / 3, c_log2_terms(0, 2) / c_log2_terms(3, 2)]),
    # level 0's gain 2 counts b: topic 1's ideal [2, 1], topic 2's [2 (c), 1 (a)]
    (
        "ndcg.0=2",
        [c_log2_terms(1, 2) / c_log2_terms(2, 1), c_log2_terms(0, 2) / c_log2_terms(2, 1)],
    ),
    # (int)(3e9 - 0) = INT_MIN: level 0 sorts last, its gain 0 ends the ideal before it
    # starts (topic 1: ndcg 0); topic 2's table sorts [1=3e9, 0, 2]: its ideal is [2, 3e9]
    ("ndcg.1=3e9", [0.0, c_log2_terms(0, 2) / c_log2_terms(2, 3e9)]),
    ("dcg.1=3e9", [3e9, c_log2_terms(0, 2)]),
    # a NaN sorts as 3e9 does: topic 2's ideal [2] stops at the NaN (not above 0)
    ("ndcg.1=nan", [0.0, c_log2_terms(0, 2) / 2]),
    ("dcg.1=nan", [math.nan, c_log2_terms(0, 2)]),
    # m_rbp.c brings the table into [0, 1]: (gain - min) / (max - min), min and max from
    # 0: topic 1's a 3/3, topic 2's c 2/3 at rank 2 (weight p = 0.9), times 1 - p
    ("rbp.1=3", [0.1 * 1.0, 0.1 * 0.9 * 2 / 3]),
    # level -1: documents outside the qrels earn 4 in the run, never in the ideal: z,
    # and topic 3's -c stand-in (its ideal: x, 1)
    ("ndcg.-1=4", [1.0, c_log2_terms(4, 2) / c_log2_terms(2, 1), 4.0]),
]


@pytest.mark.parametrize("word, expected", GAIN_TABLE_CASES, ids=[w for w, _ in GAIN_TABLE_CASES])
def test_gains_are_trec_evals_gain_table(capsys, tmp_path, word, expected):
    from irgauge.measures.c_numbers import c_fixed

    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-m", word)
    label = word.replace(".", "_", 1).ljust(22)
    values = [*expected, 0.0][:3]  # topic 3 (-c): 0 unless given
    mean = (values[0] + values[1] + values[2]) / 3
    lines = [f"{label}\t{topic}\t{c_fixed(v, 6, 4)}" for topic, v in zip("123", values)]
    lines.append(f"{label}\tall\t{c_fixed(mean, 6, 4)}")
    assert (code, out, err) == (0, "\n".join(lines) + "\n", "")


def test_gains_of_documents_judged_with_a_negative_level(capsys, tmp_path):
    # p is judged -1 (trec_eval's level -2: pooled, unjudged), z is outside the qrels
    # (level -1): they earn 5 and 1 in the run; the ideal is [1] (a), level 0 ends it
    qrels, run = b"1 0 a 1\n1 0 b 0\n1 0 p -1\n", b"1 Q0 z 1 4 t\n1 Q0 p 2 3 t\n1 Q0 a 3 2 t\n"
    code, out, err = drop_in(capsys, tmp_path, "-m", "ndcg.-1=1,-2=5", qrels=qrels, run=run)
    assert (code, out, err) == (
        0,
        f"{'ndcg_-1=1,-2=5':<22}\tall\t{c_log2_terms(1, 5, 1):6.4f}\n",
        "",
    )
    # -J keeps the judged documents only: a alone, its ideal gain
    code, out, err = drop_in(capsys, tmp_path, "-J", "-m", "ndcg.-1=1,-2=5", qrels=qrels, run=run)
    assert (code, out, err) == (0, f"{'ndcg_-1=1,-2=5':<22}\tall\t1.0000\n", "")


def test_the_merge_sort_is_glibcs():
    from irgauge.collection.trec_gains import c_int, compare_gains, glibc_msort

    def by_gain(a, b):
        return compare_gains(a[1], b[1])

    assert [c_int(x) for x in (0.99, -0.99, 2.5e9, -2.5e9, math.nan, -math.inf)] == [
        0,
        0,
        -(2**31),
        -(2**31),
        -(2**31),
        -(2**31),
    ]
    # gains less than 1 apart compare equal: the merge keeps their order ...
    entries = [(1, 0.5, 1), (0, 0.0, 0), (2, 2.0, 2)]
    assert [e[1] for e in glibc_msort(entries, by_gain)] == [0.5, 0.0, 2.0]
    # ... which is not transitive: 0.5 ~ 0 and 1.2 ~ 0.5, so 1.2 stays before 0
    entries = [(3, 1.2, 3), (1, 0.5, 1), (0, 0.0, 0)]
    assert [e[1] for e in glibc_msort(entries, by_gain)] == [1.2, 0.5, 0.0]


def test_p_avgjg_past_every_ranking_is_each_groups_count_over_the_cutoff(capsys, tmp_path):
    # m_P_avgjg.c: for each judgment group, relevant retrieved / cutoff, then the mean over
    # the topic's groups. Topic 1: group 0 judges a relevant, group 1 b; both retrieved
    # (1 each); topic 2: c, under group 0 alone
    qrels, run = (
        b"1 0 a 1\n1 1 a 0\n1 1 b 1\n2 0 c 1\n",
        b"1 Q0 a 1 2 t\n1 Q0 b 2 1 t\n2 Q0 c 1 3 t\n",
    )
    k = 5 * 10**9
    argv = ("-q", "-R", "qrels_jg", "-m", f"P_avgjg.{k}")
    code, out, err = drop_in(capsys, tmp_path, *argv, qrels=qrels, run=run)
    value = (1 / k + 1 / k) / 2
    label = f"P_avgjg_{k}".ljust(22)
    assert (code, out, err) == (
        0,
        f"{label}\t1\t{value:6.4f}\n{label}\t2\t{1 / k:6.4f}\n{label}\tall\t0.0000\n",
        "",
    )


# ------------------------------------------------------------------- -l below 0


def test_a_negative_threshold_counts_documents_outside_the_qrels(capsys, tmp_path):
    # form_res_rels.c: a document outside the qrels has level -1 and each measure compares
    # levels with -l, while num_rel and num_rel_ret count judged documents only (as -l 0).
    # Topic 2 ranks z (outside the qrels: relevant under -l -1) above c (2), R = 2 (c, a):
    # map (1/1 + 2/2)/2 = 1 where -l 1 gives 0.25; P_2 2/2 but set_P num_rel_ret / num_ret
    # = 1/2; Rprec count(2)/2 = 1, but Rprec_mult_1.00 and iprec_at_recall walk back from
    # num_rel_ret = 1 (rank 2: 1/2; the walk stops at z); yaap log((1 + 2)/(1 + 2 - 2)).
    # Topic 3 (-c) ranks the stand-in, outside the qrels, so relevant: map 1/1, P_2 1/2;
    # num_rel_ret 0, so the walks take nothing (0)
    words = ["num_rel", "num_rel_ret", "map", "P.1,2", "set_P", "Rprec", "Rprec_mult.1"]
    words += ["iprec_at_recall.0,0.5,1", "recip_rank", "yaap"]
    argv = [arg for word in words for arg in ("-m", word)]
    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-l", "-1", *argv)
    yaap = [math.log(3 / 1), math.log(3 / 1), math.log(2 / 1)]
    rows = {  # topics 1, 2, 3 and all (num_rel: -c sums the levels above 0 of the file)
        "num_rel": ("2", "2", "1", "4"),
        "num_rel_ret": ("2", "1", "0", "3"),
        "map": (1.0, 1.0, 1.0),
        "Rprec": (1.0, 1.0, 1.0),
        "recip_rank": (1.0, 1.0, 1.0),
        "iprec_at_recall_0.00": (1.0, 0.5, 0.0),
        "iprec_at_recall_0.50": (1.0, 0.5, 0.0),
        "iprec_at_recall_1.00": (1.0, 0.0, 0.0),
        "P_1": (1.0, 1.0, 1.0),
        "P_2": (1.0, 1.0, 0.5),
        "Rprec_mult_1.00": (1.0, 0.5, 0.0),
        "set_P": (1.0, 0.5, 0.0),
        "yaap": tuple(yaap),
    }

    def shown(values):
        if isinstance(values[0], str):
            return values
        return [f"{v:6.4f}" for v in (*values, (0.0 + values[0] + values[1] + values[2]) / 3)]

    expected = "".join(
        f"{name:<22}\t{topic}\t{shown(values)[column]}\n"
        for column, topic in enumerate(["1", "2", "3", "all"])
        for name, values in rows.items()
    )
    assert (code, out, err) == (0, expected, "")


def test_below_minus_1_documents_judged_negative_count_too(capsys, tmp_path):
    # z judged -1 is trec_eval's level -2: relevant under -l -2 (and below), not -l -1
    qrels = QRELS.replace(b"3 0 x 1\n", b"2 0 z -1\n")
    for level, value in (("-1", 0.25), ("-2", 1.0), ("-3", 1.0), ("-99999999999", 1.0)):
        code, out, err = drop_in(capsys, tmp_path, "-l", level, "-m", "map", qrels=qrels)
        assert (code, out, err) == (0, f"{'map':<22}\tall\t{(1.0 + value) / 2:6.4f}\n", "")


def test_a_negative_threshold_with_no_judged_relevant_document(capsys, tmp_path):
    # m_map.c and m_binG.c divide by num_rel once something relevant is retrieved: topic
    # 2 judges nothing 0 or above (R = 0) and ranks z, outside the qrels: inf
    qrels, run = b"1 0 a 1\n2 0 b -1\n", b"1 Q0 a 1 2 t\n2 Q0 z 1 2 t\n"
    argv = ("-l", "-1", "-m", "map", "-m", "binG")
    code, out, err = drop_in(capsys, tmp_path, *argv, qrels=qrels, run=run)
    assert (code, out, err) == (0, f"{'map':<22}\tall\t   inf\n{'binG':<22}\tall\t   inf\n", "")


# ------------------------------------------------------------------------- yaap


def test_yaap_is_robertsons_smoothed_average_precision(capsys, tmp_path):
    # S = sum of count(r)/r at the relevant ranks: topic 1: 1/1 (R = 1); topic 2: 1/2 at
    # rank 2 (R = 2); topic 3 (-c): none retrieved (R = 1)
    expected = [math.log(2 / 1), math.log(1.5 / 2.5), math.log(1 / 2)]
    code, out, err = drop_in(capsys, tmp_path, "-q", "-c", "-m", "yaap")
    lines = [f"{'yaap':<22}\t{topic}\t{v:6.4f}" for topic, v in zip("123", expected)]
    lines.append(f"{'yaap':<22}\tall\t{(0.0 + expected[0] + expected[1] + expected[2]) / 3:6.4f}")
    assert (code, out, err) == (0, "\n".join(lines) + "\n", "")


def test_yaap_is_a_measure_of_the_api_too():
    import irgauge

    qrels = {"1": {"a": 1, "b": 1, "c": 0}}
    run = {"1": {"c": 3.0, "a": 2.0, "b": 1.5, "x": 1.0}}
    table = irgauge.evaluate(qrels, run, ["yaap", "AP"]).per_topic
    values = dict(zip(table["measure"], table["value"]))
    s = 1 / 2 + 2 / 3  # relevant at ranks 2 and 3
    assert values["AP"] == pytest.approx(s / 2)
    assert values["yaap"] == pytest.approx(math.log((1 + s) / (1 + 2 - s)))


# ------------------------------------------------------------------ with trec_eval

drop_in_tests = pytest.importorskip("test_trec_eval_drop_in")
domain_tests = pytest.importorskip("test_trec_eval_domain")
needs_trec_eval = drop_in_tests.needs_trec_eval

ALL_TREC_BUT_RBP = [
    name
    for name in (
        "num_ret num_rel num_rel_ret map gm_map Rprec bpref recip_rank iprec_at_recall P "
        "relstring recall unj rbp_resid infAP gm_bpref utility 11pt_avg ndcg relative_P "
        "Rprec_mult success map_cut ndcg_cut ndcg_rel Rndcg binG G set_P set_recall "
        "set_relative_P set_map set_F num_nonrel_judged_ret"
    ).split()
]
ARGUMENT_LISTS = [
    ["-q", "-D", "0.101", "-m", "all_trec"],
    ["-q", "-c", "-D", "0.102", "-m", "all_trec"],
    ["-c", "-D", "x.103", "-m", "gm_map", "-m", "gm_bpref", "-m", "P.1000000000000"],
    ["-q", "-c", "-J", "-D", "0.104", "-m", "iprec_at_recall", "-m", "11pt_avg"],
    ["-q", "-D", "0.999"],
    ["-q", "-c", "-m", "set_F.inf", "-m", "rbp.p=-inf", "-m", "rbp_resid.p=inf"],
    ["-q", "-c", "-m", "set_F.-nan", "-m", "rbp.p=nan", "-m", "rbp_resid.p=-nan"],
    ["-q", "-m", "set_F.-1.7e308", "-m", "rbp.p=1e309", "-m", "rbp_resid.p=-1.7e308"],
    ["-q", "-c", "-N", "-5", "-m", "utility.1,-1,0,1"],
    ["-q", "-c", "-N", "9223372036854775807", "-m", "utility.1,-1,2,1"],
    ["-q", "-N", "-9223372036854775808", "-m", "utility.1,-1,0,-2"],
    ["-q", "-c", "-N", "99999999999999999999", "-m", "utility.inf,-nan,1e308,3"],
    ["-q", "-c", "-m", "Rprec_mult.9.3e9,1e17,4e17,-1e18", "-m", "iprec_at_recall.1e17,-1e18"],
    ["-q", "-m", "11pt_avg.0,1e17,5e17", "-m", "11pt_avg.5e17,-1e10,0.5"],
    ["-q", "-c", "-m", "yaap", "-m", "map"],
    ["-q", "-m", "ndcg.1=2,1=3,+2=4,2=9", "-m", "G.1=2,1=2"],
    ["-q", "-m", "rbp.p=0.2,p=0.7"],  # alone: rbp after G reads what G left (docs)
    ["-q", "-m", "Rndcg.2=1,2=7", "-m", "ndcg_rel.3=1,3=4,1=0,1=5"],
    # gains trec_eval's gain table takes: any level, any double, a level given twice
    ["-q", "-c", "-m", "ndcg.1=3,1=2,2=0.5", "-m", "G.0=2,-1=1,-2=3"],
    ["-q", "-J", "-m", "dcg.-1=5,0=-2,1=1e308,2=1e308"],
    ["-q", "-c", "-m", "ideal_dcg.2=3e9,1=-3e9,0=0.4"],
    ["-q", "-m", "ndcg_rel.1=nan,2=-nan,-1=inf", "-m", "Rndcg.1=0.3,2=0.6,3=0.9,0=0.1"],
    ["-q", "-l", "2", "-m", "Rndcg.1=-1,2=-5,99999999999999999999=7", "-m", "G.1=2147483648"],
    ["-q", "-c", "-m", "rbp.p=0.5,1=-2,0=0.5,-1=3", "-m", "rbp_resid.2=7,p=0.7"],
    # -l below 0: documents outside the qrels (-1), then those judged negative (-2) count
    # as relevant in the rankings, not in num_rel or num_rel_ret (rbp is left out: its
    # uninitialised min and max read what the measures before it left, see the guide)
    ["-q", "-c", "-l", "-1", *(arg for m in ALL_TREC_BUT_RBP for arg in ("-m", m))],
    ["-q", "-l", "-2", "-m", "official", "-m", "set", "-m", "yaap", "-m", "11pt_avg"],
    ["-q", "-c", "-J", "-l", "-3", "-m", "official", "-m", "Rprec_mult", "-m", "binG"],
    ["-q", "-c", "-M", "2", "-l", "-99999999999", "-m", "official", "-m", "infAP"],
    ["-q", "-l", "-1", "-m", "success.1,2,2000000000", "-m", "relative_P.1,3"],
    ["-q", "-c", "-M", "0", "-m", "all_trec"],
    ["-q", "-c", "-J", "-M", "abc", "-m", "all_trec", "-m", "relstring.4"],
    ["-q", "-M", "0", "-m", "11pt_avg.0.5,-1", "-m", "iprec_at_recall.-1,0.3", "-m", "yaap"],
    ["-q", "-c", "-J", "-m", "iprec_at_recall.-0.5,0.2", "-m", "11pt_avg.0.8,-0.3"],
    ["-q", "-J", "-l", "2", "-M", "3", "-m", "yaap"],
    # cutoffs that comp_long's int misorders: those after the first descent are never
    # reached, and take the whole ranking's value with their own k (0 and below too)
    ["-q", "-m", "P.3,1000000000000,1", "-m", "relative_P.1000000000000,2,7"],
    ["-q", "-c", "-m", "recall.2,1000000000000,4", "-m", "map_cut.2,1000000000000,6"],
    ["-q", "-c", "-J", "-m", "ndcg_cut.1000000000000,3", "-m", "success.1000000000000,1"],
    ["-q", "-c", "-l", "-1", "-m", "unj.1000000000000,3", "-m", "P.4,2147483650,0"],
    ["-q", "-M", "3", "-m", "P.5,-1000000000000", "-m", "relative_P.2147483648,0,2"],
]
JG_ARGUMENT_LISTS = [
    ["-q", "-c", "-R", "qrels_jg", "-m", "P_avgjg.3,10000000000", "-m", "Rprec_mult_avgjg.1e9"],
    ["-q", "-l", "-1", "-R", "qrels_jg", "-m", "qrels_jg"],
    ["-q", "-l", "-2", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "Rprec_mult_avgjg.0.5,1"],
    ["-q", "-c", "-D", "0.101", "-R", "qrels_jg", "-m", "qrels_jg"],
    ["-q", "-D", "0.102", "-R", "qrels_jg", "-m", "qrels_jg"],
    ["-q", "-c", "-M", "0", "-R", "qrels_jg", "-m", "qrels_jg"],
    # -c with -l below 0: the stand-in document is relevant under each group
    ["-q", "-c", "-l", "-1", "-R", "qrels_jg", "-m", "qrels_jg"],
    ["-q", "-c", "-J", "-l", "-2", "-R", "qrels_jg", "-m", "map_avgjg", "-m", "P_avgjg.1,3"],
    ["-q", "-c", "-l", "-1", "-R", "qrels_jg", "-m", "P_avgjg.5,1000000000000,-3,2147483648"],
]


@needs_trec_eval
@pytest.mark.parametrize("argv", ARGUMENT_LISTS, ids=" ".join)
@drop_in_tests.slow_settings
@given(data=drop_in_tests.collections())
def test_same_bytes_as_trec_eval(tmp_path, argv, data):
    domain_tests.same_bytes_and_channels(drop_in_tests.trec_eval_binary(), tmp_path, *data, argv)


@needs_trec_eval
@pytest.mark.parametrize("argv", JG_ARGUMENT_LISTS, ids=" ".join)
@drop_in_tests.slow_settings
@given(data=drop_in_tests.collections(groups=3))
def test_same_bytes_as_trec_eval_over_judgment_groups(tmp_path, argv, data):
    domain_tests.same_bytes_and_channels(drop_in_tests.trec_eval_binary(), tmp_path, *data, argv)
