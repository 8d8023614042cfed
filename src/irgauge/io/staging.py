"""Several outputs written into a folder that may hold other files (``simulate --out``,
``reduce --out``, ``incomplete --out``): everything is first written to a temporary folder
inside it, and only once all of it is complete are the entries renamed into place (a folder
entry is swapped whole, so a rewritten ``runs/`` holds no stale files). A failure, a full
disk or Ctrl-C while writing removes the temporary folder and leaves the previous state;
write errors raise OutputError naming the path (CLI exit 1).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import tempfile
from pathlib import Path
from typing import Iterator, Sequence

from irgauge.io.atomic import PathLike, replace_folder
from irgauge.errors import OutputError


@contextlib.contextmanager
def staged_outputs(out_dir: PathLike, last: Sequence[str] = ("manifest.json",)) -> Iterator[Path]:
    """Yield a temporary folder; on success move its entries into ``out_dir`` (created
    with its parents), the names in ``last`` at the end so that a manifest appears only
    beside complete files. Entries of ``out_dir`` not written are left alone."""
    out = Path(out_dir)
    if out.exists() and not out.is_dir():
        raise OutputError(out, "exists and is not a folder")
    try:
        out.mkdir(parents=True, exist_ok=True)
        stage = Path(tempfile.mkdtemp(prefix=".irgauge-", suffix=".tmp", dir=out))
    except OSError as err:
        raise OutputError(out, err.strerror or str(err)) from None
    try:
        yield stage
        entries = sorted(stage.iterdir(), key=lambda p: (p.name in last, p.name))
        for entry in entries:
            _move(entry, out / entry.name)
    except OSError as err:
        if isinstance(err, OutputError):
            raise
        raise OutputError(out, err.strerror or str(err)) from None
    finally:
        shutil.rmtree(stage, ignore_errors=True)


def _move(source: Path, target: Path) -> None:
    """Rename ``source`` onto ``target``; an existing folder is swapped out, then removed."""
    if target.is_dir() and not target.is_symlink():
        replace_folder(source, target)
    else:
        os.replace(source, target)
