"""Several outputs written into a folder that may hold other files (``simulate --out``,
``reduce --out``, ``incomplete --out``): everything is first written to a temporary folder
inside it, and only once all of it is complete are the entries renamed into place (a folder
entry is swapped whole, so a rewritten ``runs/`` holds no stale files). A failure, a full
disk or Ctrl-C while writing removes the temporary folder and leaves the previous state;
write errors raise OutputError naming the path (CLI exit 1).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Iterator, Optional, Sequence

from irgauge.io import atomic
from irgauge.io.atomic import PathLike, replace_folder
from irgauge.errors import OutputError


@contextlib.contextmanager
def staged_outputs(
    out_dir: PathLike, last: Sequence[str] = ("manifest.json",), replace_any: bool = False
) -> Iterator[Path]:
    """Yield a temporary folder; on success move its entries into ``out_dir`` (created
    with its parents), the names in ``last`` at the end so that a manifest appears only
    beside complete files. Entries of ``out_dir`` not written are left alone. Every entry
    is checked (by the rules of :mod:`irgauge.io.atomic`: not an input, not a pipe or
    device, links written through) before any is moved; folders created for the output
    are removed again if it fails. A ``manifest.json`` of other results already there (one
    that another command wrote, or that cannot be read) is not replaced unless
    ``replace_any``: it records how those results were made."""
    shown = os.fspath(out_dir)
    out, _ = atomic.check_folder_target(shown)
    created = atomic.make_folders(out)
    try:
        stage = atomic.make_temp_folder(shown, out, "irgauge")
    except BaseException:
        atomic.remove_folders(created)
        raise
    try:
        yield stage
        entries = sorted(stage.iterdir(), key=lambda p: (p.name in last, p.name))
        targets = [_target(entry, out / entry.name) for entry in entries]
        if not replace_any:
            for entry, target in zip(entries, targets):
                if entry.is_dir():  # swapped whole: its manifest goes too
                    entry, target = entry / MANIFEST, target / MANIFEST
                _refuse_foreign_manifest(entry, target)
        for entry, target in zip(entries, targets):
            _move(entry, target)
    except OSError as err:
        atomic.remove_tree(stage)
        atomic.remove_folders(created)
        if isinstance(err, OutputError):
            raise
        raise OutputError(out, err.strerror or str(err)) from None
    except BaseException:
        atomic.remove_tree(stage)
        atomic.remove_folders(created)
        raise
    atomic.remove_tree(stage)


def _target(entry: Path, target: Path) -> Path:
    """Where ``entry`` goes: ``target``, or the file a link there points to; refused if
    it is an input (or a folder holding one) or not a regular file or folder."""
    if entry.is_dir():
        real, info = atomic.check_folder_target(target)
        if info is not None:
            atomic.refuse_inputs_within(target, real)
        return real
    real, _ = atomic.check_file_target(target)
    return real


MANIFEST = "manifest.json"
# what tells the commands' manifests apart (simulate: generator; reduce: method; studies)
MANIFEST_IDENTITY = ("generator", "method", "kind", "study")


def _refuse_foreign_manifest(entry: Path, target: Path) -> None:
    """OutputError unless ``target`` is absent or a manifest of the same kind of results as
    ``entry`` (a rerun of the same command): ``reduce --out`` into a simulated collection's
    folder replaced the collection's manifest, its parameters and seed, without a word."""
    if entry.name != MANIFEST or not entry.is_file() or not target.is_file():
        return
    if _identity(target) != _identity(entry):
        raise OutputError(
            target,
            "holds the manifest of other results (made by another command, or unreadable); "
            "write to another folder",
        )


def _identity(path: Path) -> Optional[tuple]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # unreadable, not UTF-8, not JSON: not ours to replace
        return None
    return tuple(found.get(k) for k in MANIFEST_IDENTITY) if isinstance(found, dict) else None


def _move(source: Path, target: Path) -> None:
    """Rename ``source`` onto ``target``; an existing folder is swapped out, then removed;
    a file on another file system (a link's target) is copied beside it first."""
    if source.is_dir():
        replace_folder(source, target)
        return
    try:
        os.replace(source, target)
    except OSError as err:
        if err.errno != errno.EXDEV:
            raise
        fd, tmp = atomic.create_temp(target, target.parent, target.name)
        os.close(fd)
        try:
            shutil.copyfile(source, tmp)
            with contextlib.suppress(FileNotFoundError):
                os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
            os.replace(tmp, target)
        except BaseException:
            atomic.remove_file(tmp)
            raise
