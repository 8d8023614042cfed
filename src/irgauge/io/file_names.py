"""Paths as the readers take them (``str``, ``os.PathLike`` or bytes), and the names of
runs, topics and files written after an input, taken from a path without loading
pathlib."""

from __future__ import annotations

import os
from typing import Optional, Tuple, Union

from irgauge.errors import InputError
from irgauge.io.words import counted

PathLike = Union[str, "os.PathLike[str]"]
COMPRESSED_SUFFIXES = (".gz", ".bz2", ".xz")


def file_path(
    path: object,
    what: str = "the input",
    parameter: Optional[str] = None,
    accepted: str = "a file path (str or os.PathLike)",
) -> str:
    """``path`` as text, where it is a path: a ``str``, an ``os.PathLike``
    (``pathlib.Path``) or bytes (decoded as os does). Anything else is an InputError
    saying what was given and what ``what`` accepts: ``str()`` of a list of paths would be
    a file named ``['q']``, and os reads a number as a file descriptor; every reader's
    path passes here before it is opened."""
    if isinstance(path, str):
        return path
    if isinstance(path, (bytes, os.PathLike)):
        return os.fsdecode(path)
    shown = type(path).__name__
    if isinstance(path, (list, tuple)) and path:
        shown += f" of {counted(len(path), 'item')}"
    raise InputError(f"{what} must be {accepted}; got {shown}", parameter=parameter)


def strip_compression_suffix(name: str) -> str:
    """The file name without a .gz/.bz2/.xz suffix (to name a topic or run by its stem)."""
    for suffix in COMPRESSED_SUFFIXES:
        if name.endswith(suffix):
            return name[: -len(suffix)]
    return name


def path_name(path: str) -> str:
    """The last component of ``path``, as ``pathlib.PurePath(path).name`` gives it (empty
    and ``.`` components skipped). The readers name runs and topics by it without loading
    pathlib, which costs the drop-in's start-up about 5 ms."""
    rest = os.path.splitdrive(path)[1]
    if os.altsep:
        rest = rest.replace(os.altsep, os.sep)
    parts = [part for part in rest.split(os.sep) if part not in ("", ".")]
    return parts[-1] if parts else ""


def path_stem_and_suffix(path: str) -> Tuple[str, str]:
    """``(PurePath(path).stem, PurePath(path).suffix)``: the name split at its last dot,
    unless the dot leads or ends the name."""
    name = path_name(path)
    dot = name.rfind(".")
    if 0 < dot < len(name) - 1:
        return name[:dot], name[dot:]
    return name, ""


def file_stem(path: PathLike) -> str:
    """The file's name without its compression suffix (.gz, .bz2, .xz) and its extension:
    how a run or a topic is named after its file, and files written after an input."""
    return path_stem_and_suffix(strip_compression_suffix(path_name(str(path))))[0]
