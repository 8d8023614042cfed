"""Atomic writes: a file or folder appears complete under its name, or not at all.

Everything irgauge writes goes through :func:`atomic_file` (one file),
:func:`atomic_directory` (a study, a collection, a report folder) or
:mod:`irgauge.io.staging`: the content is written to a temporary sibling and renamed into
place, so a crash, a full disk or Ctrl-C leaves the previous state. The rules, checked
here once for every command:

- a target that is one of the command's inputs (the same file through any link or name;
  see :func:`irgauge.io.noted_inputs.input_scope`) is refused with an InputError naming both,
  and so is a folder to replace that holds an input;
- ``-`` as an output file is standard output, written directly (one output of a command
  may take it); as an output folder it is refused;
- a target ending in ``/`` names a folder: a file is never written under that name;
- a symbolic link is written through, as the shell's ``>`` does: the file it points to
  is replaced (atomically, beside it), the link stays;
- a character device (``/dev/null``, a terminal) is written directly, without a temporary
  file (there is nothing to replace); a named pipe, a socket or a block device is refused;
- temporary names stay within the file-name limit (a 255-byte target name works); files
  are created with mode 0o666 less the umask (as ``open()`` would), an existing target's
  mode is kept; folders are created 0o777 less the umask;
- folders created for an output that then fails are removed again;
- a folder replacing another is swapped in one step (``renameat2(RENAME_EXCHANGE)`` on
  Linux), so concurrent writers end with one complete folder and no debris;
- the new file (every file of a new folder) is flushed to the disk (fsync) before the
  rename, and the folder that holds it after, so that a power loss leaves the previous
  file or the new one, not an empty or partial one under the name.

A failure to write raises :class:`~irgauge.errors.OutputError` naming the path.
"""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import stat
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Tuple, Union

from irgauge.errors import InputError, OutputError
from irgauge.io.noted_inputs import input_named_by, inputs_noted
from irgauge.io import output_scope
from irgauge.io.stops import held_stop_signals

PathLike = Union[str, os.PathLike]
STDOUT = "-"  # an output file named so is standard output
TEMP_PREFIX_BYTES = 100  # of the target's name kept in a temporary name (NAME_MAX is 255)
_KINDS = (
    (stat.S_ISFIFO, "a named pipe"),
    (stat.S_ISSOCK, "a socket"),
    (stat.S_ISBLK, "a block device"),
    (stat.S_ISLNK, "a symbolic link that leads back to itself"),
)


def _reason(err: OSError) -> str:
    return err.strerror or str(err)


def _lstat(path: PathLike) -> Optional[os.stat_result]:
    try:
        return os.lstat(path)
    except FileNotFoundError:
        return None
    except NotADirectoryError:  # a file where a folder above the output should be
        raise OutputError(path, "a folder above it is a file") from None


def _names_folder(text: str) -> bool:
    return text.endswith(os.sep) or bool(os.altsep and text.endswith(os.altsep))


def _through_link(path: Path) -> Path:
    """``path``, or the file a symbolic link at ``path`` points to (written through)."""
    return Path(os.path.realpath(path)) if path.is_symlink() else path


def refuse_input(shown: PathLike, info: os.stat_result) -> None:
    """InputError if the file ``info`` describes is one of the current command's inputs."""
    source = input_named_by(info)
    if source is not None:
        raise InputError(
            f"is the input {source} (the same file); irgauge does not overwrite its "
            "inputs: write the output elsewhere",
            f"output {os.fspath(shown)}",
        )


def refuse_inputs_within(shown: PathLike, folder: Path) -> None:
    """InputError if a folder about to be replaced (or an entry of it) holds an input."""
    root = os.path.realpath(folder)
    for source in inputs_noted().values():
        real = os.path.realpath(source)
        try:
            inside = os.path.commonpath([root, real]) == root
        except ValueError:  # different drives
            inside = False
        if inside:
            raise InputError(
                f"would replace the input {source}; irgauge does not overwrite its "
                "inputs: write the output elsewhere",
                f"output {os.fspath(shown)}",
            )


def _refuse_kind(shown: PathLike, info: os.stat_result) -> None:
    for test, kind in _KINDS:
        if test(info.st_mode):
            raise OutputError(shown, f"is {kind}; irgauge writes regular files and folders")


