"""The ecosystem's data structures as irgauge's inputs, by duck typing (no dependency).

Accepted for qrels and runs, besides paths, ``{qid: {docno: value}}`` dicts and irgauge's
own Qrels/Run (which pass through unchanged to ``io``):

- DataFrames with ir_measures' columns (``query_id``, ``doc_id``, ``relevance`` /
  ``score``) or PyTerrier's (``qid``, ``docno``, ``label`` / ``score``, ``rank``);
- iterables of namedtuples or records with those fields (ir_datasets ``TrecQrel`` /
  ``ScoredDoc``, ir_measures ``Qrel`` / ``ScoredDoc``);
- ranx ``Qrels`` / ``Run`` (anything with ``to_dict()`` whose class is named so).

Each is checked here and turned into a DataFrame with canonical columns or a dict; a bad
shape raises InputError naming what was expected and what was found. A DataFrame passes
through :func:`qrels_source` / :func:`run_source` as it is: the readers
(``io.read_qrels`` / ``io.read_run``) take it through :func:`adapted_frame`, once.
"""

from __future__ import annotations

import math
import os
from collections.abc import Iterable, Mapping
from numbers import Integral
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.io.records import AGGREGATE_TOPIC, IdKeys, Qrels, Run, aggregate_topic_error

TOPIC = ("query_id", "qid", "topic")
DOC = ("doc_id", "docno", "doc")
LEVEL = ("relevance", "label", "rel", "level", "grade")
SCORE = ("score",)
QRELS_FIELDS = {"query_id": TOPIC, "doc_id": DOC, "relevance": LEVEL}
RUN_FIELDS = {"query_id": TOPIC, "doc_id": DOC, "score": SCORE}
EXPECTED = {
    "qrels": "query_id, doc_id, relevance (ir_measures) or qid, docno, label (PyTerrier)",
    "run": "query_id, doc_id, score (ir_measures) or qid, docno, score (PyTerrier)",
}


def is_frame(obj: Any) -> bool:
    return hasattr(obj, "columns") and hasattr(obj, "iloc")


def _is_ranx(obj: Any, kind: str) -> bool:
    return (
        type(obj).__name__ == kind
        and hasattr(obj, "to_dict")
        and type(obj).__module__.split(".")[0] == "ranx"
    )


def _is_record(obj: Any, fields: dict) -> bool:
    """A namedtuple or object carrying one field of each group."""
    return not isinstance(obj, (str, bytes, Mapping)) and all(
        any(hasattr(obj, name) for name in names) for names in fields.values()
    )


def _passes_through(obj: Any) -> bool:
    """What ``io``'s readers take as it is (a DataFrame they adapt themselves)."""
    return isinstance(obj, (str, os.PathLike, Mapping, Qrels, Run)) or is_frame(obj)


KINDS = {  # what -> (fields, ranx class, the other forms accepted)
    "qrels": (QRELS_FIELDS, "Qrels", "{qid: {docno: level}} dict, qrels records or ranx Qrels"),
    "run": (RUN_FIELDS, "Run", "{qid: {docno: score}} dict, scored-document records or a ranx Run"),
}


def qrels_source(obj: Any) -> Any:
    """Qrels in any accepted form -> something ``io.read_qrels`` reads."""
    return _source(obj, "qrels")


def run_source(obj: Any) -> Any:
    """One run in any accepted form -> something ``io.read_run`` reads."""
    return _source(obj, "run")


def _source(obj: Any, what: str) -> Any:
    fields, ranx_class, others = KINDS[what]
    if _passes_through(obj):
        return obj
    if _is_ranx(obj, ranx_class):
        return _plain_dict(obj.to_dict())
    if isinstance(obj, Iterable):
        return _records(list(obj), fields, what)
    raise InputError(
        f"{what} must be a path, a DataFrame ({EXPECTED[what]}), a {others}; "
        f"got {type(obj).__name__}"
    )


def _is_one_run(obj: Any) -> bool:

    if isinstance(obj, (str, os.PathLike, Run)) or is_frame(obj) or _is_ranx(obj, "Run"):
        return True
    return isinstance(obj, Sequence) and len(obj) > 0 and _is_record(obj[0], RUN_FIELDS)


