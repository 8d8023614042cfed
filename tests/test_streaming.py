"""Runs evaluated in parts of whole topics (``memory``) give the results of the whole run
read at once: for any part size, topics contiguous or not, plain, gzip or CRLF files, files
or standard input; temporary files never outlive the evaluation."""

from __future__ import annotations

import gzip
import os
import signal
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import examples

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation import engine
from irgauge.io.run_partitions import partitioned_parts
from irgauge.io.run_parts import concat_runs, iter_run_parts
from irgauge.io.runs import read_run

MEASURES = ["AP", "P@3", "nDCG@5", "RR", "Q-measure", "bpref", "num_ret", "R-prec", "infAP"]
WHOLE = 1 << 40  # a part size no test file reaches: the run read at once


def _use_part_bytes(monkeypatch, size: int) -> None:
    monkeypatch.setattr(engine, "part_bytes", lambda budget, workers: size)


@st.composite
def collections(draw):
    n_topics = draw(st.integers(1, 7))
    topics = [
        draw(st.sampled_from(["1", "2", "10", "q3", "301", "7a", "x"])) + str(t)
        for t in range(n_topics)
    ]
    qrels, run = [], []
    for t in topics:
        for d in range(draw(st.integers(0, 6))):
            qrels.append(f"{t} 0 d{d} {draw(st.integers(-1, 3))}")
        for d in draw(st.lists(st.integers(0, 12), unique=True, max_size=12)):
            score = draw(st.sampled_from([0.5, 1.0, 2.0, float(d) / 3]))  # ties
            run.append((t, f"{t} Q0 d{d} 0 {score!r} tag"))
    if not qrels:
        qrels.append(f"{topics[0]} 0 d0 1")
    layout = draw(st.sampled_from(["contiguous", "shuffled", "reversed"]))
    if layout == "shuffled":
        run = draw(st.permutations(run))
    elif layout == "reversed":
        run = run[::-1]
    if draw(st.booleans()) and run:  # a comment line somewhere
        run.insert(draw(st.integers(0, len(run))), ("", "# a comment"))
    return qrels, [line for _, line in run] or [f"{topics[0]} Q0 d0 0 1 tag"]


def _write(path: Path, lines, crlf=False, gz=False) -> str:
    data = "".join(line + ("\r\n" if crlf else "\n") for line in lines).encode()
    if gz:
        path = path.with_suffix(".gz")
        path.write_bytes(gzip.compress(data))
    else:
        path.write_bytes(data)
    return str(path)


def _same(a, b) -> None:
    for per_topic in (True, False):
        assert a.to_frame(per_topic).equals(b.to_frame(per_topic))  # NaN equals NaN here
    assert a.metadata == b.metadata


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
    complete=st.booleans(),
)
def test_any_part_size_gives_the_whole_runs_results(
    tmp_path, monkeypatch, data, part, crlf, gz, complete
):
    qrels_lines, run_lines = data
    qrels = _write(tmp_path / "qrels", qrels_lines)
    run = _write(tmp_path / "run", run_lines, crlf=crlf, gz=gz)
    options = dict(complete=complete, empty_topics="zero" if complete else "skip")
    _use_part_bytes(monkeypatch, WHOLE)
    whole = irgauge.evaluate(qrels, [run, run], MEASURES, **options)
    _use_part_bytes(monkeypatch, part)
    streamed = irgauge.evaluate(qrels, [run, run], MEASURES, **options)
    _same(whole, streamed)


def _shuffled_run(tmp_path, topics=30, docs=20, seed=0) -> tuple:
    rng = np.random.default_rng(seed)
    qrels = [f"{t} 0 d{d} {rng.integers(0, 3)}" for t in range(topics) for d in range(docs)]
    run = [f"{t} Q0 d{d} 0 {rng.random():.4f} r" for t in range(topics) for d in range(docs)]
    order = rng.permutation(len(run))
    return _write(tmp_path / "qrels", qrels), _write(tmp_path / "run", [run[i] for i in order])


