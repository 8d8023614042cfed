"""Cases a new user tries on the newest features (topics, agree, the trec_eval drop-in,
--memory, registered measures), each held to the rule of the guide: the right number, or
one line naming the file or the option with exit 2; never a traceback, a warning in
Python's format, a header that misstates the inputs, or a stream read twice."""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
import warnings

import pytest

import irgauge
from irgauge.errors import InputError

from hostile_data import QRELS, RUN

WARNING_PLUGIN = textwrap.dedent(
    """
    import warnings
    import numpy as np
    import irgauge

    @irgauge.measure("ChattyM")
    def chatty(ranked):
        warnings.warn("a word from the measure")
        return np.zeros(ranked.n_rows)
    """
)


def _environment(path, **variables):
    """This process's environment with ``path`` first on the Python path (so that the
    command runs the irgauge under test and finds the plugin) and ``variables`` set."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), *sys.path])}
    return {**environment, **variables}


def _eval_with_chatty_plugin(tmp_path, plugin: str) -> subprocess.CompletedProcess:
    """The console script's eval of ChattyM, a measure of the warning plugin named in
    IRGAUGE_MEASURES as ``plugin``."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "chatty_measures.py").write_text(WARNING_PLUGIN)
    return subprocess.run(
        [sys.executable, "-m", "irgauge", "eval", "qrels.txt", "run.txt", "-m", "ChattyM"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_environment(tmp_path, IRGAUGE_MEASURES=plugin),
    )


def test_a_warning_reaching_the_console_script_is_one_note(tmp_path):
    done = _eval_with_chatty_plugin(tmp_path, "chatty_measures")
    assert done.returncode == 0, done.stderr
    assert done.stderr == "irgauge: note: UserWarning: a word from the measure\n"


def test_what_a_plugin_prints_as_it_loads_is_not_the_commands_output(tmp_path):
    """A plugin's print at import went to standard output, into the TSV a user redirects
    to a file; it goes to standard error."""
    (tmp_path / "qrels.txt").write_text(QRELS)
    (tmp_path / "run.txt").write_text(RUN)
    (tmp_path / "loud_measures.py").write_text(
        "import numpy as np\nimport irgauge\nprint('loading my measures')\n"
        "irgauge.register_measure('LoudM', lambda ranked: np.zeros(ranked.n_rows))\n"
    )
    done = subprocess.run(
        [sys.executable, "-m", "irgauge", "eval", "qrels.txt", "run.txt", "-m", "LoudM"]
        + ["--format", "tsv", "--no-header"],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env=_environment(tmp_path, IRGAUGE_MEASURES="loud_measures"),
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[0] == "run\tmeasure\ttopic\tvalue", done.stdout
    assert "loading my measures" in done.stderr and "loading" not in done.stdout


def test_main_in_a_program_leaves_its_warnings_to_the_caller(cli):
    """Only the console scripts' own process turns warnings into notes: a program calling
    ``main`` (and the fuzz harness, which records warnings as failures) keeps Python's."""
    before = warnings.showwarning
    assert cli("measures")[0] == 0
    assert warnings.showwarning is before


@pytest.mark.parametrize(
    "cells, found",
    [
        ([[1 + 1j, 0.2], [0.3, 0.4], [0.5, 0.9]], "complex value (1+1j) for system 0 on topic 0"),
        ([[0.1, 0.2], [0.3, complex(1, 2)], [0.5, 0.9]], "complex value (1+2j) for system 1"),
    ],
)
def test_a_wide_frame_of_complex_scores_is_refused_not_cast(cells, found):
    import pandas as pd

    frame = pd.DataFrame(cells, dtype=object if isinstance(cells[1][1], complex) else None)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # numpy's cast would warn ComplexWarning
        with pytest.raises(InputError, match=re.escape(found)):
            irgauge.topic_set_size(frame, min_diff=0.1)


def test_a_wide_frame_of_real_objects_still_reads():
    import pandas as pd

    frame = pd.DataFrame({"a": [0.1, 0.2, 0.3], "b": [0.3, 0.1, 0.5]}, dtype=object)
    assert irgauge.as_score_matrix(frame).values.tolist() == [[0.1, 0.2, 0.3], [0.3, 0.1, 0.5]]


@pytest.mark.parametrize(
    "given, found",
    [
        ("QRELS", "qrels.txt: agreement needs a list of at least 2 qrels; got one str"),
        ("DICT", "agreement needs a list of at least 2 qrels; got one dict"),
        (5, "agreement needs a list of qrels; got int"),
    ],
)
def test_agreement_given_one_qrels_says_so(tmp_path, given, found):
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    given = {"QRELS": str(path), "DICT": {"1": {"d1": 1}, "2": {"d1": 0}}}.get(given, given)
    with pytest.raises(InputError) as err:
        irgauge.agreement(given, samples=5, seed=1)
    assert str(err.value).endswith(found)


def test_agreement_on_a_qrels_dict_of_the_wrong_shape_names_the_key():
    with pytest.raises(InputError, match=r"qrels\['1'\] must be a \{docno: level\} dict"):
        irgauge.agreement([{"1": [1, 2]}, {"1": {"d1": 1}}], samples=5, seed=1)


def test_a_header_tells_two_inputs_of_one_file_name_apart(tmp_path, cli):
    for folder in ("a", "b"):
        (tmp_path / folder).mkdir()
        (tmp_path / folder / "qrels.txt").write_text(QRELS)
    a, b = str(tmp_path / "a" / "qrels.txt"), str(tmp_path / "b" / "qrels.txt")
    code, out, err = cli("agree", a, b, "-B", "5", "--seed", "1")
    assert code == 0, err
    assert "# method: agreement; qrels: a/qrels.txt, b/qrels.txt;" in out


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="named pipes")
def test_a_named_pipe_given_twice_is_refused_before_it_is_read(tmp_path):
    (tmp_path / "qrels.txt").write_text(QRELS)
    os.mkfifo(tmp_path / "run.fifo")

    def irgauge_cli(*args):  # a process of its own: a read of the pipe would wait forever
        return subprocess.run(
            [sys.executable, "-m", "irgauge", *args],
            capture_output=True,
            text=True,
            cwd=tmp_path,
            env=_environment(tmp_path),
            timeout=600,  # a guard against a hang, not a measure of speed
        )

    done = irgauge_cli("eval", "qrels.txt", "run.fifo", "run.fifo", "-m", "AP")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (
        "irgauge: error: run.fifo: a stream (a named pipe or a process substitution) is given "
        "as two inputs (RUN, RUN); it can be read only once (give all but one as files)\n"
    )
    done = irgauge_cli("trec_eval", "run.fifo", "run.fifo")
    assert done.returncode == 2 and "(QRELS, RUN)" in done.stderr


def test_agreement_with_nothing_defined_says_nothing_is_defined(tmp_path, cli):
    (tmp_path / "a.txt").write_text("1 0 d1 1\n2 0 d1 0\n")
    (tmp_path / "b.txt").write_text("3 0 d1 1\n4 0 d1 0\n")
    code, out, err = cli("agree", tmp_path / "a.txt", tmp_path / "b.txt", "-B", "5")
    assert code == 2 and out == ""
    assert err.startswith("irgauge: error: no agreement statistic is defined: qrels ")


JUDGMENT_GROUPS = "1 A d1 1\n1 B d1 0\n1 A d2 2\n1 B d2 2\n2 A d1 0\n2 B d1 1\n"


def test_judgment_groups_read_from_a_file_are_said_to_be_read_from_it(tmp_path, cli):
    path = tmp_path / "jg.txt"
    path.write_text(JUDGMENT_GROUPS)
    code, out, err = cli("agree", "-g", path, "-B", "5", "--seed", "1", "--format", "tsv")
    assert code == 0, err
    assert (
        "# level_scales: "
        + ('{"jg.txt[A]": "integer grades as written", "jg.txt[B]": "integer grades as written"}')
        in out.splitlines()
    )


def test_a_judgment_group_file_given_twice_is_named_as_a_qrels_file_given_twice(tmp_path, cli):
    path = tmp_path / "jg.txt"
    path.write_text(JUDGMENT_GROUPS)
    code, out, err = cli("agree", "-g", path, "-g", path, "-B", "5", "--seed", "1")
    assert code == 0, err
    pairs = {tuple(line.split()[:2]) for line in out.splitlines() if "pairs" in line.split()}
    assert ("jg.txt[A]", "jg.txt#2[B]") in pairs and ("jg.txt[A]", "jg.txt[B]") in pairs


def test_a_score_too_large_for_the_statistics_is_not_blamed_on_the_topics(collection):
    """A registered measure's 1e200 is refused as such: the hint on runs answering
    different topics (-c) is for a fault of the topics, which this is not."""
    import numpy as np

    irgauge.register_measure("HugeM", lambda ranked: np.full(ranked.n_rows, 1e200))
    try:
        result = irgauge.evaluate(*collection, ["HugeM"])
        with pytest.raises(InputError) as err:
            result.score_matrices()
    finally:
        irgauge.unregister_measure("HugeM")
    assert "beyond the scores irgauge's statistics handle" in str(err.value)
    assert "paired tests" not in str(err.value)


def test_irgauge_reads_the_json_it_writes_as_it_reads_the_tsv(collection, tmp_path, cli):
    """A new user gives a command the scores eval wrote: the JSON holds the records the
    TSV holds, so it gives the same numbers."""
    qrels, run = collection
    other = tmp_path / "other.txt"
    other.write_text(RUN.replace("3.0", "0.1").replace(" r\n", " s\n"))
    outputs = {}
    for fmt in ("tsv", "json"):
        path = tmp_path / f"scores.{fmt}"
        assert (
            cli("eval", qrels, run, other, "-q", "-m", "AP,P@2", "--format", fmt, "-o", path)[0]
            == 0
        )
        code, out, err = cli("correlate", path, "--format", "tsv", "--no-header")
        assert code == 0, err
        outputs[fmt] = out
    assert outputs["json"] == outputs["tsv"]


@pytest.mark.parametrize(
    "text, found",
    [
        ('{"1": {"map": 0.5}, "2": {"map": 0.4}}\n', "this JSON holds no per-topic results"),
        ('{"results": [{"run": "a"}]}\n', "results[0] is not a per-topic record"),
        ('{"results": \n', ":2: cannot parse the JSON"),
        (
            "# irgauge: 0.1.0\n\nrun  topic      AP\n----  -----  ------\na  1  0.5\n",
            ":3: this is irgauge's text table (--format table)",
        ),
        ("a\tAP\t1\t0.5\nb\tAP\t1\t0.4\n", ":1: the first line reads as a row of irgauge's"),
    ],
)
def test_a_score_file_in_another_layout_says_what_it_is(tmp_path, cli, text, found):
    path = tmp_path / "scores.txt"
    path.write_text(text)
    code, out, err = cli("topics", path, "--min-diff", "0.1")
    assert code == 2 and out == ""
    assert err.startswith(f"irgauge: error: {path}") and found in err and err.count("\n") == 1


def test_a_plugin_given_as_a_file_says_to_give_its_module(tmp_path):
    done = _eval_with_chatty_plugin(tmp_path, "./chatty_measures.py")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.endswith(
        "measure plugin ./chatty_measures.py from IRGAUGE_MEASURES failed to load: ImportError: "
        "IRGAUGE_MEASURES names modules, not files: give the module's name (m for m.py) with its "
        "folder in PYTHONPATH\n"
    )
    assert done.stderr.count("\n") == 1


@pytest.mark.parametrize("memory", [[], ["--memory", "1M"]])
def test_a_mean_over_no_topic_is_said_to_be_nan(tmp_path, cli, memory):
    """Qrels topics written 01, 02 and a run's written 1, 2 share no topic: the means
    printed are NaN, and a note says why, in every engine."""
    qrels = tmp_path / "qrels.txt"
    qrels.write_text("".join("0" + line for line in QRELS.splitlines(keepends=True)))
    run = tmp_path / "run.txt"
    run.write_text(RUN)
    code, out, err = cli("eval", qrels, run, "-m", "AP", *memory)
    assert code == 0 and "nan" in out
    assert "irgauge: note: run r: its means are NaN: the run has no topic averaged: it " in err
    assert "answers none of the qrels topics (topic ids match as written" in err


@pytest.mark.parametrize("memory", [[], ["--memory", "1M"]])
def test_a_mean_over_no_topic_with_a_relevant_document_does_not_blame_the_ids(
    tmp_path, cli, memory
):
    """-l above every level leaves no topic a relevant document: the run answers every
    topic, and the note said its ids were written differently."""
    qrels, run = tmp_path / "qrels.txt", tmp_path / "run.txt"
    qrels.write_text(QRELS)
    run.write_text(RUN)
    code, out, err = cli("eval", qrels, run, "-m", "AP", "-l", "9", *memory)
    assert code == 0 and "nan" in out
    assert "every qrels topic it answers has no relevant document at level >= 9" in err
    assert "'01' is not '1'" not in err
    result = irgauge.evaluate(str(qrels), [str(run)], ["AP"], rel_level=9)
    assert any("has no relevant document at level >= 9" in n for n in result.metadata["notes"])


@pytest.mark.parametrize(
    "text", ["P(rel=\uff12)@10", "P@\uff11\uff10", "nDCG(gains=1:2_0:3)", "RBP(p=0_5)"]
)
def test_a_measure_parameter_no_option_means_is_refused(text):
    """0_5 is 5.0 to float() and full-width digits read as ASCII ones: a measure string
    refuses them as the options and the score files do."""
    with pytest.raises(irgauge.MeasureError):
        irgauge.parse_measure(text)


def test_agreement_refuses_a_run_that_answers_none_of_the_qrels_topics(tmp_path, cli):
    (tmp_path / "a.txt").write_text(QRELS)
    (tmp_path / "b.txt").write_text(QRELS.replace(" 2\n", " 1\n"))
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / "other.txt").write_text(
        RUN.replace("1 Q0", "01 Q0").replace("2 Q0", "02 Q0").replace(" r\n", " s\n")
    )
    args = ["agree", tmp_path / "a.txt", tmp_path / "b.txt", "-B", "5", "--seed", "1"]
    code, out, err = cli(*args, "--run", tmp_path / "r.txt", tmp_path / "other.txt")
    assert code == 2 and out == ""
    assert err == (
        f"irgauge: error: {tmp_path / 'other.txt'}: run s answers none of the 2 topics of "
        "qrels a.txt (its topics: 01, 02); topic ids match as written\n"
    )


