"""The report's sections of the files and folders given as inputs: evaluation outputs (with
one comparison of their scores), comparison tables, other irgauge results, study folders,
and the meta-evaluation outputs of :mod:`irgauge.report.meta_sections`."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Dict, List, Sequence, Tuple

from irgauge.errors import InputError
from irgauge.report.comparisons import described, differences, of_evaluation, same_scores
from irgauge.report.inputs import (
    comparison_from_json,
    evaluation_matrices,
    evaluation_means,
    ReportInput,
    read_input,
)
from irgauge.report.manifests import read_study_manifest
from irgauge.report.meta_sections import (
    agreement_section,
    figure_folder,
    repro_section,
    topicset_section,
)
from irgauge.report.page_blocks import ReportPaths, conventions_html, esc, frame_html
from irgauge.report.study_sections import study_manifests
from irgauge.stats.comparison import compare_table


INPUT_TITLES = {
    "evaluation": "Evaluation",
    "comparison": "Comparison table",
    "agreement": "Assessor agreement",
    "topicset": "Topic set size design",
    "reproducibility": "Reproducibility",
}


def _evaluation_section(
    item: ReportInput, paths: ReportPaths, tables: Sequence["_Given"] = ()
) -> str:
    """Means, and one comparison of the per-topic scores: the comparison table given of
    these scores where there is one (named, with its test, correction and alpha), else
    irgauge's own (paired t-test, Holm), said to be irgauge's."""
    means = evaluation_means(item).rename_axis(index="run", columns=None).reset_index()
    parts = [
        '<div class="block"><h3>Mean over topics</h3>' + frame_html(means, people=False) + "</div>"
    ]
    try:
        matrices = evaluation_matrices(item)
    except InputError as err:  # e.g. runs scored on different topics: no paired comparison
        matrices = None
        parts.append(f'<p class="muted">No comparison table: {esc(err)}.</p>')
    per_topic = item.frame[item.frame["topic"].astype(str) != "all"]
    n_topics = per_topic["topic"].nunique() if len(per_topic) else None
    given = [
        t
        for t in tables
        if of_evaluation(t.item.metadata, item.frame["run"], item.frame["measure"], n_topics)
    ]
    if given:
        named = "; ".join(
            f'<a href="#{esc(t.anchor)}">{esc(t.name)}</a> ({esc(described(t.item.metadata))})'
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
            f'<div class="block"><h3>Comparison ({esc(described(table.parameters))})</h3>'
            '<p class="muted">irgauge\'s own comparison of these scores: no comparison table '
            "of them was given (<code>irgauge compare --table json</code> makes one).</p>"
            + table.render("html")
            + "</div>"
        )
    parts.append(conventions_html(item.metadata, paths))
    return "\n".join(parts)


def _comparison_section(
    item: ReportInput, paths: ReportPaths, tables: Sequence["_Given"] = ()
) -> str:
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
            f'<a href="#{esc(other.anchor)}">{esc(other.name)}</a> compare the same '
            f"scores; {esc(how)}.</p>"
        )
    parts.append(
        conventions_html({k: v for k, v in item.metadata.items() if k != "caption"}, paths)
    )
    return "\n".join(parts)


def _result_section(item: ReportInput, paths: ReportPaths) -> str:
    return (
        '<div class="block">'
        + frame_html(item.frame)
        + "</div>"
        + conventions_html(item.metadata, paths)
    )


@dataclass(frozen=True)
class _Given:
    """A comparison table given as an input: its file's name, contents and anchor."""

    name: str
    item: ReportInput
    anchor: str


def input_sections(
    inputs: Sequence[Any], paths: ReportPaths
) -> Tuple[List[Tuple[Path, Dict[str, Any]]], List[Tuple[str, str]]]:
    """(study folders, file sections) of the inputs given. Every file is read first, so
    that each set of scores gets one comparison: the table given, else irgauge's own."""

    studies: List[Tuple[Path, Dict[str, Any]]] = []
    entries: List[Tuple[Any, ...]] = []  # (title, html) or (number, path, item)
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
            figures = figure_folder(given, paths)
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
                "agreement": agreement_section,
                "topicset": topicset_section,
                "reproducibility": repro_section,
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


def _rendered(render: Callable[..., str], item: ReportInput, *args: Any) -> str:
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
