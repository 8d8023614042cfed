"""One study on several named collections, and the papers' side-by-side tables.

``run_on_collections(study, {name: (qrels, runs)}, out)`` runs the study on each collection
into ``out/<name>/<study>`` and writes ``out/<study>-comparison``: every table of the study
stacked with a ``collection`` column, and the headline numbers side by side (one column
per collection), as the papers print their collections (e.g. Table 2 of Sakai's AIRS 2006
paper for the collection statistics).

A collection is given as ``NAME=QRELS:RUNDIR`` (every file in RUNDIR is a run) or in a small
TOML file::

    [collections.dl2019]
    qrels = "qrels-dl19.txt"
    runs = "runs/dl19"        # a folder, or a list of files
"""

from __future__ import annotations

import re
import sys
from pathlib import Path
from typing import Any, Dict, List, Mapping, Optional, Tuple

import pandas as pd

from irgauge.errors import InputError
from irgauge.io.file_text import read_text, text_lines
from irgauge.io.output_scope import one_commit
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import study_function
from irgauge.studies.qa import DERIVED_TAG
from irgauge.io.words import counted

# study -> (table, row key, value column) of the side-by-side headline table
HEADLINE = {
    "onerel": ("discriminative_power", "measure", "share"),
    "incomplete": ("discriminative_power", "measure", "share"),
    # the QAC2 note: stability read at matched proportions of ties, not at one fuzziness
    # value, which favours metrics prone to ties
    "qa": ("stability_matched", "measure", "minority_rate"),
    "predictive": ("phi", "predictor", None),
    "topicset": ("topic_set_size", "measure", "n_ttest"),
    "pooling": ("found", "pool", "found_share"),
}


def parse_collection(spec: str) -> Tuple[str, Tuple[Path, List[Path]]]:
    """``NAME=QRELS:RUNDIR`` -> (name, (qrels, [run files]))."""
    name, sep, rest = spec.partition("=")
    qrels, sep2, rundir = rest.rpartition(":")
    if not sep or not sep2 or not name or not qrels or not rundir:
        raise InputError(f"--collection {spec!r}: expected NAME=QRELS:RUNDIR")
    return name, (Path(qrels), run_files(rundir, f"--collection {name}"))


def run_files(where, what: str) -> List[Path]:
    """The run files of a folder (sorted; hidden files skipped) or a list of paths."""
    if isinstance(where, (list, tuple)):
        return [Path(p) for p in where]
    folder = Path(where)
    if not folder.is_dir():
        raise InputError(f"{what}: run folder {folder} does not exist or is not a folder")
    files = sorted(p for p in folder.iterdir() if p.is_file() and not p.name.startswith("."))
    if not files:
        raise InputError(f"{what}: no run files in {folder}")
    return files


def read_collections_toml(path) -> Dict[str, Tuple[Path, List[Path]]]:
    """Collections from a TOML file (paths relative to the file's folder), read as every
    input is (decompressed, its lines bounded, bytes that are not UTF-8 refused at
    FILE:LINE); a value of the wrong type is refused naming the file, the collection, the
    key and, when it can be found, the key's line."""
    tomllib = _toml_module(path)
    path = Path(path)
    # lines end where every reader ends them (a lone CR too, which TOML itself refuses)
    text = "\n".join(text_lines(read_text(path)))
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as err:
        raise InputError(f"not valid TOML ({err})", str(path)) from None
    found = data.get("collections")
    if not isinstance(found, Mapping) or not found:
        raise InputError("no [collections.NAME] tables", str(path))
    out = {}
    for name, entry in found.items():
        if not isinstance(entry, Mapping) or "qrels" not in entry or "runs" not in entry:
            raise InputError(f"collection {name!r} needs 'qrels' and 'runs'", str(path))
        check_collection_name(name, None, str(path))
        where = _KeyPlace(path, text, name)
        qrels = where.path_value(entry["qrels"], "qrels")
        runs = entry["runs"]
        if isinstance(runs, list):
            if not runs:
                raise where.error("runs", "'runs' is an empty list; name at least one run file")
            runs = [where.path_value(r, "runs") for r in runs]
        else:
            runs = where.path_value(runs, "runs")
        out[name] = (qrels, run_files(runs, f"{path}: {name}"))
    return out


def _toml_module(path):
    if sys.version_info >= (3, 11):
        import tomllib

        return tomllib
    try:  # pragma: no cover - depends on the interpreter
        import tomli

        return tomli
    except ImportError:  # pragma: no cover
        raise InputError(
            f"{path}: reading TOML needs Python 3.11 or the 'tomli' package; "
            f"give the collections with --collection NAME=QRELS:RUNDIR "
            f"instead"
        ) from None


TOML_KINDS = {
    bool: "true or false",
    int: "an integer",
    float: "a number",
    list: "a list",
    dict: "a table",
}


