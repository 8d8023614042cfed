"""Render an EvalResult as text: table, tsv, json or trec (trec_eval's layout)."""
from __future__ import annotations

from typing import List

import numpy as np
import pandas as pd

from irgauge.report.tables import metadata_lines, render

EVAL_FORMATS = ("table", "tsv", "json", "trec")


def render_evaluation(result, fmt: str = "table", per_topic: bool = False,
                      digits: int = 4) -> str:
    """The whole output as one string, so that an error never leaves partial output."""
    if fmt == "trec":
        return _trec(result, per_topic, digits)
    if fmt == "table":
        return _table(result, per_topic, digits)
    return render(result.to_frame(per_topic), fmt, result.metadata, digits)


def _is_count(result, measure_name: str) -> bool:
    return any(m.name == measure_name and m.family.integer for m in result.measures)


def _number(value: float, integer: bool, digits: int) -> str:
    if integer and np.isfinite(value):
        return str(int(round(value)))
    return f"{value:.{digits}f}"


def _trec(result, per_topic: bool, digits: int) -> str:
    """trec_eval's `measure<TAB>topic<TAB>value` lines; per-topic blocks before 'all'."""
    lines: List[str] = [metadata_lines(result.metadata).rstrip("\n")]
    integer = {m.name: m.family.integer for m in result.measures}
    for run in dict.fromkeys(result.means["run"]):
        if per_topic:
            rows = result.per_topic[result.per_topic["run"] == run]
            topics = list(dict.fromkeys(rows["topic"]))
            by_topic = {t: g for t, g in rows.groupby("topic", sort=False)}
            for topic in topics:
                for name, value in zip(by_topic[topic]["measure"], by_topic[topic]["value"]):
                    lines.append(f"{name:<22}\t{topic}\t{_number(value, integer[name], digits)}")
        lines.append(f"{'runid':<22}\tall\t{run}")
        lines.append(f"{'num_q':<22}\tall\t{result.metadata['topics_averaged'][run]}")
        means = result.means[result.means["run"] == run]
        for name, value in zip(means["measure"], means["value"]):
            lines.append(f"{name:<22}\tall\t{_number(value, integer[name], digits)}")
    return "\n".join(lines) + "\n"


def _table(result, per_topic: bool, digits: int) -> str:
    names = [m.name for m in result.measures]
    if per_topic:
        frame = result.to_frame(True).pivot_table(index=["run", "topic"], columns="measure",
                                                  values="value", sort=False)
        frame = frame[names].reset_index()
    else:
        frame = result.table().reset_index()
    for name in names:
        if _is_count(result, name):
            frame[name] = frame[name].map(lambda v: _number(v, True, digits))
    frame.columns = [str(c) for c in frame.columns]
    return render(pd.DataFrame(frame), "table", result.metadata, digits)
