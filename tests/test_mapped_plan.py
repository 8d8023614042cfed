"""A plan written once and mapped by each worker: the same objects, arrays that stay
writable without touching the file or each other, aligned bytes, and a clear error where
the file is not."""

from __future__ import annotations

import os
import pickle

import numpy as np
import pytest

import irgauge
from irgauge.collection.judgments import Judgments
from irgauge.errors import InputError
from irgauge.evaluation import mapped_plan


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
