"""Parquet and Arrow (Feather) runs and qrels: a table evaluates exactly as the same data
written as TREC text files, is read a row group (or batch) at a time, and bad tables are
refused naming the file and the row (issue 21)."""

from __future__ import annotations

import gzip
import shutil
import sys

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from tests.conftest import examples, slow_after

pa = pytest.importorskip("pyarrow")
pq = pytest.importorskip("pyarrow.parquet")
feather = pytest.importorskip("pyarrow.feather")

import irgauge  # noqa: E402
from irgauge.cli import main  # noqa: E402
from irgauge.errors import InputError  # noqa: E402
from irgauge.io.arrow_tables import (  # noqa: E402
    iter_arrow_run_chunks,
    read_arrow_qrels,
    read_arrow_run,
    table_format,
)
from irgauge.io.qrels import read_qrels  # noqa: E402
from irgauge.io.runs import read_run  # noqa: E402

MEASURES = ["AP", "nDCG@5", "P@3", "RR", "bpref", "num_rel_ret"]
QRELS = {
    "query_id": ["1", "1", "2", "2"],
    "doc_id": ["a", "b", "a", "x"],
    "relevance": [1, 0, 1, 2],
}
RUN = {"qid": ["1", "1", "1", "2", "2"], "docno": list("abcax"), "score": [0.5, 0.5, 0.4, 1, 2]}


def write(table, path, row_group_size=None):
    """``table`` (a dict of columns or a pyarrow Table) as Parquet or Feather by suffix."""
    table = table if isinstance(table, pa.Table) else pa.table(table)
    if str(path).endswith(".parquet"):
        pq.write_table(table, str(path), row_group_size=row_group_size)
    else:
        feather.write_feather(table, str(path), chunksize=row_group_size)
    return str(path)


def text_qrels(path, topics, docs, levels):
    path.write_text("".join(f"{t} 0 {d} {r}\n" for t, d, r in zip(topics, docs, levels)))
    return str(path)


def text_run(path, topics, docs, scores):
    lines = (f"{t} Q0 {d} {i} {s!r} tag\n" for i, (t, d, s) in enumerate(zip(topics, docs, scores)))
    path.write_text("".join(lines))
    return str(path)


def values(result):
    return result.per_topic.set_index(["run", "measure", "topic"])["value"]


# ------------------------------------------------------------------ the same as text
@st.composite
def collections(draw):
    """Qrels and a run over a few topics, with tied scores, ids as ints or strings."""
    ints = draw(st.booleans())
    n_topics = draw(st.integers(1, 4))
    topics = draw(st.lists(st.integers(1, 999), min_size=n_topics, max_size=n_topics, unique=True))
    q, r = ([], [], []), ([], [], [])
    for topic in topics:
        docs = draw(st.lists(st.integers(0, 60), min_size=1, max_size=25, unique=True))
        for d in docs:
            q[0].append(topic)
            q[1].append(d if ints else f"D-{d}")
            q[2].append(draw(st.integers(-1, 3)))
        retrieved = draw(st.lists(st.integers(0, 60), min_size=1, max_size=25, unique=True))
        for d in retrieved:
            r[0].append(topic)
            r[1].append(d if ints else f"D-{d}")
            r[2].append(float(draw(st.sampled_from([0.5, 1.0, 2.25, -3.0, 1e-9, 7.0]))))
    topic_ids = (lambda t: t) if ints else str
    return [topic_ids(t) for t in q[0]], q[1], q[2], [topic_ids(t) for t in r[0]], r[1], r[2]


@settings(max_examples=examples(20), deadline=None, suppress_health_check=list(HealthCheck))
@given(data=collections(), group=st.integers(1, 7))
def test_a_table_evaluates_as_the_same_text_files(tmp_path_factory, data, group):
    qt, qd, ql, rt, rd, rs = data
    tmp = tmp_path_factory.mktemp("same")
    qrels_text = text_qrels(tmp / "q.txt", qt, qd, ql)
    run_text = text_run(tmp / "r.txt", rt, rd, rs)
    expected = values(irgauge.evaluate(qrels_text, {"r": run_text}, MEASURES))
    qrels_table = {"qid": qt, "docno": qd, "label": ql}
    run_table = {"query_id": rt, "doc_id": rd, "score": rs}
    for suffix in (".parquet", ".feather"):
        q = write(qrels_table, tmp / f"q{suffix}", group)
        r = write(run_table, tmp / f"r{suffix}", group)
        got = values(irgauge.evaluate(q, {"r": r}, MEASURES))
        pd.testing.assert_series_equal(got, expected)


