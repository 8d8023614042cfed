"""A scoring plan that every worker process on this host shares: mapped from one file, or
inherited by a forked process.

Sent to each worker, the plan (the judgments' arrays and lookup table, about 85 bytes a
judgment) costs every worker the same CPU and memory: on 16 workers and 3M judgments, about
2 s of CPU and 1.3 GB each, more than their share of the scoring (measured with
bench/bench_scale.py, docs/scale.md). Written once instead, as a pickle whose arrays lie
out of band in one file (pickle protocol 5), it is mapped by each worker: the small
pickle is loaded and the arrays are views of the mapped pages, which the workers share
with the page cache. The mapping is copy-on-write, so that a worker writing into an array
changes its own copy only, as with a plan of its own.

A plan is mapped only where every worker sees the file this process wrote (the same token
read back: a cluster on this host, or a shared folder); elsewhere it is sent as before. It
is written to a file system held in memory where there is one with room for it
(:func:`parents`), else to the system's temporary folder.
Worker processes forked from this one (:mod:`irgauge.evaluation.processes`) have the plan
already: a task gets only the key it was registered under (:func:`inherited`). Worker
processes forked before the plan exists (to read their runs while this process reads the
qrels) wait for it instead (:func:`awaited`): it is written once, as for Dask, and mapped.
"""

from __future__ import annotations

import contextlib
import mmap
import os
import pickle
import secrets
import shutil
import threading
from dataclasses import dataclass, field
from typing import Any, Callable, Dict, Iterator, List, Optional, Tuple

from irgauge.errors import InputError
from irgauge.io import scratch
from irgauge.io.stops import held_lock

# each array's bytes start on a multiple of this (a cache line; numpy wants its dtype's
# alignment, at most 16)
ALIGN = 64
TOKEN_FILE = "token"
PLAN_FILE = "plan.bin"
HANDLE_FILE = "handle.pickle"
# Written to a disk's file system, a plan of 1.26 GB (15M judgments) cost the command
# 1.3-4.9 s of system CPU on 2 CPUs, the kernel readying its pages for writeback; to a
# tmpfs, 0.55 s (a copy into memory; 240 MB: 0.14 s against 1.0 s). Workers map it from
# either alike. A plan there is memory, not disk, so it goes there only with room to spare
# (ROOM times its size, in the file system and in the memory available).
MEMORY_FOLDER = "/dev/shm"
ROOM = 2


@dataclass(frozen=True)
class MappedPlan:
    """What a worker needs to map a plan written by :func:`written`: the folder, the
    token that names this writing, the pickle without its arrays and where each array's
    bytes lie in the file (offset, length)."""

    folder: str
    token: str
    pickled: bytes
    buffers: Tuple[Tuple[int, int], ...]
    _loaded: List[Any] = field(default_factory=list, compare=False, repr=False)

    def __getstate__(self) -> dict:
        # not what a worker loaded: a handle travels as its few bytes
        return {
            "folder": self.folder,
            "token": self.token,
            "pickled": self.pickled,
            "buffers": self.buffers,
        }

    def __setstate__(self, state: dict) -> None:
        for name, value in state.items():
            object.__setattr__(self, name, value)
        object.__setattr__(self, "_loaded", [])


@dataclass(frozen=True)
class InheritedPlan:
    """The key of a plan registered by :func:`inherited` before worker processes were
    forked: they hold it, so a task is sent the key alone."""

    key: int


_LOCK = threading.Lock()
_INHERITED: Dict[int, Any] = {}


@contextlib.contextmanager
def inherited(plan: Any) -> Iterator[InheritedPlan]:
    """``plan`` registered under a new key while the context lasts: processes forked
    within it resolve the key to their copy of the plan (:func:`plan_of`)."""
    with held_lock(_LOCK):
        key = max(_INHERITED, default=0) + 1
        _INHERITED[key] = plan
    try:
        yield InheritedPlan(key)
    finally:
        with held_lock(_LOCK):
            del _INHERITED[key]


