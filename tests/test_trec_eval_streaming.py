"""``irgauge trec_eval`` reads its run in parts of whole topics, as ``irgauge eval`` does,
and prints what the whole read prints: for any part size, topics contiguous or not, plain,
gzip or CRLF files; a part never holds the run whole; temporary files never outlive it."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import tempfile

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_streaming import (
    WHOLE,
    _big_shuffled_run,
    _shuffled_run,
    _write,
    collections,
    stopped_while_writing,
)

from irgauge.errors import InputError
from irgauge.evaluation import memory, run_scoring
from irgauge.evaluation.trec_eval import line_scoring as trec_eval_scoring
from irgauge.evaluation.trec_eval import output as trec_eval_output
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
from irgauge.measures.trec_eval_words import TrecEvalError
from tests.conftest import examples

WORD_LISTS = [
    ["official"],
    ["all_trec"],
    ["P.1,3", "relstring.4", "num_q", "runid"],
    ["ndcg_cut.2,5", "iprec_at_recall", "utility.2,-1,0,0", "rbp_resid.p=0.8"],
]


def _use_part_bytes(monkeypatch, size: int) -> None:
    monkeypatch.setattr(trec_eval_scoring, "part_bytes", lambda budget, runs: size)


def _outcome(qrels, run, words, options):
    """The output, or a failure's status, message and output before it."""
    try:
        return trec_eval_output.trec_eval_output(qrels, run, words, options)
    except TrecEvalError as err:
        return err.status, str(err), err.output


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    data=collections(),
    part=st.sampled_from([1, 7, 40, 200]),
    crlf=st.booleans(),
    gz=st.booleans(),
    words=st.sampled_from(WORD_LISTS),
    flags=st.fixed_dictionaries(
        {"per_topic": st.booleans(), "complete": st.booleans(), "judged_only": st.booleans()}
    ),
)
def test_any_part_size_prints_the_whole_reads_output(
    tmp_path, monkeypatch, data, part, crlf, gz, words, flags
):
    qrels_lines, run_lines = data
    qrels = _write(tmp_path / "qrels", qrels_lines)
    run = _write(tmp_path / "run", run_lines, crlf=crlf, gz=gz)
    options = TrecEvalOptions(**flags)
    _use_part_bytes(monkeypatch, WHOLE)
    whole = _outcome(qrels, run, words, options)
    _use_part_bytes(monkeypatch, part)
    assert _outcome(qrels, run, words, options) == whole
    jg = TrecEvalOptions(**flags, rel_format="qrels_jg")  # one judgment group: label 0
    _use_part_bytes(monkeypatch, WHOLE)
    whole = _outcome(qrels, run, ["qrels_jg"], jg)
    _use_part_bytes(monkeypatch, part)
    assert _outcome(qrels, run, ["qrels_jg"], jg) == whole


def _largest_part(monkeypatch) -> list:
    """The number of lines of each part matched, as they are matched."""
    sizes = []
    match = run_scoring.match_run
    monkeypatch.setattr(
        run_scoring, "match_run", lambda run, *a: sizes.append(len(run)) or match(run, *a)
    )
    return sizes


@pytest.mark.parametrize("shuffled", [False, True])
def test_a_run_larger_than_the_budget_is_read_in_parts(tmp_path, monkeypatch, shuffled):
    qrels, run = _shuffled_run(tmp_path, topics=60)
    if not shuffled:
        lines = open(run).read().splitlines()
        run = _write(tmp_path / "sorted", sorted(lines, key=lambda line: int(line.split()[0])))
    words, options = ["all_trec"], TrecEvalOptions(per_topic=True)
    whole = trec_eval_output.trec_eval_output(qrels, run, words, options, memory="1T")
    sizes = _largest_part(monkeypatch)
    # the budget's floor lowered: 1M leaves nothing beyond what the process holds
    monkeypatch.setattr(memory, "MIN_PART_BYTES", 2000)
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    streamed = trec_eval_output.trec_eval_output(qrels, run, words, options, memory="1M")
    assert streamed == whole
    pieces = list(trec_eval_output.trec_eval_chunks(qrels, run, words, options, "1M"))
    assert len(pieces) > 1 and "".join(pieces) == whole  # -q is written as it comes
    assert len(sizes) > 5 and max(sizes) <= 3 * 2000 // 20, sizes  # lines of about 20 bytes
    assert not list(tmp_path.glob("irgauge-*"))


def test_temporary_files_are_removed_on_an_error(tmp_path, monkeypatch):
    qrels, run = _shuffled_run(tmp_path, topics=60)
    with open(run, "a") as handle:
        handle.write("7 Q0 d1 0 not-a-score r\n")
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    _use_part_bytes(monkeypatch, 2000)
    with pytest.raises(InputError, match="not-a-score"):
        trec_eval_output.trec_eval_output(qrels, run, ["map"])
    assert not list(tmp_path.glob("irgauge-*"))


def test_standard_input_is_read_in_parts_once_per_judgment_group(tmp_path):
    qrels, run = _shuffled_run(tmp_path, topics=60)
    lines = open(qrels).read().splitlines()
    groups = [f"{t} {i % 2} {d} {g}" for i, (t, _, d, g) in enumerate(map(str.split, lines))]
    qrels = _write(tmp_path / "qrels_jg", groups)
    argv = ["-q", "-c", "-R", "qrels_jg", "-m", "qrels_jg", qrels]
    script = (
        "import sys\n"
        "from irgauge.evaluation.trec_eval import line_scoring as trec_eval_scoring\n"
        "trec_eval_scoring.part_bytes = lambda budget, runs: 2000\n"
        "from irgauge.cli.cmd_trec_eval import console_main\n"
        "sys.exit(console_main(sys.argv[1:]))\n"
    )
    env = {**os.environ, "TMPDIR": str(tmp_path)}
    cli = [sys.executable, "-c", script, *argv]
    from_file = subprocess.run([*cli, run], capture_output=True, env=env)
    from_stdin = subprocess.run(
        [*cli, "-"], input=open(run, "rb").read(), capture_output=True, env=env
    )
    assert from_file.returncode == 0, from_file.stderr
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert from_stdin.stdout == from_file.stdout
    assert from_file.stdout.count(b"\n") > 60
    assert not list(tmp_path.glob("irgauge-*"))


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_no_temporary_file_outlives_a_stop_signal(tmp_path, signum):
    """The console script ``irgauge-trec_eval`` (its stop signals too), with small parts."""
    qrels, run = _big_shuffled_run(tmp_path, topics=2000, docs=20)
    stopped_while_writing(
        [qrels, run],
        tmp_path / "spill",
        signum,
        main="irgauge.cli.cmd_trec_eval:console_main",
        setup="from irgauge.evaluation.trec_eval import line_scoring as trec_eval_scoring\n"
        "trec_eval_scoring.part_bytes = lambda budget, runs: 1 << 16",
    )