def test_the_cli_prints_the_same_values_for_tables_and_text(tmp_path, capsys):
    q = write(QRELS, tmp_path / "q.parquet")
    r = write({**RUN, "run": ["tag"] * 5}, tmp_path / "r.feather")  # the text run's tag
    text_q = text_qrels(tmp_path / "q.txt", *QRELS.values())
    text_r = text_run(tmp_path / "r.txt", *RUN.values())
    outputs = []
    for qrels, run in ((q, r), (text_q, text_r)):
        assert main(["eval", qrels, run, "-m", ",".join(MEASURES), "--format", "tsv", "-q"]) == 0
        printed = capsys.readouterr().out.splitlines()
        outputs.append([line for line in printed if not line.startswith("#")])
    assert outputs[0] == outputs[1] and len(outputs[0]) > 2 * len(MEASURES)


def test_ids_are_those_of_the_text_reader(tmp_path):
    r = write(
        {"qid": [7, 7, 12], "docno": ["d1", "d2", "é"], "score": [3, 2, 1]}, tmp_path / "r.parquet"
    )
    table, text = (
        read_run(r),
        read_run(text_run(tmp_path / "r.txt", [7, 7, 12], ["d1", "d2", "é"], [3, 2, 1])),
    )
    assert table.topics.tolist() == text.topics.tolist() == [b"7", b"7", b"12"]
    assert table.docnos.tolist() == text.docnos.tolist()
    assert table.scores.dtype == np.float64 and table.scores.tolist() == [3.0, 2.0, 1.0]
    assert table.name == "r" and table.source == r


def _read_or_refusal(read, path):
    try:
        return read(path).docnos.tolist()
    except InputError:
        return "refused"


@pytest.mark.parametrize("byte", range(256))
def test_an_id_byte_is_read_or_refused_as_the_text_reader_does(tmp_path, byte):
    """A table holds what a text file could have written: an id with a byte value inside
    is read when the text reader reads the same line back as that id (a control byte other
    than whitespace is part of an id there), and refused otherwise (whitespace splits the
    id into other fields; NUL is refused)."""
    docno = b"d" + bytes([byte]) + b"x"
    table = pa.table({"qid": ["1"], "docno": pa.array([docno], pa.binary()), "score": [1.0]})
    text = tmp_path / "r.txt"
    text.write_bytes(b"1 Q0 " + docno + b" 1 1.0 r\n")
    from_table = _read_or_refusal(read_run, write(table, tmp_path / "r.parquet"))
    from_text = _read_or_refusal(read_run, str(text))
    expected = [docno] if from_text == [docno] else "refused"
    assert from_table == expected, (byte, from_table, from_text)
    assert byte not in (0, 9, 10, 11, 12, 13, 32) or expected == "refused"


# ------------------------------------------------------------------ row groups and chunks
@pytest.mark.parametrize("suffix", [".parquet", ".feather"])
@pytest.mark.parametrize("max_rows", [1, 3, 7, 1000])
def test_chunks_hold_at_most_max_rows_and_join_to_the_whole_run(tmp_path, suffix, max_rows):
    rng = np.random.default_rng(5)
    n = 50
    topics = np.repeat(np.arange(1, 6), 10).astype(str).tolist()
    table = {"qid": topics, "docno": [f"d{i}" for i in range(n)], "score": rng.random(n).tolist()}
    path = write(table, tmp_path / f"r{suffix}", row_group_size=4)
    chunks = list(iter_arrow_run_chunks(path, max_rows=max_rows))
    assert all(0 < len(c) <= max_rows for c in chunks)
    rows = np.concatenate([c.line_numbers for c in chunks])
    assert rows.tolist() == list(range(1, n + 1))
    whole = read_arrow_run(path)
    assert [t for c in chunks for t in c.topics.tolist()] == whole.topics.tolist()
    assert [d for c in chunks for d in c.docnos.tolist()] == whole.docnos.tolist()
    assert np.concatenate([c.scores for c in chunks]).tolist() == whole.scores.tolist()
    assert whole.docnos.tolist() == [d.encode() for d in table["docno"]]


def test_a_parquet_file_is_read_one_row_group_at_a_time(tmp_path, monkeypatch):
    path = write(RUN, tmp_path / "r.parquet", row_group_size=2)
    read = []
    real = pq.ParquetFile.iter_batches

    def spy(self, batch_size=None, **kw):
        for batch in real(self, batch_size=batch_size, **kw):
            read.append(batch.num_rows)
            yield batch

    monkeypatch.setattr(pq.ParquetFile, "iter_batches", spy)
    assert [len(c) for c in iter_arrow_run_chunks(path, max_rows=2)] == [2, 2, 1]
    assert max(read) <= 2


def test_qrels_in_several_row_groups_with_repeats(tmp_path):
    table = {"topic": ["1", "1", "1", "2"], "doc": ["a", "b", "a", "a"], "rel": [1, 0, 1, 2]}
    q = read_arrow_qrels(write(table, tmp_path / "q.parquet", row_group_size=1), max_rows=1)
    assert q.docnos.tolist() == [b"a", b"b", b"a"] and q.levels.tolist() == [1, 0, 2]
    assert q.fmt == "arrow"


