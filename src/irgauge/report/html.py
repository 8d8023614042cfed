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
"""

from __future__ import annotations

import base64
import html
import json
import math
import os
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple

import pandas as pd

from irgauge.io.tables import header
from irgauge.report.inputs import evaluation_matrices, evaluation_means
from irgauge.errors import InputError
from irgauge.stats.comparison import compare_table
from irgauge.report.inputs import comparison_from_json
from irgauge.report.comparisons import described, differences, of_evaluation, same_scores
from irgauge.report.inputs import TOPICSET_COLUMNS, read_input
from irgauge.io.atomic import make_folders, remove_tree, write_text
from irgauge.io.staging import current_entries, current_path, final_name, output_file
from irgauge.report.manifests import (
    file_inside,
    read_collection_manifest,
    read_listed_table,
    read_study_manifest,
)
from irgauge.io.words import counted

REPORT_NAME = "report.html"
STUDY_ORDER = ("onerel", "incomplete", "qa", "predictive", "topicset", "pooling", "reusability")

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


def _esc(value: Any) -> str:
    return html.escape(str(value))


class _Paths:
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


def _frame_html(frame: pd.DataFrame, digits: int = 4, people: bool = True) -> str:
    def fmt(v):
        if isinstance(v, float):
            return "–" if math.isnan(v) else f"{v:.{digits}f}"
        return str(v)

    formatted = frame.copy()
    for col in formatted.columns:
        if pd.api.types.is_float_dtype(formatted[col]):
            formatted[col] = formatted[col].map(fmt)
    if people:
        formatted.columns = [header(c) for c in formatted.columns]
    return formatted.to_html(index=False, border=0, classes="data", escape=True, na_rep="–")


def _figure_html(
    path: Path, caption: str, downloads: Sequence[Tuple[str, Path]], paths: _Paths
) -> str:
    try:
        data = base64.b64encode(path.read_bytes()).decode("ascii")
    except OSError as err:  # a figure an input names, missing or unreadable
        raise InputError(f"cannot read figure: {err.strerror}", str(path)) from None
    links = " ".join(
        f'<a href="{_esc(paths.link(p))}" download>{_esc(ext.upper())}</a>' for ext, p in downloads
    )
    down = f'<span class="download">Download: {links}</span>' if links else ""
    return (
        f'<figure><img alt="{_esc(caption)}" src="data:image/png;base64,{data}">'
        f"<figcaption>{_esc(caption)} {down}</figcaption></figure>"
    )


def _kv_table(items: Dict[str, Any]) -> str:
    rows = "".join(
        f"<tr><th>{_esc(header(k))}</th><td>{_esc(_short(v))}</td></tr>" for k, v in items.items()
    )
    return f'<table class="data kv">{rows}</table>'


def _short(value: Any, limit: int = 300) -> str:
    text = value if isinstance(value, str) else json.dumps(value, default=str)
    return text if len(text) <= limit else text[:limit] + " …"


def _collection_section(root: Path, paths: _Paths) -> Optional[str]:
    folder = current_path(root / "collection")  # staged by this command, or as it was
    path = folder / "manifest.json"
    if not path.exists():
        return None
    m = paths.text(read_collection_manifest(path))
    parts = []
    overview = {
        "qrels": m["qrels"],
        "topics": m["n_topics"],
        "runs": m["n_runs"],
        "judged documents per topic (min / median / max)": "{min} / {median:g} / {max}".format(
            **m["judged_per_topic"]
        ),
        "relevant documents per topic (min / median / max)": "{min} / {median:g} / {max}".format(
            **m["relevant_per_topic"]
        ),
        "judged depth (every run's top k judged on every topic)": m["judged_depth"],
    }
    parts.append(_kv_table(overview))
    levels = pd.DataFrame(
        {
            "level": list(m["judgments_by_level"]),
            "judgments": list(m["judgments_by_level"].values()),
        }
    )
    parts.append(
        '<div class="block"><h3>Judgments by relevance level</h3>' + _frame_html(levels) + "</div>"
    )
    depth = pd.DataFrame(m["judged_share_at_depth"])
    if len(depth):
        depth = depth[["k", "judged_share", "all_judged"]].astype({"all_judged": str})
        parts.append(
            '<div class="block"><h3>Share of retrieved documents judged, top k</h3>'
            + _frame_html(depth, 3)
            + "</div>"
        )
    ev = m.get("evaluation")
    if ev:
        table = read_listed_table(folder, ev["file"], path, dtype={"run": str})
        parts.append(
            '<div class="block"><h3>Evaluation (mean over topics)</h3>'
            + _frame_html(table, people=False)
            + "</div>"
        )
        parts.append("<h3>Conventions</h3>" + _kv_table(ev["conventions"]))
    return "\n".join(parts)


def _study_section(directory: Path, manifest: Dict[str, Any], paths: _Paths) -> str:
    manifest, manifest_path = paths.text(manifest), directory / "manifest.json"
    parts = [
        f'<p class="muted">{counted(manifest["n_systems"], "system")}, {manifest["n_topics"]} '
        f"topics; seed {_esc(manifest['seeds'].get('seed'))}; irgauge "
        f"{_esc(manifest['versions'].get('irgauge'))}; {_esc(manifest['created'])}</p>"
    ]
    if manifest.get("summary"):
        items = "".join(f"<li>{_esc(s)}</li>" for s in manifest["summary"])
        parts.append(f'<div class="summary"><ul class="summary">{items}</ul></div>')
    for note in manifest.get("notes", []):
        parts.append(f'<p class="muted">Note: {_esc(note)}</p>')
    for entry in manifest.get("tables", []):
        frame = read_listed_table(directory, entry["files"]["csv"], manifest_path)
        parts.append(
            f'<div class="block"><h3>{_esc(entry["caption"])}</h3>'
            + _frame_html(frame, entry.get("digits", 4))
            + "</div>"
        )
    figures = []
    for e in manifest.get("figures", []):
        files = e["files"]
        if "png" not in files:
            continue
        found = {ext: file_inside(directory, name, manifest_path) for ext, name in files.items()}
        kinds = [ext for ext in ("pdf", "svg", "png") if ext in found]
        downloads = [(ext, found[ext]) for ext in kinds if found[ext].exists()]
        figures.append(_figure_html(found["png"], e["caption"], downloads, paths))
    if figures:
        parts.append("<div>" + "".join(figures) + "</div>")
    details = {
        "parameters": manifest.get("parameters"),
        "seeds": manifest.get("seeds"),
        "inputs": manifest.get("inputs"),
        "versions": manifest.get("versions"),
        "systems": manifest.get("systems"),
        "topics": manifest.get("topics"),
    }
    parts.append(
        "<details><summary>Parameters, seeds, systems, topics, versions</summary>"
        f"<pre>{_esc(json.dumps(details, indent=2, default=str))}</pre></details>"
    )
    return "\n".join(parts)


def study_manifests(root: Path) -> List[tuple]:
    """(directory, manifest) of every study in ``root``, in the studies' canonical order: a
    study the running command has staged is read where it is staged (the report commits
    with it)."""
    found = []
    for directory in current_entries(root).values():
        path = directory / "manifest.json"
        if not path.is_file():
            continue
        manifest = read_study_manifest(path)
        if manifest is not None:
            found.append((directory, manifest))
    rank = {n: i for i, n in enumerate(STUDY_ORDER)}
    return sorted(found, key=lambda dm: (rank.get(dm[1]["study"], len(rank)), dm[1]["study"]))


def _conventions(metadata: Dict[str, Any], paths: _Paths) -> str:
    keep = {k: v for k, v in paths.text(metadata).items() if v not in ({}, [], None, "")}
    return '<div class="block"><h3>Conventions and parameters</h3>' + _kv_table(keep) + "</div>"


def _evaluation_section(item, paths: _Paths, tables: Sequence["_Given"] = ()) -> str:
    """Means, and one comparison of the per-topic scores: the comparison table given of
    these scores where there is one (named, with its test, correction and alpha), else
    irgauge's own (paired t-test, Holm), said to be irgauge's."""
    means = evaluation_means(item).rename_axis(index="run", columns=None).reset_index()
    parts = [
        '<div class="block"><h3>Mean over topics</h3>' + _frame_html(means, people=False) + "</div>"
    ]
    try:
        matrices = evaluation_matrices(item)
    except InputError as err:  # e.g. runs scored on different topics: no paired comparison
        matrices = None
        parts.append(f'<p class="muted">No comparison table: {_esc(err)}.</p>')
    per_topic = item.frame[item.frame["topic"].astype(str) != "all"]
    n_topics = per_topic["topic"].nunique() if len(per_topic) else None
    given = [
        t
        for t in tables
        if of_evaluation(t.item.metadata, item.frame["run"], item.frame["measure"], n_topics)
    ]
    if given:
        named = "; ".join(
            f'<a href="#{_esc(t.anchor)}">{_esc(t.name)}</a> ({_esc(described(t.item.metadata))})'
            for t in given
        )
        tables_given = "the table given" if len(given) == 1 else "the tables given"
        parts.append(
            f'<p class="block">Comparison of these scores: {tables_given}, {named}. '
            "irgauge's own comparison is not drawn beside "
            f"{'it' if len(given) == 1 else 'them'}.</p>"
        )
    elif matrices is not None:
        collection = paths.text(item.metadata.get("qrels"))
        table = compare_table(
            matrices,
            test="t",
            correction="holm",
            alpha=0.05,
            collection=Path(str(collection)).name if collection else None,
        )
        parts.append(
            f'<div class="block"><h3>Comparison ({_esc(described(table.parameters))})</h3>'
            '<p class="muted">irgauge\'s own comparison of these scores: no comparison table '
            "of them was given (<code>irgauge compare --table json</code> makes one).</p>"
            + table.render("html")
            + "</div>"
        )
    parts.append(_conventions(item.metadata, paths))
    return "\n".join(parts)


def _comparison_section(item, paths: _Paths, tables: Sequence["_Given"] = ()) -> str:
    """The table given and, where another given table compares the same scores, how the
    two differ, from the parameters each recorded."""
    table = comparison_from_json(item)
    parts = ['<div class="block">' + table.render("html") + "</div>"]
    for other in tables:
        if other.item is item or not same_scores(item.metadata, other.item.metadata):
            continue
        found = differences(item.metadata, other.item.metadata)
        how = (
            "they differ in " + "; ".join(found)
            if found
            else "they were made with the same test, correction and alpha"
        )
        parts.append(
            '<p class="block">This table and '
            f'<a href="#{_esc(other.anchor)}">{_esc(other.name)}</a> compare the same '
            f"scores; {_esc(how)}.</p>"
        )
    parts.append(_conventions({k: v for k, v in item.metadata.items() if k != "caption"}, paths))
    return "\n".join(parts)


def _result_section(item, paths: _Paths) -> str:
    return (
        '<div class="block">'
        + _frame_html(item.frame)
        + "</div>"
        + _conventions(item.metadata, paths)
    )


@dataclass(frozen=True)
class _Given:
    """A comparison table given as an input: its file's name, contents and anchor."""

    name: str
    item: Any
    anchor: str


