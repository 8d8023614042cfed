"""Every reader of text files, through the command that reads it, on hostile files: the
command succeeds with a well-formed output, or refuses with exit 2 and one line naming the
file; no traceback, no warning, the inputs untouched, nothing left behind after a refusal.
And the layouts that keep a file's content (line ends, a BOM, compression) give the same
output as the plain file."""

from __future__ import annotations

import pytest
import re
import tempfile
from pathlib import Path

from hypothesis import assume, example, given, strategies as st

import fuzz_strategies as fs
from fuzz_checks import check, check_json, check_tsv, inside, run_in

pytestmark = pytest.mark.slow  # a hypothesis search over hostile files

RUN_TEXT = fs.render(fs.trec_run(), fs.TREC_RUN, fs.PLAIN)
RUN2_TEXT = fs.render(fs.trec_run(b"r2", shift=2), fs.TREC_RUN, fs.PLAIN)
QRELS_TEXT = fs.render(fs.trec_qrels(), fs.TREC_QRELS, fs.PLAIN)
EVAL_MEASURES = "AP P@2 nDCG@3 Q-measure bpref num_rel"

# (valid lines, format, name of the hostile file, command given the folder)
READERS = {
    "run": (
        fs.trec_run(),
        fs.TREC_RUN,
        "run.txt",
        lambda d: [
            "eval",
            d / "qrels.txt",
            d / "run.txt",
            d / "run2.txt",
            "-m",
            EVAL_MEASURES,
            "-q",
            "--format",
            "tsv",
            "-o",
            d / "out.tsv",
        ],
    ),
    "pooled run": (
        fs.trec_run(),
        fs.TREC_RUN,
        "run.txt",
        lambda d: ["pool", d / "run.txt", d / "run2.txt", "--depth", "3", "-o", d / "out.tsv"],
    ),
    "prels": (
        fs.prels(),
        fs.PRELS,
        "prels.txt",
        lambda d: [
            "eval",
            "--prels",
            d / "prels.txt",
            d / "run.txt",
            "-m",
            "statAP statP@2 statR infAP",
            "-q",
            "--format",
            "tsv",
            "-o",
            d / "out.tsv",
        ],
    ),
    "trec qrels": (
        fs.trec_qrels(),
        fs.TREC_QRELS,
        "qrels.txt",
        lambda d: [
            "eval",
            d / "qrels.txt",
            d / "run.txt",
            "-m",
            EVAL_MEASURES,
            "-q",
            "--format",
            "tsv",
            "-o",
            d / "out.tsv",
        ],
    ),
    "ntcir qrels": (
        fs.ntcir_qrels(),
        fs.NTCIR_QRELS,
        "qrels.txt",
        lambda d: [
            "eval",
            d / "qrels.txt",
            d / "run.txt",
            "-m",
            EVAL_MEASURES,
            "-q",
            "--format",
            "tsv",
            "-o",
            d / "out.tsv",
        ],
    ),
    "trec_eval run": (
        fs.trec_run(),
        fs.TREC_RUN,
        "run.txt",
        lambda d: ["trec_eval", "-q", "-m", "all_trec", d / "qrels.txt", d / "run.txt"],
    ),
    "agreement qrels": (
        fs.trec_qrels(),
        fs.TREC_QRELS,
        "qrels.txt",
        lambda d: [
            "agree",
            d / "other.txt",
            d / "qrels.txt",
            "-B",
            "20",
            "--seed",
            "1",
            "--quiet",
            "--format",
            "json",
            "-o",
            d / "out.json",
        ],
    ),
    "long scores": (
        fs.long_scores(),
        fs.LONG_SCORES,
        "scores.tsv",
        lambda d: [
            "discpower",
            d / "scores.tsv",
            "-B",
            "20",
            "--seed",
            "1",
            "--quiet",
            "--format",
            "json",
            "-o",
            d / "out.json",
        ],
    ),
    "wide scores": (
        fs.wide_scores(),
        fs.WIDE_SCORES,
        "scores.tsv",
        lambda d: [
            "correlate",
            f"AP={d / 'scores.tsv'}",
            d / "other.csv",
            "--quiet",
            "--format",
            "json",
            "-o",
            d / "out.json",
        ],
    ),
    "QA gold": (
        fs.qa_gold(),
        fs.QA_GOLD,
        "gold.eqrels",
        lambda d: [
            "qa",
            "eval",
            d / "gold.eqrels",
            d / "answers.txt",
            "-m",
            "RR Q-measure",
            "-q",
            "--format",
            "tsv",
            "-o",
            d / "out.tsv",
        ],
    ),
    "QA answers": (
        fs.qa_run(),
        fs.QA_RUN,
        "answers.txt",
        lambda d: [
            "qa",
            "eval",
            d / "gold.eqrels",
            d / "answers.txt",
            "-m",
            "RR Q-measure",
            "-q",
            "--format",
            "tsv",
            "-o",
            d / "out.tsv",
        ],
    ),
    "study collections": (
        fs.study_toml(),
        fs.STUDY_TOML,
        "collections.toml",
        lambda d: [
            "study",
            "predictive",
            "--collections",
            d / "collections.toml",
            "--out",
            d / "study",
            "-P",
            "2",
            "--seed",
            "1",
            "--quiet",
        ],
    ),
    "report input": (
        fs.long_scores(),
        fs.LONG_SCORES,
        "scores.tsv",
        lambda d: ["report", d / "report", d / "scores.tsv"],
    ),
}
OUTPUTS = ("out.tsv", "out.json", "report", "study")
INPUTS = (
    "qrels.txt",
    "other.txt",
    "run.txt",
    "run2.txt",
    "prels.txt",
    "scores.tsv",
    "other.csv",
    "gold.eqrels",
    "answers.txt",
    "runs",
    fs.MISSING,
)
# the lines of a hostile file before its mutations, where they vary
VARIED_LINES = {"study collections": fs.study_toml_lines()}