class _KeyPlace:
    """Names a key of one collection of a TOML file in errors, at its line when the key
    is written ``key = ...`` under the collection's own ``[collections.NAME]`` header (TOML
    parsers give values, not their places)."""

    def __init__(self, path: Path, text: str, name: str):
        self.path, self.name = path, name
        self.lines = text.split("\n")
        header = re.compile(
            r"\s*\[\s*collections\s*\.\s*("
            + re.escape(name)
            + r"|[\"']"
            + re.escape(name)
            + r"[\"'])\s*\]"
        )
        self.start = next((i for i, x in enumerate(self.lines) if header.match(x)), None)

    def line_of(self, key: str):
        if self.start is None:
            return None
        for i in range(self.start + 1, len(self.lines)):
            if self.lines[i].lstrip().startswith("["):
                return None
            if re.match(r"\s*" + key + r"\s*=", self.lines[i]):
                return i + 1
        return None

    def error(self, key: str, problem: str) -> InputError:
        return InputError(f"collection {self.name!r}: {problem}", str(self.path), self.line_of(key))

    def path_value(self, value, key: str) -> Path:
        """``value`` as a path relative to the file's folder: a non-empty string without
        a NUL byte (which no file name holds)."""
        if not isinstance(value, str):
            kind = TOML_KINDS.get(type(value), "a date or time")
            raise self.error(key, f"'{key}' is {kind}, not a path (write the path in quotes)")
        if not value or "\0" in value:
            shown = "is empty" if not value else "holds a NUL character"
            raise self.error(key, f"the path of '{key}' {shown}")
        return self.path.parent / value


@one_commit
def run_on_collections(
    study: str, collections: Mapping[str, Tuple[Any, Any]], out, **options
) -> Tuple[Dict[str, common.StudyResult], common.StudyResult]:
    """Run ``study`` on every collection; write and return the comparison as well."""
    out = Path(out)
    folded: Dict[str, str] = {}
    for name in collections:
        check_collection_name(name, study)
        # on a case-insensitive file system (macOS, Windows) both would write one folder
        earlier = folded.setdefault(name.casefold(), name)
        if earlier != name:
            raise InputError(
                f"collection names {earlier!r} and {name!r} differ only in case: their result "
                "folders are one folder where case is not told apart; choose other names"
            )
    results = {}
    for name, (qrels, runs) in collections.items():
        results[name] = study_function(study)(qrels, runs, out / name, **options)
    return results, write_comparison(study, results, collections, out, **options)


def check_collection_name(name: Any, study: Optional[str], path: Optional[str] = None) -> None:
    """A collection's name is the folder ``out/NAME`` of its results: one plain folder name,
    not the comparison's ``<study>-comparison`` (which would replace that collection's
    results), nor a path (``a/b``, ``..``) that would put them elsewhere."""
    problem = None
    if not isinstance(name, str) or not name.strip():
        problem = "is empty"
    elif name in (".", "..") or any(c in name for c in "/\\\0"):
        problem = "is not a plain folder name (no '/', '\\', '.' or '..')"
    elif study is not None and name.casefold() == f"{study}-comparison".casefold():
        problem = "is the name of the comparison folder the study writes beside the collections"
    if problem:
        raise InputError(f"collection name {name!r} {problem}; choose another name", path)


def write_comparison(
    study: str, results: Mapping[str, common.StudyResult], collections, out, **options
) -> common.StudyResult:
    """``out/<study>-comparison``: stacked tables and the side-by-side headline table."""
    names = list(results)
    title = (
        f"{next(iter(results.values())).manifest['title']}: "
        f"{counted(len(names), 'collection')} side by side"
    )
    with common.study_writer(Path(out), f"{study}-comparison", title) as writer:
        if study != "qa":
            stats = pd.DataFrame(
                [
                    {
                        "collection": n,
                        **collection_record.collection_statistics(
                            collections[n][0], collections[n][1], options.get("eval_options")
                        ),
                    }
                    for n in names
                ]
            )
            # Table 2 of the AIRS paper is onerel's; elsewhere these are just the statistics
            paper = ("onerel", "Table 2") if study == "onerel" else (None, None)
            writer.table(
                "collection_statistics",
                stats,
                common.caption("Collection statistics", *paper),
                digits=2,
            )
        derived = any(r.manifest.get("derived") for r in results.values())
        tag = DERIVED_TAG if derived else ""
        table, key, value = HEADLINE[study]
        wide: Any = None  # the first collection's column, then joined
        for n in names:
            frame = results[n].tables[table].set_index(key)
            column = frame[value] if value else pd.Series({m: frame.loc[m, m] for m in frame.index})
            part = column.rename(n)
            wide = part.to_frame() if wide is None else wide.join(part, how="outer")
        what = value or "phi(A, A)"
        writer.table(
            f"{table}_side_by_side",
            wide.reset_index().rename(columns={"index": key}),
            f"{what} of the {table.replace('_', ' ')} table, one "
            f"column per collection (means over the repetitions; errors in each "
            f"collection's own table){tag}",
            digits=3,
        )
        common_tables = set.intersection(*(set(r.tables) for r in results.values()))
        for stem in [s for s in results[names[0]].tables if s in common_tables]:
            stacked = pd.concat(
                [results[n].tables[stem].assign(collection=n) for n in names], ignore_index=True
            )
            stacked = stacked[["collection"] + [c for c in stacked.columns if c != "collection"]]
            writer.table(
                stem, stacked, f"{stem.replace('_', ' ')}: every collection{tag}", digits=4
            )
        summary = [f"{n}: {line}" for n in names for line in results[n].summary]
        given = {
            n: {"qrels": str(collections[n][0]), "runs": common.path_list(collections[n][1])}
            for n in names
        }
        record = common.Record(
            {"collections": given},
            {n: results[n].manifest["seeds"].get("seed") for n in names},
            [],  # the collections' systems and topics: each study's own manifest
            [],
            {"studies": {n: str(results[n].directory) for n in names}},
        )
        return writer.finish_with(record, summary)