def _input_sections(inputs: Sequence[Any], paths: _Paths) -> Tuple[list, list]:
    """(study folders, file sections) of the inputs given. Every file is read first, so
    that each set of scores gets one comparison: the table given, else irgauge's own."""

    studies: list = []
    entries: List[tuple] = []  # (title, html) or (number, path, item)
    for number, given in enumerate(inputs, 1):
        given = Path(given)
        if given.is_dir():
            manifest = given / "manifest.json"
            checked = read_study_manifest(manifest) if manifest.exists() else None
            if checked is not None:
                studies.append((given, checked))
                continue
            found = study_manifests(given)
            if found:
                studies += found
                continue
            figures = _figure_folder(given, paths)
            if figures is None:
                raise InputError(f"{given}: a folder without study results")
            entries.append((f"Figures: {given.name}", figures))
            continue
        if not given.exists():
            raise InputError(f"no such file or folder: {given}")
        entries.append((number, given, read_input(given)))
    # render_report numbers the file sections input-1, input-2, ... in this order
    tables = [
        _Given(e[1].name, e[2], f"input-{k}")
        for k, e in enumerate(entries, 1)
        if len(e) == 3 and e[2].kind == "comparison"
    ]
    sections = []
    for entry in entries:
        if len(entry) == 2:
            sections.append(entry)
            continue
        number, given, item = entry
        if item.kind in ("agreement", "topicset", "reproducibility"):
            folder = paths.figures() / re.sub(r"[^A-Za-z0-9._-]", "_", f"{number}-{given.stem}")
            render = {
                "agreement": _agreement_section,
                "topicset": _topicset_section,
                "reproducibility": _repro_section,
            }[item.kind]
            sections.append(
                (f"{INPUT_TITLES[item.kind]}: {given.name}", _rendered(render, item, paths, folder))
            )
            continue
        title = INPUT_TITLES.get(
            item.kind, str(item.metadata.get("method", "Result")).replace("_", " ").capitalize()
        )
        if item.kind == "result":
            body = _rendered(_result_section, item, paths)
        else:
            section: Callable[..., str] = (
                _evaluation_section if item.kind == "evaluation" else _comparison_section
            )
            body = _rendered(section, item, paths, tables)
        sections.append((f"{title}: {given.name}", body))
    return studies, sections


