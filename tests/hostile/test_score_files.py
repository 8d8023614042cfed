"""Score matrices as other tools write them: accepted with the right systems and topics, or
refused at FILE:LINE with exit 2."""

from __future__ import annotations

import gzip
import json

import numpy as np
import pandas as pd
import pytest

from irgauge import InputError
from irgauge.scores import read_scores

SYSTEMS = ["a", "b", "c"]
TOPICS = ["t1", "t2", "t3", "t4"]
VALUES = np.arange(12, dtype=float).reshape(4, 3) / 20  # topics x systems


def frame():
    return pd.DataFrame(VALUES, columns=SYSTEMS, index=TOPICS)


def check(matrix, topics=TOPICS, systems=SYSTEMS):
    assert matrix.systems == systems and matrix.topics == topics
    np.testing.assert_array_equal(matrix.values, VALUES.T)


@pytest.mark.parametrize(
    "write",
    [
        lambda p: frame().to_csv(p),  # unnamed index column
        lambda p: frame().rename_axis("topic").to_csv(p),
        lambda p: frame().to_csv(p, sep="\t"),
        lambda p: frame().to_csv(p, sep=";"),
        lambda p: p.write_bytes(b"\xef\xbb\xbf" + frame().to_csv().encode()),  # BOM
        lambda p: p.write_bytes(gzip.compress(frame().to_csv().encode())),
        lambda p: p.write_text("# written by a script\n# another note\n" + frame().to_csv()),
    ],
)
def test_pandas_and_friends_read_as_written(tmp_path, write):
    path = tmp_path / "m.csv"
    write(path)
    check(read_scores(path)["m"])


def test_to_csv_without_index_numbers_the_topics(tmp_path):
    path = tmp_path / "m.csv"
    frame().to_csv(path, index=False)
    check(read_scores(path)["m"], topics=["1", "2", "3", "4"])


def test_headerless_needs_the_option(tmp_path):
    path = tmp_path / "m.tsv"
    frame().to_csv(path, sep="\t", header=False, index=False)
    check(
        read_scores(path, header=False)["m"], topics=["1", "2", "3", "4"], systems=["1", "2", "3"]
    )


def test_irgauge_long_tsv_with_metadata_lines(tmp_path, cli, collection):
    out = tmp_path / "scores.tsv"
    code, _, _ = cli("eval", *collection, "-m", "AP", "-q", "--format", "tsv", "-o", out)
    assert code == 0 and out.read_text().startswith("#")
    matrix = read_scores(out)["AP"]
    assert matrix.topics == ["1", "2"] and matrix.systems == ["r"]


@pytest.mark.parametrize(
    "content,line,message",
    [
        (
            "topic,a,b\n1,0.1,0.2\ncaf\xe9,0.1,0.2\n".encode("latin-1"),
            3,
            "not UTF-8 text (byte 0xe9 at column 4)",
        ),
        (b"topic,a,a\n1,0.1,0.2\n", 1, "system 'a' appears twice in the header"),
        (b"topic,a,\n1,0.1,0.2\n", 1, "column 2 of the header has no system name"),
        (b"topic,a,b\n1,0.1,0.2\n2,nan,0.1\n", 3, "missing score for system a on topic 2"),
        (b"topic,a,b\n1,0.1,0.2\n2,inf,0.1\n", 3, "non-finite value 'inf'"),
        (b"topic,a,b\n1,0.1,high\n", 2, "non-numeric value 'high' for system b on topic 1"),
        (b"topic,a,b\n1,0.1\n", 2, "expected 3 fields, found 2"),
        (b"topic,a,b\n1,0.1,0.2\n1,0.3,0.4\n", 3, "topic '1' appears twice (also on line 2)"),
        (b"topic,a,b\n,0.1,0.2\n", 2, "empty topic id"),
        (
            b"# run\tmeasure\ttopic\tvalue\nrun\tmeasure\ttopic\tvalue\nr\tAP\t1\t-inf\n",
            3,
            "non-finite value '-inf'",
        ),
        # the inputs of scores, given as scores (discpower RUN RUN, as eval takes runs)
        (b"1 Q0 d1 1 2.5 r\n1 Q0 d2 2 1.5 r\n", 1, "this is a TREC run (topic Q0 docno"),
        (b"1\tQ0\td1\t1\t2.5\tr\n", 1, "this is a TREC run"),
        (b"1 0 d1 1\n1 0 d2 0\n", 1, "this is TREC qrels (topic 0 docno level)"),
    ],
)
def test_bad_score_files_refused_at_file_line(tmp_path, cli, content, line, message):
    path = tmp_path / "m.csv"
    path.write_bytes(content)
    with pytest.raises(InputError) as err:
        read_scores(path)
    assert str(err.value).startswith(f"{path}:{line}: ") and message in str(err.value)
    code, out, text = cli("correlate", path)
    assert code == 2 and out == "" and text.strip() == f"irgauge: error: {err.value}"


