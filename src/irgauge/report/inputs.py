"""Read the result files a report can hold: evaluation outputs (``irgauge eval`` TSV or
JSON), comparison tables (``irgauge compare --table json``), assessor agreement
(``irgauge agree``: columns a, b, measure, statistic, value, low, high; its JSON adds
``details``), reproducibility studies (``irgauge repro``, by its metadata's method),
topic set size design (``irgauge topics``: columns design, measure, statistic, value) and
any other result written as JSON (``{"metadata", "results"}``) or TSV with ``# key:
value`` metadata lines.

Each reader returns a :class:`ReportInput`: its kind, a title, the metadata and the rows as a
pandas DataFrame. A file that is none of these raises InputError naming it.
"""

from __future__ import annotations

import io
import json
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import numpy as np
import pandas as pd

from irgauge.errors import InputError
from irgauge.io.file_text import read_text, text_lines
from irgauge.io.json_input import parse_json
from irgauge.scores import align, from_frame
from irgauge.scores.matrix import MAX_SCORE
from irgauge.stats.comparison import ComparisonTable

EVAL_COLUMNS = ("run", "measure", "topic", "value")
AGREEMENT_COLUMNS = ("a", "b", "measure", "statistic", "value", "low", "high")
TOPICSET_COLUMNS = ("design", "measure", "statistic", "value")


@dataclass
class ReportInput:
    # "evaluation", "comparison", "agreement", "topicset", "reproducibility" or "result"
    kind: str
    path: Path
    metadata: Dict[str, Any]
    frame: Any  # pandas DataFrame of the rows
    # named tables beside the rows (irgauge agree's JSON: confusion, topic_kappa, ...)
    details: Dict[str, Any] = field(default_factory=dict)


def read_input(path) -> ReportInput:
    """The result file ``path`` (JSON or TSV), classified by its content."""
    path = Path(path)
    text = read_text(path)  # irgauge writes its JSON indented: no line is long
    if text.lstrip().startswith("{"):
        data = parse_json(text, str(path))
        if not isinstance(data, dict) or "results" not in data:
            raise InputError("JSON without a 'results' list: not an irgauge output", str(path))
        _same_keys(data["results"], path)
        metadata, frame = data.get("metadata") or {}, pd.DataFrame(data["results"])
        details = _details(data.get("details"), path)
    else:
        (metadata, frame), details = _read_tsv(text, path), {}
    if metadata.get("method") == "comparison table":
        return ReportInput("comparison", path, metadata, frame)
    if metadata.get("method") == "reproducibility":
        return ReportInput("reproducibility", path, metadata, frame)
    if metadata.get("method") == "agreement" or set(AGREEMENT_COLUMNS) <= set(frame.columns):
        return ReportInput("agreement", path, metadata, frame, details)
    if metadata.get("method") == "topic_set_size" or set(TOPICSET_COLUMNS) == set(frame.columns):
        return ReportInput("topicset", path, metadata, frame)
    if set(EVAL_COLUMNS) <= set(frame.columns):
        return ReportInput("evaluation", path, metadata, _numeric_values(frame, path))
    return ReportInput("result", path, metadata, frame)


def _numeric_values(frame, path: Path):
    """The evaluation rows with their values as numbers; a value that is not one (a NUL, a
    word), or beyond the scores the statistics handle (``MAX_SCORE``, as in score files), is
    refused at its row, counted from 1 after the header."""
    values = pd.to_numeric(frame["value"], errors="coerce")
    bad = (values.isna() & frame["value"].notna()) | (values.abs() > MAX_SCORE)
    if bad.any():
        row = int(np.flatnonzero(bad.to_numpy())[0])
        raise InputError(
            f"value {frame['value'].iloc[row]!r} of row {row + 1} is not a number of at most "
            f"{MAX_SCORE:g} in magnitude",
            str(path),
        )
    return frame.assign(value=values, run=frame["run"].astype(str))


def _details(found: Any, path: Path) -> Dict[str, Any]:
    """``{name: DataFrame}`` of a JSON output's ``details`` (lists of records)."""
    if found is None:
        return {}
    if not isinstance(found, dict) or not all(isinstance(v, list) for v in found.values()):
        raise InputError("'details' is not a set of named tables", str(path))
    return {name: pd.DataFrame(rows) for name, rows in found.items()}


def _read_tsv(text: str, path: Path):
    lines = text_lines(text)
    metadata, first = {}, 0
    for first, line in enumerate(lines):
        if not line.startswith("#"):
            break
        key, _, value = line[1:].strip().partition(":")
        try:
            metadata[key.strip()] = json.loads(value.strip())
        except json.JSONDecodeError:
            metadata[key.strip()] = value.strip()
    else:
        first = len(lines)
    body = "\n".join(lines[first:])
    if not body.strip():
        raise InputError("no rows after the metadata lines", str(path), first + 1)
    if re.match(r"runid\s+all\s", body) or re.search(r"\nrunid\s+all\s", body):
        return metadata, _read_trec(lines, first, path)
    _same_fields(lines, first, path)
    try:
        frame = pd.read_csv(
            io.StringIO(body), sep="\t", dtype={"run": str, "topic": str, "a": str, "b": str}
        )
    except (pd.errors.ParserError, ValueError) as err:
        raise InputError(f"not a tab-separated table ({err})", str(path), first + 1) from None
    if frame.shape[1] < 2:
        raise InputError(
            "not an irgauge result: expected tab-separated columns", str(path), first + 1
        )
    return metadata, frame


