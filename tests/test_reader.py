"""The run and qrels readers against a plain Python reference reader (hypothesis), and the
reader's edge cases as regressions: line ends, numbers by strtod's rules, 64-bit levels,
ids that are not UTF-8, long tokens, long lines, compression, standard input, threads."""

from __future__ import annotations

import math

import bz2
import gzip
import io
import json
import lzma
import os
import pathlib
import re
import subprocess
import sys

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import examples, slow_after

import irgauge
from irgauge.io.ids import Ids, byte_ranks
from irgauge.cli import main
from irgauge.errors import InputError
from irgauge.io import _numbers
from irgauge.io import _tokens
from irgauge.io import runs as runs_module
from irgauge.io._numbers import parse_floats, parse_ints
from irgauge.io._source import MAX_LINE_BYTES
from irgauge.io.file_names import path_name, path_stem_and_suffix
from irgauge.io.qrels import read_qrels
from irgauge.io.runs import read_run
from irgauge.collection.judgments import _KeyTable
from irgauge.collection.evaluation_order import _score_order

COMPRESS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
ENDINGS = [b"\n", b"\r\n", b"\r"]
DECIMAL = re.compile(rb"[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?")


# ------------------------------------------------------------------ the reference reader


def reference_lines(data: bytes):
    """(line number, tokens) of each data line: plain Python, one line at a time."""
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    out = []
    for number, line in enumerate(re.split(rb"\r\n|\r|\n", data), start=1):
        tokens = line.split()
        if tokens and not tokens[0].startswith(b"#"):
            out.append((number, tokens))
    return out


def reference_run(data: bytes):
    lines = reference_lines(data)
    return (
        [t[0] for _, t in lines],
        [t[2] for _, t in lines],
        [float(t[4]) for _, t in lines],
        [n for n, _ in lines],
    )


# ------------------------------------------------------------------ random files

id_bytes = st.binary(min_size=1, max_size=12).map(
    lambda b: bytes(33 + (c % 222) for c in b)
)  # bytes > 32: never whitespace
ids = st.one_of(id_bytes, id_bytes.map(lambda b: b * 300)).filter(lambda b: b[:1] != b"#")
decimal_text = st.from_regex(DECIMAL, fullmatch=True)
score_text = st.one_of(
    decimal_text,
    st.floats(allow_nan=False, allow_infinity=False).map(lambda f: repr(f).encode()),
    st.floats(-1e6, 1e6).map(lambda f: b"%.4f" % f),
    st.integers(-(10**30), 10**30).map(lambda i: str(i).encode()),
).filter(lambda t: np.isfinite(float(t)))
space = st.text(" \t", min_size=1, max_size=3).map(str.encode)


@st.composite
def run_files(draw):
    topics = draw(st.lists(ids, min_size=1, max_size=4))
    lines = []
    for _ in range(draw(st.integers(1, 25))):
        kind = draw(st.integers(0, 9))
        if kind == 0:
            lines.append(draw(space) if draw(st.booleans()) else b"")
            continue
        if kind == 1:
            lines.append(b"# a comment " + draw(id_bytes))
            continue
        fields = [draw(st.sampled_from(topics)), b"Q0", draw(ids), b"1", draw(score_text), b"tag"]
        if draw(st.integers(0, 5)) == 0:
            fields.append(b"free text")  # trec_eval ignores fields past the sixth
        seps = [draw(space) for _ in fields]
        lead = draw(space) if draw(st.booleans()) else b""
        lines.append(
            lead
            + b"".join(f + s for f, s in zip(fields, seps)).rstrip(b" \t")
            + (draw(space) if draw(st.booleans()) else b"")
        )
    lines.append(b"1 Q0 last 1 0.5 tag")  # at least one data line
    ending = draw(st.sampled_from(ENDINGS))
    data = ending.join(lines) + (ending if draw(st.booleans()) else b"")
    if draw(st.booleans()):
        data = b"\xef\xbb\xbf" + data
    return data, draw(st.sampled_from(sorted(COMPRESS))), draw(st.sampled_from([None, 5, 64]))


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(run_files())
def test_run_reader_matches_the_reference(tmp_path_factory, monkeypatch_blocks, case):
    data, suffix, block = case
    path = tmp_path_factory.mktemp("r") / f"run.txt{suffix}"
    path.write_bytes(COMPRESS[suffix](data))
    monkeypatch_blocks(block)  # tiny blocks: lines and CRLFs cut at every place
    topics, docnos, scores, lines = reference_run(data)
    for threads in (1, 2):  # line ends counted before splitting (2) or while (1)
        run = read_run(path, jobs=threads)
        assert run.topics.tolist() == topics
        assert run.docnos.tolist() == docnos
        assert run.scores.tobytes() == np.array(scores, np.float64).tobytes()  # bit-exact
        assert [run.line_of(i) for i in range(len(run))] == lines


