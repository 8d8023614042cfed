"""What every study shares: its output folder, table and figure writers, the manifest, the
collection summary and the sentences of the summary.

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
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any, Callable, Dict, List, Mapping, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge.stats.resampling import TIE_TOLERANCE

MANIFEST = "manifest.json"
COLLECTION_DIR = "collection"


# ---------------------------------------------------------------------------- versions

def versions() -> Dict[str, str]:
    """Versions of irgauge, Python and the libraries that computed the results."""
    import matplotlib
    import scipy

    from irgauge import __version__

    return {"irgauge": __version__, "python": platform.python_version(),
            "numpy": np.__version__, "pandas": pd.__version__, "scipy": scipy.__version__,
            "matplotlib": matplotlib.__version__}


def jsonable(value: Any) -> Any:
    """``value`` with numpy scalars/arrays, paths and NaN made JSON-friendly."""
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
    if isinstance(value, Path):
        return str(value)
    return value


def write_json(path: Path, data: Any) -> None:
    with open(path, "w", encoding="utf-8", newline="\n") as handle:
        json.dump(jsonable(data), handle, indent=2)
        handle.write("\n")


def read_json(path: Path) -> Any:
    with open(path, encoding="utf-8") as handle:
        return json.load(handle)


# ---------------------------------------------------------------------------- tables

def _cell(value: Any, digits: int) -> str:
    if isinstance(value, (float, np.floating)):
        if not math.isfinite(value):
            return "–" if math.isnan(value) else str(value)
        return f"{value:.{digits}f}"
    return str(value)


def text_table(frame: pd.DataFrame, digits: int = 4) -> str:
    """An aligned plain-text table (numbers right-aligned)."""
    header = [str(c) for c in frame.columns]
    cells = [[_cell(v, digits) for v in row] for row in frame.itertuples(index=False)]
    widths = [max([len(header[i])] + [len(r[i]) for r in cells]) for i in range(len(header))]
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]

    def line(row):
        return "  ".join(v.rjust(w) if num else v.ljust(w)
                         for v, w, num in zip(row, widths, numeric)).rstrip()

    return "\n".join([line(header), line(["-" * w for w in widths])]
                     + [line(r) for r in cells]) + "\n"


_LATEX_ESCAPES = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#",
                  "_": r"\_", "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}",
                  "^": r"\textasciicircum{}"}


def latex_escape(text: str) -> str:
    return "".join(_LATEX_ESCAPES.get(ch, ch) for ch in str(text))


def latex_table(frame: pd.DataFrame, caption: str = "", label: str = "",
                digits: int = 4) -> str:
    """A booktabs LaTeX table (``table`` float with ``tabular``) of ``frame``."""
    numeric = [pd.api.types.is_numeric_dtype(frame[c]) for c in frame.columns]
    spec = "".join("r" if num else "l" for num in numeric)
    rows = [" & ".join(latex_escape(c) for c in frame.columns) + r" \\"]
    for row in frame.itertuples(index=False):
        rows.append(" & ".join(latex_escape(_cell(v, digits)) for v in row) + r" \\")
    lines = [r"\begin{table}[t]", r"\centering"]
    if caption:
        lines.append(r"\caption{" + latex_escape(caption) + "}")
    if label:
        lines.append(r"\label{" + label + "}")
    lines += [r"\begin{tabular}{" + spec + "}", r"\toprule", rows[0], r"\midrule"]
    lines += rows[1:] + [r"\bottomrule", r"\end{tabular}", r"\end{table}"]
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------------- output

@dataclass
class StudyResult:
    """What a study returns: its folder, manifest, tables (DataFrames) and summary lines."""

    name: str
    directory: Path
    manifest: Dict[str, Any]
    tables: Dict[str, pd.DataFrame] = field(default_factory=dict)
    summary: List[str] = field(default_factory=list)
    report: Optional[Path] = None

    def text(self) -> str:
        """Summary and every table as terminal text."""
        out = [f"== {self.manifest.get('title', self.name)} ==", ""]
        out += [f"* {line}" for line in self.summary]
        for entry in self.manifest.get("tables", []):
            out += ["", f"-- {entry['caption']}", text_table(self.tables[entry["name"]],
                                                             entry.get("digits", 4)).rstrip()]
        out += ["", f"written to {self.directory}"]
        return "\n".join(out) + "\n"


class StudyWriter:
    """Collects a study's tables and figures in ``out/<name>`` and writes its manifest."""

    def __init__(self, out: Path, name: str, title: str):
        self.root = Path(out)
        self.name = name
        self.title = title
        self.directory = self.root / name
        (self.directory / "tables").mkdir(parents=True, exist_ok=True)
        (self.directory / "figures").mkdir(parents=True, exist_ok=True)
        self.tables: Dict[str, pd.DataFrame] = {}
        self.table_entries: List[Dict[str, Any]] = []
        self.figure_entries: List[Dict[str, Any]] = []

    def table(self, stem: str, frame: pd.DataFrame, caption: str, digits: int = 4) -> None:
        """Write ``frame`` as tables/<stem>.txt, .csv and .tex and list it in the manifest."""
        frame = frame.reset_index(drop=True)
        base = self.directory / "tables" / stem
        base.with_suffix(".txt").write_text(text_table(frame, digits), encoding="utf-8")
        frame.to_csv(base.with_suffix(".csv"), index=False, float_format="%.10g")
        base.with_suffix(".tex").write_text(
            latex_table(frame, caption, f"tab:{self.name}-{stem}", digits), encoding="utf-8")
        self.tables[stem] = frame
        self.table_entries.append({
            "name": stem, "caption": caption, "digits": digits,
            "files": {ext: f"tables/{stem}.{ext}" for ext in ("txt", "csv", "tex")}})

    def figure(self, stem: str, draw: Callable[..., List[str]], data: Any, caption: str,
               **options) -> None:
        """Draw with a :mod:`irgauge.report.figures` function into figures/<stem>.png/.svg."""
        paths = draw(data, self.directory / "figures", stem=stem, **options)
        files = {Path(p).suffix.lstrip("."): f"figures/{Path(p).name}" for p in paths}
        self.figure_entries.append({"name": stem, "caption": caption, "files": files})

    def finish(self, parameters: Dict[str, Any], seeds: Dict[str, int], systems: Sequence[str],
               topics: Sequence[str], summary: List[str], inputs: Dict[str, Any],
               notes: Sequence[str] = ()) -> StudyResult:
        """Write manifest.json and summary.txt; return the StudyResult."""
        manifest = {
            "kind": "study", "study": self.name, "title": self.title,
            "created": datetime.now(timezone.utc).isoformat(timespec="seconds"),
            "versions": versions(), "inputs": inputs, "parameters": parameters,
            "seeds": seeds, "systems": list(systems), "topics": list(topics),
            "n_systems": len(systems), "n_topics": len(topics),
            "summary": list(summary), "notes": list(notes),
            "tables": self.table_entries, "figures": self.figure_entries,
        }
        write_json(self.directory / MANIFEST, manifest)
        result = StudyResult(self.name, self.directory, jsonable(manifest), self.tables,
                             list(summary))
        (self.directory / "summary.txt").write_text(result.text(), encoding="utf-8")
        return result


