"""A plan written once and mapped by each worker: the same objects, arrays that stay
writable without touching the file or each other, aligned bytes, and a clear error where
the file is not."""

from __future__ import annotations

import os
import pickle
import sys

import numpy as np
import pytest

import irgauge
from irgauge.collection.judgments import Judgments
from irgauge.errors import InputError
from irgauge.evaluation import mapped_plan
from irgauge.io import scratch


def _judgments() -> Judgments:
    qrels = {str(t): {f"d{d}": (t + d) % 3 for d in range(50)} for t in range(20)}
    return Judgments(irgauge.read_qrels(qrels)).with_lookup_built()


def _mapped(obj, tmp_path):
    folder, token = mapped_plan.reserved(str(tmp_path))
    return folder, mapped_plan.written(obj, folder, token)


def test_a_mapped_plan_is_the_plan(tmp_path):
    judgments = _judgments()
    folder, handle = _mapped({"judgments": judgments, "n": 7}, tmp_path)
    # the handle travels as the pickle without its arrays, whatever was loaded from it
    travelling = pickle.loads(pickle.dumps(handle))
    back = mapped_plan.plan_of(travelling)
    assert back["n"] == 7
    for name in ("grade", "topic", "R", "N", "ideal_gain", "_sorted_keys", "_key_order"):
        assert np.array_equal(getattr(back["judgments"], name), getattr(judgments, name))
    assert back["judgments"].topic_ids == judgments.topic_ids
    assert mapped_plan.plan_of(travelling) is back  # loaded once per handle
    assert len(pickle.dumps(travelling)) == len(pickle.dumps(handle))
    # every array's bytes start on a multiple of ALIGN
    assert handle.buffers and all(offset % mapped_plan.ALIGN == 0 for offset, _ in handle.buffers)
    mapped_plan.remove(folder)
    assert not os.path.exists(folder)


def test_arrays_are_copies_on_write(tmp_path):
    arrays = {"a": np.arange(100_000, dtype=np.int64)}
    folder, handle = _mapped(arrays, tmp_path)
    first = mapped_plan.plan_of(pickle.loads(pickle.dumps(handle)))
    second = mapped_plan.plan_of(pickle.loads(pickle.dumps(handle)))
    first["a"][:10] = -1  # as a worker's own plan, writable
    assert (second["a"][:10] == np.arange(10)).all()  # another worker's view is unchanged
    third = mapped_plan.plan_of(pickle.loads(pickle.dumps(handle)))
    assert (third["a"] == arrays["a"]).all()  # and so is the file
    mapped_plan.remove(folder)


def test_a_plan_without_arrays_and_an_empty_one(tmp_path):
    for obj in ({"x": 1}, np.zeros(0)):
        folder, handle = _mapped(obj, tmp_path)
        back = mapped_plan.plan_of(pickle.loads(pickle.dumps(handle)))
        assert type(back) is type(obj) and len(back) == len(obj)
        mapped_plan.remove(folder)


def test_a_worker_elsewhere_is_told_which_file_it_lacks(tmp_path):
    folder, handle = _mapped({"a": np.arange(5)}, tmp_path)
    assert mapped_plan.sees(folder, handle.token)
    assert not mapped_plan.sees(folder, "another writing")
    mapped_plan.remove(folder)
    assert not mapped_plan.sees(folder, handle.token)
    with pytest.raises(InputError, match="plan.bin is not on this worker's host"):
        mapped_plan.plan_of(pickle.loads(pickle.dumps(handle)))


