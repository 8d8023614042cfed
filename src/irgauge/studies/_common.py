"""What every study shares: its output folder, table and figure writers, the manifest and
the sentences of the summary (the collection's record: :mod:`irgauge.studies.collection_record`).

Layout of an output folder ``OUT``::

    OUT/collection/manifest.json     collection summary + evaluation table (conventions)
    OUT/<study>/manifest.json        every parameter, seed, system, topic, version, file
    OUT/<study>/tables/<t>.{txt,csv,tex}
    OUT/<study>/figures/<f>.{png,svg}
    OUT/report.html                  (irgauge report OUT)

Tables are written from pandas DataFrames: ``.txt`` as an aligned terminal table, ``.csv``
with full precision, ``.tex`` as a booktabs ``tabular`` (hand-written: no jinja2 needed).
"""

from __future__ import annotations

import json
import math
import platform
import textwrap
from contextlib import contextmanager
from dataclasses import dataclass, field
from datetime import datetime, timezone
from importlib.metadata import version as installed_version
from pathlib import Path
from typing import (
    Any,
    Callable,
    ContextManager,
    Dict,
    Iterator,
    List,
    Mapping,
    Optional,
    Sequence,
    Tuple,
    TypeVar,
    Union,
)

import numpy as np
import pandas as pd

from irgauge import __version__
from irgauge._checks import resolve_seed
from irgauge.citations import cite
from irgauge.evaluation.peers import collected, gathering
from irgauge.errors import InputError
from irgauge.io.atomic import write_text
from irgauge.io.output_scope import one_commit
from irgauge.io.steps import step_counter
from irgauge.io.staging import final_name, replaced_folder
from irgauge.io.tables import aligned_table, header
from irgauge.scores import ScoreMatrix, require_systems, select_systems
from irgauge.scores._results import CheckedResult, check_result_values, check_table
from irgauge.stats.comparison_formats import latex_escape
from irgauge.report.figures import stability_curves
from irgauge.studies import _noise, _repeat, matched_ties
from irgauge.io.words import counted

MANIFEST = "manifest.json"
COLLECTION_DIR = "collection"
Study = TypeVar("Study", bound=Callable[..., Any])


def study_entry(function: Study) -> Study:
    """A study's ``run_<name>``, however it is called (the command line, ``run_study``,
    Python): its outputs commit together (:func:`~irgauge.io.output_scope.one_commit`),
    and its manifest notes where the evaluations inside differ from trec_eval's
    (:func:`~irgauge.evaluation.peers.gathering`)."""
    return one_commit(gathering(function))


# ---------------------------------------------------------------------------- versions