def collection(folder: Path) -> None:
    """The valid files every command reads beside the hostile one."""
    (folder / "qrels.txt").write_bytes(QRELS_TEXT)
    (folder / "other.txt").write_bytes(QRELS_TEXT)
    (folder / "run.txt").write_bytes(RUN_TEXT)
    (folder / "run2.txt").write_bytes(RUN2_TEXT)
    # the qrels as a sample drawn with probability 1: the prels a stream test replaces
    judged = [line.split() for line in QRELS_TEXT.decode().splitlines() if line.strip()]
    prels = "".join(f"{t} {d} {level} 1\n" for t, _, d, level in judged)
    (folder / "prels.txt").write_bytes(prels.encode())
    (folder / "scores.tsv").write_bytes(fs.render(fs.long_scores(), fs.LONG_SCORES, fs.PLAIN))
    wide = fs.render(fs.wide_scores(), fs.WIDE_SCORES, fs.PLAIN)
    (folder / "other.csv").write_bytes(wide)
    (folder / "gold.eqrels").write_bytes(fs.render(fs.qa_gold(), fs.QA_GOLD, fs.PLAIN))
    (folder / "answers.txt").write_bytes(fs.render(fs.qa_run(), fs.QA_RUN, fs.PLAIN))
    (folder / "runs").mkdir()  # a run folder of a study's collection
    (folder / "runs" / "r1").write_bytes(RUN_TEXT)
    (folder / "runs" / "r2").write_bytes(RUN2_TEXT)
    (folder / "collections.toml").write_bytes(fs.render(fs.study_toml(), fs.STUDY_TOML, fs.PLAIN))


def outcome_of(reader: str, content: bytes):
    """The command's outcome on ``content`` as the reader's file, and the output's text."""
    _, _, name, command = READERS[reader]
    with tempfile.TemporaryDirectory() as temporary, inside(temporary):
        here = Path()  # relative paths: the outputs, which name the inputs, can be compared
        collection(here)
        (here / name).write_bytes(content)
        outcome = run_in(here, *command(here))
        written = [here / o for o in OUTPUTS if (here / o).is_file()]
        # a study's manifest records when it ran: its tables are compared
        study = here / "study" / "predictive-comparison" / "tables" / "phi.csv"
        written += [study] if study.is_file() else []
        # surrogateescape: pool and reduce write ids as they were read, bytes that are not
        # UTF-8 included, so that the file reads back as the same ids (docs/pooling.md)
        text = (
            written[0].read_bytes().decode("utf-8", "surrogateescape") if written else outcome.out
        )
        return outcome, text, here / name


@st.composite
def reader_and_bytes(draw):
    reader = draw(st.sampled_from(sorted(READERS)))
    lines, fmt, _, _ = READERS[reader]
    lines = draw(VARIED_LINES[reader]) if reader in VARIED_LINES else lines
    return reader, draw(fs.hostile_bytes(lines, fmt))


@fs.fuzz_settings(100)
@given(reader_and_bytes())
# a vertical tab in a system name made the message two lines
@example(("long scores", b"r\x0bun\tmeasure\ttopic\tvalue\ns1\tAP\t1\t0.5\n"))
# a topic whose bytes are not UTF-8, written by pool as it was read
@example(("pooled run", b"\xff1 Q0 d1 1 5.5 r\n1 Q0 d2 2 4.5 r\n"))
def test_hostile_file_is_read_or_refused_in_one_line(case):
    reader, content = case
    outcome, text, path = outcome_of(reader, content)
    if reader == "trec_eval run" and outcome.code not in (0, 2):
        # where trec_eval itself stops (a document retrieved twice: exit 4), the drop-in
        # gives trec_eval's status and lines, then one line of ours naming the file
        assert "Traceback" not in outcome.err, outcome.err
        last = outcome.err.strip().splitlines()[-1]
        assert last.startswith("irgauge: error: run.txt:"), outcome.err
        assert "which stops trec_eval 10.0" in last and outcome.changed == set(), outcome.err
        return
    # the hostile file, or the file it disagrees with (topics of two measures, say)
    check(outcome, [path, *INPUTS], OUTPUTS)
    if outcome.code == 0:
        well_formed(reader, text)