def test_a_plan_goes_to_memory_where_there_is_room_for_it(tmp_path, monkeypatch):
    """Written to a disk's file system, a plan cost its writer seconds of system CPU that a
    file system in memory does not: that one comes first, where it holds the plan twice
    over, in its own space and in the memory available."""
    from irgauge.evaluation import memory

    memory_folder = tmp_path / "shm"
    memory_folder.mkdir()
    monkeypatch.setattr(mapped_plan, "MEMORY_FOLDER", str(memory_folder))
    pack = mapped_plan.packed({"a": np.arange(1000)})
    assert pack.nbytes == 8000
    assert mapped_plan.parents(pack.nbytes) == [str(memory_folder), None]
    monkeypatch.setattr(memory, "available_memory", lambda: 2 * pack.nbytes - 1)
    assert mapped_plan.parents(pack.nbytes) == [None]  # the memory available is short
    monkeypatch.setattr(memory, "available_memory", lambda: None)  # (not known)
    assert mapped_plan.parents(pack.nbytes) == [str(memory_folder), None]
    free = os.statvfs(memory_folder).f_bavail * os.statvfs(memory_folder).f_frsize
    assert mapped_plan.parents(free) == [None]  # its own space is short
    monkeypatch.setattr(mapped_plan, "MEMORY_FOLDER", str(tmp_path / "none"))
    assert mapped_plan.parents(pack.nbytes) == [None]
    # a packed plan is written as the plan itself would be
    folder, token = mapped_plan.reserved(str(memory_folder))
    back = mapped_plan.plan_of(pickle.loads(pickle.dumps(mapped_plan.written(pack, folder, token))))
    assert np.array_equal(back["a"], np.arange(1000))
    mapped_plan.remove(folder)


_WRITER = """
import os, signal, sys, tempfile
from irgauge.evaluation import mapped_plan
from irgauge.io import scratch
from irgauge.io._source import scratch_folder
shm, tempfile.tempdir = sys.argv[1], sys.argv[2]
mapped_plan.MEMORY_FOLDER = shm
with mapped_plan.awaited(1, 1) as (key, coming), scratch_folder("irgauge-input-") as spill:
    handle = coming.write({"a": list(range(10))})
    print(handle.folder, coming.folder, spill, flush=True)
    if sys.argv[3] == "kill":
        os.kill(os.getpid(), signal.SIGKILL)
    sys.stdin.read()
"""


def _writer(shm, tmp, how):
    import subprocess

    return subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(shm), str(tmp), how],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )


_LINUX = pytest.mark.skipif(
    not sys.platform.startswith("linux"), reason="a folder's creator is looked up in /proc"
)


@_LINUX
def test_folders_left_by_a_killed_command_are_swept_by_the_next(tmp_path, monkeypatch):
    """SIGKILL runs no handler, and a plan folder in /dev/shm is memory until the machine
    restarts: the next plan folder made in the same place removes the folders of this user
    whose creator is gone, and nothing else."""
    import signal
    import tempfile

    shm, tmp = tmp_path / "shm", tmp_path / "tmp"
    shm.mkdir()
    tmp.mkdir()
    killed = _writer(shm, tmp, "kill")
    left = killed.stdout.read().split()
    assert killed.wait() == -signal.SIGKILL
    assert len(left) == 3 and all(os.path.isdir(folder) for folder in left)
    live = _writer(shm, tmp, "live")
    try:
        kept = live.stdout.readline().split()
        # not of the form irgauge writes, or of another pid namespace (whose pids are not
        # this process's to look up) or machine (a folder shared over the network: the
        # same pid namespace inode, another boot id), or a link: left as they are
        machine, dead_pid = scratch._machine(), killed.pid
        boot, namespace = machine.split(".")
        other_boot = f"{int(boot, 16) ^ 1:012x}"
        others = [
            shm / "irgauge-plan-mine",
            shm / os.path.basename(left[0]).replace("-plan-", "-plan-x"),
            shm / f"irgauge-plan-{boot}.{int(namespace) + 1}-{dead_pid}-1-abcdefgh",
            shm / f"irgauge-plan-{other_boot}.{namespace}-{dead_pid}-1-abcdefgh",
            tmp / f"irgauge-plan-{machine}-{dead_pid}-1-abcdefg",
        ]
        for folder in others:
            folder.mkdir()
        link = shm / f"irgauge-plan-{machine}-{dead_pid}-1-linklink"
        link.symlink_to(others[0])
        monkeypatch.setattr(mapped_plan, "MEMORY_FOLDER", str(shm))
        monkeypatch.setattr(tempfile, "tempdir", str(tmp))
        with mapped_plan.awaited(1, 1) as (_, coming):
            handle = coming.write({"a": 1})
            assert not any(os.path.exists(folder) for folder in left)  # swept
            assert all(os.path.isdir(folder) for folder in kept)  # its creator is running
            assert all(folder.is_dir() for folder in others) and link.is_symlink()
            assert os.path.isdir(handle.folder) and os.path.isdir(coming.folder)
    finally:
        live.stdin.close()
        live.wait()
    assert not any(os.path.exists(folder) for folder in kept)  # removed by their creator