class AwaitedPlan:
    """A plan that this process builds after forking worker processes (see :func:`awaited`):
    ``publish`` gives it to the workers (:meth:`write` first writes it, so that this
    process can map the plan in place of its own copy before the workers map it); a
    worker asks whether it is ``ready``, and ``resolve`` waits for it. ``part_bytes`` and
    ``ahead_parts``: the parts a worker reads while it waits, and how many it may hold
    (set before the fork, as the plan's memory is not known yet)."""

    def __init__(self, folder: str, part_bytes: int, ahead_parts: int, turns: Optional[int]):
        import multiprocessing

        self.folder = folder
        self.part_bytes, self.ahead_parts = part_bytes, ahead_parts
        # (semaphores: inherited by the forked processes, which block on them, not poll)
        context = multiprocessing.get_context("fork")
        self._published = context.Event()
        self._turns = None if turns is None else context.Semaphore(turns)
        self._loaded: List[Any] = []
        self.folders = [folder]  # removed by awaited()

    def write(self, plan: Any) -> MappedPlan:
        """``plan`` written in memory where there is room for it, else in the temporary
        folder (:func:`placed`); its handle in the folder, for :meth:`publish`."""
        handle = placed(packed(plan))
        assert handle is not None  # (every folder is seen: one is written or it raised)
        self.folders.append(handle.folder)
        path = os.path.join(self.folder, HANDLE_FILE)
        with open(path + ".tmp", "wb") as out:
            pickle.dump(handle, out)
        os.replace(path + ".tmp", path)
        return handle

    def publish(self) -> None:
        """The workers woken: the plan :meth:`write` wrote is theirs to map."""
        self._published.set()
        if self._turns is not None:
            self._turns.release()  # (a worker waiting for a turn wakes, and passes it on)

    def ready(self) -> bool:
        return self._published.is_set()

    def allow(self, turns: int) -> None:
        """``turns`` more workers may read ahead at once (:meth:`turn`)."""
        if self._turns is not None:
            for _ in range(max(turns, 0)):
                self._turns.release()

    def turn(self) -> bool:
        """Whether a worker reads one more part ahead: once the plan is published, never;
        before, as soon as it gets one of the turns this process allows (:meth:`allow`;
        unlimited where :func:`awaited` was given none), which it gives back with
        :meth:`turn_done` once the part is read. The turns keep the workers reading
        ahead from taking the CPUs that this process builds the plan on, which is what
        the workers wait for: read ahead there, a part only delays the plan by as much
        as it saves later, while on a CPU this process leaves idle it is saved outright."""
        if self._turns is None:
            return not self.ready()
        self._turns.acquire()
        if self.ready():
            self._turns.release()  # (passed on: every worker waiting wakes to the news)
            return False
        return True

    def turn_done(self) -> None:
        if self._turns is not None:
            self._turns.release()

    def resolve(self) -> Any:
        """The plan, once published (loaded once per process)."""
        self._published.wait()
        with held_lock(_LOCK):
            if not self._loaded:
                with open(os.path.join(self.folder, HANDLE_FILE), "rb") as f:
                    self._loaded.append(_load(pickle.load(f)))
            return self._loaded[0]


@contextlib.contextmanager
def awaited(
    part_bytes: int, ahead_parts: int, turns: Optional[int] = None
) -> Iterator[Tuple[InheritedPlan, AwaitedPlan]]:
    """A plan to come, registered (:func:`inherited`) for processes forked within the
    context, which resolve it once :meth:`AwaitedPlan.publish` has published it; its folder
    (:func:`irgauge.io.scratch.made`, as every temporary folder: it holds the handle only,
    which no worker reads before the plan is published, so no token) is removed when the
    context ends. ``turns``: how many workers may read ahead at once to begin with
    (:meth:`AwaitedPlan.turn`; None: all of them)."""
    plan = AwaitedPlan(scratch.made("irgauge-awaited-"), part_bytes, ahead_parts, turns)
    try:
        with inherited(plan) as key:
            yield key, plan
    finally:
        for folder in plan.folders:
            remove(folder)


def awaiting(plan: Any) -> Optional[AwaitedPlan]:
    """The plan to come that ``plan`` names, while it is not yet published; else None."""
    if isinstance(plan, InheritedPlan):
        found = _INHERITED[plan.key]
        if isinstance(found, AwaitedPlan) and not found.ready():
            return found
    return None


def reserved(parent: Optional[str] = None) -> Tuple[str, str]:
    """(folder, token): a new folder under ``parent`` (default: the system's temporary
    folder) holding a token that names it, for workers to check with :func:`sees` before
    the plan is written there; :func:`remove` deletes it (or, after a SIGKILL, the next
    irgauge to make one there: :func:`irgauge.io.scratch.made`)."""
    folder = scratch.made("irgauge-plan-", parent)
    token = secrets.token_hex(16)
    try:
        with open(os.path.join(folder, TOKEN_FILE), "w") as out:
            out.write(token)
    except BaseException:
        remove(folder)
        raise
    return folder, token


@dataclass(frozen=True)
class Packed:
    """A plan pickled, its arrays out of band (pickle protocol 5), not yet written."""

    pickled: bytes
    buffers: List[pickle.PickleBuffer]

    @property
    def nbytes(self) -> int:
        """The bytes of its arrays: what :func:`written` writes."""
        return sum(buffer.raw().nbytes for buffer in self.buffers)


