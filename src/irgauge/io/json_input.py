"""JSON read as every other input is: errors name the file and, where one is known, the
line; a key given twice in one object is refused (Python's parser keeps the last value and
drops the first without a word: a topic's answers, a class or a result would vanish)."""

from __future__ import annotations

import json
import re
from typing import Any, Dict, List, Optional, Tuple

from irgauge.errors import InputError
from irgauge.io.file_names import PathLike
from irgauge.io.file_text import read_text


class _RepeatedKey(ValueError):
    def __init__(self, key: str):
        super().__init__(key)
        self.key = key


def _refuse_repeats(pairs: List[Tuple[str, Any]]) -> Dict[str, Any]:
    found: Dict[str, Any] = {}
    for key, value in pairs:
        if key in found:
            raise _RepeatedKey(key)
        found[key] = value
    return found


def parse_json(text: str, name: str) -> Any:
    """The value of the JSON document ``text`` (read from ``name``); invalid JSON and a key
    repeated within one object are InputErrors naming ``name`` and the line."""
    try:
        return json.loads(text, object_pairs_hook=_refuse_repeats)
    except _RepeatedKey as err:
        raise InputError(
            f"key {err.key!r} given twice in one JSON object (which value counts?)",
            name,
            _repeat_line(text, err.key),
        ) from None
    except json.JSONDecodeError as err:
        raise InputError(f"not valid JSON ({err.msg})", name, err.lineno) from None
    except RecursionError:
        raise InputError("JSON nested too deeply", name) from None


def _repeat_line(text: str, key: str) -> Optional[int]:
    """The line of the key's second spelling, when the key is written exactly twice in the
    whole text (otherwise the repeat cannot be told from the same key in other objects)."""
    spelled = re.compile(re.escape(json.dumps(key)) + r"\s*:")
    starts = [m.start() for m in spelled.finditer(text)]
    if len(starts) != 2:
        return None
    return text.count("\n", 0, starts[1]) + 1


def read_json_object(path: PathLike) -> Dict[str, Any]:
    """The JSON object of the file ``path`` (a manifest or a marker irgauge wrote), read
    through the shared reader (NUL bytes, bytes that are not UTF-8, an empty file refused
    at FILE:LINE); anything but an object is refused naming the file."""
    text = read_text(path)
    if not text.strip():
        raise InputError("file is empty", str(path))
    data = parse_json(text, str(path))
    if not isinstance(data, dict):
        raise InputError(f"expected a JSON object, found a {type(data).__name__}", str(path))
    return data
