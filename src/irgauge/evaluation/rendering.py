"""Render an EvalResult as text: table, tsv, json or trec (trec_eval's layout)."""

from __future__ import annotations

import json
import math
from json.encoder import encode_basestring_ascii as _json_string
from typing import Iterator, Tuple

import numpy as np

from irgauge import _checks
from irgauge.io.tables import metadata_lines, render

EVAL_FORMATS = ("table", "tsv", "json", "trec")
LISTED = 5  # topic ids shown in a text header before the count of the rest
ROWS_PER_BLOCK = 1 << 16  # rows of output text made at a time


def brief_metadata(metadata: dict) -> dict:
    """Metadata for the ``#`` lines of TSV and trec output: a long list of topics (missing,
    skipped, unknown) becomes its first LISTED ids and a count, so that the header of a
    10,000-topic run against 500,000-topic qrels stays a few lines. JSON output keeps the
    full lists; the text table summarises further (irgauge.io.tables.table_header)."""

    def brief(value):
        if isinstance(value, list) and len(value) > LISTED:
            return [*value[:LISTED], f"... {len(value)} in all (full list: --format json)"]
        if isinstance(value, dict):
            return {k: brief(v) for k, v in value.items()}
        return value

    return {key: brief(value) for key, value in metadata.items()}


def render_evaluation(
    result, format: str = "table", per_topic: bool = False, digits: int = 4
) -> str:
    """The whole output as one string: the blocks of :func:`evaluation_blocks` joined."""
    return "".join(evaluation_blocks(result, format, per_topic, digits))


def evaluation_blocks(
    result, format: str = "table", per_topic: bool = False, digits: int = 4
) -> Iterator[str]:
    """The output in blocks: first the header (``#`` lines, and the column names of TSV),
    then rows, at most ROWS_PER_BLOCK per block.

    Per-topic output has topics x measures x runs rows, and its text takes several times
    the memory of the values themselves; written block by block, only the values are held
    (a 300,000-topic run with -q: 1.2 GB peak as one string). Every value is computed
    before the first block is made, so a failure cannot leave half an output. The table
    format is one block: pandas lays out its columns over all rows.
    """
    if format == "trec":
        return _trec(result, per_topic, digits)
    if format == "table":
        return iter([_table(result, per_topic, digits)])
    if format == "tsv":
        return _tsv(result, per_topic)
    if format == "json":
        return _json(result, per_topic)
    _checks.choice(format, "format", EVAL_FORMATS)  # refused: a ValueError escaped
    raise AssertionError(format)  # every format is rendered above


def _row_parts(result, per_topic: bool) -> Iterator[Tuple[list, list, list, list]]:
    """The long tidy rows (run, measure, topic, value) as lists, ROWS_PER_BLOCK at a time:
    per-topic rows first, then the aggregates with topic 'all' (``EvalResult.columns``)."""
    for part in result.row_blocks(per_topic, ROWS_PER_BLOCK):
        for start in range(0, len(part["run"]), ROWS_PER_BLOCK):
            rows = slice(start, start + ROWS_PER_BLOCK)
            yield tuple(
                np.asarray(part[key][rows], dtype=np.float64 if key == "value" else object).tolist()
                for key in ("run", "measure", "topic", "value")
            )


def _tsv(result, per_topic: bool) -> Iterator[str]:
    """Long tidy TSV with full-precision values (repr), conventions as '# key: value'."""
    yield metadata_lines(brief_metadata(result.metadata)) + "run\tmeasure\ttopic\tvalue\n"
    for runs, names, topics, values in _row_parts(result, per_topic):
        yield "".join(f"{r}\t{m}\t{t}\t{v!r}\n" for r, m, t, v in zip(runs, names, topics, values))


