"""``irgauge trec_eval`` over trec_eval 10.0's own domain of option values and measure
parameters: C longs for -M, -N, -l and the cutoffs (read with glibc's ``atol``, which
saturates), doubles for the other parameters (``atof``), and no limit of irgauge's own
where trec_eval has none.

Sources of the expected outcomes:
- trec_eval 10.0's source: trec_eval.c (``atol`` for -l, -N, -M, -D; -v on stderr, exit
  0; -M's default MAXLONG), meas_init.c (cutoffs read with ``atol``/``atof``, sorted by
  ``comp_long``, which returns a difference of longs as an int; names ``%ld`` and
  ``%3.2f`` in a buffer of the name's length + 10 bytes), m_Rprec_mult.c (a cutoff
  ``(long)(x*R + 0.9)`` of 0 or less is never reached: the value stays 0), m_P.c (past the
  ranking, P_k = relevant retrieved / k), gain_init.c (a gain's name that is not an
  integer is skipped), m_bpref.c (the table of levels read up to -l);
- glibc's ``strtol``/``strtod`` for the numbers' readings;
- the outputs written out below were checked against a trec_eval 10.0 binary (v10.0,
  commit f425365, built from usnistgov/trec_eval);
- where the machine has one (``TREC_EVAL=/path/to/trec_eval``), that binary itself:
  extreme values on hypothesis-generated collections, stdout, stderr and exit status
  compared as in tests/test_trec_eval_drop_in.py.
"""

from __future__ import annotations

import math
import subprocess
import sys

import pytest
from hypothesis import given

from irgauge.cli import main
from irgauge.measures.c_numbers import LONG_MAX, LONG_MIN, atof, atol, c_fixed
from irgauge.measures.trec_eval_words import lines

RUN = b"1 Q0 a 1 2 first\n1 Q0 b 2 1 last\n"
QRELS = b"1 0 a 1\n1 0 b 0\n"