def run_sources(runs: Any) -> List[Tuple[Any, Optional[str]]]:
    """(source, name or None) for each run given (one run, a list of runs or a
    ``{name: run}`` mapping), each made readable by ``io.read_run``."""
    if (
        isinstance(runs, Iterable)
        and not isinstance(runs, (str, os.PathLike, Mapping, Sequence))
        and not is_frame(runs)
        and not _is_ranx(runs, "Run")
    ):
        runs = list(runs)  # a generator of records or of runs: read it once
    if _is_one_run(runs):
        return [(run_source(runs), _ranx_name(runs))]
    if isinstance(runs, Mapping):
        values = list(runs.values())
        first = values[0] if values else None
        # a run that retrieved nothing ({}) says nothing of the nesting: look past it
        filled = next((v for v in values if not isinstance(v, Mapping) or v), None)
        nested = isinstance(filled, Mapping) and isinstance(next(iter(filled.values())), Mapping)
        if nested or (first is not None and not isinstance(first, Mapping)):
            # the names as every name irgauge is given: text or integers, none empty
            # (the run's tag stood in for ''), 1 and '1' not two runs
            names = _checks.labels(list(runs), "runs (the names of the mapping)")
            return [(run_source(source), name) for name, source in zip(names, values)]
        return [(runs, None)]
    if not isinstance(runs, Iterable) or isinstance(runs, str):
        raise InputError(
            f"runs must be a run, a list of runs or a {{name: run}} mapping; got "
            f"{type(runs).__name__}"
        )
    return [(run_source(r), _ranx_name(r)) for r in runs]


def _ranx_name(obj: Any) -> Optional[str]:
    name = getattr(obj, "name", None) if _is_ranx(obj, "Run") else None
    return str(name) if name else None


def _plain_dict(mapping: Mapping) -> dict:
    topic_id = IdKeys("ranx dict", "<ranx>", topics=True)
    out = {}
    for q, docs in mapping.items():
        doc_id = IdKeys(f"documents of topic {q!r}", "<ranx>", topics=False)
        out[topic_id(q)] = {doc_id(d): v for d, v in docs.items()}
    return out


def _column_labels(frame: Any, what: str) -> dict:
    labels = list(frame.columns)
    odd = [c for c in labels if not isinstance(c, str)]
    if odd:
        raise InputError(
            f"{what} DataFrame has column labels {', '.join(map(repr, labels))}, "
            f"not names (read with header=None?); it needs the columns "
            f"{EXPECTED[what]}",
            "<DataFrame>",
        )
    return {c.lower(): c for c in labels}


def adapted_frame(frame: Any, what: str) -> Any:
    """A ``what`` ("qrels" or "run") DataFrame with the canonical columns (and ``run``
    kept), ids checked."""
    fields = KINDS[what][0]
    columns = _column_labels(frame, what)
    chosen = {}
    for canonical, names in fields.items():
        candidates = [c for c in frame.columns if c.lower() in names]
        if len(candidates) > 1:
            raise InputError(
                f"{what} DataFrame has columns {candidates[0]!r} and {candidates[1]!r}, which "
                f"both name the {canonical}; keep one of them",
                "<DataFrame>",
            )
        found = candidates[0] if candidates else None
        if found is None:
            raise InputError(
                f"{what} DataFrame needs a column {' or '.join(names)} (expected "
                f"{EXPECTED[what]}); found {', '.join(map(str, frame.columns))}",
                "<DataFrame>",
            )
        chosen[canonical] = found
    out = frame[list(chosen.values())].copy()
    out.columns = list(chosen)
    for extra in ("run",):
        if extra in columns:
            out[extra] = frame[columns[extra]].to_numpy()
    for key in ("query_id", "doc_id"):
        out[key] = id_column(out[key], chosen[key], what)
    _refuse_aggregate_rows(out["query_id"], chosen["query_id"], what)
    return out


def _refuse_aggregate_rows(series: Any, label: str, what: str) -> None:
    hits = (series == AGGREGATE_TOPIC).to_numpy().nonzero()[0]
    if len(hits):
        where = f" (row {int(hits[0])}, column {label!r} of the {what} DataFrame)"
        raise aggregate_topic_error(where, "<DataFrame>")