def check_file_target(path: PathLike) -> Tuple[Path, Optional[os.stat_result]]:
    """The file to write for output ``path`` (a link's target) and its status (None if it
    does not exist yet), or an error if ``path`` cannot be an output file."""
    text = os.fspath(path)
    if text == STDOUT:
        return Path(STDOUT), None
    if _names_folder(text):
        raise OutputError(text, "ends with '/', so names a folder; give a file name")
    real = _through_link(Path(text))
    info = _lstat(real)
    if info is None:
        parent = real.parent if str(real.parent) else Path(".")
        if not parent.is_dir():
            raise OutputError(text, f"folder {str(parent)!r} does not exist")
        return real, None
    if stat.S_ISDIR(info.st_mode):
        raise OutputError(text, "is a folder")
    _refuse_kind(text, info)
    refuse_input(text, info)
    return real, info


def check_folder_target(path: PathLike) -> Tuple[Path, Optional[os.stat_result]]:
    """The folder to write for output ``path`` (a link's target) and its status (None if
    it does not exist yet), or an error if it exists and is not a folder."""
    if os.fspath(path) == STDOUT:
        raise OutputError(
            STDOUT, "is standard output, which takes one file, and this output is a folder"
        )
    real = _through_link(Path(path))
    info = _lstat(real)
    if info is not None and not stat.S_ISDIR(info.st_mode):
        raise OutputError(path, "exists and is not a folder")
    return real, info


def _short_name(name: str, limit: int = TEMP_PREFIX_BYTES) -> str:
    """``name`` cut to at most ``limit`` bytes (whole characters)."""
    keep = min(len(name), limit)
    while len(os.fsencode(name[:keep])) > limit:
        keep -= 1
    return name[:keep]


def temp_path(folder: Path, name: str, suffix: str = ".tmp") -> Path:
    """A fresh hidden name in ``folder`` derived from ``name``, within NAME_MAX."""
    return folder / f".{_short_name(name)}.{os.urandom(6).hex()}{suffix}"


def create_temp(shown: PathLike, folder: Path, name: str) -> Tuple[int, str]:
    """An exclusive new file beside the target, mode 0o666 less the umask."""
    flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_CLOEXEC", 0)
    for _ in range(100):
        tmp = temp_path(folder, name)
        try:
            return os.open(tmp, flags, 0o666), str(tmp)
        except FileExistsError:
            continue
        except OSError as err:
            raise OutputError(shown, _reason(err)) from None
    raise OutputError(shown, "no free temporary name")  # pragma: no cover


def make_temp_folder(shown: PathLike, folder: Path, name: str, suffix: str = ".tmp") -> Path:
    """A new hidden folder in ``folder``, mode 0o777 less the umask."""
    for _ in range(100):
        tmp = temp_path(folder, name, suffix)
        try:
            os.mkdir(tmp, 0o777)
            return tmp
        except FileExistsError:
            continue
        except OSError as err:
            raise OutputError(shown, _reason(err)) from None
    raise OutputError(shown, "no free temporary name")  # pragma: no cover


def make_folders(path: PathLike) -> List[Path]:
    """Create folder ``path`` and missing parents; the folders created, outermost first
    (for :func:`remove_folders` if what goes in them fails)."""
    missing, folder = [], Path(path)
    while _lstat(folder) is None and folder != folder.parent:
        missing.append(folder)
        folder = folder.parent
    created: List[Path] = []
    try:
        for item in reversed(missing):
            os.mkdir(item, 0o777)
            created.append(item)
        if not Path(path).is_dir():
            raise OutputError(path, "exists and is not a folder")
    except OSError as err:
        remove_folders(created)
        if isinstance(err, OutputError):
            raise
        raise OutputError(path, _reason(err)) from None
    return created


def remove_folders(created: List[Path]) -> None:
    """Remove the folders :func:`make_folders` created, innermost first, if still empty."""
    for folder in reversed(created):
        with contextlib.suppress(OSError):
            os.rmdir(folder)