def _rendered(render, item, *args) -> str:
    """The section of one input; a file that has the shape of its kind but not its content
    (a comparison table's metadata without its runs, a mark of an unknown run) is refused
    by name rather than ending in a traceback."""
    try:
        return render(item, *args)
    except (KeyError, IndexError, TypeError, ValueError, AttributeError) as err:
        what = INPUT_TITLES.get(item.kind, "irgauge result").lower()
        raise InputError(
            f"not a well-formed {what} ({type(err).__name__}: {err})", str(item.path)
        ) from None


# ------------------------------------------------------------------ agree and topics

INPUT_TITLES = {
    "evaluation": "Evaluation",
    "comparison": "Comparison table",
    "agreement": "Assessor agreement",
    "topicset": "Topic set size design",
    "reproducibility": "Reproducibility",
}
# where the report draws the figures of agree and topics outputs (beside the report)
FIGURES_DIR = "report-figures"
FIGURE_CAPTIONS = {
    "agree_confusion": "Confusion matrix of the two qrels' relevance levels (pairs both judge)",
    "agree_means": "Each system's mean score under qrels A (x) and B (y); dashed: identity",
    "agree_topic_kappa": "Per-topic Cohen's kappa (binary relevance)",
    "repro_ktu": "Kendall's tau union of the original and repeated top-k lists against the "
    "cutoff k (band: bootstrap interval over topics)",
    "repro_rbo": "Rank-biased overlap (extrapolated) against the cutoff k (band: bootstrap "
    "interval over topics)",
    "repro_rmse": "RMSE of the per-topic scores of the runs cut at k (band: bootstrap "
    "interval over topics)",
    "topic_set_size": "Topics needed n against the minimum detectable difference D "
    "(Sakai 2016, topic set size design)",
}
# metadata that the sections show elsewhere or that is too long for the conventions table
_LONG_KEYS = ("systems", "topics", "method")