def _json(result, per_topic: bool) -> Iterator[str]:
    """``json.dumps({"metadata": ..., "results": [...]}, indent=2)``, made record by record:
    the same bytes without holding every record as a dict."""
    whole = json.dumps({"metadata": dict(result.metadata), "results": []}, indent=2, default=str)
    opening = whole[: whole.rindex("[]")]
    written = False
    for runs, names, topics, values in _row_parts(result, per_topic):
        records = ",\n".join(map(_json_record, runs, names, topics, values))
        if records:
            yield (",\n" if written else opening + "[\n") + records
            written = True
    yield "\n  ]\n}\n" if written else opening + "[]\n}\n"


def _json_record(run, measure, topic, value) -> str:
    """One record as json.dumps(indent=2) prints it inside the results list."""
    record = {
        "run": run,
        "measure": measure,
        "topic": topic,
        "value": None if value != value else value,
    }
    if not all(isinstance(record[key], str) for key in ("run", "measure", "topic")):
        text = json.dumps(record, indent=2, default=str)
        return "    " + text.replace("\n", "\n    ")
    fields = ",\n".join(
        f"      {_json_string(key)}: {_json_value(item)}" for key, item in record.items()
    )
    return "    {\n" + fields + "\n    }"


def _json_value(value) -> str:
    if isinstance(value, str):
        return _json_string(value)
    if isinstance(value, float) and math.isfinite(value):
        return float.__repr__(value)  # what json.dumps prints, without its call per value
    return json.dumps(value)


def _is_count(result, measure_name: str) -> bool:
    return any(m.name == measure_name and m.family.integer for m in result.measures)


def _number(value: float, integer: bool, digits: int) -> str:
    if integer and np.isfinite(value):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def _trec(result, per_topic: bool, digits: int) -> Iterator[str]:
    """trec_eval's `measure<TAB>topic<TAB>value` lines: each run's topics in qrels order,
    a topic's measures together (trec_eval -q), then its 'all' lines."""
    yield metadata_lines(brief_metadata(result.metadata))
    integer = {m.name: m.family.integer for m in result.measures}
    names = [m.name for m in result.measures]
    values = result.topic_values
    means = result.means_columns
    topics_per_block = max(ROWS_PER_BLOCK // max(len(names), 1), 1)
    for k, run in enumerate(dict.fromkeys(means["run"])):
        if per_topic:
            for topics, matrix in values.by_topic(k, topics_per_block):
                yield _trec_lines(
                    names * len(topics),
                    np.repeat(topics, len(names)).tolist(),
                    matrix.T.ravel().tolist(),
                    integer,
                    digits,
                )
        mine = np.flatnonzero(means["run"] == run)
        yield (
            f"{'runid':<22}\tall\t{run}\n"
            f"{'num_q':<22}\tall\t{result.metadata['topics_averaged'][run]}\n"
            + _trec_lines(
                np.asarray(means["measure"], dtype=object)[mine].tolist(),
                ["all"] * len(mine),
                np.asarray(means["value"], dtype=np.float64)[mine].tolist(),
                integer,
                digits,
            )
        )


def _trec_lines(names: list, topics: list, values: list, integer: dict, digits: int) -> str:
    return "".join(
        f"{name:<22}\t{topic}\t{_number(value, integer[name], digits)}\n"
        for name, topic, value in zip(names, topics, values)
    )


def _table(result, per_topic: bool, digits: int) -> str:
    names = [m.name for m in result.measures]
    if per_topic:
        import pandas as pd

        frame = pd.DataFrame(result.topic_values.wide_columns())
    else:
        frame = result.table().reset_index()
    for name in names:
        if _is_count(result, name):
            frame[name] = frame[name].map(lambda v: _number(v, True, digits))
    frame.columns = [str(c) for c in frame.columns]
    # the text header summarises the metadata itself (irgauge.io.tables.table_header); the
    # rel_level, gains and condensed lines already say what measure_conventions holds
    shown = {k: v for k, v in result.metadata.items() if k != "measure_conventions"}
    return render(frame, "table", shown, digits)
