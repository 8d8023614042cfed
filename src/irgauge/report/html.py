"""One self-contained HTML report of an output folder written by the studies.

``write_report(OUT)`` reads ``OUT/collection/manifest.json`` (collection summary and
evaluation table) and every ``OUT/<study>/manifest.json``, and writes ``OUT/report.html``:
CSS inline, figures embedded as base64 PNG, tables from the studies' CSV files, no
reference to anything outside the file (it opens offline).
"""
from __future__ import annotations

import base64
import html
import json
import math
from pathlib import Path
from typing import Any, Dict, List, Optional

import pandas as pd

REPORT_NAME = "report.html"
STUDY_ORDER = ("onerel", "incomplete", "qa", "predictive")

CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;
       color: #222; background: #fafafa; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5em 2em; background: #fff; }
h1 { font-size: 1.7em; border-bottom: 3px solid #2c5d8f; padding-bottom: .3em; }
h2 { font-size: 1.35em; color: #2c5d8f; margin-top: 2em; border-bottom: 1px solid #ccd; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
table.data { border-collapse: collapse; margin: .4em 0 1.2em; font-size: .88em; }
table.data th, table.data td { padding: .25em .7em; border-bottom: 1px solid #e3e3ea; }
table.data th { background: #eef2f7; text-align: left; }
table.data td { text-align: right; font-variant-numeric: tabular-nums; }
table.data td:first-child { text-align: left; }
ul.summary li { margin: .25em 0; }
.summary { background: #f3f7fb; border-left: 4px solid #2c5d8f; padding: .6em 1.5em; }
figure { display: inline-block; margin: .5em 1em 1em 0; vertical-align: top; }
figure img { max-width: 560px; border: 1px solid #ddd; }
figcaption { font-size: .85em; color: #555; max-width: 560px; }
details { margin: .5em 0; font-size: .88em; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: .85em; }
.muted { color: #666; font-size: .88em; }
nav a { margin-right: 1em; }
"""


def _esc(value: Any) -> str:
    return html.escape(str(value))


def _read_json(path: Path) -> Dict[str, Any]:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


def _frame_html(frame: pd.DataFrame, digits: int = 4) -> str:
    def fmt(v):
        if isinstance(v, float):
            return "–" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    formatted = frame.copy()
    for col in formatted.columns:
        if pd.api.types.is_float_dtype(formatted[col]):
            formatted[col] = formatted[col].map(fmt)
    return formatted.to_html(index=False, border=0, classes="data", escape=True,
                             na_rep="–")


def _figure_html(path: Path, caption: str) -> str:
    data = base64.b64encode(path.read_bytes()).decode("ascii")
    return (f'<figure><img alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
            f"<figcaption>{_esc(caption)}</figcaption></figure>")


def _kv_table(items: Dict[str, Any]) -> str:
    rows = "".join(f"<tr><th>{_esc(k)}</th><td>{_esc(_short(v))}</td></tr>"
                   for k, v in items.items())
    return f'<table class="data">{rows}</table>'


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + " …"


def _collection_section(root: Path) -> str:
    path = root / "collection" / "manifest.json"
    if not path.exists():
        return ('<h2 id="collection">Collection</h2><p class="muted">No collection summary '
                "in this folder (the studies ran on score matrices).</p>")
    m = _read_json(path)
    parts = ['<h2 id="collection">Collection</h2>']
    overview = {"qrels": m["qrels"], "topics": m["n_topics"], "runs": m["n_runs"],
                "judged documents per topic (min / median / max)":
                    "{min} / {median:g} / {max}".format(**m["judged_per_topic"]),
                "relevant documents per topic (min / median / max)":
                    "{min} / {median:g} / {max}".format(**m["relevant_per_topic"]),
                "judged depth (every run's top k judged on every topic)": m["judged_depth"]}
    parts.append(_kv_table(overview))
    levels = pd.DataFrame({"level": list(m["judgments_by_level"]),
                           "judgments": list(m["judgments_by_level"].values())})
    parts.append("<h3>Judgments by relevance level</h3>" + _frame_html(levels))
    depth = pd.DataFrame(m["judged_share_at_depth"])
    if len(depth):
        depth = depth[["k", "judged_share", "all_judged"]].astype({"all_judged": str})
        parts.append("<h3>Share of retrieved documents judged, top k</h3>" +
                     _frame_html(depth, 3))
    ev = m.get("evaluation")
    if ev:
        table = pd.read_csv(root / "collection" / ev["file"], dtype={"run": str})
        parts.append("<h3>Evaluation (mean over topics)</h3>" + _frame_html(table))
        parts.append("<h3>Conventions</h3>" + _kv_table(ev["conventions"]))
    return "\n".join(parts)


def _study_section(directory: Path, manifest: Dict[str, Any]) -> str:
    name = manifest["study"]
    parts = [f'<h2 id="{_esc(name)}">{_esc(manifest.get("title", name))}</h2>']
    parts.append(f'<p class="muted">{manifest["n_systems"]} systems, {manifest["n_topics"]} '
                 f'topics; seed {_esc(manifest["seeds"].get("seed"))}; irgauge '
                 f'{_esc(manifest["versions"].get("irgauge"))}; {_esc(manifest["created"])}'
                 "</p>")
    if manifest.get("summary"):
        items = "".join(f"<li>{_esc(s)}</li>" for s in manifest["summary"])
        parts.append(f'<div class="summary"><ul class="summary">{items}</ul></div>')
    for note in manifest.get("notes", []):
        parts.append(f'<p class="muted">Note: {_esc(note)}</p>')
    for entry in manifest.get("tables", []):
        frame = pd.read_csv(directory / entry["files"]["csv"])
        parts.append(f"<h3>{_esc(entry['caption'])}</h3>" +
                     _frame_html(frame, entry.get("digits", 4)))
    figures = [_figure_html(directory / e["files"]["png"], e["caption"])
               for e in manifest.get("figures", []) if "png" in e["files"]]
    if figures:
        parts.append("<div>" + "".join(figures) + "</div>")
    details = {"parameters": manifest.get("parameters"), "seeds": manifest.get("seeds"),
               "inputs": manifest.get("inputs"), "versions": manifest.get("versions"),
               "systems": manifest.get("systems"), "topics": manifest.get("topics")}
    parts.append("<details><summary>Parameters, seeds, systems, topics, versions</summary>"
                 f"<pre>{_esc(json.dumps(details, indent=2, default=str))}</pre></details>")
    return "\n".join(parts)


def study_manifests(root: Path) -> List[tuple]:
    """(directory, manifest) of every study in ``root``, in the studies' canonical order."""
    found = []
    for path in sorted(Path(root).glob("*/manifest.json")):
        manifest = _read_json(path)
        if manifest.get("kind") == "study":
            found.append((path.parent, manifest))
    rank = {n: i for i, n in enumerate(STUDY_ORDER)}
    return sorted(found, key=lambda dm: (rank.get(dm[1]["study"], len(rank)), dm[1]["study"]))


def render_report(root: Path, title: Optional[str] = None) -> str:
    """The report of output folder ``root`` as one HTML string."""
    root = Path(root)
    studies = study_manifests(root)
    title = title or "irgauge report"
    nav = "".join(f'<a href="#{_esc(m["study"])}">{_esc(m["study"])}</a>' for _, m in studies)
    body = [f"<h1>{_esc(title)}</h1>",
            f'<nav><a href="#collection">collection</a>{nav}</nav>',
            f'<p class="muted">Output folder: {_esc(root.resolve())}</p>',
            _collection_section(root)]
    body += [_study_section(d, m) for d, m in studies]
    if not studies:
        body.append('<p class="muted">No study results found in this folder.</p>')
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
            f"<title>{_esc(title)}</title><style>{CSS}</style></head>"
            f"<body><main>{''.join(body)}</main></body></html>\n")


def write_report(root: Path, path: Optional[Path] = None, title: Optional[str] = None) -> Path:
    """Write the report of ``root`` to ``path`` (default ``root/report.html``)."""
    root = Path(root)
    if not root.is_dir():
        from irgauge.errors import InputError

        raise InputError(f"no such output folder: {root}")
    path = Path(path) if path else root / REPORT_NAME
    path.write_text(render_report(root, title), encoding="utf-8")
    return path