@pytest.fixture
def monkeypatch_blocks():
    """Set the reader's block size for one example (None: the default)."""
    default = runs_module.BLOCK_BYTES

    def set_block(size):
        runs_module.BLOCK_BYTES = size or default

    yield set_block
    runs_module.BLOCK_BYTES = default


@settings(max_examples=examples(300), deadline=None)
@given(st.lists(decimal_text.filter(lambda t: np.isfinite(float(t))), min_size=1, max_size=40))
def test_scores_are_bit_exact_with_python_float(texts):
    values = parse_floats(Ids.from_list(texts), "f", np.arange(1, len(texts) + 1), "score")
    assert values.tobytes() == np.array([float(t) for t in texts]).tobytes()


number_like = st.one_of(
    decimal_text,
    st.text("0123456789.+-e", min_size=1, max_size=20).map(str.encode),
    st.binary(min_size=1, max_size=18).map(lambda b: bytes(33 + (c % 222) for c in b)),
)


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(st.tuples(number_like, st.binary(min_size=1, max_size=3)), min_size=1, max_size=40),
    st.booleans(),
)
def test_word_scan_of_short_numbers_agrees_with_the_byte_scan(tokens, dot):
    """Tokens of up to 16 bytes are classified and converted a word at a time, straight
    from a pool with other bytes between them (as in a file's block)."""
    pieces, starts, at = [], [], 0
    for token, gap in tokens:
        pieces += [gap, token]
        starts.append(at + len(gap))
        at += len(gap) + len(token)
    column = Ids(
        Ids.padded(b"".join(pieces)), np.array(starts), np.array([len(t) for t, _ in tokens])
    )
    short = column.lens <= _numbers.SHORT
    by_words = _numbers._scan_short(column, dot)
    by_bytes = _numbers._scan_bytes(column, dot)
    plain = by_bytes[0] & short
    assert by_words[0].tolist() == plain.tolist()
    for got, want in zip(by_words[1:], by_bytes[1:]):
        assert np.asarray(got)[plain].tolist() == np.asarray(want)[plain].tolist()
    # tokens of one word (nearly every score and level) take a shorter path of their own
    one_word = np.flatnonzero(column.lens <= 8)
    by_word = _numbers._scan_word(column[one_word], dot)
    plain = by_bytes[0][one_word]
    assert by_word[0].tolist() == plain.tolist()
    for got, want in zip(by_word[1:], by_bytes[1:]):
        assert np.asarray(got)[plain].tolist() == np.asarray(want)[one_word][plain].tolist()


@settings(max_examples=examples(100), deadline=None)
@given(st.lists(st.integers(33, 255).map(lambda c: bytes([c])), min_size=1, max_size=30))
def test_one_byte_integers_scan_as_the_byte_scan_does(tokens):
    """Tokens of one byte each (most relevance levels) take a one-step path."""
    column = Ids.from_list(tokens)
    ok, values = _numbers.scan_ints(column)
    want_ok, want = _numbers._scan_ints_bytes(column)
    assert ok.tolist() == want_ok.tolist() == [t.isdigit() for t in tokens]
    assert values[ok].tolist() == want[ok].tolist() == [int(t) for t in tokens if t.isdigit()]


