"""Every output path against hostile targets: the input itself, a link to an input, a named
pipe, a folder, a trailing slash, a 250-byte name, a read-only folder, an existing
collection. Each command gives either a complete result or the documented refusal (exit 2
for an input as the target, 1 for a target that cannot be written), one line, and leaves
nothing else behind."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import pytest

import fuzz_strategies as fs
from fuzz_checks import inside, run_in
from test_fuzz_readers import collection

pytestmark = pytest.mark.slow  # a hypothesis search over hostile output targets

SIM = ["--topics", "3", "--runs", "2", "--depth", "5", "--pool-depth", "5", "--quiet"]
META = ["scores.tsv", "--quiet", "--seed", "1"]
STUDY = ["--collections", "collections.toml", "-P", "2", "--seed", "1", "--quiet"]
REPRO = ["qrels.txt", "--original", "run.txt", "--repeated", "run2.txt", "-B", "10", "--seed", "1"]
REUSE = ["qrels.txt", "run.txt", "run2.txt", "--depth", "3", "--topic-resamples", "5", "--quiet"]
# command -> (arguments writing to TARGET, whether TARGET is a folder)
COMMANDS = {
    "eval -o": (["eval", "qrels.txt", "run.txt", "-o", "TARGET"], False),
    "compare -o": (["compare", "scores.tsv", "--quiet", "-B", "20", "-o", "TARGET"], False),
    "discpower -o": (["discpower", *META, "-B", "20", "-o", "TARGET"], False),
    "swap -o": (["swap", *META, "--trials", "5", "-o", "TARGET"], False),
    "stability -o": (["stability", *META, "--trials", "5", "-o", "TARGET"], False),
    "correlate -o": (["correlate", "scores.tsv", "--quiet", "-o", "TARGET"], False),
    "report -o": (["report", "rep", "scores.tsv", "-o", "TARGET"], False),
    "discpower --figures": (["discpower", *META, "-B", "20", "--figures", "TARGET"], True),
    "pool -o": (["pool", "run.txt", "run2.txt", "--depth", "3", "-o", "TARGET"], False),
    "reduce --depth": (
        ["reduce", "qrels.txt", "--depth", "2", "--runs", "run.txt", "--out", "TARGET"],
        True,
    ),
    "simulate --out": (["simulate", "--out", "TARGET", *SIM], True),
    # the smallest study: two runs of three topics, two trials of predictive power
    "study --out": (["study", "predictive", "--out", "TARGET", *STUDY], True),
    "repro -o": (["repro", *REPRO, "-o", "TARGET"], False),
    "repro --figures": (["repro", *REPRO, "--figures", "TARGET"], True),
    "study reusability --out": (["study", "reusability", *REUSE, "--out", "TARGET"], True),
}
# the input a command given its own input as the output reads (default: scores.tsv)
SOURCES = {
    "eval -o": "run.txt",
    "study --out": "collections.toml",
    "repro -o": "run.txt",
    "repro --figures": "run.txt",
    "study reusability --out": "run.txt",
    "pool -o": "run.txt",
    "reduce --depth": "qrels.txt",
}
TARGETS = [
    "input",
    "link to input",
    "fifo",
    "folder",
    "trailing slash",
    "long name",
    "read-only folder",
    "existing",
]


def target(kind: str, is_folder: bool, source: str) -> str:
    """Make the hostile target in the working folder; its name on the command line."""
    if kind == "input":
        return source
    if kind == "link to input":
        os.symlink(source, "alias")
        return "alias"
    if kind == "fifo":
        os.mkfifo("pipe")
        return "pipe"
    if kind == "folder":
        os.mkdir("there")
        return "there" if not is_folder else "scores.tsv"  # a folder output onto a file
    if kind == "trailing slash":
        return "new/"
    if kind == "long name":
        return "n" * 250
    if kind == "read-only folder":
        os.mkdir("locked")
        os.chmod("locked", stat.S_IRUSR | stat.S_IXUSR)
        return "locked/out"
    Path("old.txt").write_text("old\n")  # existing
    if is_folder:
        os.mkdir("old")
        Path("old", "manifest.json").write_text("{}\n")
        return "old"
    return "old.txt"


@pytest.mark.parametrize("kind", TARGETS)
@pytest.mark.parametrize("command", sorted(COMMANDS))
def test_hostile_target_gives_a_result_or_one_refusal(tmp_path, command, kind):
    if kind == "read-only folder" and os.geteuid() == 0:
        pytest.skip("root writes into read-only folders")
    arguments, is_folder = COMMANDS[command]
    with inside(tmp_path):
        collection(Path())
        source = SOURCES.get(command, "scores.tsv")
        name = target(kind, is_folder, source)
        argv = [name if a == "TARGET" else a for a in arguments]
        outcome = run_in(Path(), *argv)
        os.chmod(tmp_path, 0o755)
    if os.path.isdir(tmp_path / "locked"):
        os.chmod(tmp_path / "locked", 0o755)
    err = outcome.err
    assert "Traceback" not in err and "warning:" not in err, err
    errors = [line for line in err.splitlines() if line.startswith("irgauge: error: ")]
    if outcome.code == 0:
        made = {p.split(os.sep)[0] for p in outcome.changed}
        written = name.rstrip("/")
        expected = {written} if kind != "link to input" else {source}
        if command == "report -o":
            expected |= {"rep"}
        if command == "pool -o":  # and its manifest beside it
            expected |= {f"{e}.json" for e in expected}
        assert made <= expected, (made, err)
        assert os.path.exists(tmp_path / written) and kind not in ("input", "link to input")
        return
    assert outcome.code in (1, 2) and len(errors) == 1 and err.endswith(errors[0] + "\n"), err
    assert name.rstrip("/") in errors[0], errors[0]
    if kind in ("input", "link to input") and not is_folder:
        assert outcome.code == 2 and "is the input" in errors[0], err
    assert not outcome.changed, (outcome.changed, err)
    assert (tmp_path / "scores.tsv").read_bytes() == fs.render(
        fs.long_scores(), fs.LONG_SCORES, fs.PLAIN
    )