@contextlib.contextmanager
def atomic_file(
    path: PathLike, mode: str = "w", encoding: str = "utf-8", newline: str = "\n"
) -> Iterator:
    """Open a temporary file beside ``path``; on success it is renamed to ``path``.

    ``mode`` is ``"w"`` (text) or ``"wb"`` (bytes). The parent folder must exist: a
    missing folder is reported, not created, as a mistyped path usually is. See the module
    for what is refused.
    """
    shown = os.fspath(path)
    real, info = check_file_target(shown)
    kwargs: Dict[str, Any] = {} if "b" in mode else {"encoding": encoding, "newline": newline}
    if shown == STDOUT:
        handle = _standard_output(mode)
        yield handle
        handle.flush()  # a reader gone early shows here, before the outputs commit
        return
    if info is not None and stat.S_ISCHR(info.st_mode):
        with _device(shown, real, mode, kwargs) as handle:
            yield handle
        return
    tmp = handle = None
    try:
        with held_stop_signals():  # the temporary file is known to the cleanup once it exists
            fd, tmp = create_temp(shown, real.parent, real.name)
            handle = os.fdopen(fd, mode, **kwargs)
        with handle:
            yield handle
            handle.flush()
            fsync(handle.fileno())
        if info is not None:
            keep_mode(info, tmp)
        os.replace(tmp, real)
        sync_folder(real.parent)
    except BaseException as err:
        if handle is not None:
            with contextlib.suppress(OSError):  # its buffer may not fit on a full disk
                handle.close()
        if tmp is not None:
            remove_file(tmp)
        if not isinstance(err, OSError) or isinstance(err, OutputError):
            raise
        raise OutputError(shown, _reason(err)) from None


def _standard_output(mode: str):
    """Standard output as an output, for text or (its buffer) bytes; a failing write is
    reported as standard output's own (a closed pipe: the output is incomplete, nothing
    commits; a full one in one line)."""
    stream = output_scope.stdout_as_output()
    if "b" not in mode:
        return stream
    buffer = getattr(stream, "buffer", None)
    if buffer is None:  # a text stream of a program calling main: the bytes as text
        return _TextBytes(stream)
    stream.flush()
    return buffer


class _TextBytes:
    """Bytes written to a text stream that has no buffer (a program calling main with its
    own stdout): decoded as UTF-8, any other byte as a \\xNN escape, as the summary shows
    such ids."""

    def __init__(self, stream: Any) -> None:
        self.stream = stream

    def write(self, data: bytes) -> int:
        self.stream.write(bytes(data).decode("utf-8", errors="backslashreplace"))
        return len(data)

    def flush(self) -> None:
        self.stream.flush()