# ---------------------------------------------------------------------------- inputs

def path_list(runs: Any) -> List[str]:
    """Runs given as one path or a list of paths, as strings (for the manifest)."""
    if isinstance(runs, (str, Path)):
        return [str(runs)]
    return [str(r) for r in runs]


def select(matrices, top_k: Optional[int], top_fraction: Optional[float], by: str):
    """The system filter of every study: top-k or top fraction by mean ``by``."""
    from irgauge.scores import require_systems, select_systems

    chosen = select_systems(matrices, top_k=top_k, top_fraction=top_fraction, by=by)
    require_systems(chosen, 2)
    return chosen


def filter_parameters(top_k, top_fraction, by) -> Dict[str, Any]:
    return {"top_k": top_k, "top_fraction": top_fraction, "filter_measure": by}


def seed_or_fresh(seed: Optional[int]) -> int:
    """The study's seed: ``seed`` or a fresh one (reported in the manifest)."""
    from irgauge.stats.resampling import resolve_seed

    return resolve_seed(seed)


def renamed(matrices, labels: Mapping[str, str]):
    """``{label: matrix}`` for the measure strings in ``labels`` (measure string -> label)."""
    from irgauge.scores import ScoreMatrix

    return {labels[k]: ScoreMatrix(m.values, m.systems, m.topics, labels[k], m.source)
            for k, m in matrices.items() if k in labels}


# ---------------------------------------------------------------------------- words

