"""Short summaries of results for the REPL and notebooks, like a DataFrame's head: the
shape, the measures, the conventions and the first rows; never the whole table."""

from __future__ import annotations

import html
from typing import Any, Dict, List, Sequence
from irgauge.io.words import counted

HEAD_ROWS = 5
HEAD_COLUMNS = 6
VALUE_LIMIT = 60


def _short(value: Any, limit: int = VALUE_LIMIT) -> str:
    text = ", ".join(map(str, value)) if isinstance(value, (list, tuple)) else str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _names(names: Sequence[str], limit: int = HEAD_COLUMNS) -> str:
    shown = ", ".join(map(str, names[:limit]))
    return shown + (f", … ({len(names)} in all)" if len(names) > limit else "")


def _head(frame, digits: int = 4):
    """The first rows and columns of ``frame`` and what was left out."""
    part = frame.iloc[:HEAD_ROWS, :HEAD_COLUMNS]
    more = []
    if len(frame) > HEAD_ROWS:
        more.append(f"{len(frame) - HEAD_ROWS} more rows")
    if frame.shape[1] > HEAD_COLUMNS:
        more.append(f"{frame.shape[1] - HEAD_COLUMNS} more columns")
    return part, more


def _eval_lines(result) -> Dict[str, str]:
    meta = result.metadata
    runs = list(dict.fromkeys(result.means_columns["run"]))
    topics = meta.get("topics_averaged", {})
    counts = sorted(set(topics.values()))
    n_topics = (
        str(counts[0]) if len(counts) == 1 else f"{counts[0]}–{counts[-1]}" if counts else "0"
    )
    return {
        "shape": (
            f"{counted(len(runs), 'run')} x {counted(len(result.measures), 'measure')}, "
            f"{counted(n_topics, 'topic')} averaged"
        ),
        "measures": _names([m.name for m in result.measures]),
        "conventions": _short(
            f"order {meta.get('order', '?').split(':')[0]}, aggregate "
            f"{str(meta.get('aggregate', '?')).split(' ')[0]}, empty topics "
            f"{meta.get('empty_topics')}, complete {meta.get('complete')}",
            90,
        ),
    }


def eval_summary(result) -> str:
    """A few lines: shape, measures, conventions and the head of the means table."""
    lines = [
        f"<EvalResult: {v}>" if k == "shape" else f"  {k}: {v}"
        for k, v in _eval_lines(result).items()
    ]
    if len(result.means_columns["run"]):
        part, more = _head(result.table())
        lines += ["  " + line for line in part.to_string(float_format="{:.4f}".format).splitlines()]
        if more:
            lines.append("  … " + ", ".join(more) + " (.table(), .per_topic, .metadata)")
    return "\n".join(lines)


def _html_block(title: str, items: Dict[str, str], frame=None) -> str:
    esc = html.escape
    rows = "".join(
        f"<tr><th style='text-align:left'>{esc(k)}</th><td style='text-align:left'>"
        f"{esc(v)}</td></tr>"
        for k, v in items.items()
    )
    out = f"<div><strong>{esc(title)}</strong><table>{rows}</table>"
    if frame is not None:
        part, more = _head(frame)
        out += part.to_html(float_format="{:.4f}".format, border=0)
        if more:
            out += f"<p>… {esc(', '.join(more))}</p>"
    return out + "</div>"


def eval_summary_html(result) -> str:
    items = _eval_lines(result)
    frame = result.table() if len(result.means_columns["run"]) else None
    return _html_block("EvalResult", items, frame)


def _parameters(parameters: Dict[str, Any]) -> str:
    return _short(
        "; ".join(f"{k} {_short(v, 24)}" for k, v in parameters.items() if not isinstance(v, dict)),
        120,
    )


def _table_summary(title: str, items: Dict[str, str], table, hint: str) -> str:
    """``<title: shape>``, the other items, then the head of ``table``."""
    lines: List[str] = [f"<{title}: {items['shape']}>"]
    lines += [f"  {k}: {v}" for k, v in items.items() if k != "shape"]
    part, more = _head(table)
    lines += [
        "  " + line
        for line in part.to_string(index=False, float_format="{:.4f}".format).splitlines()
    ]
    if more:
        lines.append("  … " + ", ".join(more) + f" ({hint})")
    return "\n".join(lines)


def _meta_lines(result) -> Dict[str, str]:
    table = result.table
    return {
        "shape": f"table of {counted(table.shape[0], 'row')} x "
        f"{counted(table.shape[1], 'column')}; "
        f"{counted(len(result.systems), 'system')}, {counted(len(result.topics), 'topic')}",
        "parameters": _parameters(result.parameters),
        **({"details": _names(list(result.details))} if result.details else {}),
        # in full: a note names what the table's NaN values leave undefined
        **(
            {"notes": "; ".join(result.parameters["notes"])} if "notes" in result.parameters else {}
        ),
    }


def meta_summary(result) -> str:
    return _table_summary(
        f"MetaResult {result.method}",
        _meta_lines(result),
        result.table,
        ".table, .details, .parameters",
    )


def meta_summary_html(result) -> str:
    return _html_block(f"MetaResult: {result.method}", _meta_lines(result), result.table)


def _incomplete_lines(result) -> Dict[str, str]:
    return {
        "shape": (
            f"table of {counted(result.table.shape[0], 'row')} x "
            f"{counted(result.table.shape[1], 'column')}"
        ),
        "parameters": _parameters(result.metadata),
    }


def incomplete_summary(result) -> str:
    return _table_summary(
        "IncompleteResult", _incomplete_lines(result), result.table, ".table, .metadata, .reduction"
    )


def incomplete_summary_html(result) -> str:
    return _html_block("IncompleteResult", _incomplete_lines(result), result.table)