@settings(max_examples=examples(300), deadline=None)
@given(
    st.lists(
        st.lists(st.sampled_from([b"a", b"#", b"bb", b"7.5"]), min_size=0, max_size=4),
        min_size=1,
        max_size=8,
    ),
    st.sampled_from([b" ", b"\t", b"  ", b"\x0c"]),
    st.sampled_from([b"", b"\n", b" \n", b"\n\n", b" "]),
    st.sampled_from([b"", b" ", b"\n"]),
    st.sampled_from([None, 2, 3]),
)
def test_blocks_of_lines_ending_at_lf_split_as_any_other(rows, gap, end, start, trailing_after):
    """Blocks whose lines end at an LF right after their last token take a short cut to
    their line ends; it must split them as the general search of line ends does, and
    leave every other block (blank lines, trailing space, comments, ragged lines) to it."""
    text = start + b"\n".join(gap.join(row) for row in rows) + end
    buf = Ids.padded(text)[: len(text)]
    if len(text) == 0 or not text.strip():
        return
    try:
        general = _tokens._block_tokens(buf, "r", 10, trailing_after, has_cr=True)
    except InputError as err:
        with pytest.raises(InputError) as short_cut:
            _tokens._block_tokens(buf, "r", 10, trailing_after, has_cr=False)
        assert str(short_cut.value) == str(err)
        return
    fast = _tokens._block_tokens(buf, "r", 10, trailing_after, has_cr=False)
    for got, want in zip(fast, general):
        assert np.asarray(got).tolist() == np.asarray(want).tolist()


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.integers(-(1 << 63), (1 << 63) - 1), min_size=1, max_size=30))
def test_levels_are_exact_64_bit_integers(values):
    got = parse_ints(Ids.from_list([str(v) for v in values]), "q", np.arange(len(values)), "l")
    assert got.tolist() == values


@settings(max_examples=examples(200), deadline=None)
@given(st.lists(st.binary(min_size=0, max_size=20), min_size=1, max_size=30))
def test_ids_hash_compare_and_rank_as_bytes(values):
    column = Ids.from_list(values)
    assert column.tolist() == values
    ranks = byte_ranks(column)
    for i in range(len(values)):
        for j in range(len(values)):
            assert (ranks[i] < ranks[j]) == (values[i] < values[j])
    h = column.hashes()
    assert all(
        (h[i] == h[j]) >= (values[i] == values[j])
        for i in range(len(values))
        for j in range(len(values))
    )
    assert (column == Ids.from_list(values[::-1])).tolist() == [
        a == b for a, b in zip(values, values[::-1])
    ]
    first, codes = column.unique()
    assert [values[i] for i in first] == list(dict.fromkeys(values))
    assert [values[first[c]] for c in codes] == values


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.binary(min_size=0, max_size=20), min_size=1, max_size=30),
    st.binary(min_size=0, max_size=3),
    st.binary(min_size=0, max_size=20),
)
def test_ids_read_out_of_a_shared_pool_compact_and_hash_as_their_bytes(values, gap, tail):
    """Ids inside a block's bytes (other bytes between and after them), as the tokenizer
    makes them: compacted, with runs of equal ids kept once or with hashes read on the
    way, they are still the same bytes and hash as the same ids stored on their own."""
    values = values + values[-1:]  # a run of equal ids
    starts = np.cumsum([0] + [len(v) + len(gap) for v in values[:-1]])
    pool = Ids.padded(gap.join(values) + tail)
    column = Ids(pool, starts, [len(v) for v in values])
    alone = Ids.from_list(values)
    compacted = column.compacted(with_hashes=True)
    assert compacted.tolist() == values and compacted.compact
    assert compacted.pool.tolist()[-8:] == [0] * 8
    assert compacted.hashes().tolist() == alone.hashes().tolist()
    assert column.compacted_runs().tolist() == values


@settings(max_examples=examples(50), deadline=None)
@given(
    st.lists(
        st.tuples(st.binary(min_size=0, max_size=20), st.integers(1, 3000)), min_size=1, max_size=6
    )
)
def test_a_column_of_runs_of_one_stored_id_hashes_as_its_bytes(runs):
    """A run file's topic column keeps one copy of a topic per run of lines (compacted_runs);
    hashed a copy at a time, each id still hashes as its bytes stored on their own."""
    values = [value for value, length in runs for _ in range(length)]
    column = Ids.from_list(values)
    runs_of_copies = column.compacted_runs()
    assert runs_of_copies.hashes().tolist() == column.hashes().tolist()
    assert runs_of_copies.tolist() == values


