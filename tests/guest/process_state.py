"""A snapshot of the process-wide state a library must leave as it found it, and a readable
field-by-field difference between two snapshots.

Every field is read without being changed (the umask from /proc/self/status, never through
``os.umask``; matplotlib's backend without resolving it, which would import pyplot). A field
that cannot be read on this platform or without an optional package is left out of both
snapshots alike.
"""

from __future__ import annotations

import gc
import importlib
import locale
import logging
import os
import random
import signal
import sys
import threading
import warnings
from typing import Any, Callable, Dict, List, Tuple

import numpy as np

try:  # imported here, before any snapshot: its import sets KMP_DUPLICATE_LIB_OK
    from threadpoolctl import threadpool_info
except ImportError:  # pragma: no cover - the field is left out
    threadpool_info = None

Snapshot = Dict[str, Any]

# Third-party packages whose own first import changes process-wide state (scipy.sparse adds
# a warnings filter, scipy loads a BLAS of its own, ir_measures gives its logger a handler):
# a host that uses irgauge has them loaded by then, and their import-time settings are
# theirs. The tests load them before the first snapshot, so that what differs is irgauge's.
DEPENDENCIES = (
    "numpy",
    "pandas",
    "scipy.stats",
    "scipy.special",
    "scipy.sparse",
    "matplotlib",
    "matplotlib.figure",
    "matplotlib.backends.backend_agg",
    "matplotlib.backends.backend_pdf",
    "matplotlib.backends.backend_svg",
    "ir_measures",
    "distributed",
)


def load_dependencies(skip: Tuple[str, ...] = ()) -> None:
    """Import DEPENDENCIES (but those starting with a name in ``skip``); one not installed
    is left out."""
    for name in DEPENDENCIES:
        if not name.startswith(skip):
            try:
                importlib.import_module(name)
            except ImportError:
                continue


def _umask() -> str:
    with open("/proc/self/status") as status:
        for line in status:
            if line.startswith("Umask:"):
                return line.split()[1]
    raise OSError("no Umask line in /proc/self/status")


def _signal_handlers() -> Dict[str, Any]:
    return {
        signal.Signals(number).name: signal.getsignal(number)
        for number in sorted(signal.valid_signals())
        if number in signal.Signals._value2member_map_
    }


def _logger_state(logger: logging.Logger) -> tuple:
    return (logger.level, tuple(logger.handlers), logger.propagate, logger.disabled)


def _loggers() -> Dict[str, tuple]:
    """Each configured logger: a logger that a first import creates untouched (level NOTSET,
    no handler, propagating, enabled) changes nothing of its host's logging."""
    untouched = (logging.NOTSET, (), True, False)
    found = {"<root>": _logger_state(logging.getLogger())}
    for name, logger in list(logging.Logger.manager.loggerDict.items()):
        if isinstance(logger, logging.Logger) and _logger_state(logger) != untouched:
            found[name] = _logger_state(logger)
    found["<disable>"] = logging.root.manager.disable
    return found


def _numpy_random() -> tuple:
    name, keys, position, has_gauss, cached = np.random.get_state()
    return (name, keys.tobytes(), position, has_gauss, cached)


# matplotlib keeps the font files it has drawn with open, in a bounded cache of its own
FONT_FILES = (".ttf", ".otf", ".ttc", ".afm", ".pfb")


def _resource_tracker_descriptor() -> str:
    """The pipe to multiprocessing's resource tracker: one helper process per interpreter,
    started by the first process pool (Dask's nannies) and kept for later ones."""
    tracker = getattr(
        sys.modules.get("multiprocessing.resource_tracker"), "_resource_tracker", None
    )
    fd = getattr(tracker, "_fd", None)
    return str(fd) if fd is not None else ""


def _open_descriptors() -> Dict[str, str]:
    found = {}
    tracker = _resource_tracker_descriptor()
    for fd in os.listdir("/proc/self/fd"):
        try:
            target = os.readlink(f"/proc/self/fd/{fd}")
        except OSError:  # the descriptor listdir itself used, closed since
            continue
        if fd != tracker and not target.lower().endswith(FONT_FILES):
            found[fd] = target
    return found


def _threads() -> List[str]:
    return sorted(f"{t.name} ({t.ident})" for t in threading.enumerate() if t.is_alive())


def _threadpools() -> List[tuple]:
    if threadpool_info is None:
        raise ImportError("threadpoolctl is not installed")
    return sorted(
        (i.get("internal_api"), i.get("filepath"), i.get("num_threads")) for i in threadpool_info()
    )


def _resource_limits() -> Dict[str, tuple]:
    import resource

    return {
        name: resource.getrlimit(getattr(resource, name)) for name in ("RLIMIT_AS", "RLIMIT_NOFILE")
    }


