"""``irgauge trec_eval``: trec_eval 10.0's command line and output, byte for byte.

Sources of the expected bytes:
- ``../shared/data/trec_eval_tests``: trec_eval 10.0's own test suite; QUICKTEST_COMMANDS.txt
  gives the command line behind each expected file, and every line of it is run here as
  written (``./trec_eval`` replaced by ``irgauge trec_eval``);
- a trec_eval 10.0 binary, where the machine has one (``TREC_EVAL=/path/to/trec_eval`` or
  ``trec_eval`` on PATH): hypothesis-generated qrels and runs (ties, unjudged and pooled
  documents, topics missing from either file, judgment groups) under a dozen argument
  lists, stdout and exit status compared.
"""

from __future__ import annotations

import math
import os
import shlex
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irgauge.cli import main

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval_tests"
if not DATA.is_dir() and os.environ.get("CI") != "true":
    pytest.skip(f"no trec_eval test data at {DATA}", allow_module_level=True)

# the quick tests of preference judgments and z-scores: irgauge refuses these inputs
REFUSED = ("prefs", "qrels_prefs", "-Z")


def quicktest_commands():
    """(argv after ./trec_eval, expected file) for each line of QUICKTEST_COMMANDS.txt."""
    cases = []
    for line in (DATA / "QUICKTEST_COMMANDS.txt").read_text().splitlines():
        line = line.strip()
        if not line.startswith("./trec_eval"):
            continue
        command, _, expected = line.partition("| diff - ")
        argv = [a.replace("test/", "") for a in shlex.split(command)[1:]]
        cases.append((argv, expected.strip().replace("test/", "")))
    return cases


def run_drop_in(capsys, argv, folder):
    """(exit status, stdout, stderr) of ``irgauge trec_eval ARGV`` run in ``folder``."""
    here = os.getcwd()
    os.chdir(folder)
    try:
        code = main(["trec_eval", *argv])
    finally:
        os.chdir(here)
    out, err = capsys.readouterr()
    return code, out, err


@pytest.mark.parametrize("argv, expected", quicktest_commands(), ids=lambda x: str(x))
def test_trec_eval_quicktests_byte_for_byte(capsys, argv, expected):
    code, out, err = run_drop_in(capsys, argv, DATA)
    if any(word in argv for word in REFUSED):
        assert code == 2 and out == "" and "irgauge" in err
        return
    assert code == 0, err
    assert out == (DATA / expected).read_text()


def test_quicktests_cover_the_options_the_issue_names():
    words = {a for argv, _ in quicktest_commands() for a in argv}
    assert {"-q", "-c", "-M100", "-l2", "all_trec", "P.5,7,3", "qrels_jg"} <= words


def test_console_script_prints_the_same_bytes(tmp_path):
    script = Path(sys.executable).with_name("irgauge-trec_eval")
    if not script.exists():
        pytest.skip("the console script is not installed beside this interpreter")
    done = subprocess.run(
        [str(script), "-q", "-m", "all_trec", "qrels.test", "results.test"],
        cwd=DATA,
        capture_output=True,
    )
    assert done.returncode == 0 and done.stdout == (DATA / "out.test.aq").read_bytes()


