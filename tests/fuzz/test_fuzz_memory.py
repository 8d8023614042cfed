"""A run read in parts (``eval --memory``) gives what the run read whole gives, byte for
byte: the same standard output, the same standard error and the same exit code, errors
included. The guide promises that an error is reported in file order, whatever the parts:
a run whose text is bad anywhere names its first bad line, and a run whose text is sound
but retrieves a document twice names the second copy that comes first in the file.

Parts of a few hundred bytes are forced by lowering the floor of the part size
(``memory.MIN_PART_BYTES``), so that a small generated run is read in many parts, in
order or partitioned by topic when shuffled."""

from __future__ import annotations

import pytest
import random
import tempfile
from pathlib import Path
from unittest import mock

from hypothesis import example, given, strategies as st

import fuzz_strategies as fs
from fuzz_checks import run_cli
from irgauge.evaluation import memory

pytestmark = pytest.mark.slow  # a hypothesis search over memory budgets

TOPICS = [b"1", b"2", b"3", b"10", b"q4", b"5"]
DOCS = [b"d%d" % i for i in range(8)]
QRELS = b"".join(
    b"%s 0 %s %d\n" % (t, d, (i + j) % 3)
    for i, t in enumerate(TOPICS[:5])
    for j, d in enumerate(DOCS)
)  # topic 5 has no judgments: its lines are not matched
# the same judgments as a sample (eval --prels: statAP, statP, statR, infAP)
PRELS = b"".join(
    b"%s %s %s 0.%d5\n" % (t, d, level, i % 9 + 1)
    for i, (t, _, d, level) in enumerate(line.split() for line in QRELS.splitlines())
)
MEASURES = {"qrels": "AP P@3 num_ret", "prels": "statAP statP@3 statR infAP"}


@st.composite
def runs(draw):
    """A TREC run's lines: topics contiguous, shuffled or reversed, with copies of a
    document (same or another score), then the harness' mutations (bad numbers, fields
    missing, NULs, blank and comment lines, ...); now and then no data line at all."""
    if draw(st.integers(0, 14)) == 0:  # no data lines at all
        return draw(st.sampled_from([[], [[b""]], [[b"#", b"comment"]], [[b" "], [b"#x"]]]))
    rng = random.Random(draw(st.integers(0, 1 << 30)))
    lines = []
    for topic in draw(st.lists(st.sampled_from(TOPICS), min_size=1, max_size=6, unique=True)):
        for rank, doc in enumerate(rng.sample(DOCS, rng.randint(1, len(DOCS)))):
            lines.append([topic, b"Q0", doc, b"%d" % rank, b"%.2f" % rng.random(), b"r"])
    layout = draw(st.sampled_from(["contiguous", "shuffled", "reversed"]))
    if layout == "shuffled":
        rng.shuffle(lines)
    elif layout == "reversed":
        lines.reverse()
    for _ in range(draw(st.integers(0, 3))):  # a document retrieved again, anywhere
        copy = list(rng.choice(lines))
        copy[4] = draw(st.sampled_from([copy[4], b"9.5", b"-1"]))
        lines.insert(rng.randint(0, len(lines)), copy)
    return draw(fs.mutated(lines, fs.TREC_RUN))


def outcome(folder: Path, *memory_option, judged: str = "qrels") -> tuple:
    judgments = [folder / "qrels"] if judged == "qrels" else ["--prels", folder / "prels"]
    return run_cli("eval", *judgments, folder / "run", "-m", MEASURES[judged], "-q", *memory_option)


@fs.fuzz_settings(40)
@given(
    lines=runs(),
    layout=fs.layouts(hostile=False),
    part=st.sampled_from([16, 64, 200, 700]),
    judged=st.sampled_from(sorted(MEASURES)),
)
@example(  # the guide's case: a shuffled run whose copy scores higher than the original
    lines=[
        [b"2", b"Q0", b"d1", b"0", b"0.5", b"r"],
        [b"1", b"Q0", b"d1", b"0", b"0.5", b"r"],
        [b"1", b"Q0", b"d2", b"0", b"0.4", b"r"],
        [b"2", b"Q0", b"d2", b"0", b"0.4", b"r"],
        [b"1", b"Q0", b"d1", b"0", b"9.5", b"r"],
    ],
    layout=fs.PLAIN,
    part=1,
    judged="qrels",
)
@example(  # a partition's first line began with a BOM, which its reading back dropped
    lines=[[b"1", b"Q0", b"d%d" % i, b"0", b"0.%d" % (9 - i), b"r"] for i in range(7)][:1]
    + [[b"\xef\xbb\xbf1", b"Q0", b"d0", b"1", b"0.36", b"r"]]
    + [[b"1", b"Q0", b"d%d" % i, b"0", b"0.%d" % (9 - i), b"r"] for i in range(2, 7)],
    layout=fs.PLAIN,
    part=16,
    judged="prels",
)
@example(  # ... or with gzip's magic bytes, which it read as a compressed file
    lines=[
        [b"1", b"Q0", b"d6", b"0", b"0.97", b"r"],
        [b"\x1f\x8b\x08x", b"Q0", b"d0", b"1", b"0.3", b"r"],
    ]
    + [[b"1", b"Q0", b"d%d" % i, b"0", b"0.%d" % (9 - i), b"r"] for i in range(2, 7)],
    layout=fs.PLAIN,
    part=16,
    judged="qrels",
)
def test_memory_gives_the_whole_reading_byte_for_byte(lines, layout, part, judged):
    if any(len(field) > 1 << 16 for fields in lines for field in fields):
        part = max(part, 1 << 12)  # a line of a MiB read 16 bytes at a time takes minutes
    with tempfile.TemporaryDirectory() as folder:
        folder = Path(folder)
        (folder / "qrels").write_bytes(QRELS)
        (folder / "prels").write_bytes(PRELS)
        (folder / "run").write_bytes(fs.render(lines, fs.TREC_RUN, layout))
        whole = outcome(folder, judged=judged)
        with mock.patch.object(memory, "MIN_PART_BYTES", part):
            parts = outcome(folder, "--memory", "1M", judged=judged)
    assert "Traceback" not in whole[2], whole[2]
    assert parts == whole
