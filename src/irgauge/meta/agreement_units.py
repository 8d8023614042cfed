"""Several qrels side by side: one row per (topic, docno) any of them judges, one column per
qrels, for assessor agreement (:mod:`irgauge.meta.agreement`).

Grades are the levels as read (:func:`irgauge.io.qrels.read_qrels`): integers, ``L<k>`` read
as k, NTCIR letters read as S = 3, A = 2, B = 1. Comparing letters with numbers assumes the
two scales line up; :func:`join_qrels` refuses it unless asked (``mixed_scales``).
"""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError, InputSizeError
from irgauge.io.ids import Ids, as_ids, byte_ranks
from irgauge.io.keys import TopicIndex
from irgauge.io.qrels import NTCIR_LETTER_LEVELS, read_qrels
from irgauge.io.records import Qrels

SCALES = {
    "integer": "integer grades as written",
    "L": "L<k> labels read as grade k",
    "letters": "NTCIR letters read as S = 3, A = 2, B = 1",
    "given": "levels as given in memory (integers)",
}


@dataclass(frozen=True)
class Units:
    """Judged (topic, docno) pairs of K qrels: ``grades[u, k]`` is qrels k's level of unit
    u (NaN where k does not judge it), ``topic[u]`` the unit's index into ``topics``."""

    names: List[str]
    sources: List[str]
    topics: List[str]
    topic: np.ndarray
    grades: np.ndarray
    scales: Dict[str, str]
    notes: List[str]
    qrels: List[Any]  # the Qrels read, to score runs under each


def display_names(sources: Sequence[Any], names: Optional[Sequence[str]] = None):
    """Each qrels' name without directories; equal names made unique (the parent directory,
    else ``#k``). Returns (names, note or None)."""
    if names is not None:
        return _checks.labels(names, "names", len(sources), per="qrels"), None
    plain = [_plain_name(s, k) for k, s in enumerate(sources)]
    if len(set(plain)) == len(plain):
        return plain, None
    parents = [
        "/".join(Path(str(s)).parts[-2:]) if _is_path(s) else p for s, p in zip(sources, plain)
    ]
    chosen = parents if len(set(parents)) == len(parents) else None
    if chosen is None:
        chosen = [f"{p}#{k + 1}" for k, p in enumerate(plain)]
    note = "qrels with equal file names are named " + ", ".join(chosen)
    return chosen, note


def _is_path(source: Any) -> bool:
    return isinstance(source, (str, Path)) and str(source) != "-"


def _plain_name(source: Any, k: int) -> str:
    if _is_path(source):
        return Path(str(source)).name
    return str(getattr(source, "source", None) or f"qrels{k + 1}").split("/")[-1]


def _one_qrels(value: Any) -> bool:
    """Whether ``value`` is one qrels (a path, a mapping, a frame, a Qrels), not a list."""
    one = (str, bytes, os.PathLike, Mapping, Qrels)
    return isinstance(value, one) or hasattr(value, "columns")


def level_scale(source: Any) -> str:
    """How a qrels writes its levels (a key of SCALES): a file by its first data line, and
    so a Qrels read from a file (a judgment group of a -g file, say)."""
    read_from = getattr(source, "source", None) if isinstance(source, Qrels) else None
    if _is_path(read_from) and Path(str(read_from)).is_file():
        source = read_from
    if isinstance(source, dict):
        # a judged value that is no {docno: level} dict is the qrels reader's to refuse
        values = [
            v for judged in source.values() if isinstance(judged, dict) for v in judged.values()
        ]
        return "letters" if values and str(values[0]) in ("S", "A", "B") else "given"
    if not _is_path(source) or Path(str(source)).is_dir():
        return "given"
    from irgauge.io.file_text import first_bytes

    # the start of the file; a pipe keeps it for the qrels reader
    for line in first_bytes(str(source), 1 << 16).splitlines():
        tokens = line.split()
        if not tokens or tokens[0].startswith(b"#"):
            continue
        level = tokens[-1]
        if level in NTCIR_LETTER_LEVELS:
            return "letters"
        return "L" if level.startswith(b"L") and len(level) > 1 else "integer"
    return "integer"


def _check_scales(scales: Dict[str, str], mixed_scales: bool) -> Optional[str]:
    letters = [n for n, s in scales.items() if s == "letters"]
    numbers = [n for n, s in scales.items() if s != "letters"]
    if not (letters and numbers):
        return None
    text = (
        f"qrels {letters[0]} uses NTCIR letters S/A/B (read as 3/2/1) but {numbers[0]} "
        "uses numeric grades"
    )
    if not mixed_scales:
        raise InputError(
            text + ": the scales may not line up; convert one of them, or allow it "
            "(--mixed-scales, mixed_scales=True) to compare S/A/B as 3/2/1",
            letters[0],
        )
    return text + "; compared as 3/2/1 (mixed_scales)"


def join_qrels(
    qrels_list: Sequence[Any],
    names: Optional[Sequence[str]] = None,
    mixed_scales: bool = False,
) -> Units:
    """Read every qrels and line their judgments up by (topic, docno) (exact bytes)."""
    if _one_qrels(qrels_list):  # its characters, topics or rows would be read as qrels
        path = str(qrels_list) if isinstance(qrels_list, (str, os.PathLike)) else None
        raise InputSizeError(
            f"agreement needs a list of at least 2 qrels; got one {type(qrels_list).__name__}",
            path,
        )
    try:
        qrels_list = list(qrels_list)
    except TypeError:
        raise InputError(
            f"agreement needs a list of qrels; got {type(qrels_list).__name__}"
        ) from None
    if len(qrels_list) < 2:
        raise InputSizeError(f"agreement needs at least 2 qrels; got {len(qrels_list)}")
    names, note = display_names(qrels_list, names)
    scales = {n: level_scale(s) for n, s in zip(names, qrels_list)}
    notes = [text for text in (note, _check_scales(scales, mixed_scales)) if text]
    read = [read_qrels(source) for source in qrels_list]
    for name, qrels in zip(names, read):
        if len(qrels) == 0:
            raise InputError("qrels holds no judgments", name)
    index = TopicIndex(Ids.concat([as_ids(q.topics) for q in read]))
    docs = byte_ranks(Ids.concat([as_ids(q.docnos) for q in read])).astype(np.int64)
    n_docs = int(docs.max()) + 1
    keys = index.codes.astype(np.int64) * n_docs + docs
    unique, unit = np.unique(keys, return_inverse=True)
    grades = np.full((len(unique), len(read)), np.nan)
    column = np.repeat(np.arange(len(read)), [len(q) for q in read])
    grades[unit.ravel(), column] = np.concatenate([q.levels for q in read]).astype(float)
    return Units(
        names=list(names),
        sources=[str(getattr(q, "source", s)) for q, s in zip(read, qrels_list)],
        topics=list(index.names),
        topic=unique // n_docs,
        grades=grades,
        scales={n: SCALES[s] for n, s in scales.items()},
        notes=notes,
        qrels=read,
    )
