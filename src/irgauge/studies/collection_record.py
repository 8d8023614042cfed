"""The collection's record in a study's output folder (``OUT/collection``: its topics, runs,
judgments by level, judged depth and the evaluation table with its conventions), the
collection's figures a study tabulates, and the end of every study: that record written,
and the HTML report if asked."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from irgauge.evaluation import evaluate
from irgauge.io.atomic import write_text
from irgauge.io.qrels import read_qrels
from irgauge.io.staging import replaced_folder
from irgauge.types import PathLike, QrelsLike, RunsLike
from irgauge.studies._common import (
    COLLECTION_DIR,
    MANIFEST,
    StudyResult,
    path_list,
    versions,
    write_json,
)

JUDGED_DEPTHS = (1, 5, 10, 20, 30, 50, 100, 200, 500, 1000)
SUMMARY_MEASURES = ("AP", "Q-measure", "nDCG(dcg=jk,b=2)@1000", "nDCG@10", "P@10", "RR", "bpref")


# the evaluation's metadata that says how it scored: recorded beside its table
CONVENTIONS = (
    "order",
    "rel_level",
    "gains",
    "condensed",
    "measure_conventions",
    "topic_rel_level",
    "complete",
    "aggregate",
    "empty_topics",
    "topics_without_relevant",
    "topics_missing_from_run",
    "run_topics_not_in_qrels",
)
DEPTH_COUNTS = ("num_ret", "num_rel_ret", "num_nonrel_judged_ret")


def collection_summary(
    qrels: QrelsLike,
    runs: RunsLike,
    out: Path,
    measures: Sequence[str] = SUMMARY_MEASURES,
    **eval_options: Any,
) -> Dict[str, Any]:
    """Write ``out/collection``: topics, runs, judgments by level, judged depth, and the
    evaluation table with the conventions used. Returns its manifest."""
    q = read_qrels(qrels)
    levels = pd.Series(np.asarray(q.levels)).value_counts().sort_index()
    topics = pd.Series(q.topics.decode())
    per_topic_rel = pd.Series(np.asarray(q.levels) > 0).groupby(topics.to_numpy()).sum()
    per_topic_judged = topics.value_counts()

    depth_measures = [f"{kind}@{k}" for k in JUDGED_DEPTHS for kind in DEPTH_COUNTS]
    result = evaluate(q, runs, list(measures) + depth_measures, **eval_options)
    depth_rows, judged_depth = _judged_depth(result.per_topic)
    evaluation = result.table()[list(measures)].reset_index()
    manifest = {
        "kind": "collection",
        "qrels": str(q.source),
        "runs": result.metadata["runs"],
        "n_topics": int(len(per_topic_judged)),
        "n_runs": len(result.metadata["runs"]),
        "judgments_by_level": {str(int(k)): int(v) for k, v in levels.items()},
        "judged_per_topic": _stats(per_topic_judged),
        "relevant_per_topic": _stats(per_topic_rel),
        "judged_depth": judged_depth,
        "judged_share_at_depth": depth_rows,
        "evaluation": {
            "file": "evaluation.csv",
            "measures": list(measures),
            "conventions": {k: v for k, v in result.metadata.items() if k in CONVENTIONS},
        },
        "versions": versions(),
    }
    with replaced_folder(Path(out) / COLLECTION_DIR) as directory:
        write_text(
            directory / "evaluation.csv", evaluation.to_csv(index=False, float_format="%.10g")
        )
        write_json(directory / MANIFEST, manifest)
    return manifest


def _judged_depth(per_topic: pd.DataFrame) -> Tuple[List[Dict[str, Any]], int]:
    """The share of retrieved documents judged at each depth of JUDGED_DEPTHS, and the
    deepest cutoff down to which every run's every topic is fully judged."""
    pt = per_topic.pivot_table(
        index=["run", "topic"], columns="measure", values="value", aggfunc="first"
    )
    rows, judged_depth = [], 0
    for k in JUDGED_DEPTHS:
        ret = pt[f"num_ret@{k}"]
        judged = pt[f"num_rel_ret@{k}"] + pt[f"num_nonrel_judged_ret@{k}"]
        complete = bool((judged == ret).all())
        if complete:
            judged_depth = k
        rows.append(
            {
                "k": k,
                "judged_share": float(judged.sum() / max(ret.sum(), 1)),
                "all_judged": complete,
                "max_retrieved": float(ret.max()),
            }
        )
        if ret.max() < k:  # deeper cutoffs see the same lists
            break
    return rows, judged_depth


def collection_statistics(
    qrels: QrelsLike, runs: RunsLike, eval_options: Optional[Dict[str, Any]] = None
) -> Dict[str, Any]:
    """The numbers of Table 2 of Sakai (AIRS 2006) for one collection: topics, runs, judged
    documents, relevant documents (level >= ``rel_level`` of ``eval_options``, 1 by
    default) per level and per topic."""
    rel_level = int((eval_options or {}).get("rel_level") or 1)
    q = read_qrels(qrels)
    levels = np.asarray(q.levels)
    topics = np.asarray(q.topics.decode())
    per_topic = pd.Series(levels >= rel_level).groupby(topics).sum()
    row: Dict[str, Any] = {
        "topics": int(len(np.unique(topics))),
        "runs": len(path_list(runs)),
        "judged": int(len(levels)),
        f"relevant (level >= {rel_level})": int((levels >= rel_level).sum()),
    }
    for level in sorted({int(v) for v in levels if v >= rel_level}, reverse=True):
        row[f"level {level}"] = int((levels == level).sum())
    row["relevant per topic (mean)"] = float(per_topic.mean())
    row["relevant per topic (min-max)"] = f"{int(per_topic.min())}-{int(per_topic.max())}"
    return row


def _stats(counts: pd.Series) -> Dict[str, float]:
    return {
        "min": int(counts.min()),
        "median": float(counts.median()),
        "mean": round(float(counts.mean()), 3),
        "max": int(counts.max()),
    }


def finish_report(
    result: StudyResult,
    qrels: Optional[QrelsLike],
    runs: Optional[RunsLike],
    out: PathLike,
    report: bool,
    eval_options: Optional[Dict[str, Any]] = None,
) -> StudyResult:
    """Write the collection summary (when qrels and runs are known) and, with ``report``,
    the HTML report of everything in ``out``."""
    if qrels is not None and runs is not None:
        collection_summary(qrels, runs, Path(out), **(eval_options or {}))
    if report:
        # imported here: it loads scipy.stats, 1.3-1.6 s measured with
        # `python -X importtime`, which a study without a report never needs
        from irgauge.report.html import write_report

        result.report = write_report(Path(out))
    return result
