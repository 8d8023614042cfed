"""``irgauge trec_eval`` on hostile inputs: the bytes trec_eval 10.0 reads as it reads them,
the lines it refuses refused at FILE:LINE.

Sources of the expected outcomes:
- trec_eval 10.0's readers (get_qrels.c, get_trec_results.c): fields are split at C's
  ``isspace`` bytes (space, tab, LF, VT, FF, CR) and lines end at LF only; get_qrels
  refuses a blank or whitespace-only line ("Malformed line"), reads a comment only where
  ``#`` is a line's first byte and the line before is not a comment, and reads past its
  buffer after a comment that ends the file; the runid printed is the tag "of the last
  line" (get_trec_results.c's header comment);
- a trec_eval 10.0 binary, where the machine has one (``TREC_EVAL=/path/to/trec_eval``):
  hypothesis-generated hostile renderings of well-formed collections, stdout and exit
  status compared as in tests/test_trec_eval_drop_in.py.
"""

from __future__ import annotations

import io
import os
import sys
import threading

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgauge.cli import main
from irgauge.io.qrels import read_qrels
from irgauge.io.runs import read_run

RUN = b"1 Q0 a 1 2 first\n1 Q0 b 2 1 last\n"
QRELS = b"1 0 a 1\n1 0 b 0\n"


def drop_in(capsys, tmp_path, qrels: bytes, run: bytes, *argv: str):
    """(exit status, stdout, stderr) of ``irgauge trec_eval ARGV q r`` on these bytes."""
    (tmp_path / "q").write_bytes(qrels)
    (tmp_path / "r").write_bytes(run)
    code = main(["trec_eval", *argv, str(tmp_path / "q"), str(tmp_path / "r")])
    out, err = capsys.readouterr()
    return code, out, err


def drop_in_qrels_streamed(capsys, tmp_path, monkeypatch, via, qrels: bytes, *argv: str):
    """(exit status, stdout, stderr, the qrels' name) with the qrels read from a file,
    standard input or a named pipe (``via``), which can be read once only."""
    (tmp_path / "r").write_bytes(RUN)
    name = str(tmp_path / "q")
    if via == "file":
        (tmp_path / "q").write_bytes(qrels)
    elif via == "stdin":
        name = "-"
        monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(qrels)))
    else:
        os.mkfifo(name)

        def feed():
            with open(name, "wb") as pipe:
                pipe.write(qrels)

        threading.Thread(target=feed, daemon=True).start()
    code = main(["trec_eval", *argv, name, str(tmp_path / "r")])
    out, err = capsys.readouterr()
    return code, out, err, name


# ------------------------------------------------------------- without trec_eval


@pytest.mark.parametrize("control", [b"\x01", b"\x08", b"\x0e", b"\x1f"])
def test_a_control_byte_is_part_of_an_id(capsys, tmp_path, control):
    # not a separator to C's isspace: "a<control>x" is one document, judged relevant
    docno = b"a" + control + b"x"
    qrels = b"1 0 " + docno + b" 1\n1 0 b 0\n"
    run = b"1 Q0 " + docno + b" 1 2 t\n1 Q0 b 2 1 t\n"
    code, out, err = drop_in(capsys, tmp_path, qrels, run, "-m", "P.1", "-m", "num_rel_ret")
    assert code == 0, err
    assert out == "num_rel_ret           \tall\t1\nP_1                   \tall\t1.0000\n"
    assert read_qrels(str(tmp_path / "q")).docnos[0] == docno
    assert read_run(str(tmp_path / "r")).docnos[0] == docno


@pytest.mark.parametrize("space", [b"\t", b"\x0b", b"\x0c", b" \t\x0c "])
def test_isspace_bytes_separate_fields(capsys, tmp_path, space):
    qrels = QRELS.replace(b" ", space)
    code, out, err = drop_in(capsys, tmp_path, qrels, RUN, "-m", "num_rel_ret")
    assert code == 0, err
    assert out == "num_rel_ret           \tall\t1\n"