def _figures_html(pngs: Sequence[Path], paths: _Paths) -> str:
    """Each PNG embedded, with links to its PDF and SVG siblings."""
    parts = []
    for png in pngs:
        stem = png.stem
        caption = next(
            (c for k, c in FIGURE_CAPTIONS.items() if stem == k or stem.startswith(k + "_")),
            stem.replace("_", " "),
        )
        if stem.startswith("agree_") and stem not in FIGURE_CAPTIONS:
            caption += " (" + stem.split("_", 2)[-1].replace("_", " ") + ")"
        downloads = [
            (ext, png.with_suffix(f".{ext}"))
            for ext in ("pdf", "svg", "png")
            if png.with_suffix(f".{ext}").exists()
        ]
        parts.append(_figure_html(png, caption, downloads, paths))
    return "<div>" + "".join(parts) + "</div>" if parts else ""


def _figure_folder(folder: Path, paths: _Paths) -> Optional[str]:
    """The figures a ``--figures DIR`` of irgauge agree or topics wrote (None: none)."""
    pngs = sorted(folder.glob("agree_*.png")) + sorted(folder.glob("topic_set_size*.png"))
    if not pngs:
        return None
    return _figures_html(pngs, paths)


def _interval(value: float, low: float, high: float, digits: int = 3) -> str:
    if value is None or not math.isfinite(float(value)):
        return "–"
    if all(
        x is not None and math.isfinite(x) and float(x).is_integer() for x in (value, low, high)
    ):
        digits = 0  # counts (pairs, significance calls, rank changes)
    text = f"{float(value):.{digits}f}"
    if low is None or high is None or not (math.isfinite(low) and math.isfinite(high)):
        return text
    return f"{text} [{float(low):.{digits}f}, {float(high):.{digits}f}]"


