"""Shared helpers of the QA readers: UTF-8 lines with their numbers, levels."""

from __future__ import annotations

import re
from typing import Any, List, Optional, Sequence, Tuple

from irgauge.errors import InputError
from irgauge.io.file_text import decode_text, first_bytes, read_bytes, read_text, text_lines
from irgauge.io.json_input import parse_json
from irgauge.io.words import counted

LETTER_LEVELS = {"S": 3, "A": 2, "B": 1}
_LEVEL = re.compile(r"^L(\d+)$")
_INTEGER = re.compile(r"^[+-]?\d+$")


def read_lines(path) -> List[Tuple[int, str]]:
    """(line number, text) of every non-blank line, decoded as UTF-8 (a BOM is dropped)."""
    text = read_text(path)  # a line over 1 MiB is refused as soon as it is read
    return [(i, line) for i, line in enumerate(text_lines(text), start=1) if line.strip()]


# The QA JSON layouts nest at most 4 deep ({topic: [{"answers": [...]}]}); anything deeper
# is refused before parsing (a 100,000-deep file would exhaust Python's recursion limit).
MAX_JSON_DEPTH = 8
MAX_JSON_BYTES = 1 << 30


def read_json(path) -> Any:
    data = read_bytes(path, limit=MAX_JSON_BYTES)
    text = decode_text(data, str(path))
    _check_depth(text, str(path))
    return parse_json(text, str(path))


def _check_depth(text: str, path: str) -> None:
    """InputError at the line where brackets (outside strings) nest deeper than allowed."""
    # strip string literals (with their escapes) so brackets inside answers do not count
    bare = re.sub(r'"(?:[^"\\]|\\.)*"', '""', text)
    depth = 0
    for match in re.finditer(r"[\[\]{}]", bare):
        depth += 1 if match.group() in "[{" else -1
        if depth > MAX_JSON_DEPTH:
            line = bare.count("\n", 0, match.start()) + 1
            raise InputError(
                f"JSON nested deeper than {counted(MAX_JSON_DEPTH, 'level')}", path, line
            )


def chosen_format(
    fmt: str, formats: Sequence[str], what: str, path: str, detect
) -> Tuple[str, Optional[List[Tuple[int, str]]]]:
    """(format, lines): ``fmt`` if one of ``formats``; for ``auto``, ``json`` when the file
    starts with ``{``/``[``, else what ``detect(lines)`` finds. The lines (None for JSON)
    are read once, here: standard input or a pipe cannot be read a second time."""
    if fmt not in formats:
        raise InputError(f"unknown {what} format {fmt!r}; choose from {', '.join(formats)}")
    if fmt == "json" or (fmt == "auto" and first_bytes(path).lstrip()[:1] in (b"{", b"[")):
        return "json", None
    lines = read_lines(path)
    return (detect(lines) if fmt == "auto" else fmt), lines


def parse_level(token: Any, path: str, line: Any) -> int:
    """Correctness level from ``L<k>``, NTCIR's S/A/B (3/2/1) or an integer (< 0 means 0)."""
    if isinstance(token, bool):
        token = str(token)
    if isinstance(token, int):
        return max(int(token), 0)
    text = str(token).strip()
    match = _LEVEL.match(text)
    if match:
        return int(match.group(1))
    if text in LETTER_LEVELS:
        return LETTER_LEVELS[text]
    if _INTEGER.match(text):
        return max(int(text), 0)
    raise InputError(
        f"unknown correctness level {text!r}; expected L0, L1, ..., S, A, B or an integer",
        path,
        line,
    )