def test_runid_is_the_last_lines_tag(capsys, tmp_path):
    code, out, _ = drop_in(capsys, tmp_path, QRELS, RUN + b"# a comment\n\n", "-m", "runid")
    assert code == 0 and out == "runid                 \tall\tlast\n"


def test_runid_of_a_stream_is_its_last_lines_tag(capsys, tmp_path, monkeypatch):
    import io
    import sys

    (tmp_path / "q").write_bytes(QRELS)
    stdin = io.TextIOWrapper(io.BytesIO(RUN))
    monkeypatch.setattr(sys, "stdin", stdin)
    code = main(["trec_eval", "-m", "runid", "-m", "num_q", str(tmp_path / "q"), "-"])
    out, _ = capsys.readouterr()
    assert (
        code == 0 and out == "runid                 \tall\tlast\nnum_q                 \tall\t1\n"
    )


def test_runid_alone_is_printed(capsys, tmp_path):
    # trec_eval -m runid: no measure to compute, its one line
    run = RUN.replace(b"first", b"last")
    code, out, err = drop_in(capsys, tmp_path, QRELS, run, "-q", "-m", "runid")
    assert code == 0, err
    assert out == "runid                 \tall\tlast\n"


@pytest.mark.parametrize(
    "qrels, line, words",
    [
        (b"1 0 a 1\n\n1 0 b 0\n", 2, "blank line"),
        (b"1 0 a 1\n \t\n1 0 b 0\n", 2, "blank line"),
        (b"1 0 a 1\n1 0 b 0\n ", 3, "blank line"),  # trec_eval adds the missing LF
        (b"1 0 a 1\n1 0 b 0\n\n", 3, "blank line"),
        (b"1 0 a 1\r1 0 b 0\n", 1, "CR"),
        (b"1 0 a 1\n #c 0 b 0\n", 2, "'#' after spaces"),
        (b"#c\n#d 0 b 0\n1 0 a 1\n", 2, "comment right after a comment"),
        (b"1 0 a 1\n1 0 b 0\n#c\n", 3, "comment as the last line"),
    ],
)
@pytest.mark.parametrize("via", ["file", "stdin", "fifo"])
def test_qrels_lines_trec_eval_refuses_are_refused(
    capsys, tmp_path, monkeypatch, qrels, line, words, via
):
    code, out, err, name = drop_in_qrels_streamed(capsys, tmp_path, monkeypatch, via, qrels, "-q")
    assert code == 2 and out == ""
    assert f"{name}:{line}:" in err and words in err, err
    assert len(err.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "qrels",
    [
        b"1 0 a 1\r\n1 0 b 0\r\n",
        b"1 0 a 1\n1 0 b 0\r",
        b"1 0 a 1\r\r\n1 0 b 0",
        b"#c\n1 0 a 1\n#d\n1 0 b 0\n",
        b"  1 0 a 1 \t\n1\t0\tb\t0\x0c\n",
    ],
)
@pytest.mark.parametrize("via", ["file", "stdin", "fifo"])
def test_qrels_lines_trec_eval_reads_are_read(capsys, tmp_path, monkeypatch, qrels, via):
    argv = ("-m", "num_rel", "-m", "num_q")
    code, out, err, _ = drop_in_qrels_streamed(capsys, tmp_path, monkeypatch, via, qrels, *argv)
    assert code == 0, err
    assert out == "num_q                 \tall\t1\nnum_rel               \tall\t1\n"


def test_a_run_line_with_text_after_a_lone_cr_is_refused(capsys, tmp_path):
    # trec_eval would read "1 Q0 b 2 1 last" as the end of line 1 and drop it
    run = b"1 Q0 a 1 2 first\r1 Q0 b 2 1 last\n"
    code, out, err = drop_in(capsys, tmp_path, QRELS, run)
    assert code == 2 and out == "" and f"{tmp_path / 'r'}:1:" in err and "CR" in err


@pytest.mark.parametrize("which", ["q", "r"])
def test_a_byte_order_mark_is_refused(capsys, tmp_path, which):
    # trec_eval reads it as part of the first topic: "\ufeff1" and "1" are two topics
    bom = b"\xef\xbb\xbf"
    qrels, run = (bom + QRELS, RUN) if which == "q" else (QRELS, bom + RUN)
    code, out, err = drop_in(capsys, tmp_path, qrels, run, "-q")
    assert code == 2 and out == "" and f"{tmp_path / which}:1:" in err and "byte order" in err