def test_unique_codes_follow_first_appearance_in_long_columns():
    """Long enough for numpy's fast (unstable) sort to reorder equal hashes."""
    rng = np.random.default_rng(3)
    values = [b"d%d" % v for v in rng.integers(0, 300, 20_000)]
    first, codes = Ids.from_list(values).unique()
    assert [values[i] for i in first] == list(dict.fromkeys(values))
    assert [values[first[c]] for c in codes] == values


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(
        st.tuples(st.integers(0, 3), st.sampled_from([1.0, 2.0, 0.5]), id_bytes),
        min_size=1,
        max_size=40,
        unique_by=lambda x: (x[0], x[2]),
    )
)
def test_ties_break_by_docno_descending_in_byte_order(rows):
    """trec_eval's order: score descending, then docno descending as strcmp compares."""
    rows = sorted(rows, key=lambda r: r[0])  # a run file lists a topic's lines together
    codes = np.array([r[0] for r in rows])
    scores = np.array([r[1] for r in rows])
    docnos = Ids.from_list([r[2] for r in rows])
    sequence = _score_order(codes, scores, docnos)
    got = [rows[i] for i in (sequence if sequence is not None else range(len(rows)))]
    assert got == sorted(rows, key=lambda r: (-r[0], r[1], r[2]), reverse=True)


@settings(max_examples=examples(60), deadline=None)
@given(
    st.lists(
        st.tuples(st.sampled_from([b"1", b"2", b"10", b"q\xff"]), id_bytes, st.integers(-2, 3)),
        min_size=1,
        max_size=30,
    ),
    st.sampled_from(ENDINGS),
    st.sampled_from(sorted(COMPRESS)),
)
def test_qrels_reader_matches_the_reference(tmp_path_factory, rows, ending, suffix):
    judged = {}
    for topic, doc, level in rows:
        judged.setdefault((topic, doc), level)
    rows = [(t, d, judged[(t, d)]) for t, d, _ in rows]  # repeats agree: dropped, not refused
    data = ending.join(b"%s 0 %s %d" % r for r in rows)
    path = tmp_path_factory.mktemp("q") / f"qrels{suffix}"
    path.write_bytes(COMPRESS[suffix](data))
    q = read_qrels(path)
    assert list(zip(q.topics.tolist(), q.docnos.tolist(), q.levels.tolist())) == list(
        dict.fromkeys(rows)
    )
    numeric = [t.decode() for t in dict.fromkeys(t for t, _, _ in rows) if t.isdigit()]
    if len(numeric) == len(set(t for t, _, _ in rows)):
        assert q.topic_ids == sorted(numeric, key=int)


# ------------------------------------------------------------------ regressions (issue 10)

QRELS = "1 0 d1 1\n1 0 d2 0\n1 0 d3 2\n"


def write(tmp_path, name, data):
    path = tmp_path / name
    path.write_bytes(data if isinstance(data, bytes) else data.encode())
    return str(path)


def cli(capsys, *argv):
    code = main(list(argv))
    out, err = capsys.readouterr()
    return code, out, err


def test_cr_only_line_ends_are_lines(tmp_path):
    run = write(tmp_path, "r.txt", b"1 Q0 d1 1 3 r\r1 Q0 d2 2 2 r\r1 Q0 d3 3 1 r\r")
    qrels = write(tmp_path, "q.txt", QRELS.replace("\n", "\r"))
    result = irgauge.evaluate(qrels, run, ["num_ret", "num_rel_ret"])
    assert result.means["value"].tolist() == [3.0, 2.0]


@pytest.mark.parametrize(
    "score,problem",
    [
        ("1_0", "score '1_0' is not a finite number"),
        ("nan", "score 'nan' is not a finite number"),
        ("-inf", "score '-inf' is not a finite number"),
        ("1e999", "score '1e999' is not a finite number"),
        ("0x1p3", "score '0x1p3' is not a finite number"),
        ("1.5.2", "score '1.5.2' is not a finite number"),
    ],
)
def test_scores_follow_strtod_not_python(tmp_path, capsys, score, problem):
    run = write(tmp_path, "r.txt", f"1 Q0 d1 1 3 r\n1 Q0 d2 2 {score} r\n")
    code, out, err = cli(capsys, "eval", write(tmp_path, "q.txt", QRELS), run)
    assert code == 2 and out == ""
    assert f"{run}:2: {problem}" in err


@pytest.mark.parametrize(
    "level,problem",
    [
        ("2147483648", "relevance level 2147483648 is above 2147483647"),
        (
            "99999999999999999999",
            "relevance level '99999999999999999999' is outside the 64-bit integer range",
        ),
        ("S", "relevance level 'S' is not an integer"),
        ("2.5", "relevance level '2.5' is not an integer"),
    ],
)
def test_levels_are_checked_64_bit_integers(tmp_path, capsys, level, problem):
    qrels = write(tmp_path, "q.txt", f"1 0 d1 1\n1 0 d2 {level}\n")
    code, out, err = cli(capsys, "eval", qrels, write(tmp_path, "r.txt", "1 Q0 d1 1 3 r\n"))
    assert code == 2 and out == ""
    assert f"{qrels}:2: {problem}" in err