def versions() -> Dict[str, str]:
    """Versions of irgauge, Python and the libraries that computed the results."""
    # read from the installed metadata: importing matplotlib for its version would load it
    # even for a study that draws nothing
    return {
        "irgauge": __version__,
        "python": platform.python_version(),
        "numpy": np.__version__,
        "pandas": pd.__version__,
        "scipy": installed_version("scipy"),
        "matplotlib": installed_version("matplotlib"),
    }


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays, paths and NaN made JSON-friendly; a path the
    running command has staged (QA data derived for the qa study) is recorded under the
    name it takes at the commit."""
    if isinstance(value, Mapping):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [jsonable(v) for v in value]
    if isinstance(value, np.ndarray):
        return jsonable(value.tolist())
    if isinstance(value, np.generic):
        return jsonable(value.item())
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, (str, Path)):
        return final_name(str(value))
    return value


def write_json(path: Path, data: Any) -> None:
    write_text(path, json.dumps(jsonable(data), indent=2) + "\n")


# ---------------------------------------------------------------------------- tables

Digits = Union[int, Mapping[str, int]]


def _digits(digits: Digits, column: str) -> int:
    """Decimals of ``column``: ``digits`` or its entry (default 4) when it is a mapping."""
    return digits.get(column, 4) if isinstance(digits, Mapping) else digits


def _cell(value: Any, digits: int) -> str:
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            return "–" if math.isnan(value) else str(value)
        return f"{value:.{digits}f}"
    return str(value)


def _rows(frame: pd.DataFrame, digits: Digits) -> List[List[str]]:
    places = [_digits(digits, str(c)) for c in frame.columns]
    return [[_cell(v, d) for v, d in zip(row, places)] for row in frame.itertuples(index=False)]


def text_table(frame: pd.DataFrame, digits: Digits = 4) -> str:
    """An aligned plain-text table (numbers right-aligned, columns named for people);
    ``digits`` is the number of decimals, for all columns or per column
    (``{"required_difference": 2}``)."""
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    return aligned_table([header(c) for c in frame.columns], _rows(frame, digits), numeric, "")


def latex_table(frame: pd.DataFrame, caption: str = "", label: str = "", digits: Digits = 4) -> str:
    """A booktabs LaTeX table (``table`` float with ``tabular``) of ``frame``."""
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    spec = "".join("r" if num else "l" for num in numeric)
    rows = [" & ".join(latex_escape(header(c)) for c in frame.columns) + r" \\"]
    for row in _rows(frame, digits):
        rows.append(" & ".join(latex_escape(v) for v in row) + r" \\")
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    if label:
        lines.append(r"\label{" + label + "}")
    lines += [r"\begin{tabular}{" + spec + "}", r"\toprule", rows[0], r"\midrule"]
    lines += rows[1:] + [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- output


SUMMARY_WIDTH = 100  # the widest summary line, in a file or on a wide terminal


@dataclass
class StudyResult(CheckedResult):
    """What a study returns: its folder, manifest, tables (DataFrames) and summary lines."""

    name: str
    directory: Path
    manifest: Dict[str, Any]
    tables: Dict[str, pd.DataFrame] = field(default_factory=dict)
    summary: List[str] = field(default_factory=list)
    report: Optional[Path] = None
    # why a table's values may be NaN, by the table's name, where its columns do not say
    # (a wide table's columns are measures)
    table_reasons: Dict[str, str] = field(default_factory=dict)

    def check_notes(self) -> List[str]:
        # the results check on each table: "table <name>: <count> <column> values are not
        # finite: <reason>"; a table the study gave a reason for (its columns are measures,
        # say) in one line, "table <name>: <count> values are not finite: <reason>"
        notes: List[str] = []
        for stem, frame in self.tables.items():
            found = check_table(frame)
            why = self.table_reasons.get(stem)
            if found and why:
                numbers = frame.select_dtypes("number").to_numpy(dtype=float)
                found = check_result_values("value", numbers, reason=why)
            notes += [f"table {stem}: {n}" for n in found]
        return notes

    def summary_lines(
        self, width: int = SUMMARY_WIDTH, indent: str = "", notes: bool = True
    ) -> List[str]:
        """The summary's sentences as ``* `` bullets and (``notes``) the notes as ``! `` ones, each
        wrapped at ``width`` columns (its continuation lines under its first word): every
        summary a study prints or writes is laid out here."""
        bullets = [("* ", line) for line in self.summary]
        if notes:
            bullets += [("! ", note) for note in self.manifest.get("notes", [])]
        out: List[str] = []
        for mark, text in bullets:
            out += textwrap.wrap(
                text,
                width=max(width, len(indent) + 20),
                initial_indent=indent + mark,
                subsequent_indent=indent + " " * len(mark),
                break_long_words=False,
                break_on_hyphens=False,
            ) or [indent + mark.rstrip()]
        return out

    def text(self, width: int = SUMMARY_WIDTH) -> str:
        """Summary (wrapped at ``width`` columns) and every table as terminal text."""
        out = [f"== {self.manifest.get('title', self.name)} ==", ""]
        out += self.summary_lines(width)
        for entry in self.manifest.get("tables", []):
            out += [
                "",
                f"-- {entry['caption']}",
                text_table(
                    self.tables[entry["name"]], entry.get("column_digits") or entry.get("digits", 4)
                ).rstrip(),
            ]
        out += ["", f"written to {self.directory}"]
        return "\n".join(out) + "\n"


@dataclass
class Record:
    """What a study's manifest records beside its tables, figures and summary."""

    parameters: Dict[str, Any]
    seeds: Dict[str, Any]
    systems: Sequence[str]
    topics: Sequence[str]
    inputs: Dict[str, Any]
    notes: List[str] = field(default_factory=list)
    extra: Optional[Dict[str, Any]] = None