def _agreement_tables(item) -> List[str]:
    """The label statistics and, per pair of qrels, the system statistics by measure; every
    value with its bootstrap interval."""
    frame = item.frame.copy()
    for column in ("value", "low", "high"):
        frame[column] = pd.to_numeric(frame[column], errors="coerce").astype(float)
    frame["measure"] = frame["measure"].astype(str)
    level = item.metadata.get("confidence", 0.95)
    cells = [_interval(v, lo, hi) for v, lo, hi in zip(frame["value"], frame["low"], frame["high"])]
    frame = frame.assign(**{"value [interval]": cells})
    what = f"value [{float(level):.0%} percentile bootstrap interval over topics]"
    parts = []
    labels = frame[frame["measure"] == "-"]
    if len(labels):
        table = labels[["a", "b", "statistic", "value [interval]"]]
        parts.append(
            '<div class="block"><h3>Label agreement</h3>'
            + _frame_html(table, people=False)
            + f'<p class="muted">{_esc(what)}; a = b = all: over every qrels.</p></div>'
        )
    systems = frame[frame["measure"] != "-"]
    for (a, b), part in systems.groupby(["a", "b"], sort=False):
        wide = part.pivot(index="statistic", columns="measure", values="value [interval]")
        statistics = list(dict.fromkeys(part["statistic"]))
        measures = list(dict.fromkeys(part["measure"]))
        wide = wide.loc[statistics, measures].rename_axis(index=None, columns=None)
        parts.append(
            f'<div class="block"><h3>System agreement: {_esc(a)} vs {_esc(b)}</h3>'
            + _frame_html(wide.rename_axis("statistic").reset_index(), people=False)
            + f'<p class="muted">{_esc(what)}; one column per measure.</p></div>'
        )
    return parts


def _agreement_details(details: Dict[str, Any]) -> List[str]:
    """Per-system means and ranks, and the significance calls counted, from the JSON."""
    parts = []
    systems = details.get("systems")
    if systems is not None and len(systems):
        parts.append(
            '<div class="block"><h3>Systems under each qrels</h3>'
            + _frame_html(systems, people=True)
            + "</div>"
        )
    calls = details.get("significance")
    if calls is not None and len(calls):
        counted = (
            calls.groupby(["a", "b", "measure", "call"], sort=False)
            .size()
            .unstack("call", fill_value=0)
            .reset_index()
        )
        counted.columns.name = None
        parts.append(
            '<div class="block"><h3>Significance calls (run pairs)</h3>'
            + _frame_html(counted, people=False)
            + "</div>"
        )
    return parts