def packed(plan: Any) -> Packed:
    """``plan`` pickled for :func:`written`, so that its size is known before a folder is
    chosen (:func:`parents`)."""
    buffers: List[pickle.PickleBuffer] = []
    pickled = _dumps(plan, protocol=5, buffer_callback=buffers.append)
    return Packed(pickled, buffers)


def parents(nbytes: int) -> List[Optional[str]]:
    """The folders to write a plan of ``nbytes`` in, to try in turn: MEMORY_FOLDER where it
    is a folder this process may write, with ROOM x ``nbytes`` free in it and in the memory
    available; then the system's temporary folder (None, as :func:`reserved` takes it)."""
    from irgauge.evaluation.memory import available_memory

    try:
        stat = os.statvfs(MEMORY_FOLDER)
        free = stat.f_bavail * stat.f_frsize
        writable = os.access(MEMORY_FOLDER, os.W_OK | os.X_OK)
    except (OSError, AttributeError):  # (no such folder; statvfs is POSIX only)
        return [None]
    available = available_memory()
    room = min(free, available if available is not None else free)
    return [MEMORY_FOLDER, None] if writable and room >= ROOM * nbytes else [None]


def placed(pack: Packed, seen: Optional[Callable[[str, str], bool]] = None) -> Optional[MappedPlan]:
    """``pack`` written (:func:`written`) in a new folder under the first of
    :func:`parents` that ``seen(folder, token)`` accepts (that every reader sees it; default:
    any) and where the writing succeeds; None where no folder is seen. A folder not used
    is removed at once; the handle's folder is the caller's to :func:`remove`."""
    for parent in parents(pack.nbytes):
        folder, token = reserved(parent)
        handle = None
        try:
            if seen is None or seen(folder, token):
                try:
                    handle = written(pack, folder, token)
                except OSError:
                    if parent is None:
                        raise
                    # (the file system in memory filled up meanwhile: the next folder)
        finally:
            if handle is None:
                remove(folder)
        if handle is not None:
            return handle
    return None


def written(plan: Any, folder: str, token: str) -> MappedPlan:
    """``plan`` (or its :func:`packed` form) pickled into ``folder`` (from
    :func:`reserved`), its arrays out of band in one file, each on a multiple of ALIGN
    bytes."""
    pack = plan if isinstance(plan, Packed) else packed(plan)
    pickled, buffers = pack.pickled, pack.buffers
    spans = []
    offset = 0
    with open(os.path.join(folder, PLAN_FILE), "wb") as out:
        for buffer in buffers:
            raw = buffer.raw()
            pad = -offset % ALIGN
            out.write(bytes(pad))
            offset += pad
            out.write(raw)
            spans.append((offset, raw.nbytes))
            offset += raw.nbytes
    return MappedPlan(folder, token, pickled, tuple(spans))


def _dumps(obj: Any, **options: Any) -> bytes:
    """cloudpickle's pickle where it is installed (with Dask), as Dask would send the plan:
    a registered measure's function may be a lambda, which pickle refuses."""
    try:
        import cloudpickle  # type: ignore[import-untyped]
    except ImportError:
        return pickle.dumps(obj, **options)
    return bytes(cloudpickle.dumps(obj, **options))


def remove(folder: str) -> None:
    """``folder`` deleted (workers that mapped its plan keep their mappings)."""
    shutil.rmtree(folder, ignore_errors=True)


def sees(folder: str, token: str) -> bool:
    """Whether this process reads the plan folder ``folder`` as written with ``token``
    (run on each worker: False on another host, or where the folder is another one)."""
    try:
        with open(os.path.join(folder, TOKEN_FILE)) as f:
            return f.read() == token
    except OSError:
        return False


def plan_of(plan: Any) -> Any:
    """The plan itself: ``plan``; the plan a :class:`MappedPlan` maps (loaded once per
    handle object: a worker holds one handle per command); or the one an
    :class:`InheritedPlan` names (waited for, if it is an :class:`AwaitedPlan`)."""
    if isinstance(plan, InheritedPlan):
        found = _INHERITED[plan.key]
        return found.resolve() if isinstance(found, AwaitedPlan) else found
    if not isinstance(plan, MappedPlan):
        return plan
    with held_lock(_LOCK):
        if not plan._loaded:
            plan._loaded.append(_load(plan))
        return plan._loaded[0]


def _load(handle: MappedPlan) -> Any:
    path = os.path.join(handle.folder, PLAN_FILE)
    if not sees(handle.folder, handle.token):
        raise InputError(f"the scoring plan's file {path} is not on this worker's host")
    with open(path, "rb") as f:
        size = os.fstat(f.fileno()).st_size
        mapped: Any = mmap.mmap(f.fileno(), 0, access=mmap.ACCESS_COPY) if size else b""
    view = memoryview(mapped)
    return pickle.loads(handle.pickled, buffers=[view[a : a + n] for a, n in handle.buffers])