def test_parts_hold_whole_topics_in_file_order(tmp_path):
    _, path = _shuffled_run(tmp_path)
    lines = [line for line in Path(path).read_text().splitlines()]
    lines.sort(key=lambda line: int(line.split()[0]))  # contiguous, file order within topics
    path = _write(tmp_path / "sorted", lines)
    whole = read_run(path)
    for size in (1, 100, 5000):
        parts = list(iter_run_parts(path, part_bytes=size))
        topics = [set(p.topics.tolist()) for p in parts]
        assert all(not (a & b) for i, a in enumerate(topics) for b in topics[i + 1 :])
        joined = concat_runs(parts)
        assert joined.docnos.tolist() == whole.docnos.tolist()
        assert np.array_equal(joined.line_numbers, np.arange(1, len(whole) + 1))
    assert len(list(iter_run_parts(path, part_bytes=100))) > 10


@pytest.mark.parametrize("line", ["\x01\x02", " \x03\x04 "])
def test_a_line_of_control_bytes_is_refused_through_the_partitioning_too(tmp_path, line):
    """The partitioning took a line with no byte above 32 for a blank line and dropped it,
    while the tokenizer, for which control bytes are part of a token, refuses it: the
    same file gave results when shuffled and an error when sorted."""
    _, path = _shuffled_run(tmp_path)
    lines = Path(path).read_text().splitlines()
    lines[250] = line
    path = _write(tmp_path / "controls", lines)
    with pytest.raises(InputError, match=f"{path}:251: expected 6 columns"):
        with partitioned_parts(path, part_bytes=500, folder=str(tmp_path)) as parts:
            list(parts)


@pytest.mark.parametrize("order", ["file", "score"])
def test_partitions_hold_every_line_of_their_topics(tmp_path, order):
    _, path = _shuffled_run(tmp_path)
    whole = read_run(path)
    with partitioned_parts(path, part_bytes=500, folder=str(tmp_path), order=order) as parts:
        parts = list(parts)
    assert len(parts) > 2
    seen = set()
    for part in parts:
        topics = set(part.topics.tolist())
        assert not topics & seen
        seen |= topics
        for topic in topics:
            mine = part.topics == topic
            lines, scores = part.line_numbers[mine], part.scores[mine]
            # each topic's lines together
            assert np.ptp(np.flatnonzero(mine)) == mine.sum() - 1
            if order == "file":
                assert np.all(np.diff(lines) > 0)
            else:  # by score descending, ties in file order
                assert np.all(np.diff(scores) <= 0)
                tied = np.diff(scores) == 0
                assert np.all(np.diff(lines)[tied] > 0)
    assert sum(len(p) for p in parts) == len(whole)
    assert not list(tmp_path.glob("irgauge-partition-*"))


def test_errors_name_the_files_line_in_any_part(tmp_path, monkeypatch):
    qrels, path = _shuffled_run(tmp_path)
    lines = Path(path).read_text().splitlines()
    lines[450] = lines[450] + " extra words are fine"
    lines[500] = "17 Q0 only-four 1"
    bad, error = _streamed_error(tmp_path, monkeypatch, qrels, lines)
    assert f"{bad}:501:" in error


def _streamed_error(tmp_path, monkeypatch, qrels, lines) -> tuple:
    """(path, message) of the error evaluating ``lines`` in parts of 300 bytes gives, which
    must be the whole read's; no temporary file is left."""
    bad = _write(tmp_path / "bad", lines)
    with pytest.raises(InputError) as whole:
        read_run(bad)
    _use_part_bytes(monkeypatch, 300)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with pytest.raises(InputError) as streamed:
        irgauge.evaluate(qrels, [bad], ["AP"])
    assert str(streamed.value) == str(whole.value)
    assert not list(tmp_path.glob("irgauge-*"))
    return bad, str(streamed.value)


