"""The report page's building blocks: escaped text, paths and links relative to the
report's folder (``ReportPaths``), tables of data and of key-value pairs, and figures
embedded as PNG with links to their other formats."""

from __future__ import annotations

import base64
import html
import json
import math
import os
from pathlib import Path
from typing import Any, Dict, Optional, Sequence, Tuple

import pandas as pd

from irgauge.errors import InputError
from irgauge.io.staging import final_name
from irgauge.io.tables import header


# where the report draws the figures of agree and topics outputs (beside the report)
FIGURES_DIR = "report-figures"


def esc(value: Any) -> str:
    return html.escape(str(value))


class ReportPaths:
    """Turns paths into links and text relative to the report's folder."""

    def __init__(self, base: Path):
        self.base = Path(base).resolve()
        self._figures: Optional[Path] = None

    def figures(self) -> Path:
        """The folder to draw the report's figures in: ``report-figures`` beside the page,
        staged with the page in a command (:func:`irgauge.io.staging.output_folder`), so
        that both appear together or neither; made on first use."""
        if self._figures is None:
            from irgauge.io.staging import output_folder

            self._figures = output_folder(self.base / FIGURES_DIR).resolve()
        return self._figures

    def link(self, path: Path) -> str:
        path = Path(final_name(str(path))).resolve()  # a staged study: its name once committed
        if self._figures is not None and self._figures in path.parents:  # staged: its final name
            path = self.base / FIGURES_DIR / path.relative_to(self._figures)
        return Path(os.path.relpath(path, self.base)).as_posix()

    def text(self, value: Any) -> Any:
        """``value`` (JSON-like) with every absolute path made relative to the report, or
        reduced to its file name when it lies outside the report's folder tree."""
        if isinstance(value, dict):
            return {k: self.text(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self.text(v) for v in value]
        if isinstance(value, str) and os.path.isabs(value) and "\n" not in value:
            path = Path(final_name(value))
            try:
                return path.resolve().relative_to(self.base).as_posix()
            except ValueError:
                return path.name
        return value


def frame_html(frame: pd.DataFrame, digits: int = 4, people: bool = True) -> str:
    def fmt(v: Any) -> str:
        if isinstance(v, float):
            return "–" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    formatted = frame.copy()
    for col in formatted.columns:
        if pd.api.types.is_float_dtype(formatted[col]):
            formatted[col] = formatted[col].map(fmt)
    if people:
        formatted.columns = [header(c) for c in formatted.columns]
    table: str = formatted.to_html(index=False, border=0, classes="data", escape=True, na_rep="–")
    return table


def figure_html(
    path: Path, caption: str, downloads: Sequence[Tuple[str, Path]], paths: ReportPaths
) -> str:
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError as err:  # a figure an input names, missing or unreadable
        raise InputError(f"cannot read figure: {err.strerror}", str(path)) from None
    links = " ".join(
        f'<a href="{esc(paths.link(p))}" download>{esc(ext.upper())}</a>' for ext, p in downloads
    )
    down = f'<span class="download">Download: {links}</span>' if links else ""
    return (
        f'<figure><img alt="{esc(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{esc(caption)} {down}</figcaption></figure>"
    )


def kv_table(items: Dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{esc(header(k))}</th><td>{esc(_short(v))}</td></tr>" for k, v in items.items()
    )
    return f'<table class="data kv">{rows}</table>'


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + " …"


def conventions_html(metadata: Dict[str, Any], paths: ReportPaths) -> str:
    keep = {k: v for k, v in paths.text(metadata).items() if v not in ({}, [], None, "")}
    return '<div class="block"><h3>Conventions and parameters</h3>' + kv_table(keep) + "</div>"
