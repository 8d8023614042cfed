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

import pytest

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


def test_runid_alone_is_printed(capsys, tmp_path):
    # trec_eval -m runid: no measure to compute, its one line
    run = RUN.replace(b"first", b"last")
    code, out, err = drop_in(capsys, tmp_path, QRELS, run, "-q", "-m", "runid")
    assert code == 0, err
    assert out == "runid                 \tall\tlast\n"
