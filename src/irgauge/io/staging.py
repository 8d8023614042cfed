"""Several outputs committed together: a command's table file, its figures folder, the
entries of an output folder (``simulate --out``, ``reduce --out``, ``incomplete --out``,
``agree -o OUT --figures DIR``) are all written to temporary names first, and renamed into
place only once every one of them is complete. A failure, a full disk or a stop signal
(Ctrl-C, SIGTERM, SIGHUP) before that removes every temporary file and folder and the
folders made for the outputs, and leaves the previous files as they were; write errors
raise OutputError naming the path (CLI exit 1).

:class:`Outputs` is the one mechanism. A command line runs within
:func:`irgauge.io.output_scope.command_outputs` (``irgauge.cli`` opens it around every
command), and the shared output helpers ask it for
staged paths with :func:`output_file`, :func:`output_folder` and :func:`replaced_folder`
(a study's folder); :func:`staged_outputs` stages one folder's entries, in the running
command or, outside one, in an Outputs of its own committed when its block ends.

A step that reads what an earlier step of the same command wrote (the report reading the
studies' folders, the qa study reading the QA data derived for it) reads it where it is
staged: :func:`current_path` and :func:`current_entries` say where a path's content lies
until the commit, and :func:`final_name` gives a staged path the name it will have, for
what is recorded or linked (manifests, the report's links), so that no temporary name is
written into an output.

The commit (:meth:`Outputs.commit`):

1. checks every target again (by the rules of :mod:`irgauge.io.atomic`: not an input, not
   a pipe or device, links written through; a foreign manifest is not replaced);
2. flushes every staged file and folder to the disk (fsync);
3. renames each into place, keeping what it replaces (a hard link to a replaced file, the
   previous folder swapped out); an error undoes the renames made, in reverse;
4. removes what was replaced and fsyncs the folders renamed into.

Stop signals are held from step 1 to 4 and delivered after it
(:func:`irgauge.io.stops.held_stop_signals`), so that a signal never leaves some outputs
new and others old: one that arrives before the commit leaves the previous state, one that
arrives during it takes effect once all outputs are new. A power loss in step 3 can still
leave some outputs renamed and others not (each one whole: the previous file or the new
one).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import shutil
import stat
from pathlib import Path
from typing import Callable, Dict, Iterator, List, Optional, Sequence, Tuple

from irgauge.io import atomic, output_scope, stops
from irgauge.io.atomic import PathLike, replace_folder
from irgauge.errors import OutputError

MANIFEST = "manifest.json"
# what tells the commands' manifests apart (simulate: generator; reduce: method; studies)
MANIFEST_IDENTITY = ("generator", "method", "kind", "study")


class Outputs:
    """The outputs of one command, staged under temporary names and committed together.

    Use it as a context manager: the block's end commits, an exception (a signal's
    included) removes everything staged and the folders made for it. ``committed`` says
    whether the outputs are in place."""

    def __init__(self) -> None:
        self._files: List[Tuple[Path, str]] = []  # (staged file, target as given)
        self._folders: List[Tuple[Path, str, Tuple[str, ...], bool]] = []
        self._created: List[Path] = []  # folders made for the outputs, outermost first
        self._stdout = False  # whether an output is standard output ("-")
        self.committed = False
        self._removed = False

    def __enter__(self) -> "Outputs":
        return self

    def __exit__(self, kind, error, trace) -> None:
        if kind is None:
            try:
                self.commit()
            except BaseException:
                self.abort()
                raise
            return
        self.abort()
        if isinstance(error, OutputError):
            shown = self._shown(error)
            if shown is not error:
                raise shown from None

    def file(self, path: PathLike) -> Path:
        """A new temporary file beside output file ``path`` to write in place of it; a
        character device (``/dev/null``, a terminal) is itself, written directly, as there
        is nothing to replace, and so is ``-``, standard output (one output a command)."""
        shown = os.fspath(path)
        if shown == atomic.STDOUT:  # written directly; only one output may take it
            if self._stdout:
                raise OutputError(
                    shown, "standard output already takes another output; give this one a file"
                )
            self._stdout = True
            return Path(shown)
        if self._in_stage(shown):
            return Path(shown)
        real, info = atomic.check_file_target(shown)
        if info is not None and stat.S_ISCHR(info.st_mode):
            return real
        with stops.held_stop_signals():  # known to the cleanup once it exists
            fd, tmp = atomic.create_temp(shown, real.parent, real.name)
            os.close(fd)
            self._files.append((Path(tmp), shown))
        return Path(tmp)

    def folder(self, path: PathLike, last: Sequence[str] = (), replace_any: bool = True) -> Path:
        """A new temporary folder inside output folder ``path`` (created with its parents)
        to write the folder's entries in; at the commit each entry replaces its namesake in
        ``path``, the names in ``last`` at the end (a manifest appears only beside complete
        files), and entries of ``path`` not written are left alone. A ``manifest.json`` of
        other results already there (another command's, or one that cannot be read) is not
        replaced unless ``replace_any``: it records how those results were made."""
        shown = os.fspath(path)
        if self._in_stage(shown):
            atomic.make_folders(shown)
            return Path(shown)
        out, _ = atomic.check_folder_target(shown)
        with stops.held_stop_signals():  # known to the cleanup once made
            self._created += atomic.make_folders(out)
            stage = atomic.make_temp_folder(shown, out, "irgauge")
            self._folders.append((stage, shown, tuple(last), replace_any))
        return stage

    def replacing(self, path: PathLike) -> Path:
        """A new temporary folder that replaces folder ``path`` whole at the commit (a
        study's folder: no file of the previous results stays beside the new ones); the
        folder ``path`` is in (and its parents) is created."""
        if self._in_stage(path):
            atomic.remove_tree(path)
            atomic.make_folders(path)
            return Path(path)
        real, info = atomic.check_folder_target(path)
        if info is not None:
            atomic.refuse_inputs_within(path, real)
            _refuse_foreign_folder(real, path)
        stage = self.folder(real.parent)
        work = stage / real.name
        work.mkdir()
        return work

    def _in_stage(self, path: PathLike) -> bool:
        """Whether ``path`` lies in a folder staged here (``incomplete --out DIR`` writing
        the reduced qrels into DIR/qrels): the outer folder commits whole, so what goes in
        it is written there directly, a stage inside a stage being moved away with it."""
        real = os.path.realpath(path)
        return any(_inside(real, os.path.realpath(stage)) for stage, _, _, _ in self._folders)

    def discard(self, staged: PathLike) -> None:
        """Remove a staged file or folder (:meth:`file`, :meth:`folder`, :meth:`replacing`)
        that a failed step leaves unfinished, so that the commit does not take it."""
        staged = Path(staged)
        with stops.held_stop_signals():
            for item in [f for f in self._files if f[0] == staged]:
                self._files.remove(item)
                atomic.remove_file(str(staged))
            for folder in [f for f in self._folders if f[0] in (staged, staged.parent)]:
                self._folders.remove(folder)
                atomic.remove_tree(folder[0])

    # ------------------------------------------------------------------ reading back

    def current(self, path: PathLike) -> Path:
        """Where the content ``path`` will have once the outputs are committed lies now:
        in its staged file or folder, or at ``path`` itself. Later stages win, as at the
        commit."""
        want = os.path.realpath(path)
        for staged, shown in reversed(self._files):
            if os.path.realpath(shown) == want:
                return staged
        for stage, shown, _, _ in reversed(self._folders):
            inside = _inside(want, os.path.realpath(shown))
            if inside and os.path.lexists(stage / inside[0]):
                return stage.joinpath(*inside)
        return Path(path)

    def entries(self, folder: PathLike) -> Dict[str, Path]:
        """``{name: where it lies now}`` of every entry folder ``folder`` will hold once the
        outputs are committed: its present entries, the staged ones in their place (the
        staging folders themselves left out)."""
        want = os.path.realpath(folder)
        stages = {os.path.realpath(stage) for stage, _, _, _ in self._folders}
        found = {}
        with contextlib.suppress(OSError):
            present = Path(folder).iterdir()
            found = {p.name: p for p in present if os.path.realpath(p) not in stages}
        for stage, shown, _, _ in self._folders:
            if os.path.realpath(shown) == want:
                found.update((p.name, p) for p in stage.iterdir())
        for staged, shown in self._files:
            if os.path.realpath(os.path.dirname(os.path.abspath(shown))) == want:
                found[os.path.basename(shown)] = staged
                found.pop(staged.name, None)
        return dict(sorted(found.items()))

    def final_name(self, text: str) -> str:
        """``text`` (a path) with every staged name in it replaced by the name it takes at
        the commit; other text as it is."""
        for stage, shown, _, _ in self._folders:
            if stage.name in text:
                text = text.replace(str(stage), str(Path(shown)))
        for staged, shown in self._files:
            if staged.name in text:
                text = text.replace(str(staged), shown)
        return text

    # ------------------------------------------------------------------ commit

    def _plan(self) -> List[Tuple[Path, Path]]:
        """(staged entry, target) of every output, each target checked; a file replacing
        another takes its mode."""
        moves = []
        for stage, shown, last, replace_any in self._folders:
            out = Path(shown)
            entries = sorted(stage.iterdir(), key=lambda p: (p.name in last, p.name))
            pairs = [(entry, _target(entry, out / entry.name)) for entry in entries]
            if not replace_any:
                for entry, target in pairs:
                    if entry.is_dir():  # swapped whole: its manifest goes too
                        entry, target = entry / MANIFEST, target / MANIFEST
                    _refuse_foreign_manifest(entry, target)
            moves += pairs
        for staged, shown in self._files:
            real, info = atomic.check_file_target(shown)
            if info is not None:
                atomic.keep_mode(info, str(staged))
            moves.append((staged, real))
        return moves

    def commit(self) -> None:
        """Rename every staged output into place, all or none (see the module)."""
        stops.checkpoint()  # a stop kept back while an error was handled: none commits
        with stops.held_stop_signals():
            moves = self._plan()
            for staged, target in moves:
                _as_output_error(target, atomic.sync_tree, staged)
            undo: List[Callable[[], None]] = []
            done: List[Callable[[], None]] = []
            try:
                for staged, target in moves:
                    _as_output_error(target, _move, staged, target, undo, done)
            except BaseException:
                for step in reversed(undo):
                    with contextlib.suppress(OSError):
                        step()
                raise
            self.committed = True
            for step in done:
                with contextlib.suppress(OSError):
                    step()
            for folder in dict.fromkeys(target.parent for _, target in moves):
                _as_output_error(folder, atomic.sync_folder, folder)
            for stage, _, _, _ in self._folders:
                atomic.remove_tree(stage)

    def abort(self) -> None:
        """Remove every staged file and folder, and the folders made for them (a stop
        signal meanwhile waits until they are gone); once committed, the emptied staging
        folders only; nothing a second time."""
        if self._removed:
            return
        with stops.held_stop_signals():
            for staged, _ in self._files:
                atomic.remove_file(str(staged))
            for stage, _, _, _ in self._folders:
                atomic.remove_tree(stage)
            atomic.remove_folders(self._created)
            self._removed = True

    def _shown(self, error: OutputError) -> OutputError:
        """``error`` naming the output as given rather than its temporary name."""
        for staged, shown in self._files:
            if error.path == str(staged):
                return OutputError(shown, error.reason)
        for stage, shown, _, _ in self._folders:
            inside = error.path[len(str(stage)) :]
            if error.path.startswith(str(stage)) and inside[:1] in ("", os.sep):
                return OutputError(os.path.join(shown, inside.lstrip(os.sep)), error.reason)
        return error


def _as_output_error(path: PathLike, step: Callable, *args) -> None:
    """``step(*args)``; an OSError becomes an OutputError naming ``path``."""
    try:
        step(*args)
    except OSError as err:
        if isinstance(err, OutputError):
            raise
        raise OutputError(path, err.strerror or str(err)) from None


def _move(source: Path, target: Path, undo: list, done: list) -> None:
    """Rename ``source`` onto ``target``. ``undo`` gets the step that puts back what was
    there, ``done`` the step that removes it once every output is in place."""
    if source.is_dir():
        _move_folder(source, target, undo, done)
        return
    existed, backup = os.path.lexists(target), None
    if existed:
        backup = atomic.temp_path(target.parent, target.name, ".old")
        try:
            os.link(target, backup)  # the previous file stays readable under its name
        except OSError:
            backup = None  # (a file system without hard links: no undo for this one)
    try:
        _replace_file(source, target)
    except BaseException:
        if backup is not None:
            atomic.remove_file(str(backup))
        raise
    if not existed:
        undo.append(lambda: os.unlink(target))
    elif backup is not None:
        undo.append(lambda: os.replace(backup, target))
        done.append(lambda: os.unlink(backup))


def _replace_file(source: Path, target: Path) -> None:
    """os.replace; a target on another file system (a link's target) gets a copy beside
    it first."""
    try:
        os.replace(source, target)
        return
    except OSError as err:
        if err.errno != errno.EXDEV:
            raise
    fd, tmp = atomic.create_temp(target, target.parent, target.name)
    os.close(fd)
    try:
        shutil.copyfile(source, tmp)
        with contextlib.suppress(FileNotFoundError):
            os.chmod(tmp, stat.S_IMODE(os.stat(target).st_mode))
        atomic.sync_file(tmp)
        os.replace(tmp, target)
    except BaseException:
        atomic.remove_file(tmp)
        raise


def _move_folder(source: Path, target: Path, undo: list, done: list) -> None:
    """A folder entry is swapped whole (a rewritten ``runs/`` holds no stale files)."""
    try:
        os.rename(source, target)  # absent or empty target
        undo.append(lambda: os.rename(target, source))
        return
    except OSError as err:
        if err.errno not in (errno.ENOTEMPTY, errno.EEXIST):
            raise
    if atomic.exchange(source, target):  # source now holds the previous folder
        undo.append(lambda: atomic.exchange(source, target))
        done.append(lambda: atomic.remove_tree(source))
        return
    replace_folder(source, target)  # (no exchange here: renamed aside, without undo)


def _inside(path: str, folder: str) -> Optional[List[str]]:
    """The parts of ``path`` below ``folder`` (both real paths), None if it is not below."""
    relative = os.path.relpath(path, folder)
    if relative == os.curdir or relative.split(os.sep)[0] == os.pardir:
        return None
    return relative.split(os.sep)


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


def _refuse_foreign_folder(real: Path, shown: PathLike) -> None:
    """OutputError unless folder ``real`` is empty or holds irgauge's results (a manifest
    that names its command): a study replaces its folder whole, and ``--out .`` over a
    folder of the user's own named ``collection`` deleted the files in it."""
    if not any(real.iterdir()):
        return
    found = _identity(real / MANIFEST)
    if found is None or not any(found):
        raise OutputError(
            shown,
            "is a folder of other files (it holds no irgauge manifest.json), which this "
            "output would replace whole; move it or write to another folder",
        )


def _identity(path: Path) -> Optional[tuple]:
    try:
        found = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):  # unreadable, not UTF-8, not JSON: not ours to replace
        return None
    return tuple(found.get(k) for k in MANIFEST_IDENTITY) if isinstance(found, dict) else None


# ---------------------------------------------------------------------- entry points


@contextlib.contextmanager
def staged_outputs(
    out_dir: PathLike, last: Sequence[str] = (MANIFEST,), replace_any: bool = False
) -> Iterator[Path]:
    """Yield a temporary folder whose entries move into ``out_dir`` (see
    :meth:`Outputs.folder`) with the running command's other outputs, or, outside a
    command, when the block ends. A block that fails leaves nothing staged."""
    with _staged(out_dir, lambda outputs: outputs.folder(out_dir, last, replace_any)) as stage:
        yield stage


@contextlib.contextmanager
def replaced_folder(path: PathLike) -> Iterator[Path]:
    """Yield a temporary folder that replaces folder ``path`` whole (see
    :meth:`Outputs.replacing`) with the running command's other outputs, or, outside a
    command, when the block ends. A block that fails leaves nothing staged."""
    with _staged(path, lambda outputs: outputs.replacing(path)) as stage:
        yield stage


@contextlib.contextmanager
def _staged(shown: PathLike, make: Callable[[Outputs], Path]) -> Iterator[Path]:
    try:
        with _joined() as outputs:
            stage = make(outputs)
            try:
                yield stage
            except BaseException:
                outputs.discard(stage)
                raise
    except OSError as err:  # what the block writes is this folder's output
        if isinstance(err, OutputError):
            raise
        raise OutputError(os.fspath(shown), err.strerror or str(err)) from None


@contextlib.contextmanager
def _joined() -> Iterator[Outputs]:
    """The running command's Outputs, committed with its other outputs; outside a command
    one of the block's own, committed when the block ends."""
    outputs = _outputs()
    if outputs is not None:
        yield outputs
        return
    with Outputs() as own:
        yield own


def _outputs() -> Optional[Outputs]:
    """The running command's Outputs (made on first use), None outside a command."""
    slot = output_scope.current()
    if slot is None:
        return None
    if not slot:
        slot.append(Outputs())
    return slot[0]


def current_path(path: PathLike) -> Path:
    """Where the content ``path`` will have once the running command's outputs are
    committed lies now (:meth:`Outputs.current`); ``path`` itself outside a command."""
    slot = output_scope.current()
    return slot[0].current(path) if slot else Path(path)


def current_entries(folder: PathLike) -> Dict[str, Path]:
    """``{name: where it lies now}`` of the entries of ``folder`` once the running
    command's outputs are committed (:meth:`Outputs.entries`)."""
    slot = output_scope.current()
    if slot:
        return slot[0].entries(folder)
    try:
        return {p.name: p for p in sorted(Path(folder).iterdir())}
    except OSError:
        return {}


def final_name(text: str) -> str:
    """``text`` with the running command's staged names replaced by their names after the
    commit (:meth:`Outputs.final_name`)."""
    slot = output_scope.current()
    return slot[0].final_name(text) if slot else text


def output_file(path: PathLike) -> Path:
    """Where to write output file ``path``: a staged name in the running command's outputs
    (:func:`irgauge.io.output_scope.command_outputs`), or ``path`` itself outside a
    command (each write is atomic on its own)."""
    outputs = _outputs()
    return Path(path) if outputs is None else outputs.file(path)


def side_file(path: PathLike, suffix: str) -> Optional[Path]:
    """Where to write the file that goes beside output file ``path`` (``POOL.json``, its
    manifest): :func:`output_file` of ``path + suffix``, or None when ``path`` is standard
    output (``-``), which takes one output: the side file is left out there, as without
    ``-o``, where the printed header carries what it holds (``-.json`` would be a file in
    the current folder that the user never named)."""
    if os.fspath(path) == atomic.STDOUT:
        return None
    return output_file(f"{os.fspath(path)}{suffix}")


def output_folder(path: PathLike, last: Sequence[str] = (), replace_any: bool = True) -> Path:
    """Where to write the entries of output folder ``path``: a staged folder in the running
    command's outputs (see :meth:`Outputs.folder`), or ``path`` itself outside a command."""
    outputs = _outputs()
    return Path(path) if outputs is None else outputs.folder(path, last, replace_any)
