"""Atomic writes, the CLI's exit codes for failed writes and Ctrl-C, and the shared option
types."""

import argparse
import os

import pytest

from irgauge.io import atomic as _atomic
from irgauge.cli import _options, main
from irgauge.errors import OutputError


def test_atomic_file_replaces_only_on_success(tmp_path):
    target = tmp_path / "out.txt"
    target.write_text("old")
    with pytest.raises(RuntimeError):
        with _atomic.atomic_file(target) as handle:
            handle.write("half")
            raise RuntimeError("crash halfway")
    assert target.read_text() == "old"
    assert os.listdir(tmp_path) == ["out.txt"]  # no temporary left behind
    _atomic.write_text(target, "new")
    assert target.read_text() == "new"


def test_atomic_file_missing_folder_names_path(tmp_path):
    with pytest.raises(OutputError, match="does not exist") as info:
        _atomic.write_text(tmp_path / "nope" / "out.txt", "x")
    assert "nope" in str(info.value)


def test_atomic_directory_keeps_previous_state_on_failure(tmp_path):
    target = tmp_path / "study"
    target.mkdir()
    (target / "a.txt").write_text("old")
    with pytest.raises(KeyboardInterrupt):
        with _atomic.atomic_directory(target) as tmp:
            (tmp / "b.txt").write_text("new")
            raise KeyboardInterrupt
    assert sorted(os.listdir(tmp_path)) == ["study"]
    assert sorted(os.listdir(target)) == ["a.txt"]
    with _atomic.atomic_directory(target) as tmp:
        (tmp / "b.txt").write_text("new")
    assert sorted(os.listdir(target)) == ["b.txt"]
    assert sorted(os.listdir(tmp_path)) == ["study"]


def test_write_to_missing_folder_exits_1(tmp_path, capsys):
    from irgauge.collection.simulate import sample_paths

    qrels, runs = sample_paths()
    code = main(["eval", str(qrels), str(runs[0]), "-o", str(tmp_path / "no" / "x.tsv")])
    err = capsys.readouterr().err
    assert code == 1
    assert err.startswith("irgauge: error: cannot write") and "Traceback" not in err


@pytest.mark.parametrize(
    "parse, text, message",
    [
        (_options.positive_int, "0", "expected a whole number >= 1; got 0"),
        (_options.positive_int, "-5", "expected a whole number >= 1; got -5"),
        (_options.positive_int, "1.5", "expected a whole number; got '1.5'"),
        (_options.seed, "-1", "expected a seed from 0 to"),
        (_options.alpha, "1", "expected a significance level in (0, 1); got 1"),
        (_options.alpha, "nan", "expected a significance level"),
        (_options.fraction, "0", "expected a fraction in (0, 1]; got 0"),
    ],
)
def test_option_types_refuse_out_of_range(parse, text, message):
    with pytest.raises(
        argparse.ArgumentTypeError,
        match=message.replace("(", r"\(")
        .replace(")", r"\)")
        .replace("[", r"\[")
        .replace("]", r"\]"),
    ):
        parse(text)


def test_option_types_accept_in_range():
    assert _options.positive_int("3") == 3
    assert _options.seed("0") == 0
    assert _options.alpha("0.05") == 0.05
    assert _options.fraction("1") == 1.0


def test_split_measures_only_outside_parentheses():
    assert _options.split_measures(["nDCG(dcg=jk,b=2)@1000,AP", "P@10 RR", " Q-measure "]) == [
        "nDCG(dcg=jk,b=2)@1000",
        "AP",
        "P@10",
        "RR",
        "Q-measure",
    ]
    assert _options.split_measures(None) is None
