"""Small valid inputs for every public entry point, made once: a generated collection, its
per-topic scores, a Parquet copy, judgment groups, QA data derived from it, and a study
folder for the report."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Dict, List

import pandas as pd

MEASURES = ["AP", "nDCG@10", "P@10"]
SEED = 5


@dataclass
class Inputs:
    root: Path
    qrels: Path
    runs: List[Path]
    scores: Path  # long TSV: run, measure, topic, value
    run_parquet: Path
    qrels_parquet: Path
    judgment_groups: Path
    relabelled_qrels: Path
    qa: Dict[str, Any]  # gold and runs (paths)
    study: Path  # a folder holding one study's outputs
    result: Any  # EvalResult of the runs
    matrices: Any  # {measure: ScoreMatrix}


def _relabelled(qrels: Path, out: Path) -> Path:
    """The qrels with every third judgment one level higher (a second assessor)."""
    lines = qrels.read_text().splitlines()
    changed = []
    for i, line in enumerate(lines):
        topic, group, doc, level = line.split()
        level = str(int(level) + 1) if i % 3 == 0 else level
        changed.append(f"{topic} {group} {doc} {level}")
    out.write_text("\n".join(changed) + "\n")
    return out


def _judgment_groups(qrels: Path, other: Path, out: Path) -> Path:
    first = [line.split() for line in qrels.read_text().splitlines()]
    second = [line.split() for line in other.read_text().splitlines()]
    rows = [f"{t} 0 {d} {lv}" for t, _, d, lv in first] + [
        f"{t} 1 {d} {lv}" for t, _, d, lv in second
    ]
    out.write_text("\n".join(rows) + "\n")
    return out


def make_inputs(root: Path) -> Inputs:
    from irgauge import evaluate, score_matrices, simulate_collection, write_collection
    from irgauge.studies.onerel import run_onerel
    from irgauge.studies.qa import qa_collection_from_adhoc

    sim = simulate_collection(
        n_topics=8, n_runs=4, depth=20, seed=SEED, pool_depth=10, rel_median=5.0
    )
    manifest = write_collection(sim, root / "collection")
    qrels = root / "collection" / manifest["files"]["qrels"]
    runs = [root / "collection" / r for r in manifest["files"]["runs"]]
    result = evaluate(qrels, runs, MEASURES)
    scores = root / "scores.tsv"
    result.per_topic.to_csv(scores, sep="\t", index=False)
    run_parquet, qrels_parquet = root / "run.parquet", root / "qrels.parquet"
    pd.read_csv(runs[0], sep=" ", header=None, dtype=str).set_axis(
        ["query_id", "Q0", "doc_id", "rank", "score", "run"], axis=1
    ).astype({"score": float}).to_parquet(run_parquet)
    pd.read_csv(qrels, sep=" ", header=None, dtype=str).set_axis(
        ["query_id", "iteration", "doc_id", "relevance"], axis=1
    ).astype({"relevance": int}).to_parquet(qrels_parquet)
    relabelled = _relabelled(qrels, root / "relabelled.txt")
    study = root / "study"
    run_onerel(
        qrels, runs, study, seed=SEED, samples=20, trials=10, repetitions=1, topic_resamples=5
    )
    return Inputs(
        root=root,
        qrels=qrels,
        runs=runs,
        scores=scores,
        run_parquet=run_parquet,
        qrels_parquet=qrels_parquet,
        judgment_groups=_judgment_groups(qrels, relabelled, root / "qrels.jg"),
        relabelled_qrels=relabelled,
        qa=qa_collection_from_adhoc(qrels, runs, root / "qa"),
        study=study,
        result=result,
        matrices=score_matrices(qrels, runs, MEASURES),
    )