def drop_in(capsys, tmp_path, *argv: str):
    """(exit status, stdout, stderr) of ``irgauge trec_eval ARGV q r`` on QRELS and RUN."""
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    code = main(["trec_eval", *argv, str(tmp_path / "q"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    return code, out, err


# ------------------------------------------------------------- without trec_eval


@pytest.mark.parametrize(
    "text, long_value",
    [
        (" 12", 12),
        ("+5", 5),
        ("-7x", -7),
        ("abc", 0),
        ("", 0),
        ("0x10", 0),
        ("1e308", 1),
        ("\v7", 7),  # C's isspace
        ("\u0663", 0),  # an Arabic-Indic three: a digit to Python, not to C
        ("99999999999999999999", LONG_MAX),  # strtol saturates
        ("-99999999999999999999", LONG_MIN),
        ("9223372036854775807", LONG_MAX),
    ],
)
def test_atol_reads_as_glibc(text, long_value):
    assert atol(text) == long_value


@pytest.mark.parametrize(
    "text, value",
    [
        ("0x1p3", 8.0),
        ("-0x.8", -0.5),
        ("0x", 0.0),  # the 0 only
        ("1e309", math.inf),
        ("-1e400", -math.inf),
        ("1e-400", 0.0),
        ("-Infinity", -math.inf),
        ("infinit", math.inf),  # inf, then text
        ("1e+", 1.0),
        ("5,6", 5.0),
        (".5", 0.5),
        ("-.e5", 0.0),
        ("1_0", 1.0),
    ],
)
def test_atof_reads_as_glibc(text, value):
    assert atof(text) == value


@pytest.mark.parametrize("text, printed", [("nan", "nan"), ("-nan", "-nan"), ("NaN(x1)", "nan")])
def test_atof_keeps_a_nans_sign_and_c_fixed_prints_it(text, printed):
    assert math.isnan(atof(text))
    assert c_fixed(atof(text), 6, 4) == f"{printed:>6}"


@pytest.mark.parametrize(
    "argv, expected",
    [
        (("-m", "Rprec_mult.0"), "Rprec_mult_0.00       \tall\t0.0000\n"),
        (("-m", "success.1000000000000"), "success_1000000000000 \tall\t1.0000\n"),
        (
            ("-m", "Rprec_mult.123456,-2"),  # %3.2f cut to the name's length + 9 bytes
            "Rprec_mult_-2.00      \tall\t0.0000\nRprec_mult_123456.0   \tall\t0.0000\n",
        ),
        (
            ("-m", "iprec_at_recall.-0.5,0.5"),
            "iprec_at_recall_-0.50 \tall\t1.0000\niprec_at_recall_0.50  \tall\t1.0000\n",
        ),
        (("-m", "P.10000000000"), "P_10000000000         \tall\t0.0000\n"),
        (  # above 1: lround(1.2 * 1) = 1 relevant document is reached, lround(1.5) = 2 is not
            ("-m", "iprec_at_recall.1.2,1.5"),
            "iprec_at_recall_1.20  \tall\t1.0000\niprec_at_recall_1.50  \tall\t0.0000\n",
        ),
        (("-m", "Rprec_mult.2e6"), "Rprec_mult_2000000.   \tall\t0.0000\n"),  # 1 / 2e6
        (("-m", "11pt_avg.-0.5,0.5,1.5"), "11pt_avg_-0.5,0.5,1.5 \tall\t0.6667\n"),
        (("-m", "set_F.-2"), "set_F_-2              \tall\t  -inf\n"),  # -0.5 / (-1 + 1)
        (  # -l 0: every judged document is relevant, level 0 with gain 0
            ("-l", "0", "-m", "num_rel", "-m", "num_rel_ret", "-m", "P.2", "-m", "bpref"),
            "num_rel               \tall\t2\nnum_rel_ret           \tall\t2\n"
            "bpref                 \tall\t1.0000\nP_2                   \tall\t1.0000\n",
        ),
        (("-m", "rbp.p=2"), "rbp_p=2               \tall\t-1.0000\n"),  # (1 - 2) * 1
        # relevant documents all of gain 0 leave Rndcg no rank to average over: 0/0
        (("-m", "Rndcg.1=0"), "Rndcg_1=0             \tall\t  -nan\n"),
        (("-m", "ndcg.abc=5"), "ndcg_abc=5            \tall\t1.0000\n"),  # abc: skipped
        (("-l", "99999999999", "-m", "P.1"), "P_1                   \tall\t0.0000\n"),
        (("-N", "9223372036854775807", "-m", "utility"), "utility               \tall\t0.0000\n"),
    ],
)
def test_values_trec_eval_takes_print_as_it_prints_them(capsys, tmp_path, argv, expected):
    """Each expected output was checked against trec_eval 10.0."""
    code, out, err = drop_in(capsys, tmp_path, *argv)
    assert (code, out, err) == (0, expected, "")


@pytest.mark.parametrize("depth", ["2147483647", "9223372036854775807", "99999999999999999999"])
def test_max_docs_at_or_past_trec_evals_default_cuts_nothing(capsys, tmp_path, depth):
    # trec_eval's default -M is MAXLONG (common.h): asked for, it is the default
    assert drop_in(capsys, tmp_path, "-q", "-M", depth) == drop_in(capsys, tmp_path, "-q")


def test_a_cutoff_past_irgauges_own_limit_is_the_whole_rankings_count_over_it():
    (line,) = lines("P", "10000000000")
    assert (line.label, line.spec, line.per) == ("P_10000000000", "P_2147483647", 10000000000)
    (line,) = lines("success", "1000000000000")  # the whole ranking's value
    assert (line.spec, line.per) == ("success_2147483647", None)


def test_version_is_printed_on_stderr(capsys):
    with pytest.raises(SystemExit) as stop:  # as argparse's -h and --version stop
        main(["trec_eval", "-v"])
    out, err = capsys.readouterr()
    assert (stop.value.code, out) == (0, "")
    assert err.startswith("trec_eval version 10.0")


def test_version_of_the_console_script_is_printed_on_stderr():
    done = subprocess.run(
        [
            sys.executable,
            "-c",
            "from irgauge.cli.cmd_trec_eval import console_main as m; m()",
            "-v",
        ],
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout) == (0, "")
    assert done.stderr.startswith("trec_eval version 10.0")


def test_eval_reports_trec_evals_two_line_refusal_on_one_line(capsys, tmp_path):
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    code = main(["eval", "-m", "P.5,5", str(tmp_path / "q"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and "\\x0a" not in err, err
    assert err.startswith("irgauge: error: P.5,5: ") and "duplicate cutoffs" in err


def test_the_drop_in_keeps_trec_evals_two_lines_on_stderr(capsys, tmp_path):
    code, out, err = drop_in(capsys, tmp_path, "-m", "P.5,5")
    assert (code, out) == (2, "")
    assert (
        err == "trec_eval: duplicate cutoffs detected\ntrec_eval: Cannot initialize measure 'P'\n"
    )


# where trec_eval 10.0 crashes (CRASHES), misbehaves (undefined C: a NaN or a value past a
# long converted to a long; MISBEHAVES), or prints what irgauge
# does not compute (NOT_REPRODUCED): exit 2 and one line naming the option or the word
CRASHES = [
    ["-M", "-1"],  # a negative size to qsort
    ["-l", "2147483647"],  # bpref reads its table of levels far past its end
]
MISBEHAVES = [
    ["-m", "Rprec_mult.nan"],
    ["-m", "Rprec_mult.1e308"],
    ["-m", "iprec_at_recall.inf"],
    ["-m", "iprec_at_recall.-inf"],
    ["-m", "relstring.1e308"],
]
NOT_REPRODUCED = [
    ["-D", "1"],  # debug output
]


@pytest.mark.parametrize("argv", CRASHES + MISBEHAVES + NOT_REPRODUCED, ids=" ".join)
def test_outside_what_irgauge_reproduces_exits_2_in_one_line(capsys, tmp_path, argv):
    code, out, err = drop_in(capsys, tmp_path, *argv)
    assert (code, out) == (2, "")
    assert err.count("\n") == 1 and err.startswith("irgauge: "), err
    assert argv[-1].split(".")[0] in err or argv[0] in err, err


# ------------------------------------------------------------------ with trec_eval

drop_in_tests = pytest.importorskip("test_trec_eval_drop_in")
needs_trec_eval = drop_in_tests.needs_trec_eval

EXTREME_ARGUMENT_LISTS = [
    ["-q", "-M", "9223372036854775807"],
    ["-q", "-M", "2147483647"],
    ["-q", "-M", "99999999999999999999"],
    ["-q", "-M", "1e308"],  # atol: 1
    ["-q", "-M", " +3"],
    ["-q", "-c", "-l", "3"],
    ["-q", "-l", "99999999999", "-m", "P.2", "-m", "map", "-m", "ndcg"],
    ["-q", "-l", "1e308"],  # atol: 1
    ["-q", "-c", "-N", "9223372036854775807", "-m", "set"],
    ["-q", "-N", "-99999999999999999999", "-m", "utility"],
    ["-q", "-m", "Rprec_mult.0,-1,1e-300,0.5,123456,1e6"],
    ["-q", "-m", "success.1000000000000", "-m", "P.9223372036854775807", "-m", "unj.3000000000"],
    ["-q", "-c", "-m", "P.5000000000", "-m", "unj.5000000000"],
    ["-q", "-J", "-m", "P.5000000000", "-m", "success.99999999999999999999"],
    [
        "-q",
        "-m",
        "recall.99999999999999999999",
        "-m",
        "map_cut.2147483648",
        "-m",
        "ndcg_cut.5000000000",
        "-m",
        "relative_P.4294967306,5",
    ],
    ["-q", "-m", "iprec_at_recall.-0.5,0x.8,1e-300"],
    ["-q", "-m", "iprec_at_recall.1.0001,1.2,1.5,2,1e9"],  # above 1: 0 where round(x*R) > R
    ["-q", "-m", "Rprec_mult.2e6,1e9,9e9"],  # past every ranking: relevant retrieved / cutoff
    ["-q", "-m", "11pt_avg.-2,0.5,1.5,3"],  # levels outside [0, 1]: m_11pt_avg.c's walk
    ["-q", "-l", "0", "-m", "all_trec"],  # every judged document relevant
    ["-q", "-c", "-J", "-l", "-0", "-m", "all_trec"],
    ["-q", "-m", "Rndcg.1=0,2=0"],  # gains all 0: -nan
    ["-q", "-m", "rbp.p=1", "-m", "rbp_resid.p=1.5"],  # p outside [0, 1)
    ["-q", "-m", "rbp.p=-3", "-m", "rbp_resid.p=-0.5"],
    ["-q", "-c", "-m", "rbp.p=1e300", "-m", "rbp_resid.p=-1e300"],  # infinities and -nan
    ["-q", "-m", "set_F.-1"],  # 0/0 where P = R: -nan, and the mean -nan
    ["-q", "-m", "set_F.-2"],  # -inf where beta P + R = 0
    ["-q", "-c", "-m", "set_F.-1e300"],
    ["-q", "-m", "P.abc"],  # atol: 0, a "negative cutoff"
    ["-q", "-m", "P.-99999999999999999999"],
    ["-q", "-m", "ndcg.abc=9,2=3", "-m", "ndcg_rel.99999999999=2"],
    ["-q", "-m", "relstring.-5", "-m", "set_F.1e-300", "-m", "11pt_avg.-0"],
    ["-q", "-D", "abc"],
    ["-q", "-D", "0"],
]
EXTREME_JG_ARGUMENT_LISTS = [
    ["-q", "-R", "qrels_jg", "-m", "Rprec_mult_avgjg.0,0.5", "-m", "P_avgjg.2147483647"],
    ["-q", "-c", "-M", "9223372036854775807", "-l", "99999", "-R", "qrels_jg", "-m", "map_avgjg"],
]


def same_bytes_and_channels(binary, folder, qrels, run, argv):
    """trec_eval's and the drop-in's stdout, stderr and exit status, the same bytes."""
    for name, content in (("q", qrels), ("r", run)):
        (folder / name).write_text(content)
    theirs = subprocess.run([binary, *argv, "q", "r"], cwd=folder, capture_output=True)
    ours = subprocess.run(
        [sys.executable, "-m", "irgauge", "trec_eval", *argv, "q", "r"],
        cwd=folder,
        capture_output=True,
    )
    assert ours.stdout == theirs.stdout, (argv, qrels, run)
    assert ours.returncode == theirs.returncode, (argv, ours.stderr, theirs.stderr)
    if theirs.returncode == 0:
        assert ours.stderr == theirs.stderr, (argv, ours.stderr)
    else:  # trec_eval's lines, then irgauge's note, if any
        assert ours.stderr.startswith(theirs.stderr), (argv, ours.stderr, theirs.stderr)


@needs_trec_eval
@pytest.mark.parametrize("argv", EXTREME_ARGUMENT_LISTS, ids=" ".join)
@drop_in_tests.slow_settings
@given(data=drop_in_tests.collections())
def test_same_bytes_as_trec_eval_at_extreme_values(tmp_path, argv, data):
    same_bytes_and_channels(drop_in_tests.trec_eval_binary(), tmp_path, *data, argv)


@needs_trec_eval
@pytest.mark.parametrize("argv", EXTREME_JG_ARGUMENT_LISTS, ids=" ".join)
@drop_in_tests.slow_settings
@given(data=drop_in_tests.collections(groups=3))
def test_same_bytes_as_trec_eval_at_extreme_values_over_judgment_groups(tmp_path, argv, data):
    same_bytes_and_channels(drop_in_tests.trec_eval_binary(), tmp_path, *data, argv)


@needs_trec_eval
def test_version_on_the_same_channel_as_trec_evals(tmp_path):
    theirs = subprocess.run([drop_in_tests.trec_eval_binary(), "-v"], capture_output=True)
    ours = subprocess.run([sys.executable, "-m", "irgauge", "trec_eval", "-v"], capture_output=True)
    assert (ours.returncode, ours.stdout) == (theirs.returncode, theirs.stdout) == (0, b"")
    assert theirs.stderr.startswith(b"trec_eval version 10.0")
    assert ours.stderr.startswith(b"trec_eval version 10.0")


@needs_trec_eval
@pytest.mark.parametrize("argv", CRASHES, ids=" ".join)
def test_where_trec_eval_crashes_the_drop_in_exits_2(tmp_path, argv):
    (tmp_path / "q").write_bytes(QRELS)
    (tmp_path / "r").write_bytes(RUN)
    theirs = subprocess.run([drop_in_tests.trec_eval_binary(), *argv, "q", "r"], cwd=tmp_path)
    assert theirs.returncode < 0  # killed by a signal (SIGSEGV)
    ours = subprocess.run(
        [sys.executable, "-m", "irgauge", "trec_eval", *argv, "q", "r"],
        cwd=tmp_path,
        capture_output=True,
    )
    assert ours.returncode == 2 and ours.stderr.count(b"\n") == 1, ours.stderr