class StudyWriter:
    """Collects a study's tables and figures for ``out/<name>`` and writes its manifest.

    Everything is written into a temporary folder that replaces ``out/<name>`` whole with
    the command's other outputs, once all are complete (a Python caller outside a command:
    when :meth:`finish_with` has written the manifest), so a crash or Ctrl-C leaves the previous
    results as they were (:func:`irgauge.io.staging.replaced_folder`).
    """

    def __init__(self, out: Path, name: str, title: str):
        self.root = Path(out)
        self.name = name
        self.title = title
        self.directory = self.root / name
        self._atomic: Optional[ContextManager[Path]] = replaced_folder(self.directory)
        # a writer dropped without finish_with(): the generator's cleanup removes the temp folder
        self.work = self._atomic.__enter__()
        (self.work / "tables").mkdir(parents=True, exist_ok=True)
        (self.work / "figures").mkdir(parents=True, exist_ok=True)
        self.tables: Dict[str, pd.DataFrame] = {}
        self.table_reasons: Dict[str, str] = {}
        self.table_entries: List[Dict[str, Any]] = []
        self.figure_entries: List[Dict[str, Any]] = []

    def abort(self) -> None:
        """Remove the temporary folder; ``out/<name>`` stays as it was."""
        if self._atomic is not None:
            self._atomic.__exit__(RuntimeError, RuntimeError("aborted"), None)
            self._atomic = None

    def table(
        self,
        stem: str,
        frame: pd.DataFrame,
        caption: str,
        digits: Digits = 4,
        tsv: bool = False,
        nan_reason: Optional[str] = None,
    ) -> None:
        """Write ``frame`` as tables/<stem>.txt, .csv and .tex (and .tsv, full precision,
        with ``tsv``) and list it in the manifest; ``nan_reason``: why a value of it may be
        NaN, where its columns' names do not tell (the manifest's notes name them)."""
        frame = frame.reset_index(drop=True)
        base = self.work / "tables" / stem
        write_text(base.with_suffix(".txt"), text_table(frame, digits))
        if tsv:
            write_text(
                base.with_suffix(".tsv"),
                frame.to_csv(index=False, sep="\t", float_format="%.10g"),
            )
        # to_csv's own line ending (os.linesep), as before; its name changed in pandas 1.5
        write_text(base.with_suffix(".csv"), frame.to_csv(index=False, float_format="%.10g"))
        write_text(
            base.with_suffix(".tex"), latex_table(frame, caption, f"tab:{self.name}-{stem}", digits)
        )
        self.tables[stem] = frame
        if nan_reason:
            self.table_reasons[stem] = nan_reason
        self.table_entries.append(
            {
                "name": stem,
                "caption": caption,
                # one number for readers of the manifest (the HTML report), per column below
                "digits": max(digits.values(), default=4)
                if isinstance(digits, Mapping)
                else digits,
                "column_digits": dict(digits) if isinstance(digits, Mapping) else {},
                "files": {
                    ext: f"tables/{stem}.{ext}"
                    for ext in ("txt", "csv", "tex") + (("tsv",) if tsv else ())
                },
            }
        )

    def figure(
        self, stem: str, draw: Callable[..., List[str]], data: Any, caption: str, **options
    ) -> None:
        """Draw with a figure function ``draw(data, directory, stem=...)`` into figures/."""
        paths = draw(data, self.work / "figures", stem=stem, **options)
        files = {Path(p).suffix.lstrip("."): f"figures/{Path(p).name}" for p in paths}
        self.figure_entries.append({"name": stem, "caption": caption, "files": files})

    def finish_with(self, record: Record, summary: List[str]) -> StudyResult:
        """Write manifest.json (its fields beside the tables and figures from ``record``)
        and summary.txt, move the folder into place; return the StudyResult."""
        systems, topics, notes = record.systems, record.topics, record.notes
        manifest = {
            "kind": "study",
            "study": self.name,
            "title": self.title,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "versions": versions(),
            "inputs": record.inputs,
            "parameters": record.parameters,
            "seeds": record.seeds,
            "systems": list(systems),
            "topics": list(topics),
            "n_systems": len(systems),
            "n_topics": len(topics),
            "summary": list(summary),
            # the evaluations' differences from trec_eval, with the option (peers.collecting)
            "notes": list(notes) + [n for n in collected() if n not in notes],
            "tables": self.table_entries,
            "figures": self.figure_entries,
            **(record.extra or {}),
        }
        result = StudyResult(
            self.name, self.directory, {}, self.tables, list(summary), None, self.table_reasons
        )
        # the results check's notes on the tables reach the manifest, beside the others
        manifest["notes"] += [n for n in result.notes if n not in manifest["notes"]]
        write_json(self.work / MANIFEST, manifest)
        result.manifest = jsonable(manifest)
        write_text(self.work / "summary.txt", result.text())
        assert self._atomic is not None  # finished once
        self._atomic.__exit__(None, None, None)
        self._atomic = None
        return result