def test_a_run_with_no_topic_scored_is_named_not_dropped(tmp_path, cli):
    """Scores computed from --qrels and --run: a run answering none of the qrels' topics
    would drop out, and the command would count one system fewer than it was given."""
    (tmp_path / "q.txt").write_text(QRELS)
    (tmp_path / "r.txt").write_text(RUN)
    (tmp_path / "s.txt").write_text(RUN.replace(" r\n", " s\n").replace("2 Q0", "3 Q0"))
    (tmp_path / "off.txt").write_text(RUN.replace("1 Q0", "01 Q0").replace("2 Q0", "02 Q0"))
    runs = [tmp_path / "r.txt", tmp_path / "s.txt", tmp_path / "off.txt"]
    code, out, err = cli("compare", "--qrels", tmp_path / "q.txt", "--run", *runs, "-m", "AP")
    assert code == 2 and out == ""
    assert err.startswith(
        f"irgauge: error: {tmp_path / 'off.txt'}: run off.txt has no topic scored"
    )


@pytest.mark.parametrize(
    "command",
    [
        ["discpower", "SCORES", "-B", "10"],
        ["study", "topicset", "--scores", "SCORES", "--out", "OUT", "--topic-resamples", "5"],
    ],
)
@pytest.mark.parametrize("option, value", [("--top-k", "1"), ("--top-fraction", "0.2")])
def test_a_filter_that_takes_the_systems_away_is_named(cli, tmp_path, command, option, value):
    """The selection step refuses it with its parameter, which the command line names as
    its option, in every command: a study named the score file instead."""
    rows = [f"{s}\tAP\t{t}\t{(ord(s) * 7 + t) % 10 / 10}\n" for s in "abcd" for t in range(1, 6)]
    (tmp_path / "s.tsv").write_text("run\tmeasure\ttopic\tvalue\n" + "".join(rows))
    where = {"SCORES": tmp_path / "s.tsv", "OUT": tmp_path / "out"}
    code, _, err = cli(*[where.get(a, a) for a in command], option, value)
    assert code == 2 and err == (
        f"irgauge: error: {option}: {value} keeps 1 of 4 systems; at least 2 are needed\n"
    )
    from irgauge.scores import read_scores, select_systems

    with pytest.raises(InputError) as refused:
        select_systems(read_scores(tmp_path / "s.tsv"), top_k=1, minimum=2)
    assert refused.value.parameter == "top_k"