def well_formed(reader: str, text: str) -> None:
    if reader == "trec_eval run":
        words = ("runid", "relstring")  # a run's name and a string of levels: not numbers
        check_tsv("\n".join(x for x in text.splitlines() if not x.startswith(words)), 3)
    elif reader == "study collections":
        assert text.startswith("collection,predictor,"), text
    elif reader in ("agreement qrels", "wide scores", "long scores"):
        check_json(text)
    elif reader != "report input":
        check_tsv(text)


@st.composite
def reader_content_layout(draw):
    reader = draw(st.sampled_from(sorted(READERS)))
    lines, fmt, _, _ = READERS[reader]
    lines = draw(VARIED_LINES[reader]) if reader in VARIED_LINES else lines
    return reader, draw(fs.mutated(lines, fmt)), draw(fs.layouts(hostile=False))


@fs.fuzz_settings(15)
@given(reader_content_layout(), st.integers(0, 1 << 16))
def test_layout_keeps_the_outcome(case, cut):
    """CRLF, CR or mixed line ends, no final line end, a BOM, gzip (padded with NULs, or in
    two members), bz2 or xz: the same outcome as the plain LF file, byte for byte."""
    reader, lines, layout = case
    fmt = READERS[reader][1]
    plain = fs.render(lines, fmt, fs.PLAIN)
    assume(not (layout.bom and plain.startswith(b"\xef\xbb\xbf")))  # two BOMs: one kept
    # a CR inside a field ends a line too: CR + LF then counts one line end, not two
    assume(b"\r" not in plain or layout.line_end == "lf")
    expected, expected_text, _ = outcome_of(reader, plain)
    found, found_text, path = outcome_of(reader, fs.render(lines, fmt, layout, cut))
    if reader == "trec_eval run" and trec_eval_reads_otherwise(lines, fmt, layout):
        # the drop-in refuses what trec_eval would read as other lines or another topic
        assert found.code == 2 and found_text == "", found.err
        assert found.err.count("\n") == 1 and f"{path}:" in found.err, found.err
        return
    assert (found.code, found_text, found.err) == (expected.code, expected_text, expected.err)


def trec_eval_reads_otherwise(lines, fmt, layout) -> bool:
    """A byte order mark (part of the first topic to trec_eval), or a CR not before an LF
    with text after it on its line (trec_eval ends lines at LF only): see
    docs/trec-eval.md."""
    text = fs.render(lines, fmt, fs.Layout(layout.line_end, layout.final_end, layout.bom, ""))
    return layout.bom or re.search(rb"\r[ \t\v\f\r]*[^\s]", text) is not None


# ------------------------------------------------------------------ Parquet and Arrow tables

TABLES = {  # the table's role -> (its valid columns, the command given the table's path)
    "run": (
        fs.valid_run_table(),
        lambda t: ["eval", "qrels.txt", t, "run2.txt", "-m", EVAL_MEASURES, "-q"],
    ),
    "qrels": (fs.valid_qrels_table(), lambda t: ["eval", t, "run.txt", "-m", EVAL_MEASURES, "-q"]),
}


@st.composite
def role_and_table(draw):
    role = draw(st.sampled_from(sorted(TABLES)))
    return role, draw(fs.hostile_tables(TABLES[role][0]))


@fs.fuzz_settings(40)
@given(role_and_table())
def test_hostile_table_is_read_or_refused_in_one_line(case):
    """Parquet and Arrow runs and qrels through ``irgauge eval``: wrong column names or
    types, nulls, NaN, infinite or huge numbers, huge and reserved ids, repeated rows, ids
    as integers, no rows, a file cut short or corrupt, a text file named .parquet."""
    role, table = case
    with tempfile.TemporaryDirectory() as temporary, inside(temporary):
        here = Path()
        collection(here)
        fs.write_table(table, here / "table.parquet")
        argv = TABLES[role][1]("table.parquet") + ["--format", "tsv", "-o", "out.tsv"]
        outcome = run_in(here, *argv)
        check(outcome, ["table.parquet", *INPUTS], OUTPUTS)
        if outcome.code == 0:
            check_tsv((here / "out.tsv").read_text())
    # a table has rows: its positions are 'table.parquet: row N', never a line
    assert not re.search(r"table\.parquet:\d|on line", outcome.err), outcome.err