@pytest.mark.parametrize("level", [40000, 65537, 2147483647])
def test_levels_above_16_bits_are_evaluated_exactly(tmp_path, capsys, level):
    """Levels are gains (gain = level): nDCG of d1 (level 1) at rank 1 and d2 at rank 2,
    from the formula; P@2 at threshold ``level`` sees only d2."""
    qrels = write(tmp_path, "q.txt", f"1 0 d1 1\n1 0 d2 {level}\n")
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n")
    code, out, _ = cli(capsys, "eval", qrels, run, "-m", "nDCG", "--format", "tsv")
    assert code == 0
    value = float([line for line in out.splitlines() if "\tall\t" in line][0].split("\t")[-1])
    ideal = level + 1 / math.log2(3)
    assert value == pytest.approx((1 + level / math.log2(3)) / ideal, rel=1e-12)
    code, out, _ = cli(capsys, "eval", qrels, run, "-m", "P@2", "-l", str(level), "--format", "tsv")
    assert code == 0 and out.rstrip().endswith("\t0.5")


def test_levels_at_the_edges_of_int64_and_letters(tmp_path):
    qrels = write(tmp_path, "q.txt", "1 0 d1 -9223372036854775808\n1 0 d2 32767\n")
    q = read_qrels(qrels)
    assert q.levels.tolist() == [-(1 << 63), 32767]
    letters = read_qrels(write(tmp_path, "n.txt", "1 d1 S\n1 d2 B\n"))
    assert letters.levels.tolist() == [3, 1]
    with pytest.raises(InputError, match=r"n2.txt:2: relevance level '1' is not S, A or B"):
        read_qrels(write(tmp_path, "n2.txt", "1 d1 S\n1 d2 1\n"))
    with pytest.raises(InputError, match="outside the 64-bit integer range"):
        read_qrels({"1": {"d1": 1 << 70}})
    with pytest.raises(InputError, match="above 2147483647"):
        read_qrels({"1": {"d1": 1 << 31}})


def test_ids_that_are_not_utf8_are_evaluated_as_bytes_and_printed_escaped(tmp_path, capsys):
    qrels = write(tmp_path, "q.txt", b"1\xff 0 d1 1\n1\xff 0 d\xfe 0\n")
    run = write(tmp_path, "r.txt", b"1\xff Q0 d1 1 3 r\n1\xff Q0 d\xfe 2 3 r\n")
    code, out, err = cli(capsys, "eval", qrels, run, "-m", "AP", "--per-topic", "--format", "tsv")
    assert code == 0, err
    # tie at score 3: d\xfe sorts after d1 as bytes, so docno descending puts it first
    assert "r\tAP\t1\\xff\t0.5\n" in out


def test_a_long_docno_costs_its_bytes_only(tmp_path):
    long_id = b"D" * 10_000
    lines = [b"1 Q0 d%d 1 %d r" % (i, -i) for i in range(20_000)] + [
        b"1 Q0 " + long_id + b" 1 -1e9 r"
    ]
    run = read_run(write(tmp_path, "r.txt", b"\n".join(lines)))
    assert run.docnos[len(run) - 1] == long_id
    assert run.docnos.pool.nbytes < 200_000  # not 20,001 x 10,000 bytes


def test_a_line_longer_than_the_limit_is_refused_at_its_line(tmp_path, monkeypatch):
    data = b"1 Q0 d1 1 3 r\n1 Q0 " + b"x" * (MAX_LINE_BYTES + 10) + b" 1 2 r\n"
    with pytest.raises(InputError, match=r"r.txt:2: line longer than 1048576 bytes"):
        read_run(write(tmp_path, "r.txt", data))
    monkeypatch.setattr(runs_module, "BLOCK_BYTES", 1 << 16)  # the line spans blocks
    with pytest.raises(InputError, match=r"r.txt:2: line longer than 1048576 bytes"):
        read_run(write(tmp_path, "r.txt", data))