def ordering(values: Mapping[str, float], higher_is_better: bool = True,
             tolerance: float = TIE_TOLERANCE) -> str:
    """``"A > B = C > D"``: names sorted best first, '=' between equal values."""
    items = sorted(values.items(), key=lambda kv: -kv[1] if higher_is_better else kv[1])
    if not items:
        return ""
    text = items[0][0]
    for (_, prev), (name, value) in zip(items, items[1:]):
        text += (" = " if abs(prev - value) <= tolerance else
                 (" > " if higher_is_better else " < ")) + name
    return text


# ---------------------------------------------------------------------------- collection

JUDGED_DEPTHS = (1, 5, 10, 20, 30, 50, 100, 200, 500, 1000)
SUMMARY_MEASURES = ("AP", "Q-measure", "nDCG(dcg=jk,b=2)@1000", "nDCG@10", "P@10", "RR",
                    "bpref")


def collection_summary(qrels, runs, out: Path, measures: Sequence[str] = SUMMARY_MEASURES,
                       **eval_options) -> Dict[str, Any]:
    """Write ``out/collection``: topics, runs, judgments by level, judged depth, and the
    evaluation table with the conventions used. Returns its manifest."""
    from irgauge import evaluate
    from irgauge.io.qrels import read_qrels

    q = read_qrels(qrels)
    directory = Path(out) / COLLECTION_DIR
    directory.mkdir(parents=True, exist_ok=True)
    levels = pd.Series(np.asarray(q.levels)).value_counts().sort_index()
    topics = pd.Series([t.decode() for t in q.topics])
    relevant = pd.Series(np.asarray(q.levels) > 0)
    per_topic_rel = relevant.groupby(topics.to_numpy()).sum()
    per_topic_judged = topics.value_counts()

    depth_measures = [f"{kind}@{k}" for k in JUDGED_DEPTHS
                      for kind in ("num_ret", "num_rel_ret", "num_nonrel_judged_ret")]
    result = evaluate(q, runs, list(measures) + depth_measures, **eval_options)
    pt = result.per_topic.pivot_table(index=["run", "topic"], columns="measure",
                                      values="value", aggfunc="first")
    depth_rows, judged_depth = [], 0
    for k in JUDGED_DEPTHS:
        ret = pt[f"num_ret@{k}"]
        judged = pt[f"num_rel_ret@{k}"] + pt[f"num_nonrel_judged_ret@{k}"]
        share = judged.sum() / max(ret.sum(), 1)
        complete = bool((judged == ret).all())
        if complete:
            judged_depth = k
        depth_rows.append({"k": k, "judged_share": float(share), "all_judged": complete,
                           "max_retrieved": float(ret.max())})
        if ret.max() < k:  # deeper cutoffs see the same lists
            break
    evaluation = result.table()[list(measures)].reset_index()
    evaluation.to_csv(directory / "evaluation.csv", index=False, float_format="%.10g")
    conventions = {k: v for k, v in result.metadata.items()
                   if k in ("order", "rel_level", "gains", "judged_only", "complete",
                            "aggregate", "empty_topics", "topics_without_relevant",
                            "topics_missing_from_run", "run_topics_not_in_qrels")}
    manifest = {
        "kind": "collection", "qrels": str(q.source),
        "runs": result.metadata["runs"], "n_topics": int(len(per_topic_judged)),
        "n_runs": len(result.metadata["runs"]),
        "judgments_by_level": {str(int(k)): int(v) for k, v in levels.items()},
        "judged_per_topic": _stats(per_topic_judged),
        "relevant_per_topic": _stats(per_topic_rel),
        "judged_depth": judged_depth, "judged_share_at_depth": depth_rows,
        "evaluation": {"file": "evaluation.csv", "measures": list(measures),
                       "conventions": conventions},
        "versions": versions(),
    }
    write_json(directory / MANIFEST, manifest)
    return manifest


def _stats(counts: pd.Series) -> Dict[str, float]:
    return {"min": int(counts.min()), "median": float(counts.median()),
            "mean": round(float(counts.mean()), 3), "max": int(counts.max())}


def finish_report(result: StudyResult, qrels, runs, out, report: bool,
                  eval_options: Optional[Dict[str, Any]] = None) -> StudyResult:
    """Write the collection summary (when qrels and runs are known) and, with ``report``,
    the HTML report of everything in ``out``."""
    if qrels is not None and runs is not None:
        collection_summary(qrels, runs, Path(out), **(eval_options or {}))
    if report:
        from irgauge.report.html import write_report

        result.report = write_report(Path(out))
    return result
