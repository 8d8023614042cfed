"""Temporary folders named after the process that made them, so that a folder left by a
process killed with SIGKILL (which no handler sees) is removed by the next irgauge that
makes one in the same place.

A folder is named ``PREFIX<machine>-<pid>-<start>-<8 random characters>``: the machine
(the kernel's boot id, 12 hex digits, and the pid namespace's inode), the creator's pid
and its start time (clock ticks since boot, from ``/proc/<pid>/stat``), as :func:`made`
writes it. Before making the first in a parent folder, :func:`made` sweeps that folder: a
folder named so by this user, on this machine and pid namespace, whose creator is no longer
running (no such process, a zombie, or a process with that pid started at another time:
the pid reused) is removed. Each parent is swept once per process (a command makes several
folders in the temporary folder, and each sweep lists it whole): a creator that dies later
leaves its folders to the next process's sweep. The plan folders in ``/dev/shm`` are
memory until the machine restarts, and the spills in the temporary folder can be gigabytes.

Nothing else is touched: another user's folder, a name not of this exact form, a folder
of another machine (a folder shared over the network, as a Dask cluster's may be: every
machine's first pid namespace has the same inode, so the boot id tells them apart) or of
another pid namespace (a container sharing the folder: its pids are not ours to look
up), or any folder on a system without ``/proc`` (where a creator cannot be looked up
safely). A folder left before the machine restarted keeps its old boot id and is left.
"""

from __future__ import annotations

import os
import re
from typing import Optional, Set, Tuple

# what tempfile.mkdtemp appends (tempfile._RandomNameSequence: 8 of these characters)
_NAME = re.compile(r"irgauge-[a-z]+-([0-9a-f]{12}\.\d+)-(\d+)-(\d+)-[a-z0-9_]{8}")
# (pid, parent, machine) of every sweep made: the pid, so that a forked process, which
# inherits the set, sweeps on its own
_SWEPT: Set[Tuple[int, str, str]] = set()


def made(prefix: str, parent: Optional[str] = None) -> str:
    """A new folder under ``parent`` (default: the system's temporary folder), named
    ``prefix`` and this process's identity, after :func:`swept` has removed the folders
    there whose creators are gone (the first time this process makes one there).
    ``prefix`` is ``irgauge-<letters>-``."""
    import tempfile  # (imported where a folder is made: it costs every start-up 3 ms)

    where = parent if parent is not None else tempfile.gettempdir()
    machine = _machine()
    sweep = (os.getpid(), os.path.abspath(where), machine)
    if machine and sweep not in _SWEPT:
        _SWEPT.add(sweep)
        swept(where, machine)
    start = _started(os.getpid())
    named = f"{prefix}{machine or '0' * 12 + '.0'}-{os.getpid()}-{start or 0}-"
    return tempfile.mkdtemp(prefix=named, dir=where)


def swept(parent: str, machine: str) -> None:
    """The folders under ``parent`` that :func:`made` made for processes of this user and
    ``machine`` (:func:`_machine`) that are gone, removed; an error in looking or removing
    is ignored (a sweep is a courtesy, never a reason for a command to fail)."""
    import shutil

    user = os.getuid()
    try:
        entries = list(os.scandir(parent))
    except OSError:
        return
    for entry in entries:
        name = _NAME.fullmatch(entry.name)
        if name is None or name.group(1) != machine:
            continue
        try:
            # (a link is never followed, nor a folder of another user removed)
            mine = entry.stat(follow_symlinks=False).st_uid == user
            if not (mine and entry.is_dir(follow_symlinks=False)):
                continue
        except OSError:
            continue
        if _gone(int(name.group(2)), int(name.group(3))):
            shutil.rmtree(entry.path, ignore_errors=True)


def _gone(pid: int, start: int) -> bool:
    """Whether the process ``pid`` that started at ``start`` has ended."""
    if pid == os.getpid():
        return start != 0 and start != _started(pid)
    try:
        state, now = _process(pid)
    except (ValueError, IndexError):  # (a /proc of another form: left alone)
        return False
    except OSError:  # no /proc/<pid>: confirmed by the kernel (a hidden /proc too)
        try:
            os.kill(pid, 0)
        except ProcessLookupError:
            return True
        except OSError:  # (another user's process: running)
            return False
        return False
    # (a start of 0: not known when the folder was made, so only the pid tells)
    return state == "Z" or (start != 0 and now != start)


def _process(pid: int) -> Tuple[str, int]:
    """(state, start time in clock ticks since boot) of ``pid``, from /proc/<pid>/stat
    (fields 3 and 22; the command name, field 2, may hold spaces and parentheses)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        text = f.read().decode("ascii", "replace")
    fields = text[text.rindex(")") + 2 :].split()
    return fields[0], int(fields[19])


def _started(pid: int) -> Optional[int]:
    try:
        return _process(pid)[1]
    except (OSError, ValueError, IndexError):
        return None


def _machine() -> str:
    """``<boot id>.<pid namespace>``: the first 12 hex digits of the kernel's boot id and
    this process's pid namespace (its inode); "" where there is no /proc to tell."""
    try:
        with open("/proc/sys/kernel/random/boot_id") as f:
            boot = f.read().strip().replace("-", "")[:12]
        namespace = os.stat("/proc/self/ns/pid").st_ino
    except OSError:
        return ""
    if not re.fullmatch(r"[0-9a-f]{12}", boot):
        return ""
    return f"{boot}.{namespace}"