def test_a_last_line_of_spaces_longer_than_the_limit_is_refused_at_its_line(monkeypatch):
    """The short cut to line ends (lines ending at LF after their last token) must not
    skip the length check of a last line without tokens."""
    monkeypatch.setattr(_tokens, "MAX_LINE_BYTES", 8)
    text = b"1 d1\n" + b" " * 12
    with pytest.raises(InputError, match=r"r:2: line longer than 8 bytes"):
        _tokens._block_tokens(Ids.padded(text)[: len(text)], "r", 0, None, has_cr=False)


@pytest.mark.skipif(sys.platform != "linux", reason="address-space limit via setrlimit")
def test_64_mb_without_a_newline_fails_fast_in_1_gb_of_address_space(tmp_path):
    path = tmp_path / "big.txt"
    with open(path, "wb") as f:
        chunk = b"x" * (1 << 20)
        for _ in range(64):
            f.write(chunk)
    code = (
        "import resource; resource.setrlimit(resource.RLIMIT_AS, (10**9, 10**9)); "
        "from irgauge.cli import main; import sys; sys.exit(main(sys.argv[1:]))"
    )
    proc = subprocess.run(
        [sys.executable, "-c", code, "eval", str(path), str(path)],
        capture_output=True,
        text=True,
        timeout=600,  # a guard against a hang, not a measure of speed
    )
    assert proc.returncode == 2, proc.stderr
    assert f"{path}:1: line longer than" in proc.stderr and "Traceback" not in proc.stderr


@pytest.mark.parametrize("suffix", sorted(COMPRESS))
def test_compressed_files_bom_and_standard_input(tmp_path, monkeypatch, suffix):
    run_bytes = b"\xef\xbb\xbf1 Q0 d1 1 3 r\r\n1 Q0 d3 2 2 r\r\n"
    qrels = write(tmp_path, "q.txt" + suffix, COMPRESS[suffix](QRELS.encode()))
    run = write(tmp_path, "r.txt" + suffix, COMPRESS[suffix](run_bytes))
    expected = irgauge.evaluate(qrels, run, ["AP"]).means["value"].tolist()
    assert expected == [pytest.approx((1 + 2 / 2) / 2)]
    stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(COMPRESS[suffix](run_bytes))))
    monkeypatch.setattr(sys, "stdin", stdin)
    assert irgauge.evaluate(qrels, "-", ["AP"]).means["value"].tolist() == expected


@pytest.mark.parametrize("suffix", ["", ".gz"])
def test_a_run_on_standard_input_peeked_first_is_scored_whole(tmp_path, monkeypatch, suffix):
    """A stream has one reader per path in an input scope: a run scored from standard
    input after a reader peeked at its first bytes (as the QA readers do their files, to
    tell the format) is scored from all its bytes. The scorer's copy of a stream opened it
    anew, and lost the bytes peeked (no command peeks at a run today)."""
    from irgauge.io.file_text import first_bytes
    from irgauge.io.noted_inputs import input_scope

    run_bytes = b"1 Q0 d1 1 3 r\n1 Q0 d3 2 2 r\n"
    qrels = write(tmp_path, "q.txt", QRELS)
    expected = irgauge.evaluate(qrels, write(tmp_path, "r.txt", run_bytes), ["AP"]).means
    stdin = io.TextIOWrapper(io.BufferedReader(io.BytesIO(COMPRESS[suffix](run_bytes))))
    monkeypatch.setattr(sys, "stdin", stdin)
    with input_scope():
        assert first_bytes("-", 4) == b"1 Q0"
        means = irgauge.evaluate(qrels, "-", ["AP"]).means
    assert means["value"].tolist() == expected["value"].tolist()


def test_text_headers_list_a_few_missing_topics_json_all(tmp_path, capsys):
    qrels = write(tmp_path, "q.txt", "".join(f"{t} 0 d1 1\n" for t in range(1, 1001)))
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3 r\n")
    code, out, _ = cli(capsys, "eval", qrels, run, "-m", "AP", "--format", "tsv")
    header = [line for line in out.splitlines() if line.startswith("# topics_missing")][0]
    assert header == (
        '# topics_missing_from_run: {"r": ["2", "3", "4", "5", "6", '
        '"... 999 in all (full list: --format json)"]}'
    )
    assert len(out) < 2000
    code, out, _ = cli(capsys, "eval", qrels, run, "-m", "AP", "--format", "json")
    assert json.loads(out)["metadata"]["topics_missing_from_run"]["r"] == [
        str(t) for t in range(2, 1001)
    ]