def test_missing_topic_stops_as_trec_eval_10_does(capsys, tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n2 0 b 1\n3 0 c 1\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2.0 x\n3 Q0 c 1 2.0 x\n")
    code, out, err = run_drop_in(capsys, ["-q", "-m", "P.1", str(qrels), str(run)], tmp_path)
    # trec_eval prints the topics before the missing one, then stops with exit 4
    assert code == 4 and out == "P_1                   \t1\t1.0000\n"
    assert "result qid '2' not found" in err
    # with -c the missing topic 2 scores 0 in the mean: (1 + 0 + 1) / 3 = 0.6667
    code, out, _ = run_drop_in(capsys, ["-c", "-m", "P.1", str(qrels), str(run)], tmp_path)
    assert code == 0 and out == "P_1                   \tall\t0.6667\n"


def test_malformed_lines_fail_naming_file_and_line(capsys, tmp_path):
    qrels = tmp_path / "q"
    qrels.write_text("1 0 a 1\n1 0 b\n")
    run = tmp_path / "r"
    run.write_text("1 Q0 a 1 2.0 x\n")
    code, out, err = run_drop_in(capsys, [str(qrels), str(run)], tmp_path)
    assert code == 2 and out == "" and f"{qrels}:2" in err


@pytest.mark.parametrize(
    "words, lines",
    [
        (["-m", "map_avgjg"], "Can't calculate measure 'map_avgjg'"),  # ordinary qrels
        (["-m", "prefs_simp"], "Can't calculate measure 'prefs_simp'"),
        (["-m", "nosuch"], "illegal measure 'nosuch'"),
        (["-m", "P.0"], "Negative cutoff"),
    ],
)
def test_what_trec_eval_refuses_is_refused(capsys, words, lines):
    code, out, err = run_drop_in(capsys, [*words, "qrels.test", "results.test"], DATA)
    assert code != 0 and out == "" and lines in err


def test_dcg_and_ideal_dcg_are_ndcgs_numerator_and_denominator(capsys):
    # m_ndcg.c computes all three in one function: ndcg = dcg / ideal_dcg (ndcg itself is
    # checked against trec_eval's expected outputs above)
    argv = ["-q", "-m", "ndcg", "-m", "dcg", "-m", "ideal_dcg"]
    code, out, err = run_drop_in(capsys, [*argv, "qrels.test", "results.test"], DATA)
    assert code == 0, err
    values = {}
    for line in out.splitlines():
        name, topic, value = line.split("\t")
        values[(name.strip(), topic)] = float(value)
    topics = {topic for _, topic in values}
    assert len(topics) > 3 and {name for name, _ in values} == {"ndcg", "dcg", "ideal_dcg"}
    for topic in topics - {"all"}:  # (the means are not a ratio of means)
        ideal = values[("ideal_dcg", topic)]
        ratio = values[("dcg", topic)] / ideal if ideal else 0.0
        assert values[("ndcg", topic)] == pytest.approx(ratio, abs=1e-4 * (1 + ratio)), topic


@pytest.mark.parametrize("complete", [False, True])
def test_ideal_dcg_of_a_topic_of_negative_levels_is_the_topic_befores(capsys, tmp_path, complete):
    # form_res_rels.c counts a topic's documents per level in a table kept from the topic
    # before, and counts none at a negative level: such a topic (102, 103: a run of them)
    # prints the ideal_dcg of the topic evaluated before it (101); its ndcg divides 0 by it
    qrels = "101 0 d0 2\n101 0 d1 1\n102 0 d0 -1\n103 0 d0 -1\n104 0 d0 1\n"
    (tmp_path / "q").write_text(qrels)
    answered = ("101", "104") if complete else ("101", "102", "103", "104")
    (tmp_path / "r").write_text("".join(f"{t} Q0 d0 1 1 t\n" for t in answered))
    argv = ["-q", *(["-c"] if complete else []), "-m", "ideal_dcg", "-m", "ndcg"]
    code, out, err = run_drop_in(capsys, [*argv, "q", "r"], tmp_path)
    assert code == 0, err
    values = {tuple(line.split("\t")[:2]): float(line.split("\t")[2]) for line in out.splitlines()}
    ideal = {topic: values[("ideal_dcg             ", topic)] for topic in ("101", "102", "103")}
    assert ideal["102"] == ideal["103"] == ideal["101"] == round(2 + 1 / math.log2(3), 4)
    assert values[("ndcg                  ", "102")] == 0.0


@pytest.mark.parametrize(
    "words", [["ndcg.2=5", "dcg"], ["dcg.1=2", "ideal_dcg.1=2"], ["all_trec", "ideal_dcg.1=3"]]
)
def test_ndcg_family_members_sharing_given_gains_are_refused(capsys, words):
    # trec_eval 10.0 aborts or crashes on these (one parameter list freed twice, m_ndcg.c)
    argv = [arg for word in words for arg in ("-m", word)]
    code, out, err = run_drop_in(capsys, [*argv, "qrels.test", "results.test"], DATA)
    assert code == 2 and out == "" and "shares one gain list" in err


def test_eval_reads_trec_eval_words(capsys):
    code = main(
        ["eval", str(DATA / "qrels.test"), str(DATA / "results.test"), "--format", "tsv"]
        + ["-m", "P.5,10", "-m", "ndcg_cut", "-m", "recall.20", "--no-header"]
    )
    out, _ = capsys.readouterr()
    names = [line.split("\t")[1] for line in out.splitlines()[1:]]
    cuts = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
    assert code == 0
    assert names == ["P_5", "P_10", *(f"ndcg_cut_{k}" for k in cuts), "recall_20"]


# ------------------------------------------------------------------ against trec_eval


def trec_eval_binary():
    found = os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    return found if found and os.access(found, os.X_OK) else None


ARGUMENT_LISTS = [
    [],
    ["-q"],
    ["-q", "-c"],
    ["-q", "-l2"],
    ["-q", "-M3"],
    ["-q", "-J"],
    ["-q", "-n", "-c"],
    ["-q", "-c", "-m", "all_trec"],
    ["-q", "-c", "-J", "-m", "all_trec"],
    ["-q", "-m", "P.1,3", "-m", "ndcg_cut.2,5", "-m", "success"],
    ["-q", "-m", "recall", "-m", "map_cut.1,4", "-m", "relative_P.2"],
    ["-q", "-c", "-N", "50", "-m", "set"],
    ["-q", "-m", "ndcg.1=2,2=5", "-m", "Rprec_mult.0.5,1.5", "-m", "11pt_avg..25,.5"],
    ["-q", "-c", "-m", "dcg", "-m", "ideal_dcg", "-m", "ndcg"],
    ["-q", "-m", "dcg.1=3,2=1", "-m", "ndcg_rel.2=4"],
    ["-q", "-m", "ideal_dcg.2=5", "-m", "ndcg_cut.3"],
    # alone: trec_eval's rbp reads two uninitialised variables (min and max in m_rbp.c),
    # so after another measure (ndcg.1=2 before it) its value depends on the stack
    ["-q", "-c", "-m", "rbp.p=0.5", "-m", "rbp_resid.p=0.8"],
]
JG_ARGUMENT_LISTS = [
    ["-q", "-c", "-R", "qrels_jg", "-m", "qrels_jg"],
    ["-q", "-c", "-J", "-M4", "-R", "qrels_jg", "-m", "qrels_jg"],
    ["-q", "-c", "-l2", "-R", "qrels_jg", "-m", "P_avgjg.1,2", "-m", "map_avgjg"],
]

TOPICS = ["101", "102", "103", "104"]
DOCS = [f"d{i}" for i in range(12)]


@st.composite
def collections(draw, groups: int = 1):
    """qrels lines (levels -1..3, a group label per line), run lines (scores with ties,
    documents not judged), some topics judged but not answered and the reverse; with
    several groups, each topic judged by a subset of them."""
    qrels = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)):
        # any non-empty subset of the groups, so that a topic may lack group 0
        judging = st.lists(st.integers(0, groups - 1), min_size=1, max_size=groups, unique=True)
        for group in draw(judging):
            judged = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=8, unique=True))
            for doc in judged:
                qrels.append(f"{topic} {group} {doc} {draw(st.integers(-1, 3))}")
    run = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=4, unique=True)):
        ranked = draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=10, unique=True))
        for rank, doc in enumerate(ranked, 1):
            run.append(f"{topic} Q0 {doc} {rank} {draw(st.sampled_from([1, 2, 2.5, 3]))} tag")
    return "\n".join(qrels) + "\n", "\n".join(run) + "\n"