def _agreement_figures(item, paths: _Paths, folder: Path) -> str:
    """The figures of :mod:`irgauge.report.agreement_figures`, drawn from the JSON details
    into ``folder``; without the details (a TSV) a note says where they come from."""
    details = item.details
    if not {"confusion", "topic_kappa"} <= set(details) or not len(details["confusion"]):
        return (
            '<p class="muted">No figures: they are drawn from the per-pair details (confusion '
            "matrices, per-topic kappa, per-system means) that only the JSON output holds; give "
            "the output of <code>irgauge agree --format json</code>, or the folder of "
            "<code>irgauge agree --figures DIR</code>.</p>"
        )
    # matplotlib on first use: a report without agreement figures never loads it
    from irgauge.meta.result import MetaResult
    from irgauge.report.agreement_figures import agreement_figures
    from irgauge.report.style import describe

    meta = item.metadata
    qrels = meta.get("qrels")
    names = " vs ".join(qrels) if isinstance(qrels, dict) else None
    title = describe(names, seed=meta.get("seed"), B=meta.get("bootstrap_samples"))
    result = MetaResult("agreement", item.frame, meta, [], [], details)
    folder.mkdir(parents=True, exist_ok=True)
    written = agreement_figures(result, folder, title=title or None)
    return _figures_html([Path(p) for p in written if str(p).endswith(".png")], paths)


def _agreement_section(item, paths: _Paths, folder: Path) -> str:
    meta = item.metadata
    parts = [
        f'<p class="muted">{counted(_esc(meta.get("n_topics", "?")), "topic")}, '
        f"{counted(_esc(meta.get('n_systems', 0)), 'system')}; bootstrap B = "
        f"{_esc(meta.get('bootstrap_samples', '?'))}, seed {_esc(meta.get('seed'))}</p>"
    ]
    parts += _agreement_tables(item)
    parts += _agreement_details(item.details)
    parts.append(_agreement_figures(item, paths, folder))
    keep = {k: v for k, v in meta.items() if k not in _LONG_KEYS}
    parts.append(_conventions(keep, paths))
    return "\n".join(parts)


def _topicset_value(statistic: str, value: Any) -> str:
    number = float(value)
    if not math.isfinite(number):
        return "–"
    return f"{int(round(number))}" if statistic == "n_topics" else f"{number:.4g}"


def _topicset_figure(item, paths: _Paths, folder: Path) -> str:
    """The n-against-D figure (:mod:`irgauge.report.topicset_figures`) from the table's
    variances, drawn into ``folder``."""
    frame, meta = item.frame, item.metadata
    rows = frame[frame["statistic"].astype(str) == "variance"]
    variances = {str(m): float(v) for m, v in zip(rows["measure"], rows["value"])}
    variances = {m: v for m, v in variances.items() if math.isfinite(v) and v > 0}
    n_topics = meta.get("n_topics")
    if not variances or not isinstance(n_topics, int) or n_topics < 2:
        return (
            '<p class="muted">No figure: it needs each measure\'s variance and the number of '
            "topics (n_topics in the metadata).</p>"
        )
    # matplotlib and scipy on first use
    from irgauge.report.style import describe
    from irgauge.report.topicset_figures import topic_set_curves

    min_diff = meta.get("min_diff")
    min_diff = float(min_diff) if isinstance(min_diff, (int, float)) else None
    folder.mkdir(parents=True, exist_ok=True)
    title = describe(item.path.name, D=min_diff)
    written = topic_set_curves(variances, n_topics, folder, min_diff=min_diff, title=title)
    return _figures_html([Path(p) for p in written if str(p).endswith(".png")], paths)


def _topicset_section(item, paths: _Paths, folder: Path) -> str:
    frame = item.frame[list(TOPICSET_COLUMNS)].copy()
    frame["value"] = [
        _topicset_value(str(s), v) for s, v in zip(frame["statistic"], frame["value"])
    ]
    meta = item.metadata
    settings = ", ".join(
        f"{k} = {meta[k]}"
        for k in ("min_diff", "alpha", "beta", "anova_systems", "ci_width")
        if meta.get(k) is not None
    )
    parts = [
        f'<p class="muted">{counted(_esc(meta.get("n_topics", "?")), "topic")}, '
        f"{counted(_esc(meta.get('n_systems', '?')), 'system')}; {_esc(settings)}</p>",
        '<div class="block"><h3>Topics needed and what this collection gives</h3>'
        + _frame_html(frame, people=False)
        + '<p class="muted">design all: the residual variance V_E; ttest, anova: the topics '
        "n needed to detect min_diff with power 1 - beta, and the smallest difference this "
        "collection's topics detect; ci: the topics for an interval at most ci_width wide, "
        "and the width this collection gives.</p></div>",
        _topicset_figure(item, paths, folder),
    ]
    keep = {k: v for k, v in meta.items() if k not in _LONG_KEYS}
    parts.append(_conventions(keep, paths))
    return "\n".join(parts)


