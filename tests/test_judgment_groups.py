"""trec_eval's multi-judge qrels (``qrels_jg``: ``qid jg docno rel``) read as one qrels per
judgment group, checked against the same lines split into files by hand (an independent
reading: plain text splitting), in the reader, ``irgauge agree -g`` and the Python API."""

from __future__ import annotations

import io
import os
from contextlib import redirect_stdout
from pathlib import Path

import numpy as np
import pytest

import irgauge
from irgauge.cli import main
from irgauge.errors import InputError

DATA = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval_tests"
if not DATA.is_dir() and os.environ.get("CI") != "true":
    pytest.skip(f"no trec_eval test data at {DATA}", allow_module_level=True)
GROUPS_FILE = DATA / "qrels.123"


def split_by_hand(path: Path, folder: Path) -> dict:
    """{group: path of a TREC qrels file holding that group's lines}."""
    lines = {}
    for line in path.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            lines.setdefault(line.split()[1], []).append(line)
    out = {}
    for group, chosen in lines.items():
        out[group] = folder / f"group{group}"
        out[group].write_text("\n".join(chosen) + "\n")
    return out


def test_reader_gives_one_qrels_per_group(tmp_path):
    groups = irgauge.read_judgment_groups(GROUPS_FILE)
    by_hand = split_by_hand(GROUPS_FILE, tmp_path)
    assert list(groups) == sorted(by_hand)
    for label, qrels in groups.items():
        expected = irgauge.read_qrels(by_hand[label])
        assert qrels.topics.tolist() == expected.topics.tolist()
        assert qrels.docnos.tolist() == expected.docnos.tolist()
        assert np.array_equal(qrels.levels, expected.levels)


def test_reader_names_file_and_line_of_a_conflicting_repeat(tmp_path):
    path = tmp_path / "jg"
    path.write_text("1 a d1 1\n1 b d1 0\n1 a d1 2\n")  # d1 judged in two groups: fine
    with pytest.raises(InputError, match=r"jg:3"):  # but twice in group a, differently
        irgauge.read_judgment_groups(path)


def test_reader_refuses_lines_of_other_widths(tmp_path):
    path = tmp_path / "jg"
    path.write_text("1 a d1 1\n1 d2 1\n")
    with pytest.raises(InputError, match=r"jg:2"):
        irgauge.read_judgment_groups(path)


def _tsv(argv) -> list:
    buffer = io.StringIO()
    with redirect_stdout(buffer):
        assert main(argv) == 0
    return [line.split("\t") for line in buffer.getvalue().splitlines() if "\t" in line]


def test_agree_on_judgment_groups_equals_agree_on_the_split_files(tmp_path):
    by_hand = split_by_hand(GROUPS_FILE, tmp_path)
    common = ["-B", "30", "--seed", "3", "--format", "tsv", "--no-header"]
    grouped = _tsv(["agree", "-g", str(GROUPS_FILE), *common])
    split = _tsv(["agree", *(str(by_hand[g]) for g in sorted(by_hand)), *common])
    assert len(grouped) == len(split) > 10
    rename = {f"group{g}": f"qrels.123[{g}]" for g in by_hand}
    for ours, theirs in zip(grouped, split):
        assert ours == [rename.get(cell, cell) for cell in theirs]


def test_python_api_prints_trec_eval_bytes_over_judgment_groups():
    groups = irgauge.read_judgment_groups(GROUPS_FILE)
    options = irgauge.TrecEvalOptions(per_topic=True, rel_format="qrels_jg")
    text = irgauge.trec_eval_output(groups, DATA / "results.test", ["qrels_jg"], options)
    assert text == (DATA / "out.test.qrels_jg").read_text()