@pytest.mark.parametrize("via", ["stdin", "fifo"])
def test_a_byte_order_mark_of_streamed_qrels_is_refused(capsys, tmp_path, monkeypatch, via):
    streamed = (capsys, tmp_path, monkeypatch, via, b"\xef\xbb\xbf" + QRELS)
    code, out, err, name = drop_in_qrels_streamed(*streamed)
    assert code == 2 and out == "" and f"{name}:1:" in err and "byte order" in err, err


@pytest.mark.parametrize("via", ["stdin", "fifo"])
def test_an_error_reading_streamed_qrels_names_them(capsys, tmp_path, monkeypatch, via):
    # read from a copy of the stream: the error names the stream as the user gave it
    streamed = (capsys, tmp_path, monkeypatch, via, QRELS + b"1 0 c\n")
    code, out, err, name = drop_in_qrels_streamed(*streamed)
    assert code == 2 and out == "" and f"{name}:3:" in err and "irgauge-input" not in err, err


def test_blank_lines_and_indented_comments_of_a_run_are_skipped(capsys, tmp_path):
    run = b"\n \t\n # c\n1 Q0 a 1 2 first\r\n\n1 Q0 b 2 1 last\r\n  \n"
    code, out, err = drop_in(capsys, tmp_path, QRELS, run, "-m", "runid", "-m", "num_ret")
    assert code == 0, err
    assert out == "runid                 \tall\tlast\nnum_ret               \tall\t2\n"


def test_a_repeated_judgment_stops_where_trec_eval_evaluates_its_topic(capsys, tmp_path):
    # form_res_rels.c fails on a topic whose qrels hold a document twice when it evaluates
    # the topic (exit 4), after printing the topics before it
    qrels = b"1 0 a 1\n1 0 b 0\n2 0 a 1\n2 0 a 1\n3 0 c 1\n"
    run = b"1 Q0 a 1 2 t\n2 Q0 b 2 1 t\n3 Q0 c 1 1 t\n"
    topic_1 = "P_1                   \t1\t1.0000\n"
    for argv in (["-q"], ["-q", "-c"]):
        code, out, err = drop_in(capsys, tmp_path, qrels, run, *argv, "-m", "P.1")
        assert code == 4 and out == topic_1 and f"{tmp_path / 'q'}:4:" in err
    code, out, _ = drop_in(capsys, tmp_path, qrels, run, "-m", "P.1")
    assert code == 4 and out == ""
    # unanswered, topic 2 stops trec_eval 10.0 as a topic the run does not answer
    unanswered = run.replace(b"2 Q0", b"9 Q0")
    code, out, err = drop_in(capsys, tmp_path, qrels, unanswered, "-q", "-m", "P.1")
    assert code == 4 and out == topic_1 and "'2' not found" in err


@given(
    st.lists(
        st.sampled_from(["1 0 a 1", "1 0 b#2 0", " 1 0 c 1", "\t", "", "# note", "2 0 d 1\r"]),
        max_size=8,
    ),
    st.booleans(),
)
def test_lines_passed_over_as_plain_hold_nothing_the_closer_look_refuses(lines, final_lf):
    """The quick screen (no '#', no CR, every line starting with a token) may only pass a
    piece in which the line-by-line check finds nothing."""
    from irgauge.io.trec_eval_lines import _LfLines, _plain_lines

    piece = "\n".join(lines).encode() + (b"\n" if final_lf and lines else b"")
    if not piece or not _plain_lines(piece):
        return
    checked = _LfLines(piece, last=True)
    assert checked.first_blank() is None
    assert checked.first_indented_comment() is None
    assert checked.first_text_after_lone_cr() is None
    assert not checked.comment_start().any()


