"""``-m`` in every command: repeatable, and comma/space lists split outside parentheses."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pandas as pd
import pytest

from irgauge.cli import main
from irgauge.cli._options import split_measures

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data"
GENERATED = DATA / "ntcireval_generated"
pytestmark = pytest.mark.skipif(not GENERATED.is_dir(), reason="no shared data")
JK = "nDCG(dcg=jk,b=2)@1000"


def test_split_outside_parentheses_and_braces():
    assert split_measures([f"{JK},AP", "P@10 RR", "nDCG(gains={2:3,3:7})@10"]) == [
        JK,
        "AP",
        "P@10",
        "RR",
        "nDCG(gains={2:3,3:7})@10",
    ]
    # NTCIREVAL's names hold a comma
    assert split_measures(["NCUrb,P@0010,NCUrb,BR j:NCUgu,P,AP"]) == [
        "NCUrb,P@0010",
        "NCUrb,BR",
        "j:NCUgu,P",
        "AP",
    ]
    assert split_measures(None) is None


def runs():
    return sorted(str(p) for p in (GENERATED / "runs").iterdir())


def test_eval_takes_lists_and_keeps_each_spelling(capsys):
    assert (
        main(
            [
                "eval",
                str(GENERATED / "qrels.trec"),
                *runs(),
                "-m",
                f"{JK},AP",
                "-m",
                "P@10 NCUrb,P",
                "--format",
                "tsv",
            ]
        )
        == 0
    )
    out = capsys.readouterr().out
    table = pd.read_csv(io.StringIO(out), sep="\t", comment="#")
    assert list(dict.fromkeys(table["measure"])) == [JK, "AP", "P@10", "NCUrb,P"]
    # the metadata records the canonical measure with every parameter
    assert "NCUrb(utility=P,gamma=0.95,beta=1,u=0.99,judged_only=false)" in out


@pytest.mark.parametrize("command", ["discpower", "correlate", "stability", "swap"])
def test_meta_commands_take_parameterised_measures(capsys, command):
    extra = {
        "stability": ["--trials", "20"],
        "swap": ["--trials", "20"],
        "discpower": ["-B", "100"],
        "correlate": [],
    }[command]
    assert (
        main(
            [
                command,
                "--qrels",
                str(GENERATED / "qrels.trec"),
                "--run",
                *runs(),
                "-m",
                f"{JK},AP",
                "-m",
                "P@10",
                "--format",
                "json",
                *extra,
            ]
        )
        == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out["metadata"]["measures"]) == {JK, "AP", "P@10"}
    assert (
        out["metadata"]["measure_definitions"][JK]
        == "nDCG(dcg=jk,b=2,levels=all,judged_only=false)@1000"
    )


def test_score_file_selection_by_a_parameterised_name(capsys, tmp_path):
    """A per-topic TSV written by `irgauge eval` and selected with -m NAME(params)@k."""
    scores = tmp_path / "scores.tsv"
    assert (
        main(
            [
                "eval",
                str(GENERATED / "qrels.trec"),
                *runs(),
                "-m",
                f"{JK} AP P@10",
                "-q",
                "--format",
                "tsv",
                "-o",
                str(scores),
            ]
        )
        == 0
    )
    capsys.readouterr()
    assert (
        main(["discpower", str(scores), "-m", f"{JK},P@10", "-B", "100", "--format", "json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert set(out["metadata"]["measures"]) == {JK, "P@10"}


@pytest.mark.parametrize(
    "argv",
    [
        [
            "eval",
            str(GENERATED / "qrels.trec"),
            str(GENERATED / "runs" / "run1.trec"),
            "-m",
            "AP",
            "-q",
        ],
        [
            "correlate",
            "--qrels",
            str(GENERATED / "qrels.trec"),
            "--run",
            *[str(GENERATED / "runs" / f"run{k}.trec") for k in range(1, 6)],
            "-m",
            "AP,P@10",
        ],
    ],
)
def test_no_header_drops_only_the_metadata_lines(capsys, argv):
    assert main(argv + ["--format", "tsv"]) == 0
    full = capsys.readouterr().out
    assert main(argv + ["--format", "tsv", "--no-header"]) == 0
    bare = capsys.readouterr().out
    assert full.startswith("#") and not any(line.startswith("#") for line in bare.splitlines())
    assert full.endswith(bare) and full[: -len(bare)].count("\n") == sum(
        line.startswith("#") for line in full.splitlines()
    )
    # the same table either way: pandas skips the comments, other tools need --no-header
    pd.testing.assert_frame_equal(
        pd.read_csv(io.StringIO(full), sep="\t", comment="#"),
        pd.read_csv(io.StringIO(bare), sep="\t"),
    )
