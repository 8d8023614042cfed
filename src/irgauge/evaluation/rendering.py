"""Render an EvalResult as text: table, tsv, json or trec (trec_eval's layout)."""

from __future__ import annotations

from typing import List

import json

import numpy as np

from irgauge.io.tables import metadata_lines, render

EVAL_FORMATS = ("table", "tsv", "json", "trec")
LISTED = 5  # topic ids shown in a text header before the count of the rest


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


def render_evaluation(result, fmt: str = "table", per_topic: bool = False, digits: int = 4) -> str:
    """The whole output as one string, so that an error never leaves partial output."""
    if fmt == "trec":
        return _trec(result, per_topic, digits)
    if fmt == "table":
        return _table(result, per_topic, digits)
    if fmt == "tsv":
        return _tsv(result, per_topic)
    if fmt == "json":
        return _json(result, per_topic)
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(EVAL_FORMATS)}")


def _tsv(result, per_topic: bool) -> str:
    """Long tidy TSV with full-precision values (repr), conventions as '# key: value'."""
    cols = result.columns(per_topic)
    body = [
        f"{r}\t{m}\t{t}\t{v!r}"
        for r, m, t, v in zip(cols["run"], cols["measure"], cols["topic"], cols["value"].tolist())
    ]
    return (
        metadata_lines(brief_metadata(result.metadata))
        + "run\tmeasure\ttopic\tvalue\n"
        + "".join(line + "\n" for line in body)
    )


def _json(result, per_topic: bool) -> str:
    cols = result.columns(per_topic)
    records = [
        {"run": r, "measure": m, "topic": t, "value": None if v != v else v}
        for r, m, t, v in zip(cols["run"], cols["measure"], cols["topic"], cols["value"].tolist())
    ]
    return (
        json.dumps({"metadata": dict(result.metadata), "results": records}, indent=2, default=str)
        + "\n"
    )


def _is_count(result, measure_name: str) -> bool:
    return any(m.name == measure_name and m.family.integer for m in result.measures)


def _number(value: float, integer: bool, digits: int) -> str:
    if integer and np.isfinite(value):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def _trec(result, per_topic: bool, digits: int) -> str:
    """trec_eval's `measure<TAB>topic<TAB>value` lines; per-topic blocks before 'all'."""
    lines: List[str] = [metadata_lines(brief_metadata(result.metadata)).rstrip("\n")]
    integer = {m.name: m.family.integer for m in result.measures}
    pt, means = result.per_topic_columns, result.means_columns
    for run in dict.fromkeys(means["run"]):
        if per_topic:
            mine = np.flatnonzero(pt["run"] == run)
            # trec_eval -q: each topic's measures together, topics in first-seen order
            topics = list(dict.fromkeys(pt["topic"][mine]))
            rank = {t: i for i, t in enumerate(topics)}
            mine = mine[np.argsort([rank[t] for t in pt["topic"][mine]], kind="stable")]
            for i in mine:
                name = pt["measure"][i]
                lines.append(
                    f"{name:<22}\t{pt['topic'][i]}\t"
                    f"{_number(pt['value'][i], integer[name], digits)}"
                )
        lines.append(f"{'runid':<22}\tall\t{run}")
        lines.append(f"{'num_q':<22}\tall\t{result.metadata['topics_averaged'][run]}")
        for i in np.flatnonzero(means["run"] == run):
            name = means["measure"][i]
            lines.append(f"{name:<22}\tall\t{_number(means['value'][i], integer[name], digits)}")
    return "\n".join(lines) + "\n"


def _table(result, per_topic: bool, digits: int) -> str:
    names = [m.name for m in result.measures]
    if per_topic:
        frame = result.to_frame(True).pivot_table(
            index=["run", "topic"], columns="measure", values="value", sort=False
        )
        frame = frame[names].reset_index()
    else:
        frame = result.table().reset_index()
    for name in names:
        if _is_count(result, name):
            frame[name] = frame[name].map(lambda v: _number(v, True, digits))
    frame.columns = [str(c) for c in frame.columns]
    # the text header summarises the metadata itself (irgauge.io.tables.table_header)
    return render(frame, "table", result.metadata, digits)