def test_a_document_twice_in_a_scattered_topic_is_refused(tmp_path, monkeypatch):
    qrels, path = _shuffled_run(tmp_path)
    lines = Path(path).read_text().splitlines()
    first = lines[3].split()
    lines.append(f"{first[0]} Q0 {first[2]} 0 0.5 r")
    bad = _write(tmp_path / "twice", lines)
    _use_part_bytes(monkeypatch, 300)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with pytest.raises(InputError, match="retrieved twice") as err:
        irgauge.evaluate(qrels, [bad], ["AP"])
    assert err.value.line == len(lines) and "also on line 4" in str(err.value)
    assert not list(tmp_path.glob("irgauge-*"))


def _cli(*args, stdin=None, env=None):
    return subprocess.run(
        [sys.executable, "-m", "irgauge", *args],
        input=stdin,
        capture_output=True,
        env={**os.environ, **(env or {})},
        check=False,
    )


def _data(done) -> list:
    """The output's lines without its header (which names the run's source)."""
    return [line for line in done.stdout.splitlines() if not line.startswith(b"#")]


def test_standard_input_and_a_pipe_read_scattered_runs(tmp_path):
    qrels, path = _shuffled_run(tmp_path, topics=60)
    env = {"TMPDIR": str(tmp_path)}
    options = ("-m", "AP,nDCG@10", "-q", "--format", "tsv", "--memory", "1M")
    from_file = _cli("eval", qrels, path, *options, env=env)
    assert from_file.returncode == 0, from_file.stderr
    from_stdin = _cli("eval", qrels, "-", *options, stdin=Path(path).read_bytes(), env=env)
    assert from_stdin.returncode == 0, from_stdin.stderr
    assert _data(from_stdin) == _data(from_file)  # the run is named by its tag in both
    assert len(_data(from_file)) > 100
    shell = f"cat {path} | {sys.executable} -m irgauge eval {qrels} /dev/stdin " + " ".join(options)
    piped = subprocess.run(shell, shell=True, capture_output=True, env={**os.environ, **env})
    assert piped.returncode == 0, piped.stderr
    assert _data(piped) == _data(from_file)
    assert not list(tmp_path.glob("irgauge-*"))


def _big_shuffled_run(tmp_path, topics=10000, docs=100) -> tuple:
    rng = np.random.default_rng(1)
    t = np.repeat(np.arange(topics), docs)
    d = np.tile(np.arange(docs), topics)
    order = rng.permutation(len(t))
    run = "".join(f"{a} Q0 doc{b} 0 {b} r\n" for a, b in zip(t[order], d[order]))
    qrels = "".join(f"{a} 0 doc{b} 1\n" for a in range(topics) for b in range(0, docs, 7))
    (tmp_path / "qrels").write_text(qrels)
    (tmp_path / "run").write_text(run)
    return str(tmp_path / "qrels"), str(tmp_path / "run")


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGINT])
def test_no_temporary_file_outlives_a_stop_signal(tmp_path, signum):
    qrels, run = _big_shuffled_run(tmp_path, topics=2000, docs=20)
    argv = ["eval", qrels, run, "--memory", "1M", "--quiet"]
    small_parts = "from irgauge.evaluation import engine\nengine.part_bytes = lambda *_: 1 << 16"
    stopped_while_writing(argv, tmp_path / "spill", signum, setup=small_parts)