# ------------------------------------------------------------------ columns and names
def test_run_name_from_its_run_column_else_the_file_stem(tmp_path):
    named = write({**RUN, "run": ["bm25"] * 5}, tmp_path / "x.parquet")
    assert read_run(named).name == "bm25" and read_run(named).tag == "bm25"
    assert read_run(named, name="mine").name == "mine"
    assert read_run(write(RUN, tmp_path / "plain.feather")).name == "plain"


def test_pyterrier_docid_beside_docno_is_not_a_document_column(tmp_path):
    table = {**RUN, "docid": [10, 11, 12, 10, 13], "rank": [0, 1, 2, 0, 1]}
    assert read_run(write(table, tmp_path / "r.parquet")).docnos.tolist()[:2] == [b"a", b"b"]
    alone = {"qid": RUN["qid"], "docid": [10, 11, 12, 10, 13], "score": RUN["score"]}
    assert read_run(write(alone, tmp_path / "d.parquet")).docnos.tolist()[:2] == [b"10", b"11"]


def test_dictionary_large_string_and_binary_columns(tmp_path):
    table = pa.table(
        {
            "QID": pa.array(RUN["qid"]).dictionary_encode(),
            "docno": pa.array(RUN["docno"], pa.large_string()),
            "score": pa.array(RUN["score"], pa.float32()),
        }
    )
    run = read_run(write(table, tmp_path / "r.feather"))
    assert run.topics.tolist() == [t.encode() for t in RUN["qid"]]
    assert run.docnos.tolist() == [d.encode() for d in RUN["docno"]]
    qrels = pa.table(
        {
            "qid": pa.array([q.encode() for q in QRELS["query_id"]], pa.binary()),
            "docno": QRELS["doc_id"],
            "label": pa.array([1.0, 0.0, 1.0, 2.0]),
        }
    )
    q = read_qrels(write(qrels, tmp_path / "q.parquet"))
    assert q.levels.tolist() == [1, 0, 1, 2] and q.topics.tolist()[0] == b"1"


def test_tables_are_told_by_their_first_bytes(tmp_path):
    path = write(RUN, tmp_path / "r.parquet")
    renamed = tmp_path / "run.dat"
    shutil.copy(path, renamed)
    assert table_format(renamed) == "parquet"
    assert read_run(renamed).docnos.tolist() == read_run(path).docnos.tolist()
    ipc = tmp_path / "run2.dat"
    shutil.copy(write(RUN, tmp_path / "r.feather"), ipc)
    assert table_format(ipc) == "arrow" and len(read_run(ipc)) == 5
    assert table_format(text_run(tmp_path / "r.txt", *RUN.values())) is None


@pytest.mark.parametrize("name", ["r.parquet.gz", "r.gz"])
def test_a_compressed_table_is_refused(tmp_path, name):
    data = open(write(RUN, tmp_path / "r.parquet"), "rb").read()
    path = tmp_path / name
    path.write_bytes(gzip.compress(data))
    with pytest.raises(InputError, match="compressed Parquet") as err:
        read_run(path)
    assert str(path) in str(err.value)


# ------------------------------------------------------------------ bad tables
def bad_runs():
    base = dict(RUN)
    return [
        ({"qid": base["qid"], "docno": base["docno"]}, "no score column", None),
        ({"docno": base["docno"], "score": base["score"]}, "query_id, qid, topic", None),
        ({**base, "topic": base["qid"]}, "'qid' and 'topic'", None),
        ({**base, "QID": base["qid"]}, "'qid' and 'QID'", None),
        ({**base, "score": [1.0, None, 2.0, 3.0, 4.0]}, "column 'score'", 2),
        ({**base, "score": [1.0, 2.0, float("nan"), 3.0, 4.0]}, "not a finite", 3),
        ({**base, "score": [1.0, 2.0, 3.0, float("inf"), 4.0]}, "not a finite", 4),
        ({**base, "score": ["1"] * 5}, "not numbers", 1),
        ({**base, "qid": ["1", None, "1", "2", "2"]}, "column 'qid'", 2),
        ({**base, "docno": ["a", "b", "c d", "a", "x"]}, "whitespace", 3),
        ({**base, "docno": ["a", "b", "c", "a\t", "x"]}, "whitespace", 4),
        ({**base, "docno": ["a", "b", "c", "", "x"]}, "empty id", 4),
        ({**base, "qid": ["1", "1", "1", "all", "all"]}, "'all'", 4),
        ({**base, "qid": [1.0, 1.0, 1.0, 2.0, 2.0]}, "strings or integers", 1),
        ({**base, "run": ["a", "a", "a", "b", "a"]}, "several runs", 4),
        ({**base, "docno": ["a", "b", "a", "c", "x"], "qid": ["1"] * 5}, "also on row 1", 3),
    ]