def compare_with_trec_eval(binary, folder, qrels, run, argv):
    """``qrels`` and ``run``: the files' text, or their bytes."""
    for name, content in (("q", qrels), ("r", run)):
        path = folder / name
        path.write_bytes(content) if isinstance(content, bytes) else path.write_text(content)
    theirs = subprocess.run([binary, *argv, "q", "r"], cwd=folder, capture_output=True)
    ours = subprocess.run(
        [sys.executable, "-m", "irgauge", "trec_eval", *argv, "q", "r"],
        cwd=folder,
        capture_output=True,
    )
    if theirs.returncode == 0:
        assert ours.returncode == 0, ours.stderr.decode()
        assert ours.stdout == theirs.stdout, (argv, qrels, run)
    else:  # a failure: the same stdout (the topics before it) and a non-zero status
        assert ours.returncode != 0, (argv, qrels, run, theirs.stderr.decode())
        assert ours.stdout == theirs.stdout, (argv, qrels, run)


needs_trec_eval = pytest.mark.skipif(
    trec_eval_binary() is None, reason="no trec_eval binary (set TREC_EVAL=/path/to/trec_eval)"
)
slow_settings = settings(
    max_examples=int(os.environ.get("IRGAUGE_EXAMPLES", "8")),  # more on demand
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)


@needs_trec_eval
@pytest.mark.parametrize("argv", ARGUMENT_LISTS, ids=" ".join)
@slow_settings
@given(data=collections())
def test_same_bytes_as_trec_eval(tmp_path, argv, data):
    compare_with_trec_eval(trec_eval_binary(), tmp_path, *data, argv)


@needs_trec_eval
@pytest.mark.parametrize("argv", JG_ARGUMENT_LISTS, ids=" ".join)
@slow_settings
@given(data=collections(groups=3))
def test_same_bytes_as_trec_eval_over_judgment_groups(tmp_path, argv, data):
    compare_with_trec_eval(trec_eval_binary(), tmp_path, *data, argv)