def test_corrupt_gzip_refused(tmp_path, cli):
    path = tmp_path / "m.csv.gz"
    path.write_bytes(gzip.compress(b"topic,a,b\n1,0.1,0.2\n")[:-6])
    code, out, err = cli("correlate", path)
    assert code == 2 and "unreadable gzip data" in err and "Traceback" not in err


def test_meta_command_reads_a_headerless_file(tmp_path, cli):
    path = tmp_path / "m.tsv"
    frame().to_csv(path, sep="\t", header=False, index=False)
    code, out, err = cli("correlate", "--headerless-scores", path, "--format", "json")
    assert code == 0, err
    assert json.loads(out)["metadata"]["systems"] == ["1", "2", "3"]


@pytest.mark.parametrize("value", ["1e101", "-1e308", "1.8e308"])
@pytest.mark.parametrize("layout", ["long", "wide"])
def test_scores_beyond_the_statistics_range_are_refused_at_their_line(tmp_path, value, layout):
    path = tmp_path / f"s.{'tsv' if layout == 'long' else 'csv'}"
    if layout == "long":
        rows = ["run\tmeasure\ttopic\tvalue", "a\tAP\t1\t0.5", f"a\tAP\t2\t{value}"]
        rows += ["b\tAP\t1\t0.2", "b\tAP\t2\t0.1"]
    else:
        rows = ["topic,a,b", "1,0.5,0.2", f"2,{value},0.1"]
    path.write_text("\n".join(rows) + "\n")
    refused = r"(value .*at most 1e\+100|missing or non-finite value)"  # 1.8e308 is inf
    with pytest.raises(InputError, match=rf"{path.name}:3: {refused}"):
        read_scores(str(path))


def test_scores_in_memory_beyond_the_range_are_refused():
    from irgauge.scores import ScoreMatrix

    with pytest.raises(InputError, match="out-of-range score 1e\\+300 for system a on topic t1"):
        ScoreMatrix(np.array([[1e300, 1.0], [2.0, 3.0]]), ["a", "b"], ["t1", "t2"], "AP")


def test_statistics_near_the_limit_are_those_of_the_scaled_scores():
    """Scores of 1e99 (within the limit) give the p-values of the same scores scaled down:
    the t-test and the bootstrap are scale-free, so any overflow or lost digit shows."""
    from irgauge.scores import ScoreMatrix
    from irgauge.stats import compare_pairs

    rng = np.random.default_rng(3)
    values = rng.random((3, 30))
    small = compare_pairs(values, SYSTEMS, ["t", "bootstrap"], samples=200, seed=1)
    ScoreMatrix(values * 1e99, SYSTEMS, [str(t) for t in range(30)], "AP")  # accepted
    large = compare_pairs(values * 1e99, SYSTEMS, ["t", "bootstrap"], samples=200, seed=1)
    p = [c for c in small.table.columns if c.startswith("p_")]
    assert p and np.allclose(small.table[p].to_numpy(), large.table[p].to_numpy(), atol=1e-12)


@pytest.mark.parametrize("first", ["0.1,0.2,0.3", "301,0.1,0.2", "1;2;3"])
def test_a_first_line_of_numbers_is_refused_not_read_as_a_header(tmp_path, first):
    path = tmp_path / "w.csv"
    sep = ";" if ";" in first else ","
    path.write_text(f"{first}\n" + sep.join(["0.4", "0.5", "0.6"]) + "\n")
    with pytest.raises(InputError, match=rf"{path.name}:1: the first line holds only numbers"):
        read_scores(path)
    matrix = next(iter(read_scores(path, header=False).values()))
    assert matrix.topics == ["1", "2"] and matrix.systems == ["1", "2", "3"]  # no topic lost


@pytest.mark.parametrize("suffix", ["", ".gz", ".bz2", ".xz"])
def test_wide_file_names_its_measure_by_its_stem_whatever_the_compression(tmp_path, suffix):
    """ap.csv.gz measured 'ap.csv' (only the last suffix was dropped), where ap.csv
    measures 'ap': the same scores under two names."""
    import bz2
    import lzma

    compress = {"": bytes, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}
    path = tmp_path / f"ap.csv{suffix}"
    path.write_bytes(compress[suffix](b"topic,a,b\n1,0.1,0.2\n2,0.3,0.1\n"))
    assert list(read_scores(path)) == ["ap"]