@_LINUX
def test_a_place_is_swept_once_per_process(tmp_path, monkeypatch):
    """Each folder made listed its parent whole first (a command makes several in the
    temporary folder): a process sweeps each parent once, and a process forked from it
    (which inherits what was swept) once more on its own."""
    scans = []
    real = os.scandir

    def counted(path=".", *rest):
        scans.append(os.fspath(path))
        return real(path, *rest)

    monkeypatch.setattr(os, "scandir", counted)
    first, second = tmp_path / "a", tmp_path / "b"
    first.mkdir()
    second.mkdir()
    for parent in (first, second, first, second, first):
        scratch.made("irgauge-test-", str(parent))
    assert sorted(scans) == [str(first), str(second)]
    ready, tell = os.pipe()
    pid = os.fork()
    if pid == 0:  # (the child: made twice, its scans told to the parent)
        try:
            del scans[:]
            scratch.made("irgauge-test-", str(first))
            scratch.made("irgauge-test-", str(first))
            os.write(tell, str(len(scans)).encode())
        finally:
            os._exit(0)
    os.close(tell)
    with os.fdopen(ready) as pipe:
        assert pipe.read() == "1"
    os.waitpid(pid, 0)
    assert len(list(first.iterdir())) == 5


@_LINUX
def test_a_folder_whose_pid_was_reused_is_swept(tmp_path):
    """A folder's name holds its creator's start time as well as its pid: a process that
    has the pid now but started at another time is not its creator."""
    with open("/proc/self/stat") as f:
        start = int(f.read().rsplit(")", 1)[1].split()[19])
    # made by a process of this pid that started earlier
    reused = tmp_path / f"irgauge-plan-{scratch._machine()}-{os.getpid()}-{start - 1}-abcdefgh"
    reused.mkdir()
    folder, _ = mapped_plan.reserved(str(tmp_path))
    assert not reused.exists() and os.path.isdir(folder)
    mapped_plan.remove(folder)


def test_workers_read_ahead_in_turns_until_the_plan_is_published():
    """A worker reads a part ahead only in a turn (the CPUs this process does not build
    the plan on): a second worker waits for the first one's turn, and every worker still
    waiting wakes, with no turn, when the plan is published."""
    import threading

    with mapped_plan.awaited(1, 1, turns=1) as (_, coming):
        assert coming.turn()  # the one turn, taken
        waited = []
        second = threading.Thread(target=lambda: waited.append(coming.turn()))
        second.start()
        second.join(0.2)
        assert second.is_alive() and waited == []  # no turn left
        coming.turn_done()
        second.join(10)
        assert waited == [True]  # the turn given back, taken by the second worker
        coming.turn_done()
        coming.allow(1)  # two at once now
        assert coming.turn() and coming.turn()
        third = threading.Thread(target=lambda: waited.append(coming.turn()))
        third.start()
        coming.publish()
        third.join(10)
        assert waited == [True, False] and not coming.turn()  # published: no more reading