def _matplotlib() -> Dict[str, Any]:
    """Whether matplotlib and pyplot are loaded; once loaded, the backend as set (read from
    the dict itself: ``rcParams["backend"]`` would resolve an automatic backend by importing
    pyplot), every other rcParam, and pyplot's open figures."""
    found: Dict[str, Any] = {
        "matplotlib imported": "matplotlib" in sys.modules,
        "pyplot imported": "matplotlib.pyplot" in sys.modules,
    }
    if "matplotlib" in sys.modules:
        rc = sys.modules["matplotlib"].rcParams
        found["backend"] = dict.__getitem__(rc, "backend")
        found["rcParams"] = {k: dict.__getitem__(rc, k) for k in dict.keys(rc) if k != "backend"}
    if "matplotlib.pyplot" in sys.modules:
        found["open figures"] = sys.modules["matplotlib.pyplot"].get_fignums()
    return found


FIELDS: Dict[str, Callable[[], Any]] = {
    "os.environ": lambda: dict(os.environ),
    "umask": _umask,
    "current directory": os.getcwd,
    "signal handlers": _signal_handlers,
    "sys.stdin": lambda: sys.stdin,
    "sys.stdout": lambda: sys.stdout,
    "sys.stderr": lambda: sys.stderr,
    "sys.argv": lambda: list(sys.argv),
    "sys.path": lambda: list(sys.path),
    "sys.excepthook": lambda: sys.excepthook,
    "sys.unraisablehook": lambda: sys.unraisablehook,
    "sys.displayhook": lambda: sys.displayhook,
    "recursion limit": sys.getrecursionlimit,
    "switch interval": sys.getswitchinterval,
    "trace and profile functions": lambda: (sys.gettrace(), sys.getprofile()),
    "warnings.filters": lambda: list(warnings.filters),
    "warnings.showwarning": lambda: warnings.showwarning,
    "logging": _loggers,
    "numpy error handling": np.geterr,
    "numpy print options": np.get_printoptions,
    "numpy global random state": _numpy_random,
    "python random state": random.getstate,
    "gc enabled": gc.isenabled,
    "gc thresholds": gc.get_threshold,
    "threads": _threads,
    "matplotlib": _matplotlib,
    "locale": lambda: locale.setlocale(locale.LC_ALL),
    "open file descriptors": _open_descriptors,
    "thread pools": _threadpools,
    "resource limits": _resource_limits,
}


def snapshot() -> Snapshot:
    """Every readable field of FIELDS, by name."""
    found = {}
    for name, read in FIELDS.items():
        try:
            found[name] = read()
        except (ImportError, OSError):  # no threadpoolctl, no /proc, no resource module
            continue
    return found


def _short(value: Any, width: int = 160) -> str:
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _same(a: Any, b: Any) -> bool:
    if a is b:
        return True
    try:
        return bool(a == b)
    except Exception:  # arrays and such compare element-wise: equal only as their reprs
        return repr(a) == repr(b)


def _dict_differences(field: str, before: dict, after: dict) -> List[str]:
    lines = []
    for key in sorted(set(before) | set(after), key=str):
        if key not in after:
            lines.append(f"{field}[{key!r}]: removed (was {_short(before[key])})")
        elif key not in before:
            lines.append(f"{field}[{key!r}]: added {_short(after[key])}")
        elif isinstance(before[key], dict) and isinstance(after[key], dict):
            lines += _dict_differences(f"{field}[{key!r}]", before[key], after[key])
        elif not _same(before[key], after[key]):
            lines.append(f"{field}[{key!r}]: {_short(before[key])} -> {_short(after[key])}")
    return lines


def differences(before: Snapshot, after: Snapshot) -> List[str]:
    """One line per changed field (per changed key of a mapping field), empty when the two
    snapshots agree."""
    lines = []
    for field in FIELDS:
        if field not in before and field not in after:
            continue
        if field not in before or field not in after:
            lines.append(f"{field}: readable {'after' if field in after else 'before'} only")
        elif field == "threads":  # one that ends meanwhile was an earlier test's, winding down
            lines += [f"threads: added {t}" for t in after[field] if t not in before[field]]
        elif field == "open file descriptors":
            # one closed meanwhile may be a file an earlier test left to the collector (a
            # full collection before each snapshot costs seconds in a worker's large heap)
            lines += [
                f"{field}[{fd!r}]: {_short(before[field].get(fd, 'not open'))} -> {_short(target)}"
                for fd, target in after[field].items()
                if before[field].get(fd) != target
            ]
        elif isinstance(before[field], dict) and isinstance(after[field], dict):
            lines += _dict_differences(field, before[field], after[field])
        elif not _same(before[field], after[field]):
            lines.append(f"{field}: {_short(before[field])} -> {_short(after[field])}")
    return lines