# A command of irgauge's console script (``main``, "module:function") with ``after``
# ("module:Class.function" or "module:function") wrapped: once it has returned the first
# time, a temporary file written, the child tells the test through a pipe and waits there,
# in the main thread (where Python runs signal handlers), for the signal. The test polled
# the spill folder and signalled once a file showed: under load the command could finish
# in between (exit 0), or be stopped at another moment each run.
PAUSED_AFTER = """
import importlib, os, sys, threading, time
module, _, name = {after!r}.partition(":")
*owner_path, attribute = name.split(".")
owner = importlib.import_module(module)
for part in owner_path:
    owner = getattr(owner, part)
original = getattr(owner, attribute)
def paused(*args, **kwargs):
    result = original(*args, **kwargs)
    if threading.current_thread() is not threading.main_thread():
        raise RuntimeError("paused off the main thread: the signal could not stop it")
    os.write({ready}, b"w")
    time.sleep(600)
    return result
setattr(owner, attribute, paused)
{setup}
module, _, name = {main!r}.partition(":")
sys.argv[1:] = {argv!r}
sys.exit(getattr(importlib.import_module(module), name)())
"""

# the first partition files written (their buffered lines flushed), the scatter not done
PARTITION_WRITTEN = "irgauge.io.line_scatter:LineSpill.flush"


def stopped_while_writing(
    argv,
    spill,
    signum,
    pattern="irgauge-partition-*/*",
    after=PARTITION_WRITTEN,
    main="irgauge.cli:console_main",
    setup="",
) -> None:
    """The console script ``main`` run on ``argv`` (after the Python lines ``setup``) with
    its temporary files in ``spill``, sent ``signum`` while it waits in ``after`` (see
    PAUSED_AFTER), a file of ``pattern`` (by default a partition file) there: it exits as
    the shell reports that signal, leaving nothing."""
    spill.mkdir()
    ready, tell = os.pipe()
    script = PAUSED_AFTER.format(
        ready=tell, after=after, main=main, setup=setup, argv=[str(a) for a in argv]
    )
    proc = subprocess.Popen(
        [sys.executable, "-c", script],
        env={**os.environ, "TMPDIR": str(spill)},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
        pass_fds=(tell,),
    )
    os.close(tell)
    with os.fdopen(ready, "rb") as pipe:
        paused = pipe.read(1)  # blocks until the child waits in ``after`` (or has ended)
    if paused != b"w":
        proc.kill()
    assert paused == b"w", f"never paused in {after}: {proc.communicate()[1].decode()}"
    assert list(spill.glob(pattern)), f"no {pattern} in {list(spill.rglob('*'))}"
    proc.send_signal(signum)
    _, err = proc.communicate(timeout=600)
    assert proc.returncode == 128 + signum, err
    assert list(spill.iterdir()) == []


def test_memory_is_checked_at_the_boundary():
    with pytest.raises(InputError, match="at least 1M"):
        irgauge.evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, ["AP"], memory="10K")
    with pytest.raises(InputError, match="a size such as"):
        irgauge.evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, ["AP"], memory="lots")
    result = irgauge.evaluate({"1": {"d": 1}}, {"1": {"d": 1.0}}, ["AP"], memory="1.5G")
    assert result.means["value"].tolist() == [1.0]


def test_tables_stream_by_row_group_with_the_text_runs_results(tmp_path, monkeypatch):
    pa = pytest.importorskip("pyarrow")
    pq = pytest.importorskip("pyarrow.parquet")
    qrels, path = _shuffled_run(tmp_path, topics=40)
    fields = [line.split() for line in Path(path).read_text().splitlines()]
    table = pa.table(
        {
            "query_id": [f[0] for f in fields],
            "doc_id": [f[2] for f in fields],
            "score": [float(f[4]) for f in fields],
            "run": ["r"] * len(fields),
        }
    )
    parquet = tmp_path / "run.parquet"
    pq.write_table(table, parquet, row_group_size=37)
    _use_part_bytes(monkeypatch, WHOLE)
    text = irgauge.evaluate(qrels, [path], MEASURES)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    for size in (WHOLE, 2000, 40):
        _use_part_bytes(monkeypatch, size)
        streamed = irgauge.evaluate(qrels, [str(parquet)], MEASURES)
        assert text.to_frame().equals(streamed.to_frame())
    assert not list(tmp_path.glob("irgauge-*"))


