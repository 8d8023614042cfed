"""The report's sections of an output folder: the collection's summary and evaluation
(``collection/manifest.json``) and each study's folder (``<study>/manifest.json``), the
studies in their canonical order."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, List, Optional, Tuple

import pandas as pd

from irgauge.io.staging import current_entries, current_path
from irgauge.io.words import counted
from irgauge.report.manifests import (
    file_inside,
    read_collection_manifest,
    read_listed_table,
    read_study_manifest,
)
from irgauge.report.page_blocks import ReportPaths, esc, figure_html, frame_html, kv_table


STUDY_ORDER = ("onerel", "incomplete", "qa", "predictive", "topicset", "pooling", "reusability")


def collection_section(root: Path, paths: ReportPaths) -> Optional[str]:
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
    parts.append(kv_table(overview))
    levels = pd.DataFrame(
        {
            "level": list(m["judgments_by_level"]),
            "judgments": list(m["judgments_by_level"].values()),
        }
    )
    parts.append(
        '<div class="block"><h3>Judgments by relevance level</h3>' + frame_html(levels) + "</div>"
    )
    depth = pd.DataFrame(m["judged_share_at_depth"])
    if len(depth):
        depth = depth[["k", "judged_share", "all_judged"]].astype({"all_judged": str})
        parts.append(
            '<div class="block"><h3>Share of retrieved documents judged, top k</h3>'
            + frame_html(depth, 3)
            + "</div>"
        )
    ev = m.get("evaluation")
    if ev:
        table = read_listed_table(folder, ev["file"], path, dtype={"run": str})
        parts.append(
            '<div class="block"><h3>Evaluation (mean over topics)</h3>'
            + frame_html(table, people=False)
            + "</div>"
        )
        parts.append("<h3>Conventions</h3>" + kv_table(ev["conventions"]))
    return "\n".join(parts)


def study_section(directory: Path, manifest: Dict[str, Any], paths: ReportPaths) -> str:
    manifest, manifest_path = paths.text(manifest), directory / "manifest.json"
    parts = [
        f'<p class="muted">{counted(manifest["n_systems"], "system")}, {manifest["n_topics"]} '
        f"topics; seed {esc(manifest['seeds'].get('seed'))}; irgauge "
        f"{esc(manifest['versions'].get('irgauge'))}; {esc(manifest['created'])}</p>"
    ]
    if manifest.get("summary"):
        items = "".join(f"<li>{esc(s)}</li>" for s in manifest["summary"])
        parts.append(f'<div class="summary"><ul class="summary">{items}</ul></div>')
    for note in manifest.get("notes", []):
        parts.append(f'<p class="muted">Note: {esc(note)}</p>')
    for entry in manifest.get("tables", []):
        frame = read_listed_table(directory, entry["files"]["csv"], manifest_path)
        parts.append(
            f'<div class="block"><h3>{esc(entry["caption"])}</h3>'
            + frame_html(frame, entry.get("digits", 4))
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
        figures.append(figure_html(found["png"], e["caption"], downloads, paths))
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
        f"<pre>{esc(json.dumps(details, indent=2, default=str))}</pre></details>"
    )
    return "\n".join(parts)


def study_manifests(root: Path) -> List[Tuple[Path, Dict[str, Any]]]:
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
