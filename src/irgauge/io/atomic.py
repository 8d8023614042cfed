"""Atomic writes: a file or folder appears complete under its name, or not at all.

Everything irgauge writes goes through :func:`atomic_file` (one file) or
:func:`atomic_directory` (a study, a collection, a report folder): the content is written
to a temporary sibling and renamed into place, so a crash, a full disk or Ctrl-C leaves the
previous state. A failure raises :class:`~irgauge.errors.OutputError` naming the path.
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, Union

from irgauge.errors import OutputError

PathLike = Union[str, os.PathLike]


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


@contextlib.contextmanager
def atomic_file(
    path: PathLike, mode: str = "w", encoding: str = "utf-8", newline: str = "\n"
) -> Iterator:
    """Open a temporary file beside ``path``; on success it is renamed to ``path``.

    ``mode`` is ``"w"`` (text) or ``"wb"`` (bytes). The parent folder must exist: a
    missing folder is reported, not created, as a mistyped path usually is.
    """
    target = Path(path)
    parent = target.parent if str(target.parent) else Path(".")
    if not parent.is_dir():
        raise OutputError(target, f"folder {str(parent)!r} does not exist")
    if target.is_dir():
        raise OutputError(target, "is a folder")
    try:
        fd, tmp = tempfile.mkstemp(prefix=f".{target.name}.", suffix=".tmp", dir=parent)
    except OSError as err:
        raise OutputError(target, _reason(err)) from None
    try:
        kwargs = {} if "b" in mode else {"encoding": encoding, "newline": newline}
        with os.fdopen(fd, mode, **kwargs) as handle:
            yield handle
            handle.flush()
        _copy_permissions(target, tmp)
        os.replace(tmp, target)
    except OSError as err:
        _remove(tmp)
        raise OutputError(target, _reason(err)) from None
    except BaseException:
        _remove(tmp)
        raise


def write_text(path: PathLike, text: str) -> None:
    """Write ``text`` to ``path`` atomically (UTF-8, LF line endings)."""
    with atomic_file(path) as handle:
        handle.write(text)


def write_bytes(path: PathLike, data: bytes) -> None:
    with atomic_file(path, "wb") as handle:
        handle.write(data)


@contextlib.contextmanager
def atomic_directory(path: PathLike, replace: bool = True) -> Iterator[Path]:
    """Yield a temporary folder beside ``path``; on success it takes the name ``path``.

    An existing folder at ``path`` is replaced only once the new one is complete (with
    ``replace=False`` it is an error). Parent folders are created.
    """
    target = Path(path)
    if target.exists() and not target.is_dir():
        raise OutputError(target, "exists and is not a folder")
    if target.exists() and not replace:
        raise OutputError(target, "already exists")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".tmp", dir=target.parent))
    except OSError as err:
        raise OutputError(target, _reason(err)) from None
    try:
        yield tmp
        replace_folder(tmp, target)
    except OSError as err:
        shutil.rmtree(tmp, ignore_errors=True)
        raise OutputError(target, _reason(err)) from None
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise


def replace_folder(new: Path, target: Path) -> None:
    """Rename folder ``new`` to ``target``; an existing ``target`` is renamed aside first
    and removed only once ``new`` holds its name."""
    if not target.exists():
        os.replace(new, target)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{target.name}.", suffix=".old", dir=target.parent))
    os.rmdir(old)
    os.replace(target, old)
    os.replace(new, target)
    shutil.rmtree(old, ignore_errors=True)


def _copy_permissions(target: Path, tmp: str) -> None:
    """mkstemp creates 0600; give the file the mode a plain open() would have."""
    try:
        mode = target.stat().st_mode & 0o777
    except FileNotFoundError:
        umask = os.umask(0)
        os.umask(umask)
        mode = 0o666 & ~umask
    os.chmod(tmp, mode)


def _remove(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)
