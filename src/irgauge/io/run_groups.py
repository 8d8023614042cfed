"""Which group (team, site) each run belongs to: a TSV of ``run<TAB>group`` lines.

Blank lines and lines starting with ``#`` are skipped, and so is a first line ``run group``
(a header; blank and comment lines may come before it). Fields may be separated by any
whitespace; a run or group name holds none.
"""

from __future__ import annotations

from typing import Dict, Mapping, Optional, Sequence, Union

from irgauge.errors import InputError
from irgauge.io.file_names import file_path
from irgauge.io.file_text import read_text, text_lines

GroupSource = Union[None, str, Mapping[str, str]]


def read_run_groups(source: GroupSource, runs: Sequence[str]) -> Dict[str, str]:
    """``{run: group}`` for every run of ``runs``: from ``source`` (a path or a mapping),
    a run it does not name being a group of its own (named after the run); None: each
    run alone. A name that is not one of ``runs``, or a run named twice, is refused at
    its line."""
    groups = {run: run for run in runs}
    if source is None:
        return groups
    if isinstance(source, Mapping):
        entries = [(str(k), str(v), None) for k, v in source.items()]
        path: Optional[str] = None
    else:
        path = file_path(source, "groups", "groups", "a file path or a {run: group} mapping")
        entries = list(_lines(path))
    known = set(runs)
    seen: Dict[str, Optional[int]] = {}
    for run, group, line in entries:
        if run not in known:
            shown = ", ".join(sorted(known)[:5]) + (" ..." if len(known) > 5 else "")
            raise InputError(
                f"groups name run {run!r}, which is not among the runs given ({shown})",
                path,
                line,
                parameter="groups",
            )
        if run in seen:
            raise InputError(
                f"run {run!r} is given a group twice (also on line {seen[run]})",
                path,
                line,
                parameter="groups",
            )
        seen[run] = line
        groups[run] = group
    return groups


def _lines(path: str):
    first = True  # the header is the first line that is not blank or a comment
    for number, text in enumerate(text_lines(read_text(path)), start=1):
        fields = text.split()
        if not fields or fields[0].startswith("#"):
            continue
        header, first = first and [f.lower() for f in fields] == ["run", "group"], False
        if header:
            continue
        if len(fields) != 2:
            raise InputError(f"expected two fields, run and group; got {len(fields)}", path, number)
        yield fields[0], fields[1], number


__all__ = ["read_run_groups"]
