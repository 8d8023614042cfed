"""Topic ids that are not UTF-8: ``eval`` evaluates them as bytes and prints them with
``\\xNN`` escapes; the studies do the same instead of stopping on a decode error."""

from __future__ import annotations

import pytest

from irgauge.cli import main
from tests.conftest import quick_study_figures, slow_after

PREFIX = b"\xff"  # not UTF-8 at the start of any id


def with_prefix(path, folder):
    """A copy of a TREC file whose topic ids start with the byte 0xff."""
    lines = path.read_bytes().splitlines(keepends=True)
    target = folder / path.name
    target.write_bytes(b"".join(PREFIX + line if line.strip() else line for line in lines))
    return target


@pytest.mark.parametrize(
    "study, options",
    slow_after(
        [
            ("incomplete", ["-B", "10", "--reductions", "1", "--rates", "50"]),
            ("onerel", ["-B", "10", "--trials", "5", "--repetitions", "1"]),
        ]
    ),
)
def test_studies_take_non_utf8_topic_ids(collection, tmp_path, study, options):
    qrels, runs = collection
    folder = tmp_path / "in"
    folder.mkdir()
    qrels = with_prefix(qrels, folder)
    runs = [with_prefix(r, folder) for r in runs[:3]]
    out = tmp_path / "out"
    argv = ["study", study, str(qrels), *map(str, runs), "--out", str(out), "--seed", "1"]
    # the figures by name only: they draw measures and systems, never a topic id
    with quick_study_figures():
        assert main(argv + options + ["--quiet"]) == 0
    text = b"".join(p.read_bytes() for p in out.rglob("*") if p.suffix in (".tsv", ".json"))
    assert b"\\xff" in text  # the ids as eval prints them