@contextlib.contextmanager
def _device(shown: str, real: Path, mode: str, kwargs: dict) -> Iterator:
    """A character device (``/dev/null``, a terminal) is written directly."""
    try:
        handle = open(real, mode, **kwargs)
    except OSError as err:
        raise OutputError(shown, _reason(err)) from None
    try:
        with handle:
            yield handle
    except OSError as err:
        if isinstance(err, OutputError):
            raise
        raise OutputError(shown, _reason(err)) from None


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
    ``replace=False`` it is an error); one holding an input of the command is refused.
    Parent folders are created, and removed again if the output fails.
    """
    shown = os.fspath(path)
    real, info = check_folder_target(shown)
    if info is not None and not replace:
        raise OutputError(shown, "already exists")
    if info is not None:
        refuse_inputs_within(shown, real)
    created: List[Path] = []
    tmp = None
    try:
        with held_stop_signals():  # what is made is known to the cleanup once it exists
            created = make_folders(real.parent)
            tmp = make_temp_folder(shown, real.parent, real.name)
        yield tmp
        with held_stop_signals():  # the previous folder or the new one, whole
            sync_tree(tmp)
            replace_folder(tmp, real)
            sync_folder(real.parent)
    except BaseException as err:
        with held_stop_signals():
            if tmp is not None:
                remove_tree(tmp)
            remove_folders(created)
        if not isinstance(err, OSError) or isinstance(err, OutputError):
            raise
        raise OutputError(shown, _reason(err)) from None


FSYNC_VARIABLE = "IRGAUGE_FSYNC"


def syncing() -> bool:
    """Whether writes are flushed to the disk: always, unless the environment sets
    ``IRGAUGE_FSYNC=0`` for outputs that need not survive a power loss (scratch results,
    test suites), where each fsync costs a few milliseconds."""
    return os.environ.get(FSYNC_VARIABLE, "").strip() != "0"


def fsync(fd: int) -> None:
    """os.fsync, unless :func:`syncing` says no."""
    if syncing():
        os.fsync(fd)


# what a folder's fsync may answer where the system or file system cannot sync folders
_NO_FOLDER_SYNC = (errno.EINVAL, errno.ENOTSUP, errno.EBADF, errno.EACCES, errno.EPERM)


def sync_folder(folder: PathLike) -> None:
    """fsync ``folder``, so that the names just renamed into it survive a power loss (the
    rename itself is only in memory until then). Skipped where folders cannot be opened or
    synced (Windows, some network file systems); any other failure is an OSError."""
    if not syncing():
        return
    try:
        fd = os.open(folder, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0))
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError as err:
        if err.errno not in _NO_FOLDER_SYNC:
            raise
    finally:
        os.close(fd)


def sync_file(path: PathLike) -> None:
    """fsync the file ``path`` (what was written to it reaches the disk)."""
    if not syncing():
        return
    fd = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def sync_tree(path: PathLike) -> None:
    """fsync every file and folder under ``path`` (itself included), innermost first:
    a staged folder is on the disk before it is renamed into place. Links are not
    followed."""
    if not syncing():
        return
    if not os.path.isdir(path) or os.path.islink(path):
        if os.path.isfile(path) and not os.path.islink(path):
            sync_file(path)
        return
    for root, _, names in os.walk(os.fspath(path), topdown=False):
        for name in names:
            full = os.path.join(root, name)
            if stat.S_ISREG(os.lstat(full).st_mode):
                sync_file(full)
        sync_folder(root)


def replace_folder(new: Path, target: Path) -> None:
    """Give folder ``new`` the name ``target``. An existing ``target`` is swapped with
    ``new`` in one step where the system can (then removed), else renamed aside first and
    removed once ``new`` holds its name; writers racing for ``target`` leave one complete
    folder and nothing else."""
    for _ in range(20):
        try:
            os.rename(new, target)  # absent or empty target
            return
        except OSError as err:
            if err.errno not in (errno.ENOTEMPTY, errno.EEXIST):
                raise
        if exchange(new, target):  # new now holds the previous folder
            remove_tree(new)
            return
        if _swap_aside(new, target):
            return
    raise OSError(errno.EBUSY, "other writers keep replacing it", str(target))


def _swap_aside(new: Path, target: Path) -> bool:
    """Rename ``target`` aside, ``new`` in its place, then remove the old one; False if
    another writer's folder took the name in between (try again). On another failure the
    previous folder is put back."""
    old = temp_path(target.parent, target.name, ".old")
    moved = False
    with contextlib.suppress(FileNotFoundError):  # another writer moved it
        os.rename(target, old)
        moved = True
    try:
        os.rename(new, target)
        return True
    except OSError as err:
        if err.errno in (errno.ENOTEMPTY, errno.EEXIST):
            return False
        if moved:
            with contextlib.suppress(OSError):
                os.rename(old, target)
        raise
    finally:
        remove_tree(old)


_RENAMEAT2: List[Any] = []


def exchange(a: Path, b: Path) -> bool:
    """Swap two paths atomically (Linux renameat2 with RENAME_EXCHANGE); False where the
    system or the file system cannot."""
    if not _RENAMEAT2:
        _RENAMEAT2.append(_load_renameat2())
    call = _RENAMEAT2[0]
    if call is None:
        return False
    import ctypes

    at_fdcwd, rename_exchange = -100, 2
    if call(at_fdcwd, os.fsencode(a), at_fdcwd, os.fsencode(b), rename_exchange) == 0:
        return True
    code = ctypes.get_errno()
    if code in (errno.ENOSYS, errno.EINVAL, errno.EOPNOTSUPP, errno.EPERM, errno.ENOENT):
        return False
    raise OSError(code, os.strerror(code), str(b))


def _load_renameat2():
    if not os.uname().sysname == "Linux":  # pragma: no cover
        return None
    try:
        import ctypes

        call = ctypes.CDLL(None, use_errno=True).renameat2
    except (OSError, AttributeError):  # pragma: no cover - old glibc
        return None
    call.argtypes = [ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint]
    call.restype = ctypes.c_int
    return call


def remove_tree(path: PathLike) -> None:
    """Remove a temporary folder, even if interrupted once while at it."""
    try:
        shutil.rmtree(path, ignore_errors=True)
    except BaseException:
        shutil.rmtree(path, ignore_errors=True)
        raise


def keep_mode(info: os.stat_result, tmp: str) -> None:
    """The replacement keeps the replaced file's mode (and owner, where allowed)."""
    os.chmod(tmp, stat.S_IMODE(info.st_mode))
    mine = os.stat(tmp)
    if (mine.st_uid, mine.st_gid) != (info.st_uid, info.st_gid):
        with contextlib.suppress(OSError):
            os.chown(tmp, info.st_uid, info.st_gid)


def remove_file(tmp: str) -> None:
    with contextlib.suppress(OSError):
        os.unlink(tmp)