def id_column(series: Any, label: str, what: str) -> Any:
    """Ids as strings; a missing id (NaN/None) is an error; 101.0 (ints made float by a
    missing value elsewhere) reads as 101; ids of other types (101.5, True, a date) are
    refused, as a table's are."""
    missing = series.isna().to_numpy()
    if missing.any():
        row = int(missing.argmax())
        raise InputError(
            f"{what} DataFrame: row {row} has no value in column {label!r} "
            "(NaN); every id must be given",
            "<DataFrame>",
        )
    if hasattr(series, "cat"):  # categorical: its values, as the categories hold them
        series = series.astype(series.cat.categories.dtype)
    kind = series.dtype.kind
    if kind == "f":
        fraction = (series % 1 != 0).to_numpy()
        if fraction.any():
            _refuse_id_value(series, int(fraction.argmax()), label, what)
        series = series.astype("int64")
    elif kind == "O":
        refuse_mixed_ids(series, label, what)
    elif kind not in "iuUS":
        _refuse_id_value(series, 0, label, what)
    return series.map(_id_text) if kind in "OS" else series.astype(str)


def _id_text(value: Any) -> str:
    return value.decode("utf-8", "surrogateescape") if isinstance(value, bytes) else str(value)


def _is_id_value(value: Any) -> bool:
    return isinstance(value, (str, bytes, Integral)) and not isinstance(value, (bool, np.bool_))


def _refuse_id_value(series: Any, row: int, label: str, what: str) -> None:
    value = series.iloc[row]
    raise InputError(
        f"{what} DataFrame: column {label!r} holds {value!r} ({type(value).__name__}, row "
        f"{row}); ids are strings or integers",
        "<DataFrame>",
    )


def refuse_mixed_ids(series: Any, label: str, what: str) -> None:
    """Values of different types that read as one id (``1`` and ``'1'``) are refused, and
    values that are no id (a float, None, a tuple)."""
    from pandas.api.types import infer_dtype  # a DataFrame was given: pandas is there

    if infer_dtype(series, skipna=False) in ("string", "integer", "bytes"):
        return  # one type: no two values read alike
    first: dict = {}
    for row, value in enumerate(series.tolist()):
        if not _is_id_value(value):
            _refuse_id_value(series, row, label, what)
        ident = _id_text(value)
        earlier = first.setdefault(ident, value)
        if type(earlier) is not type(value):
            raise InputError(
                f"{what} DataFrame: column {label!r} holds {earlier!r} and {value!r} "
                f"(row {row}), which name the same id {ident!r}; give ids as one type",
                "<DataFrame>",
            )


def as_score(value: Any) -> Optional[float]:
    """``value`` as a score (float), or None when it is no number: a str or a bool is
    not a score, as a table's string or boolean column is not a score column."""
    if isinstance(value, (str, bytes, bool, np.bool_)):
        return None
    try:
        return float(value)
    except (TypeError, ValueError, OverflowError):
        return None


def frame_scores(series: Any, name: str) -> np.ndarray:
    """A run DataFrame's score column as float64, refused at its first row that holds no
    number."""
    kind = series.dtype.kind
    if kind == "O":
        odd = next((i for i, v in enumerate(series.tolist()) if as_score(v) is None), None)
    else:
        odd = None if kind in "iuf" else 0
    if odd is not None and len(series):
        value = series.iloc[odd]
        raise InputError(
            f"run {name!r}: row {odd} of column 'score' holds {value!r} "
            f"({type(value).__name__}); scores are numbers",
            "<DataFrame>",
        )
    return series.to_numpy(np.float64, na_value=np.nan)


def _records(items: list, fields: dict, what: str) -> dict:
    """``{qid: {docno: value}}`` from namedtuple-like records; duplicates are errors."""
    if not items:
        raise InputError(f"{what} records: none given")
    first = items[0]
    if not _is_record(first, fields):
        raise InputError(
            f"{what} records need the fields {EXPECTED[what]} (as ir_datasets' "
            f"and ir_measures' namedtuples); the first item is "
            f"{type(first).__name__} {first!r}"
        )
    names = [next(n for n in group if hasattr(first, n)) for group in fields.values()]
    out: dict = {}
    count = 0
    for i, item in enumerate(items):
        try:
            topic, doc, value = (getattr(item, n) for n in names)
        except AttributeError:
            raise InputError(
                f"{what} record {i} lacks one of the fields {', '.join(names)}: {item!r}"
            ) from None
        for field_name, ident in ((names[0], topic), (names[1], doc)):
            if ident is None or (isinstance(ident, float) and math.isnan(ident)):
                raise InputError(f"{what} record {i} has no {field_name}: {item!r}")
        if str(topic) == AGGREGATE_TOPIC:
            raise aggregate_topic_error(f" (in {what} record {i})")
        out.setdefault(str(topic), {})[str(doc)] = value
        count += 1
    if sum(len(v) for v in out.values()) != count:
        raise InputError(f"{what} records name a (topic, document) pair more than once")
    return out
