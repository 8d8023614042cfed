"""Bad input: a clear error naming file, line and problem; exit code 2; no partial output."""

from __future__ import annotations

import gzip

import pytest

from irgauge import InputError, evaluate
from irgauge.cli import main

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n2 0 d1 1\n"
RUN = "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n2 Q0 d1 1 1.0 r\n"


def write(tmp_path, name, text, gz=False):
    path = tmp_path / name
    if gz:
        path.write_bytes(gzip.compress(text.encode()))
    else:
        path.write_text(text)
    return str(path)


def run_cli(capsys, *args):
    code = main(["eval", *args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize(
    "name,text,line,problem",
    [
        ("wrong columns", "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0\n", 2, "expected 6 columns"),
        (
            "bad score",
            "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 high r\n",
            2,
            "score 'high' is not a finite number",
        ),
        ("nan score", "1 Q0 d1 1 nan r\n", 1, "not a finite number"),
        (
            "duplicate doc",
            "1 Q0 d1 1 3.0 r\n1 Q0 d2 2 2.0 r\n1 Q0 d1 3 1.0 r\n",
            3,
            "retrieved twice",
        ),
        # trec_eval ignores text after the sixth field (results.trunc has such lines), so a
        # line with too few fields is the column-count error
        ("five columns", "1 Q0 d1 1 3.0\n", 1, "expected 1 or 2 or 6"),
    ],
)
def test_bad_run_names_file_line_and_problem(tmp_path, capsys, name, text, line, problem):
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "run.txt", text)
    code, out, err = run_cli(capsys, qrels, run)
    assert code == 2
    assert out == ""  # no partial output
    assert f"{run}:{line}:" in err
    assert problem in err


@pytest.mark.parametrize(
    "text,line,problem",
    [
        ("1 0 d1 1\n1 0 d2 x\n", 2, "relevance level 'x' is not an integer"),
        ("1 0 d1 1\n1 0 d2\n", 2, "expected 4 columns"),
        ("1 0 d1 1\n1 0 d1 2\n", 2, "judged again with level 2 (level 1 on line 1)"),
        ("1 d1 L1\n1 d2 Lx\n", 2, "relevance label 'x' is not an integer"),
    ],
)
def test_bad_qrels_names_file_line_and_problem(tmp_path, capsys, text, line, problem):
    qrels = write(tmp_path, "q.txt", text)
    run = write(tmp_path, "run.txt", RUN)
    code, out, err = run_cli(capsys, qrels, run)
    assert code == 2 and out == ""
    assert f"{qrels}:{line}:" in err and problem in err


def test_identical_repeated_judgment_is_accepted(tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS + "1 0 d1 1\n")
    result = evaluate(qrels, write(tmp_path, "run.txt", RUN), ["num_rel"])
    assert result.per_topic["value"].tolist() == [2.0, 1.0]


def test_empty_and_comment_only_files(tmp_path, capsys):
    empty = write(tmp_path, "empty.txt", "   \n")
    code, out, err = run_cli(capsys, write(tmp_path, "q.txt", QRELS), empty)
    assert code == 2 and "file is empty" in err and empty in err
    comments = write(tmp_path, "c.txt", "# nothing\n# here\n")
    code, out, err = run_cli(capsys, comments, write(tmp_path, "r.txt", RUN))
    assert code == 2 and "no data lines" in err


def test_unreadable_gzip_and_missing_file(tmp_path, capsys):
    broken = tmp_path / "run.gz"
    broken.write_bytes(gzip.compress(RUN.encode())[:20])
    code, out, err = run_cli(capsys, write(tmp_path, "q.txt", QRELS), str(broken))
    assert code == 2 and "unreadable gzip" in err and str(broken) in err
    code, out, err = run_cli(capsys, write(tmp_path, "q.txt", QRELS), str(tmp_path / "nope"))
    assert code == 2 and "cannot read file" in err


@pytest.mark.parametrize("kind", ["bz2", "xz"])
@pytest.mark.parametrize("damage", ["truncated", "corrupted"])
def test_unreadable_bz2_and_xz(tmp_path, capsys, kind, damage):
    """A damaged bz2 or xz file is bad input naming the file (lzma's LZMAError is not an
    OSError), not a traceback."""
    import bz2
    import lzma

    packed = {"bz2": bz2.compress, "xz": lzma.compress}[kind]((RUN * 50).encode())
    if damage == "truncated":
        packed = packed[: len(packed) // 2]
    else:  # the header stays, the compressed body is overwritten
        packed = packed[:24] + bytes(len(packed) - 24)
    broken = tmp_path / f"run.{kind}"
    broken.write_bytes(packed)
    code, out, err = run_cli(capsys, write(tmp_path, "q.txt", QRELS), str(broken))
    assert code == 2 and f"unreadable {kind} data" in err and str(broken) in err, err


def test_gzip_run_reads_like_plain(tmp_path):
    qrels = write(tmp_path, "q.txt", QRELS)
    plain = evaluate(qrels, write(tmp_path, "r.txt", RUN), ["AP", "P@2"]).per_topic
    packed = evaluate(qrels, write(tmp_path, "r.txt.gz", RUN, gz=True), ["AP", "P@2"]).per_topic
    assert plain["value"].tolist() == packed["value"].tolist()


def test_unknown_measure_and_bad_parameter(tmp_path, capsys):
    args = [write(tmp_path, "q.txt", QRELS), write(tmp_path, "r.txt", RUN)]
    code, _, err = run_cli(capsys, *args, "-m", "nDGC@10")
    assert code == 2 and "unknown measure 'nDGC'" in err
    code, _, err = run_cli(capsys, *args, "-m", "nDCG(dcg=cubic)")
    assert code == 2 and "dcg must be one of" in err
    code, _, err = run_cli(capsys, *args, "-m", "RBP(q=0.5)")
    assert code == 2 and "has no parameter 'q'" in err
    code, _, err = run_cli(capsys, *args, "-m", "Rprec@10")
    assert code == 2 and "takes no cutoff" in err


def test_gains_shorter_than_levels(tmp_path, capsys):
    code, _, err = run_cli(
        capsys, write(tmp_path, "q.txt", QRELS), write(tmp_path, "r.txt", RUN), "--gains", "1"
    )
    assert code == 2 and "levels up to 2" in err


def test_run_topics_absent_from_qrels_are_reported(tmp_path, capsys):
    run = write(tmp_path, "r.txt", RUN + "9 Q0 d1 1 1.0 r\n")
    code, out, err = run_cli(
        capsys, write(tmp_path, "q.txt", QRELS), run, "-m", "AP", "--format", "tsv"
    )
    assert code == 0
    assert "1 topic not in the qrels, not scored: 9" in err
    assert '# run_topics_not_in_qrels: {"r": ["9"]}' in out


def test_api_raises_input_error_with_location(tmp_path):
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3.0 r\n1 Q0 d2\n")
    with pytest.raises(InputError) as info:
        evaluate(write(tmp_path, "q.txt", QRELS), run)
    assert info.value.path == run and info.value.line == 2


def _lines_with_nul(count: int, nul_line: int, shuffled: bool) -> str:
    import random

    lines = [f"{1 + k // 100} Q0 d{k % 100} {k % 100 + 1} {1000 - k}.5 r" for k in range(count)]
    if shuffled:  # topics scattered over the file: read through the partitioning
        random.Random(7).shuffle(lines)
    lines[nul_line - 1] = lines[nul_line - 1].replace(" d", " \0d", 1)
    return "\n".join(lines) + "\n"


@pytest.mark.parametrize(
    "command,count,nul_line,shuffled,memory",
    [
        ("eval", 3, 1, False, None),  # the first byte of an id
        ("eval", 60_000, 52_345, False, None),  # past the first 1 MB block
        ("eval", 60_000, 52_345, True, "1M"),  # a shuffled run read in partitions
        ("trec_eval", 60_000, 52_345, False, None),
    ],
)
def test_a_nul_byte_in_a_run_or_qrels_is_refused_at_its_line(
    tmp_path, capsys, command, count, nul_line, shuffled, memory
):
    """No text file holds a NUL byte; taken as part of an id, 'd1\\0' became a document
    of its own (or, with ids padded by NULs, the same as 'd1'), and a file of NUL bytes a
    one-line run. Refused at FILE:LINE by the tokenizer every text reader goes through."""
    text = _lines_with_nul(count, nul_line, shuffled)
    run = write(tmp_path, "run.txt", text)
    qrels = write(tmp_path, "q.txt", QRELS)
    options = ["--memory", memory] if memory else []
    assert main([command, *options, qrels, run]) == 2
    err = capsys.readouterr().err
    assert f"{run}:{nul_line}: a NUL byte at column" in err
    # the same line in qrels (its third column holds the id)
    qrels_text = "".join(
        f"{fields[0]} 0 {fields[2]} 1\n"
        for fields in (line.split(" ") for line in text.splitlines())
    )
    bad_qrels = write(tmp_path, "bad.qrels", qrels_text)
    assert main([command, bad_qrels, write(tmp_path, "ok.run", RUN)]) == 2
    assert f"{bad_qrels}:{nul_line}: a NUL byte" in capsys.readouterr().err


def test_a_file_of_nul_bytes_is_refused(tmp_path, capsys):
    zeros = tmp_path / "zeros"
    zeros.write_bytes(b"\0" * 4096)
    qrels = write(tmp_path, "q.txt", QRELS)
    for args in ([qrels, str(zeros)], [str(zeros), write(tmp_path, "r", RUN)]):
        assert main(["eval", *args]) == 2
        assert f"{zeros}:1: a NUL byte at column 1" in capsys.readouterr().err