@contextmanager
def study_writer(out, name: str, title: str) -> Iterator[StudyWriter]:
    """A :class:`StudyWriter` for ``out/<name>``; when the body fails, its temporary folder
    goes and ``out/<name>`` keeps the previous results."""
    writer = StudyWriter(Path(out), name, title)
    try:
        yield writer
    except BaseException:
        writer.abort()
        raise


STABILITY_PAIRS_CAPTION = (
    "Stability read from the curves: minority rate of each pair at the smallest "
    "proportion of ties both reach (mean and SE over the repetitions)"
)


STABILITY_MATCHED_CAPTION = (
    "Minority rate of each measure at one matched proportion of ties (the largest of the "
    "curves' smallest proportions of ties; mean and SE over the repetitions)"
)


def write_stability(
    writer: StudyWriter,
    curve: pd.DataFrame,
    pairs: pd.DataFrame,
    paper: str,
    table_caption: str,
    figure_caption: str,
    curve_rows: pd.DataFrame,
) -> None:
    """The stability tables (at fuzziness 0.05, and pairwise from the curves) and the
    minority rate / proportion of ties figure."""
    writer.table("stability", _repeat.stability_table(curve), table_caption, digits=4)
    writer.table(
        "stability_matched",
        matched_ties.matched_table(curve_rows),
        caption(STABILITY_MATCHED_CAPTION, paper),
        digits=4,
    )
    writer.table("stability_pairs", pairs, caption(STABILITY_PAIRS_CAPTION, paper), digits=4)
    writer.figure("minority_ties", stability_curves, curve, figure_caption)


# ---------------------------------------------------------------------------- inputs


def path_list(runs: Any) -> List[str]:
    """Runs given as one path or a list of paths, as strings (for the manifest)."""
    if isinstance(runs, (str, Path)):
        return [str(runs)]
    return [str(r) for r in runs]


def select(matrices, top_k: Optional[int], top_fraction: Optional[float], by: str):
    """The system filter of every study: top-k or top fraction by mean ``by``. With no
    filter ``by`` is the study's default (AP), which a collection may not have: it is then
    not asked for (select_systems refuses a measure named without scores)."""
    filtered = top_k is not None or top_fraction is not None
    chosen = select_systems(
        matrices, top_k=top_k, top_fraction=top_fraction, by=by if filtered else None, minimum=2
    )
    require_systems(chosen, 2)
    return chosen


