"""`eval` on forked worker processes (the default for big run files), on hostile run
files: the outcome of one core, byte for byte, whatever the file holds (ties, topics
scattered or met twice, bad lines, empty topics, a document retrieved twice), as the
harness' property says (exit 0 with a well-formed table, or one line naming the file)."""

from __future__ import annotations

import sys
import tempfile
import threading
from pathlib import Path

import pytest
from hypothesis import given

import fuzz_strategies as fs
from fuzz_checks import check, inside, run_in
from test_fuzz_readers import INPUTS, OUTPUTS, READERS, collection, well_formed

from tests.engine_cases import counted_forks, small_files_forked

pytestmark = pytest.mark.slow  # a hypothesis search over hostile runs, forking each time


@pytest.fixture(scope="module")
def fork_is_safe():
    if not sys.platform.startswith("linux"):
        pytest.skip("worker processes are forked on Linux only")


def _outcome(content: bytes, jobs: str):
    _, _, name, command = READERS["run"]
    with tempfile.TemporaryDirectory() as temporary, inside(temporary):
        here = Path()
        collection(here)
        (here / name).write_bytes(content)
        outcome = run_in(here, *command(here), "--jobs", jobs)
        text = (here / "out.tsv").read_text() if (here / "out.tsv").is_file() else None
        return outcome, text, here / name


@fs.fuzz_settings(30)
@given(fs.hostile_bytes(READERS["run"][0], fs.TREC_RUN))
def test_worker_processes_give_the_outcome_of_one_core(fork_is_safe, content):
    one, one_text, path = _outcome(content, "1")
    threads = threading.active_count()
    with pytest.MonkeyPatch.context() as monkeypatch:
        # the fuzz's run files, of a few hundred bytes, count as big: spans of 64 bytes
        small_files_forked(monkeypatch, 64)
        forks = counted_forks(monkeypatch)
        forked, forked_text, _ = _outcome(content, "3")
    assert forks == [3]  # (the other run, valid, is always split: the path is taken)
    check(forked, [path, *INPUTS], OUTPUTS)
    assert (forked.code, forked.out, forked.err, forked_text) == (
        one.code,
        one.out,
        one.err,
        one_text,
    )
    if forked.code == 0:
        well_formed("run", forked_text)
    assert threading.active_count() == threads  # the pool's threads are gone