def _same_keys(rows: Any, path: Path) -> None:
    """Every result row (a JSON object) with the first row's keys, as every TSV row has
    the header's fields: a row without ``value`` showed as a value left out (-)."""
    if not isinstance(rows, list) or not all(isinstance(row, dict) for row in rows):
        raise InputError("'results' is not a list of rows (JSON objects)", str(path))
    for at, row in enumerate(rows[1:], 2):
        if row.keys() != rows[0].keys():
            differ = sorted(set(row) ^ set(rows[0]))
            raise InputError(
                f"result row {at} has other keys than row 1: {', '.join(differ)}", str(path)
            )


def _same_fields(lines, first: int, path: Path) -> None:
    """Every row as many tab-separated fields as the header line: pandas fills a short
    row's missing cells with NaN, which the report showed as a value left out (-)."""
    wanted = lines[first].count("\t") + 1
    for at in range(first + 1, len(lines)):
        found = lines[at].count("\t") + 1
        if lines[at].strip() and found != wanted:
            raise InputError(
                f"expected {wanted} tab-separated fields as the header line, found {found}",
                str(path),
                at + 1,
            )


def _read_trec(lines, first: int, path: Path):
    """trec_eval's layout (``measure  topic  value``; ``runid  all  NAME`` names the run,
    per-topic blocks come before it with ``-q``) as run, measure, topic, value rows."""
    blocks: List[Tuple[str, list]] = []
    current: list = []
    for number, line in enumerate(lines[first:], first + 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 3:
            raise InputError(
                f"expected 'measure topic value', got {line.strip()!r}", str(path), number
            )
        measure, topic, value = fields
        if measure == "runid":
            blocks.append((value, current))
            current = []
        elif measure != "num_q" or topic != "all":
            try:
                current.append((measure, topic, float(value), number))
            except ValueError:
                raise InputError(
                    f"value {value!r} of {measure} is not a number", str(path), number
                ) from None
    # trec_eval prints runid after the per-topic lines of its run and before its means
    rows: List[Tuple[Optional[str], Any, Any, Any]] = []
    name: Optional[str] = None
    for run, block in blocks:
        if name is not None:  # the block before this runid: previous run's means, this run's
            for measure, topic, value, _ in block:  # per-topic rows
                rows.append((name if topic == "all" else run, measure, topic, value))
        else:
            rows += [(run, m, t, v) for m, t, v, _ in block]
        name = run
    rows += [(name, m, t, v) for m, t, v, _ in current]
    if not rows:
        raise InputError("no scores in trec_eval output", str(path))
    return pd.DataFrame(rows, columns=list(EVAL_COLUMNS))


def evaluation_means(item: ReportInput):
    """Runs x measures table of the means (topic ``all``), runs and measures in file order."""
    frame = item.frame
    means = frame[frame["topic"].astype(str) == "all"]
    if means.empty:  # per-topic rows only: average them
        means = frame.groupby(["run", "measure"], sort=False, as_index=False)["value"].mean()
    wide = means.pivot(index="run", columns="measure", values="value")
    runs = list(dict.fromkeys(means["run"]))
    measures = list(dict.fromkeys(means["measure"]))
    return wide.loc[runs, measures]


def evaluation_matrices(item: ReportInput):
    """Score matrices of an evaluation with per-topic rows (None without them)."""

    per_topic = item.frame[item.frame["topic"].astype(str) != "all"]
    if per_topic.empty or per_topic["run"].nunique() < 2:
        return None
    return align(from_frame(per_topic[list(EVAL_COLUMNS)], source=str(item.path)))


def comparison_from_json(item: ReportInput):
    """Rebuild a :class:`irgauge.stats.comparison.ComparisonTable` from its JSON/CSV rows."""

    meta, frame = item.metadata, item.frame
    runs, measures = list(meta["runs"]), list(meta["measures"])
    shape = (len(runs), len(measures))

    def grid(column):
        out = np.full(shape, np.nan)
        if column in frame:
            for run, measure, value in zip(frame["run"], frame["measure"], frame[column]):
                out[runs.index(str(run)), measures.index(measure)] = (
                    np.nan if value is None else float(value)
                )
        return out

    marks: List[List[List[str]]] = [[[] for _ in measures] for _ in runs]
    sep = "," if max(map(len, meta["labels"])) > 1 else None
    for run, measure, text in zip(frame["run"], frame["measure"], frame["marks"]):
        text = "" if not isinstance(text, str) else text
        marks[runs.index(str(run))][measures.index(measure)] = (
            (text.split(sep) if sep else list(text)) if text else []
        )
    effect = grid("effect_dz") if "effect_dz" in frame else None
    return ComparisonTable(
        runs,
        list(meta["labels"]),
        measures,
        grid("mean"),
        grid("se"),
        grid("low"),
        grid("high"),
        effect,
        marks,
        {},
        {
            k: v
            for k, v in meta.items()
            if k not in ("runs", "labels", "measures", "caption", "method")
        },
    )
