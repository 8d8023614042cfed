"""The manifests the report is built from (a study's, a collection summary's), checked
before use: they are inputs like any other, and a damaged or hand-edited one must give one
line naming the file and the problem, not a KeyError halfway through the page. The files a
manifest names (tables, figures) must lie inside its folder."""

from __future__ import annotations

import io
from pathlib import Path
from typing import Any, Dict, Mapping, Optional

import pandas as pd

from irgauge.errors import InputError
from irgauge.io.file_text import read_text
from irgauge.io.json_input import read_json_object

NUMBER = (int, float)
STUDY_KEYS = {
    "study": str,
    "n_systems": int,
    "n_topics": int,
    "seeds": dict,
    "versions": dict,
    "created": str,
    "tables": list,
    "figures": list,
}
COLLECTION_KEYS = {
    "qrels": str,
    "n_topics": int,
    "n_runs": int,
    "judged_per_topic": dict,
    "relevant_per_topic": dict,
    "judged_depth": (int, type(None)),
    "judgments_by_level": dict,
    "judged_share_at_depth": list,
}
SPREAD_KEYS = {"min": NUMBER, "median": NUMBER, "max": NUMBER}
DEPTH_KEYS = {"k": int, "judged_share": NUMBER, "all_judged": bool}
ENTRY_KEYS = {"caption": str, "files": dict}


def require(found: Any, keys: Mapping[str, Any], path: Path, where: str = "") -> None:
    """InputError naming ``path`` unless ``found`` is an object holding every key of ``keys``
    with a value of its type (``bool`` is not taken for a number)."""
    place = f"{where}: " if where else ""
    if not isinstance(found, dict):
        raise InputError(f"{place}expected an object, found {type(found).__name__}", str(path))
    for key, kind in keys.items():
        value = found.get(key)
        kinds = kind if isinstance(kind, tuple) else (kind,)
        if key not in found or not isinstance(value, kinds) or _bool_for_number(value, kinds):
            names = " or ".join(k.__name__ for k in kinds)
            raise InputError(
                f"{place}'{key}' must be {names}; the manifest is not an irgauge one or is damaged",
                str(path),
            )


def _bool_for_number(value: Any, kinds: tuple) -> bool:
    return isinstance(value, bool) and bool not in kinds


def read_study_manifest(path: Path) -> Optional[Dict[str, Any]]:
    """The checked manifest of a study folder; None when the manifest is not a study's."""
    manifest = read_json_object(path)
    if manifest.get("kind") != "study":
        return None
    require(manifest, STUDY_KEYS, path)
    for listed in ("tables", "figures"):
        for number, entry in enumerate(manifest[listed], 1):
            require(entry, ENTRY_KEYS, path, f"{listed} entry {number}")
            if not all(isinstance(f, str) for f in entry["files"].values()):
                raise InputError(f"{listed} entry {number}: file names must be text", str(path))
        for number, entry in enumerate(manifest["tables"], 1):
            require(entry["files"], {"csv": str}, path, f"tables entry {number}")
    return manifest


def read_collection_manifest(path: Path) -> Dict[str, Any]:
    """The checked manifest of a collection summary (``collection/manifest.json``)."""
    manifest = read_json_object(path)
    require(manifest, COLLECTION_KEYS, path)
    for key in ("judged_per_topic", "relevant_per_topic"):
        require(manifest[key], SPREAD_KEYS, path, key)
    for number, row in enumerate(manifest["judged_share_at_depth"], 1):
        require(row, DEPTH_KEYS, path, f"judged_share_at_depth entry {number}")
    evaluation = manifest.get("evaluation")
    if evaluation:
        require(evaluation, {"file": str, "conventions": dict}, path, "evaluation")
    return manifest


def file_inside(folder: Path, name: str, manifest: Path) -> Path:
    """``folder / name``, refused unless it stays inside ``folder`` (a manifest naming
    ``../../elsewhere`` would put any file of the machine into the page)."""
    target = folder / name
    if not target.resolve().is_relative_to(folder.resolve()):
        raise InputError(f"names the file {name!r}, outside its folder {folder}", str(manifest))
    return target


def read_listed_table(folder: Path, name: str, manifest: Path, **options) -> pd.DataFrame:
    """The CSV table ``name`` a manifest lists, read through the shared reader; a table
    pandas cannot parse is refused naming it."""
    path = file_inside(folder, name, manifest)
    text = read_text(path)
    try:
        return pd.read_csv(io.StringIO(text), **options)
    except (pd.errors.ParserError, pd.errors.EmptyDataError, ValueError) as err:
        problem = " ".join(str(err).split())  # pandas' messages end in a newline
        raise InputError(f"not a CSV table ({problem})", str(path)) from None