def test_spans_are_cut_between_topics_not_at_comment_lines(tmp_path):
    """A comment line inside a topic is no topic change: a span boundary there would give
    one topic to two spans (and send the run back to the local engine)."""
    from irgauge.io.run_spans import topic_spans

    lines = []
    for t in range(40):
        for d in range(30):
            lines.append(f"{t} Q0 d{d} 0 {30 - d} r")
            if d % 3 == 1:
                lines.append("# a comment inside the topic")
    path = _write(tmp_path / "run", lines)
    spans = topic_spans(path, 16)
    assert spans is not None and len(spans) > 8
    data = Path(path).read_bytes()
    seen = set()
    for span in spans:
        text = data[span.start : span.end].decode()
        topics = {line.split()[0] for line in text.splitlines() if not line.startswith("#")}
        assert not topics & seen
        seen |= topics
    assert seen == {str(t) for t in range(40)}


def test_a_shuffled_file_is_tokenized_once(tmp_path, monkeypatch):
    """Its first block already shows topics in two places: the file is partitioned from
    its start as lines (found by their first token alone), and each line is tokenized
    once, when its partition is read back. (Older code tokenized the first two parts
    twice, then every line once more before writing it.)"""
    from irgauge.io import run_partitions, run_parts, run_spans

    qrels, path = _shuffled_run(tmp_path, topics=40)
    expected = irgauge.evaluate(qrels, path, ["AP", "P@5"], memory="1T")
    tokenized = []
    tokenize = run_parts.tokenize_run

    def counted(*args, **options):
        table = tokenize(*args, **options)
        tokenized.append(len(table))
        return table

    # every reader of a run in parts that tokenizes
    for reader in (run_parts, run_spans, run_partitions):
        monkeypatch.setattr(reader, "tokenize_run", counted)
    _use_part_bytes(monkeypatch, 2000)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    streamed = irgauge.evaluate(qrels, path, ["AP", "P@5"])
    lines = len(Path(path).read_text().splitlines())
    assert len(tokenized) > 3
    assert sum(tokenized) == lines + 1, (sum(tokenized), lines)  # + the first line alone
    assert streamed.means["value"].tolist() == expected.means["value"].tolist()
    assert streamed.per_topic["value"].tolist() == expected.per_topic["value"].tolist()


def _odd_lines(rng, topics=25, docs=12) -> list:
    """Run lines of every layout the reader takes: indented, tab-separated, lone-CR and
    CRLF line ends, blank and comment lines, long topic ids and a long line, extra words;
    shuffled, the last one without a line end."""
    lines = []
    for t in range(topics):
        topic = f"topic-{t}-with-a-long-id" if t % 5 == 0 else str(t)
        for d in range(docs):
            docno = f"d{d}" if d != 3 else "D" * 400  # a line longer than a copied row
            lines.append(f"{topic} Q0 {docno} 0 {rng.integers(0, 4) / 2} tag")
    lines = [lines[i] for i in rng.permutation(len(lines))]
    lines[5] = "  \t" + lines[5]
    lines[9] = lines[9].replace(" ", "\t") + " extra words"
    ends = rng.choice(["\n", "\r\n", "\r"], len(lines))
    text = "".join(line + end for line, end in zip(lines, ends))
    return text + "\n# a comment\n\n   \n" + "3 Q0 last-line 0 0.25 tag"