def test_eval_keeps_reading_lone_cr_and_blank_lines(capsys, tmp_path):
    # the trec_eval grammar is the drop-in's; irgauge eval keeps its documented one
    (tmp_path / "q").write_bytes(b"1 0 a 1\r\n1 0 b 0\r")
    (tmp_path / "r").write_bytes(b"1 Q0 a 1 2 t\r1 Q0 b 2 1 t\r")
    q, r = str(tmp_path / "q"), str(tmp_path / "r")
    code = main(["eval", q, r, "-m", "P@2", "--format", "trec", "--no-header"])
    out, _ = capsys.readouterr()
    assert code == 0 and out.split()[-1] == "0.5000"


# ------------------------------------------------------------------ against trec_eval

IDS = ["d1", "D1", "d2", "dé", "doc\x01x", "x" * 300, "d#3"]
TOPICS = ["101", "1o1", "Täst", "102"]
SCORES = ["1", "2", "2.5", "1e3", "-0", "+5", ".5", "5.", "-1.5e-2", "3" * 40]
LEVELS = ["0", "1", "2", "-1", "+1", "01", "-0", "100"]


@st.composite
def hostile_collections(draw):
    """Well-formed collections written as trec_eval reads them and irgauge must too:
    tabs, runs of spaces and the other isspace bytes between fields, leading and trailing
    whitespace, CRLF, no final newline, blank lines and comments where trec_eval skips them,
    levels and scores in every spelling strtol and strtod read alike, ids with control
    bytes, UTF-8, case differences or 300 bytes, tags that change, ties, a judgment
    repeated."""
    sep = st.sampled_from([" ", "\t", "  ", " \t", "\x0b", "\x0c"])
    padding = st.sampled_from(["", " ", "\t"])
    qrels = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3, unique=True)):
        for doc in draw(st.lists(st.sampled_from(IDS), min_size=1, max_size=5, unique=True)):
            qrels.append([topic, "0", doc, draw(st.sampled_from(LEVELS))])
    run, ties = [], draw(st.booleans())
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=3, unique=True)):
        for rank, doc in enumerate(draw(st.lists(st.sampled_from(IDS), min_size=1, unique=True))):
            score = "1" if ties else draw(st.sampled_from(SCORES))
            run.append([topic, "Q0", doc, str(rank), score, draw(st.sampled_from(["t", "u"]))])

    def written(lines, extra_lines):
        end = draw(st.sampled_from(["\n", "\r\n"]))
        text = []
        for fields in lines:
            inner = "".join(
                f + (draw(sep) if j < len(fields) - 1 else "") for j, f in enumerate(fields)
            )
            text.append(draw(padding) + inner + draw(padding))
        for extra in (
            draw(st.lists(st.sampled_from(extra_lines), max_size=2)) if extra_lines else []
        ):
            text.insert(draw(st.integers(0, len(text))), extra)
        return (end.join(text) + draw(st.sampled_from([end, ""]))).encode()

    if draw(st.booleans()):  # a judgment repeated: trec_eval fails where it evaluates it
        qrels.append(list(draw(st.sampled_from(qrels))))
    # get_qrels reads a comment at a line's start, never after one, never last
    qrels_text = written(qrels, [])
    if draw(st.booleans()):
        qrels_text = b"# judged by hand\n" + qrels_text
    return qrels_text, written(run, ["", " \t", "# a comment", "\t# indented"])


ARGUMENT_LISTS = [
    [],
    ["-q"],
    ["-q", "-c"],
    ["-q", "-J"],
    ["-q", "-M2"],
    ["-q", "-c", "-m", "all_trec"],
]


@pytest.mark.parametrize("argv", ARGUMENT_LISTS, ids=" ".join)
def test_same_bytes_as_trec_eval_on_hostile_inputs(tmp_path_factory, argv):
    drop_in_tests = pytest.importorskip("test_trec_eval_drop_in")
    binary = drop_in_tests.trec_eval_binary()
    if binary is None:
        pytest.skip("no trec_eval binary (set TREC_EVAL=/path/to/trec_eval)")

    @drop_in_tests.slow_settings
    @given(data=hostile_collections())
    def compare(data):
        folder = tmp_path_factory.mktemp("hostile")
        drop_in_tests.compare_with_trec_eval(binary, folder, *data, argv)

    compare()