def _repro_section(item, paths: _Paths, folder: Path) -> str:
    """An ``irgauge repro`` output: its sentences, the table with each value's interval and
    the KTU, RBO and RMSE curves drawn from the table (:mod:`irgauge.report.repro_figures`)."""
    frame, meta = item.frame, item.metadata
    keys = [c for c in ("repeated", "run", "measure", "statistic", "cutoff") if c in frame]
    # as objects: a float column (cutoff read back from TSV, NaN where none) takes no
    # text fill value; a whole cutoff is shown as the whole number it was given as
    shown = frame[keys].astype(object).fillna("")
    if "cutoff" in shown:
        shown["cutoff"] = [
            int(c) if isinstance(c, float) and c.is_integer() else c for c in shown["cutoff"]
        ]
    shown["value [interval]"] = [
        _interval(float(v), float(lo), float(hi), 4)
        for v, lo, hi in zip(frame["value"], frame["low"], frame["high"])
    ]
    conclusions = meta.get("conclusions") or []
    parts = [
        f'<p class="muted">{_esc(meta.get("kind", "reproduction"))}; seed '
        f"{_esc(meta.get('seed'))}, B = {_esc(meta.get('bootstrap_samples'))}, confidence "
        f"{_esc(meta.get('confidence'))}"
        + (f", RBO p = {_esc(meta['rbo_p'])}" if "rbo_p" in meta else "")
        + "</p>",
        "<ul>" + "".join(f"<li>{_esc(c)}</li>" for c in conclusions) + "</ul>"
        if conclusions
        else "",
        '<div class="block">' + _frame_html(shown, people=False) + "</div>",
    ]
    # matplotlib on first use: a report without a reproducibility study never loads it
    from irgauge.report.repro_figures import repro_figures
    from irgauge.report.style import describe

    written = repro_figures(frame, folder, describe(item.path.name, seed=meta.get("seed")))
    parts.append(_figures_html([Path(p) for p in written if str(p).endswith(".png")], paths))
    keep = {k: v for k, v in meta.items() if k not in _LONG_KEYS + ("conclusions",)}
    parts.append(_conventions(keep, paths))
    return "\n".join(parts)


def render_report(
    root: Path, title: Optional[str] = None, inputs: Sequence[Any] = (), base: Optional[Path] = None
) -> str:
    """The report of output folder ``root`` and ``inputs`` as one HTML string; links and
    paths are relative to ``base`` (the report's folder, default ``root``)."""
    root = Path(root)
    paths = _Paths(base if base is not None else root)
    title = title or "irgauge report"
    sections: List[Tuple[str, str, str]] = []  # (anchor, heading, html)
    collection = _collection_section(root, paths) if root.is_dir() else None
    if collection:
        sections.append(("collection", "Collection", collection))
    studies = study_manifests(root) if root.is_dir() else []
    more_studies, files = _input_sections(inputs, paths)
    seen = {d.resolve() for d, _ in studies}
    studies += [(d, m) for d, m in more_studies if d.resolve() not in seen]
    for k, (heading, body) in enumerate(files, 1):
        sections.append((f"input-{k}", heading, body))
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
                _study_section(directory, manifest, paths),
            )
        )
    toc = "".join(f'<li><a href="#{_esc(a)}">{_esc(h)}</a></li>' for a, h, _ in sections)
    body = [
        f"<h1>{_esc(title)}</h1>",
        f'<nav class="toc"><strong>Contents</strong><ol>{toc}</ol></nav>',
    ]
    body += [f'<section id="{_esc(a)}"><h2>{_esc(h)}</h2>{b}</section>' for a, h, b in sections]
    if not sections:
        body.append(
            '<p class="muted">No results found: give evaluation outputs, comparison '
            "tables or study folders.</p>"
        )
    page = (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        f"<title>{_esc(title)}</title><style>{CSS}</style></head>"
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
