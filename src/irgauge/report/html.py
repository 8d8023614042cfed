"""One HTML report of everything a paper needs: the collection, evaluation results,
comparison tables and the studies' tables and figures; it prints on A4 and letter.

``write_report(OUT, inputs=...)`` reads ``OUT/collection/manifest.json`` (collection summary
and evaluation table), every study folder ``OUT/<study>/manifest.json`` and the files or
folders in ``inputs`` (evaluation TSV/JSON, comparison tables, other irgauge results, study
folders), and writes ``OUT/report.html`` atomically:

- a table of contents; CSS inline; figures embedded as PNG with links to their SVG and PDF;
- agree and topics outputs get their tables and figures, the figures drawn from the data
  into ``report-figures/`` beside the report (agree's from its JSON details);
- every link and every path shown is relative to the report (no absolute path), so the
  folder can be moved, zipped or published as it is;
- print CSS: page margins that fit both A4 and US letter, and no table or figure split
  across pages (``break-inside: avoid``).

The page's parts: its building blocks (:mod:`irgauge.report.page_blocks`), the sections of
the output folder (:mod:`irgauge.report.study_sections`) and of the inputs given
(:mod:`irgauge.report.input_sections`, :mod:`irgauge.report.meta_sections`).
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import Any, List, Optional, Sequence, Tuple

from irgauge.errors import InputError
from irgauge.io.atomic import make_folders, remove_tree, write_text
from irgauge.io.staging import output_file
from irgauge.report.input_sections import input_sections
from irgauge.report.page_blocks import FIGURES_DIR, ReportPaths, esc
from irgauge.report.study_sections import collection_section, study_manifests, study_section


REPORT_NAME = "report.html"


CSS = """
body { font-family: -apple-system, "Segoe UI", Helvetica, Arial, sans-serif; margin: 0;
       color: #222; background: #fafafa; }
main { max-width: 1200px; margin: 0 auto; padding: 1.5em 2em; background: #fff; }
h1 { font-size: 1.7em; border-bottom: 3px solid #2c5d8f; padding-bottom: .3em; }
h2 { font-size: 1.35em; color: #2c5d8f; margin-top: 2em; border-bottom: 1px solid #ccd; }
h3 { font-size: 1.05em; margin-bottom: .3em; }
table.data { border-collapse: collapse; margin: .4em 0 1.2em; font-size: .88em; }
table.data caption { caption-side: bottom; text-align: left; font-size: .85em; color: #555;
                     padding-top: .4em; max-width: 60em; }
table.data th, table.data td { padding: .25em .7em; border-bottom: 1px solid #e3e3ea; }
table.data th { background: #eef2f7; text-align: left; }
table.data td { text-align: right; font-variant-numeric: tabular-nums; }
table.data td:first-child, table.kv td { text-align: left; }
ul.summary li { margin: .25em 0; }
.summary { background: #f3f7fb; border-left: 4px solid #2c5d8f; padding: .6em 1.5em; }
figure { display: inline-block; margin: .5em 1em 1em 0; vertical-align: top; }
figure img { max-width: 560px; border: 1px solid #ddd; }
figcaption { font-size: .85em; color: #555; max-width: 560px; }
figcaption .download a { margin-right: .6em; }
details { margin: .5em 0; font-size: .88em; }
pre { background: #f6f6f6; padding: .6em; overflow-x: auto; font-size: .85em;
      white-space: pre-wrap; }
.muted { color: #666; font-size: .88em; }
nav.toc ol { margin: .3em 0 1em; }
.block { margin-bottom: 1em; }
/* Print: margins that fit A4 (210 x 297 mm) and US letter (216 x 279 mm) alike; nothing
   that belongs together is split across pages. */
@page { margin: 14mm 12mm; }
@media print {
  body { background: #fff; font-size: 9.5pt; }
  main { max-width: none; padding: 0; }
  h2 { break-before: auto; break-after: avoid; page-break-after: avoid; }
  h3 { break-after: avoid; page-break-after: avoid; }
  table, figure, pre, .block, .summary { break-inside: avoid; page-break-inside: avoid; }
  figure { width: 48%; margin: 0 1% 4mm 0; }  /* two figures a row, as in a paper */
  figure img { width: 100%; max-width: 100%; height: auto; border: 0; }
  figcaption { max-width: none; }
  table.data { font-size: 8pt; }
  details { display: none; }
  a { color: inherit; text-decoration: none; }
}
"""


def render_report(
    root: Path, title: Optional[str] = None, inputs: Sequence[Any] = (), base: Optional[Path] = None
) -> str:
    """The report of output folder ``root`` and ``inputs`` as one HTML string; links and
    paths are relative to ``base`` (the report's folder, default ``root``)."""
    root = Path(root)
    paths = ReportPaths(base if base is not None else root)
    title = title or "irgauge report"
    sections: List[Tuple[str, str, str]] = []  # (anchor, heading, html)
    collection = collection_section(root, paths) if root.is_dir() else None
    if collection:
        sections.append(("collection", "Collection", collection))
    studies = study_manifests(root) if root.is_dir() else []
    more_studies, files = input_sections(inputs, paths)
    seen = {d.resolve() for d, _ in studies}
    studies += [(d, m) for d, m in more_studies if d.resolve() not in seen]
    for k, (heading, text) in enumerate(files, 1):
        sections.append((f"input-{k}", heading, text))
    used = {a for a, _, _ in sections}
    for directory, manifest in studies:
        anchor = re.sub(r"[^A-Za-z0-9_-]", "-", manifest["study"])
        while anchor in used:
            anchor += "-2"
        used.add(anchor)
        sections.append(
            (
                anchor,
                manifest.get("title", manifest["study"]),
                study_section(directory, manifest, paths),
            )
        )
    toc = "".join(f'<li><a href="#{esc(a)}">{esc(h)}</a></li>' for a, h, _ in sections)
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<nav class="toc"><strong>Contents</strong><ol>{toc}</ol></nav>',
    ]
    body += [f'<section id="{esc(a)}"><h2>{esc(h)}</h2>{b}</section>' for a, h, b in sections]
    if not sections:
        body.append(
            '<p class="muted">No results found: give evaluation outputs, comparison '
            "tables or study folders.</p>"
        )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{esc(title)}</title><style>{CSS}</style></head>"
        f"<body><main>{''.join(body)}</main></body></html>\n"
    )
    # a last guard: text copied from inputs (summaries, notes) may still hold the folder
    return page.replace(str(paths.base) + os.sep, "").replace(str(paths.base), ".")


def write_report(
    root: Path, path: Optional[Path] = None, title: Optional[str] = None, inputs: Sequence[Any] = ()
) -> Path:
    """Write the report of ``root`` (and ``inputs``) to ``path`` (default
    ``root/report.html``), atomically. A failure leaves nothing new: the folder ``root`` if
    this call made it, and the figures folder beside the page if this call made it, are
    removed with what was drawn in them."""

    root = Path(root)
    if root.exists() and not root.is_dir():
        raise InputError(
            f"{root} is a file, not a folder: report takes the report's folder first "
            "(irgauge report OUT [INPUT ...]; give files to include as INPUTs after it)"
        )
    if not root.is_dir() and not inputs:
        raise InputError(f"no such output folder: {root}")
    created = make_folders(root)
    path = Path(path) if path else root / REPORT_NAME
    figures = path.parent / FIGURES_DIR
    figures_new = not os.path.lexists(figures)
    try:
        page = render_report(root, title, inputs, base=path.parent)
        write_text(output_file(path), page)  # staged with the figures in a command
    except BaseException:
        if figures_new:
            remove_tree(figures)
        if created:
            remove_tree(created[0])
        raise
    return path