NUMPY_PROBE = """
import os, sys
from irgauge.cli import console_main
console_main()
import numpy
print(os.environ.get("OPENBLAS_NUM_THREADS"), os.environ.get("NUMPY_MADVISE_HUGEPAGE"),
      getattr(numpy, "_core", numpy.core).multiarray._get_madvise_hugepage(), file=sys.stderr)
"""


@pytest.mark.parametrize("command", ["eval", "measures"])
@pytest.mark.parametrize(
    "user_settings, expected",
    slow_after(  # a process each: the quick subset starts the default one
        [
            ({}, "1 0 False"),
            ({"OMP_NUM_THREADS": "3"}, "None 0 False"),
            ({"OPENBLAS_NUM_THREADS": "3", "NUMPY_MADVISE_HUGEPAGE": "1"}, "3 1 True"),
        ]
    ),
)
def test_commands_start_numpy_lean_unless_the_user_chose(
    tmp_path, command, user_settings, expected
):
    """The console script starts numpy with one BLAS thread (spinning OpenBLAS workers cost CPU
    for nothing) and without huge-page advice (stalls on first touch); a setting the user
    made in the environment stands."""
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3 r\n")
    argv = ["eval", qrels, run, "-m", "AP"] if command == "eval" else [command]
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "OPENBLAS_NUM_THREADS",
            "GOTO_NUM_THREADS",
            "OMP_NUM_THREADS",
            "NUMPY_MADVISE_HUGEPAGE",
        )
    }
    env.update(user_settings)
    done = subprocess.run(
        [sys.executable, "-c", NUMPY_PROBE, *argv], env=env, capture_output=True, text=True
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.strip().splitlines()[-1] == expected


IN_PROCESS_PROBE = """
import os, sys
before = dict(os.environ)
from irgauge.cli import main
assert main(sys.argv[1:]) == 0
import numpy
assert dict(os.environ) == before, set(os.environ.items()) ^ set(before.items())
core = getattr(numpy, "core", None)
print(core.multiarray._get_madvise_hugepage() if core else "", file=sys.stderr)
"""


def test_main_called_in_process_leaves_the_environment_alone(tmp_path):
    """``irgauge.cli.main(argv)`` inside a user's program sets no process-wide variable."""
    qrels = write(tmp_path, "q.txt", QRELS)
    run = write(tmp_path, "r.txt", "1 Q0 d1 1 3 r\n")
    env = {
        k: v
        for k, v in os.environ.items()
        if k
        not in (
            "OPENBLAS_NUM_THREADS",
            "GOTO_NUM_THREADS",
            "OMP_NUM_THREADS",
            "NUMPY_MADVISE_HUGEPAGE",
        )
    }
    done = subprocess.run(
        [sys.executable, "-c", IN_PROCESS_PROBE, "eval", qrels, run, "-m", "AP"],
        env=env,
        capture_output=True,
        text=True,
    )
    assert done.returncode == 0, done.stderr


def test_threads_option_and_environment(tmp_path, capsys, monkeypatch):
    qrels = write(tmp_path, "q.txt", QRELS)
    runs = [
        write(tmp_path, f"r{k}.txt", f"1 Q0 d{k} 1 3 r{k}\n1 Q0 d{k + 3} 2 2 r{k}\n")
        for k in (1, 2, 3)
    ]
    outs = []
    for threads in ("1", "3"):
        code, out, err = cli(capsys, "eval", qrels, *runs, "--jobs", threads, "--format", "tsv")
        assert code == 0, err  # equal outputs of two failures would prove nothing
        assert out.count("\tall\t") >= 3  # the means of every run
        outs.append(out)
    assert outs[0] == outs[1]
    monkeypatch.setenv("IRGAUGE_THREADS", "0")
    code, out, err = cli(capsys, "eval", qrels, *runs)
    assert code == 2 and "IRGAUGE_THREADS='0' must be a whole number >= 1" in err
    monkeypatch.setenv("IRGAUGE_THREADS", "2")
    code, out, err = cli(capsys, "eval", qrels, *runs, "--format", "tsv")
    assert code == 0 and out == outs[0], err


@settings(max_examples=examples(200), deadline=None)
@given(
    st.lists(st.integers(0, (1 << 64) - 1), min_size=1, max_size=300, unique=True),
    st.lists(st.integers(0, (1 << 64) - 1), max_size=100),
    st.integers(1, 4),
)
def test_key_table_finds_exactly_what_a_sorted_search_finds(keys, others, probes):
    table_keys = np.sort(np.array(keys, dtype=np.uint64))
    wanted = np.array(keys[::2] + others + [0, (1 << 64) - 1], dtype=np.uint64)
    index = {int(k): i for i, k in enumerate(table_keys)}
    expected = [index.get(k, -1) for k in wanted.tolist()]

    class Probes(_KeyTable):  # few probes: the sorted-search fallback is exercised too
        PROBES = probes

    assert Probes(table_keys).find(wanted).tolist() == expected

    class Large(_KeyTable):  # past MAX_KEYS: a filter, then a binary search
        MAX_KEYS = 0

    assert Large(table_keys).position is None
    assert Large(table_keys).find(wanted).tolist() == expected


def test_key_filter_sets_aside_nearly_all_absent_keys():
    """Past MAX_KEYS the filter keeps every present key and about 1 in FILTER_BITS of
    the absent ones (a one-hash Bloom filter), so the binary search sees little more."""

    class Large(_KeyTable):
        MAX_KEYS = 0

    rng = np.random.default_rng(7)
    keys = np.unique(rng.integers(0, 1 << 63, 20_000, dtype=np.int64).astype(np.uint64))
    absent = np.setdiff1d(rng.integers(0, 1 << 63, 200_000, dtype=np.int64).astype(np.uint64), keys)
    table = Large(keys)

    def passing(k):
        return table.filter[table._filter_home(k) >> np.uint64(3)] & table._bit(
            table._filter_home(k)
        )

    assert passing(keys).all()
    assert 0 < passing(absent).astype(bool).mean() < 2.0 / Large.FILTER_BITS


@settings(max_examples=examples(100), deadline=None)
@given(
    st.lists(st.integers(0, (1 << 64) - 1), min_size=1, max_size=200, unique=True),
    st.lists(st.integers(0, (1 << 64) - 1), max_size=50),
    st.integers(1, 6),
)
def test_key_table_with_long_clusters_still_finds_every_key(keys, others, probes):
    class Crowded(_KeyTable):  # two home slots only: clusters as long as the table
        PROBES = probes

        def _home(self, k):
            return (k % np.uint64(2)).astype(np.int64)

    table_keys = np.sort(np.array(keys, dtype=np.uint64))
    wanted = np.array(others + keys[::-1], dtype=np.uint64)
    table = Crowded(table_keys)
    index = {int(k): i for i, k in enumerate(table_keys)}
    assert table.find(wanted).tolist() == [index.get(k, -1) for k in wanted.tolist()]


@settings(max_examples=examples(300), deadline=None)
@given(st.text(alphabet="ab./ ", max_size=12))
def test_runs_and_topics_are_named_as_pathlib_names_them(path):
    """The readers name a run (its file's name) and an NTCIR topic (its file's stem)
    without pathlib: the same name, stem and suffix as PurePath, dots and slashes
    anywhere."""
    pure = pathlib.PurePath(path)
    assert path_name(path) == pure.name
    assert path_stem_and_suffix(path) == (pure.stem, pure.suffix)


def test_control_bytes_that_are_not_separators_are_found_for_every_byte_value():
    """0-8 and 14-31 are part of a token (trec_eval's isspace separates at 9-13 and 32
    only); the tokenizer's two-reduction test must find each, and nothing else."""
    for byte in range(256):
        block = np.array([ord("a"), byte, ord(" "), ord("b")], dtype=np.uint8)
        assert _tokens._other_control_bytes(block) == (byte < 9 or 14 <= byte < 32), byte


@pytest.mark.parametrize("final_line_end", [b"\n", b"\r\n", b""])
def test_a_line_too_long_is_refused_whether_or_not_a_line_end_follows(tmp_path, final_line_end):
    """The block reader refused a long line only while no line end had come: one that
    ended within the next read passed read_text (the QA and score readers), while the same
    line without its final LF was refused."""
    from irgauge.io.file_text import read_text

    path = tmp_path / "long.txt"
    path.write_bytes(b"a b\n" + b"x" * (MAX_LINE_BYTES + 2) + final_line_end)
    with pytest.raises(InputError, match="line longer than"):
        read_text(path)
    path.write_bytes(b"a b\n" + b"x" * MAX_LINE_BYTES + final_line_end)
    assert len(read_text(path)) == 4 + MAX_LINE_BYTES + len(final_line_end)
