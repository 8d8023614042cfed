"""Errors raised for bad input or a failed write: each names the file, the line and the
problem."""

from __future__ import annotations

import os
from typing import Any, Optional, Tuple, Union


class InputError(ValueError):
    """Bad input data or a bad argument. The CLI prints it and exits with status 2.

    ``line`` is a position in ``path``: a line of a text file (``FILE:LINE: problem``), or,
    with ``unit="row"``, a row of a table (``FILE: row N: problem``), which has no lines.
    ``parameter`` names the Python parameter whose value is refused, if one is: the command
    line names its option instead (``--min-diff`` for ``min_diff``)."""

    def __init__(
        self,
        problem: str,
        path: Optional[str] = None,
        line: Optional[int] = None,
        unit: str = "line",
        parameter: Optional[str] = None,
    ):
        self.problem = problem
        self.path = path
        self.line = line
        self.unit = unit
        self.parameter = parameter
        super().__init__(str(self))

    def __str__(self) -> str:
        where = ""
        if self.unit != "line" and self.line is not None:
            where = f"{self.path}: " if self.path is not None else ""
            return f"{where}{self.unit} {self.line}: {self.problem}"
        if self.path is not None:
            where = f"{self.path}:"
            if self.line is not None:
                where += f"{self.line}:"
            where += " "
        return f"{where}{self.problem}"


class InputSizeError(InputError):
    """Too little data for a method (too few topics or systems). It is raised where the
    data are counted, below the layer that read them from files: the command line names
    the command's input files when the error names no file (``irgauge.cli``)."""


class MeasureError(ValueError):
    """An unknown measure name or a bad measure parameter (CLI exit status 2)."""


class UserCodeError(MeasureError):
    """Code irgauge runs but did not write failed: a registered measure or a measure
    plugin raised, returned anything but one finite real number per (run, topic), or could
    not be imported. Names the measure, where it came from (``origin``: the plugin, or the
    function registered from Python) and, where known, the topic and the run; the user's
    own exception is chained (``__cause__``). CLI exit status 2."""

    def __init__(
        self,
        problem: str,
        measure: Optional[str] = None,
        origin: str = "",
        topic: Optional[str] = None,
        run: Optional[str] = None,
    ):
        self.problem, self.measure, self.origin = problem, measure, origin
        self.topic, self.run = topic, run
        self.row: Optional[int] = None  # the batch row of the first bad value
        super().__init__(str(self))

    def __str__(self) -> str:
        who = f"measure {self.measure}" if self.measure is not None else "measure plugin"
        where = f" ({self.origin})" if self.origin else ""
        if self.topic is not None:
            where += f", topic {self.topic}" + (f" of run {self.run}" if self.run else "")
        return f"{who}{where}: {self.problem}"

    def __reduce__(self) -> Tuple[type, Tuple[Any, ...]]:
        # raised on a Dask worker, it is pickled back to the client with its fields
        return type(self), (self.problem, self.measure, self.origin, self.topic, self.run)


class OutputError(OSError):
    """A file or folder could not be written; names the path (CLI exit status 1)."""

    def __init__(self, path: Union[str, "os.PathLike[str]"], reason: str) -> None:
        self.path = str(path)
        self.reason = reason
        super().__init__(f"cannot write {self.path}: {reason}")

    def __str__(self) -> str:
        return f"cannot write {self.path}: {self.reason}"
