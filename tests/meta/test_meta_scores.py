"""Score matrix loaders, alignment, system selection and their errors."""

import numpy as np
import pandas as pd
import pytest

from meta_paths import ADHOC8, URBANO
from irgauge.errors import InputError
from irgauge.scores import ScoreMatrix, combine, from_frame, read_scores, select_systems

LONG = """# measures: ap P@10
# tool: irgauge
run\tmeasure\ttopic\tvalue
A\tap\t1\t0.5
A\tap\t2\t0.25
B\tap\t1\t0.1
B\tap\t2\t0.3
A\tap\tall\t0.375
A\tP@10\t1\t0.4
A\tP@10\t2\t0.2
B\tP@10\t1\t0.1
B\tP@10\t2\t0.5
"""


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


def test_long_tsv(tmp_path):
    found = read_scores(write(tmp_path, "s.tsv", LONG))
    assert list(found) == ["ap", "P@10"]
    ap = found["ap"]
    assert ap.systems == ["A", "B"] and ap.topics == ["1", "2"]
    np.testing.assert_array_equal(ap.values, [[0.5, 0.25], [0.1, 0.3]])
    assert list(read_scores(write(tmp_path, "t.tsv", LONG), measures=["P@10"])) == ["P@10"]


def test_wide_files_with_and_without_topic_column():
    if not URBANO.is_dir():
        pytest.skip("shared data not available")
    ap = read_scores(ADHOC8 / "adhoc8_ap.csv")["adhoc8_ap"]
    assert ap.values.shape == (129, 50) and ap.systems[0] == "run1"
    robust = read_scores(URBANO / "sigir2018-simulation" / "robust2004_ap.csv", name="ap")["ap"]
    assert robust.values.shape == (110, 249) and robust.topics[0] == "301"


def test_frames_long_and_wide(tmp_path):
    long = pd.read_csv(write(tmp_path, "s.tsv", LONG), sep="\t", comment="#")
    found = from_frame(long)
    np.testing.assert_array_equal(found["P@10"].values, [[0.4, 0.2], [0.1, 0.5]])
    wide = pd.DataFrame({"topic": ["1", "2"], "A": [0.5, 0.25], "B": [0.1, 0.3]})
    np.testing.assert_array_equal(from_frame(wide, "ap")["ap"].values, found["ap"].values)


@pytest.mark.parametrize(
    "text,problem",
    [
        ("run1,run2\n0.1,0.2\n0.3\n", "missing cell"),
        ("run1,run2\n0.1,0.2\n0.3,NA\n", "missing score for system run2"),
        ("run1,run2\n0.1,abc\n", "non-numeric value 'abc'"),
    ],
)
def test_wide_bad_input_names_file_and_line(tmp_path, text, problem):
    path = write(tmp_path, "bad.csv", text)
    with pytest.raises(InputError, match=problem) as err:
        read_scores(path)
    assert str(path) in str(err.value)


@pytest.mark.parametrize(
    "extra,problem",
    [
        ("A\tap\t1\t0.9\n", "duplicate row for run A, measure ap, topic 1"),
        ("C\tap\t1\t0.9\n", "missing score for run C on topic 2"),
        ("B\tap\t3\tx\n", "non-numeric value 'x'"),
    ],
)
def test_long_bad_input(tmp_path, extra, problem):
    path = write(tmp_path, "bad.tsv", LONG + extra)
    with pytest.raises(InputError, match=problem) as err:
        read_scores(path)
    assert str(err.value).startswith(str(path))


def test_different_topic_sets_rejected(tmp_path):
    other = LONG.replace("P@10\t2", "P@10\t3")
    with pytest.raises(InputError, match="cover different topics"):
        combine([read_scores(write(tmp_path, "s.tsv", other))])


def test_select_systems():
    values = np.array([[0.1, 0.2], [0.9, 0.8], [0.5, 0.5], [0.3, 0.2]])
    m = {
        "ap": ScoreMatrix(values, ["a", "b", "c", "d"], ["1", "2"], "ap"),
        "rr": ScoreMatrix(values[::-1], ["a", "b", "c", "d"], ["1", "2"], "rr"),
    }
    assert select_systems(m, top_k=2)["rr"].systems == ["b", "c"]
    assert select_systems(m, top_k=2, by="rr")["ap"].systems == ["c", "b"]
    assert select_systems(m, top_fraction=0.75)["ap"].systems == ["b", "c", "d"]
    with pytest.raises(InputError, match="cannot select systems by p10"):
        select_systems(m, top_k=1, by="p10")
    # all systems kept: the name is still checked, as it is recorded with the results
    assert select_systems(m, by="rr") is m
    with pytest.raises(InputError, match="cannot select systems by p10"):
        select_systems(m, by="p10")