@pytest.mark.parametrize("most_files", [256, 2])
def test_scattered_lines_of_any_layout_give_the_whole_runs_results(
    tmp_path, monkeypatch, most_files
):
    """2 files at most: partitions larger than twice the part size, partitioned again."""
    from irgauge.io import run_partitions

    rng = np.random.default_rng(7)
    run = tmp_path / "run"
    run.write_bytes(_odd_lines(rng).encode())
    qrels = _write(tmp_path / "qrels", [f"{t} 0 d{d} {d % 3}" for t in range(25) for d in range(9)])
    _use_part_bytes(monkeypatch, WHOLE)
    whole = irgauge.evaluate(qrels, [str(run)], MEASURES)
    monkeypatch.setattr(run_partitions, "MAX_PARTITIONS", most_files)
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    _use_part_bytes(monkeypatch, 1000)
    _same(whole, irgauge.evaluate(qrels, [str(run)], MEASURES))
    for order in ("file", "score"):
        expected = read_run(str(run))
        with partitioned_parts(str(run), part_bytes=1000, order=order) as parts:
            parts = list(parts)
        assert len(parts) > 2
        assert sorted(np.concatenate([p.line_numbers for p in parts]).tolist()) == sorted(
            expected.line_numbers.tolist()
        )
    assert not list(tmp_path.glob("irgauge-*"))


@pytest.mark.parametrize("swap", [False, True])
def test_the_first_bad_line_of_the_file_is_named_whatever_partition_holds_it(
    tmp_path, monkeypatch, swap
):
    qrels, path = _shuffled_run(tmp_path)
    lines = Path(path).read_text().splitlines()
    first, second = (100, 400) if not swap else (400, 100)
    lines[first] = "3 Q0 only-four 1"
    lines[second] = "11 Q0 three"
    bad, error = _streamed_error(tmp_path, monkeypatch, qrels, lines)
    assert f"{bad}:101:" in error


@pytest.mark.parametrize("part", [None, 40])
def test_the_tag_names_the_run_after_blocks_of_comments(tmp_path, monkeypatch, part):
    """The run is named by the tag of its first data line, also when comments fill the
    first block (whole read: more than a block of comments) or the first part (streamed);
    found by the streaming property test: the streamed run was named after its file."""
    from irgauge.io import _tokens

    qrels = _write(tmp_path / "qrels", ["10 0 d0 1"])
    comments = (
        ["# " + "c" * 60] * (_tokens.BLOCK_BYTES // 60 + 10) if part is None else ["# " + "c" * 36]
    )
    lines = [f"10 Q0 d{d} 0 {1 / (d + 1)} tag" for d in range(5)]
    path = _write(tmp_path / "run", comments + lines)
    if part is not None:
        _use_part_bytes(monkeypatch, part)
    result = irgauge.evaluate(qrels, path, ["AP"])
    assert result.means["run"].tolist() == ["tag"]
    assert read_run(path).name == "tag"


@pytest.mark.parametrize("bad_line", [False, True])
def test_an_error_in_parts_is_the_error_of_the_run_read_whole(tmp_path, monkeypatch, bad_line):
    """A shuffled run retrieving documents twice named the first copy when the second
    scored higher (a partition is sorted by score), and the copy of the first partition
    to fail rather than the one first in the file; a bad line after the copies was not
    named at all, where the run read whole names it."""
    qrels = _write(tmp_path / "qrels", [f"{t} 0 d{d} 1" for t in range(1, 9) for d in range(6)])
    rng = np.random.default_rng(3)
    lines = [f"{t} Q0 d{d} 0 {rng.random():.3f} r" for t in range(1, 9) for d in range(6)]
    lines = [lines[i] for i in rng.permutation(len(lines))]
    lines.insert(30, lines[5].rsplit(" ", 2)[0] + " 9.5 r")  # a copy scoring higher
    lines.insert(12, lines[2].rsplit(" ", 2)[0] + " 0.1 r")  # first in the file
    if bad_line:
        lines.append("1 Q0 d9 0 nan r")
    run = _write(tmp_path / "run", lines)
    with pytest.raises(InputError) as whole:
        irgauge.evaluate(qrels, [run], ["AP"])
    _use_part_bytes(monkeypatch, 200)
    with pytest.raises(InputError) as parts:
        irgauge.evaluate(qrels, [run], ["AP"])
    assert str(parts.value) == str(whole.value)
    assert whole.value.line == (len(lines) if bad_line else 13), str(whole.value)