@pytest.mark.parametrize("suffix", [".parquet", ".feather"])
@pytest.mark.parametrize("table,problem,row", bad_runs())
def test_a_bad_run_table_is_refused_naming_file_and_row(tmp_path, suffix, table, problem, row):
    path = write(table, tmp_path / f"bad{suffix}", row_group_size=2)
    with pytest.raises(InputError) as err:
        irgauge.evaluate(write(QRELS, tmp_path / "q.parquet"), [path], ["AP"])
    message = str(err.value)
    assert path in message and problem in message
    # a table has rows, not lines: FILE: row N (it said FILE:N and 'on line N')
    assert "line" not in message and f"{path}:{row}:" not in message, message
    if row is not None:
        assert f"{path}: row {row}:" in message


def bad_qrels():
    base = dict(QRELS)
    return [
        ({"query_id": base["query_id"], "doc_id": base["doc_id"]}, "relevance, label, rel", None),
        ({**base, "relevance": [1, None, 1, 2]}, "column 'relevance'", 2),
        ({**base, "relevance": [1, 0, 1.5, 2]}, "1.5 is not an integer", 3),
        ({**base, "relevance": [1, 0, 1, float("nan")]}, "not a finite|not an integer", 4),
        ({**base, "relevance": ["1", "0", "1", "2"]}, "not numbers", 1),
        ({**base, "relevance": [1, 0, 1, 2**40]}, "above", 4),
        ({**base, "doc_id": ["a", "a", "b", "c"], "relevance": [1, 2, 0, 0]}, "on row 1)", 2),
        ({**base, "doc_id": ["a", "b", "a", "x y"]}, "whitespace", 4),
        ({**base, "query_id": ["1", "1", "all", "2"]}, "'all'", 3),
        ({**base, "label": [1, 0, 1, 2]}, "'relevance' and 'label'", None),
    ]


@pytest.mark.parametrize("table,problem,row", bad_qrels())
def test_a_bad_qrels_table_is_refused_naming_file_and_row(tmp_path, table, problem, row):
    path = write(table, tmp_path / "q.parquet", row_group_size=3)
    with pytest.raises(InputError) as err:
        read_qrels(path)
    message = str(err.value)
    assert path in message
    assert any(p in message for p in problem.split("|")), message
    assert "line" not in message and f"{path}:{row}:" not in message, message
    if row is not None:
        assert f"{path}: row {row}:" in message


def test_an_unreadable_or_empty_table(tmp_path):
    broken = tmp_path / "broken.parquet"
    broken.write_bytes(b"PAR1 not really")
    with pytest.raises(InputError, match="not a readable Parquet file") as err:
        read_run(broken)
    assert str(broken) in str(err.value)
    empty = write(
        pa.table(
            {
                "qid": pa.array([], pa.string()),
                "docno": pa.array([], pa.string()),
                "score": pa.array([], pa.float64()),
            }
        ),
        tmp_path / "e.parquet",
    )
    with pytest.raises(InputError, match="holds no rows"):
        read_run(empty)


def test_without_pyarrow_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    path = write(RUN, tmp_path / "r.parquet")
    for module in ("pyarrow", "pyarrow.parquet", "pyarrow.ipc", "pyarrow.compute"):
        monkeypatch.setitem(sys.modules, module, None)
    with pytest.raises(InputError) as err:
        read_run(path)
    message = str(err.value)
    assert 'pip install "irgauge[arrow]"' in message and path in message
    assert "\n" not in message


@pytest.mark.parametrize("kind", slow_after(["arrow", "parquet"]))
def test_every_damaged_byte_is_read_or_refused(tmp_path, kind):
    """Each byte of a small table flipped in turn: the reader gives a run or an InputError,
    never another exception. Found by the fuzz harness: a column path that is no longer
    UTF-8 made pyarrow raise UnicodeDecodeError (Parquet), and a damaged offset of a
    memory-mapped IPC batch gave an IndexError."""
    table = pa.table(
        {
            "query_id": [f"q{i % 3}" for i in range(12)],
            "doc_id": [f"doc{i}" for i in range(12)],
            "score": [float(i) for i in range(12)],
        }
    )
    path = tmp_path / f"run.{kind}"
    if kind == "parquet":
        pq.write_table(table, path, compression="NONE")
    else:
        feather.write_feather(table, path, compression="uncompressed")
    data = path.read_bytes()
    damaged = tmp_path / f"damaged.{kind}"
    for at in range(len(data)):
        for flip in (0x01, 0x80):
            copy = bytearray(data)
            copy[at] ^= flip
            damaged.write_bytes(bytes(copy))
            try:
                read_run(damaged)
            except InputError:
                pass