def systems_phrase(
    n_used: int, n_all: int, top_k, top_fraction, by, default: Tuple[Any, Any] = (None, None)
) -> str:
    """What the system filter kept, in words that stay true when the collection has fewer
    systems than asked for: "17 systems (all 17; the top 30 by AP were asked for)". A
    filter that is the study's ``default`` (its ``(top_k, top_fraction)``) is called so,
    never a request: "6 systems (all 6; the default filter, the top 30 by AP, keeps
    them all)"."""
    if top_k is None and top_fraction is None:
        return f"{counted(n_used, 'system')} (all)"
    wanted = f"the top {top_k}" if top_k else f"the top {top_fraction:.0%}"
    if n_used < n_all:
        return f"{counted(n_used, 'system')} ({wanted} of {n_all} by {by})"
    if (top_k, top_fraction) == tuple(default):
        return (
            f"{counted(n_used, 'system')} (all {n_all}; the default filter, {wanted} by "
            f"{by}, keeps them all)"
        )
    return f"{counted(n_used, 'system')} (all {n_all}; {wanted} by {by} were asked for)"


def filter_parameters(top_k, top_fraction, by) -> Dict[str, Any]:
    return {"top_k": top_k, "top_fraction": top_fraction, "filter_measure": by}


def seed_or_fresh(seed: Optional[int]) -> int:
    """The study's seed: ``seed`` or a fresh one (reported in the manifest)."""
    return resolve_seed(seed)


def seeds_for(seed: Optional[int], repetitions: int, what: str = "repetitions"):
    """(the study's seed, one seed per repetition): ``seed`` or a fresh one, and the
    repetitions' independent seeds, the first of them the study's seed."""
    if repetitions < 1:
        raise InputError(f"{what} must be at least 1, got {repetitions}")
    seed = seed_or_fresh(seed)
    return seed, _noise.repetition_seeds(seed, repetitions)


def steps(progress, label: str, total: int) -> Callable[..., None]:
    """``step()`` of a bar ``label`` over ``total`` steps; a no-op without ``progress``."""
    return step_counter(progress(label) if progress else None, total)


def selected(
    every, top_k: Optional[int], top_fraction: Optional[float], by: str, default=(None, None)
):
    """(the matrices of the systems the filter keeps, what it kept in words); ``default``:
    the study's own filter (see :func:`systems_phrase`)."""
    matrices = select(every, top_k, top_fraction, by)
    used = next(iter(matrices.values())).n_systems
    n_all = next(iter(every.values())).n_systems
    return matrices, systems_phrase(used, n_all, top_k, top_fraction, by, default)


def renamed(matrices, labels: Mapping[str, str]):
    """``{label: matrix}`` for the measure strings in ``labels`` (measure string -> label)."""
    return {
        labels[k]: ScoreMatrix(m.values, m.systems, m.topics, labels[k], m.source)
        for k, m in matrices.items()
        if k in labels
    }


# ---------------------------------------------------------------------------- labels

# One name per measure definition, the same in every study's tables, figures and summaries.
MEASURE_LABELS = {
    "nDCG(dcg=jk,b=2)@1000": "nDCG (Järvelin–Kekäläinen, b=2)@1000",
    "nDCG(dcg=jk,b=2,judged_only=true)@1000": "nDCG' (Järvelin–Kekäläinen, b=2)@1000",
    "nDCG": "nDCG (log2)",
    "RBP(p=0.95)": "RBP (p=0.95)",
    "Q-measure": "Q-measure",
    "AP": "AP",
    "RR": "RR",
    "P@10": "P@10",
}


def label(measure: str) -> str:
    """The display name of a measure string (itself when it needs no explanation)."""
    return MEASURE_LABELS.get(measure, measure)


def caption(text: str, paper: Optional[str] = None, item: Optional[str] = None) -> str:
    """``text`` followed by the paper it reproduces: "... (as Table 3 of Sakai (2006), ...)"."""
    if paper is None:
        return text
    return f"{text} (as {item} of {cite(paper)})" if item else f"{text} ({cite(paper)})"
