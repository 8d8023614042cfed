"""Study ``predictive`` (Webber, Moffat, Zobel & Sakai, SIGIR 2008): predictive power phi.

phi(A, B) for P@10, RR, RBP (p=0.95), AP and nDCG (log2) on the top 75% of systems by AP
(the paper's Tables 1-2: one table per collection), and phi against the topic subset size k
(Figure 1: nDCG of itself, P@10 of itself, nDCG of P@10). Takes qrels and runs, or score
matrices (``matrices=``, any measures) from any tool.

phi is the mean of tau over P random halvings (default 2000, as the paper); its Monte Carlo
standard error is sd(tau) / sqrt(P), and the summary says that A predicts B better than B
predicts itself only when the difference exceeds twice the combined error.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge.studies import _common as common

NAME = "predictive"
TITLE = "Predictive power of metrics (Webber, Moffat, Zobel and Sakai, SIGIR 2008)"

MEASURES = {common.label(m): m for m in ("P@10", "RR", "RBP(p=0.95)", "AP", "nDCG")}
NDCG = common.label("nDCG")
# Figure 1 of the paper: (predictor, predicted) pairs
CURVE_PAIRS = ((NDCG, NDCG), ("P@10", "P@10"), (NDCG, "P@10"))


def subset_sizes(n_topics: int, step: int = 5) -> list:
    """k = 5, 10, ... up to half the topics (always including n // 2)."""
    half = n_topics // 2
    sizes = list(range(step, half + 1, step)) or [half]
    if sizes[-1] != half:
        sizes.append(half)
    return [k for k in sizes if k >= 1]


def run_predictive(
    qrels=None,
    runs=None,
    out=".",
    *,
    matrices=None,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = 0.75,
    by: str = "AP",
    seed: Optional[int] = None,
    trials: int = 2000,
    sizes: Optional[Sequence[int]] = None,
    variant: str = "b",
    eval_options: Optional[Dict[str, Any]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study; write tables and figures under ``out/predictive``.

    ``trials``: random halvings P (2000, as the paper). ``sizes``: subset sizes k of the
    curve (default 5, 10, ..., n/2). ``top_k`` overrides the top-fraction filter.
    ``variant``: Kendall's tau a or b.
    """
    from irgauge.meta import predictive_power
    from irgauge.scores import align
    from irgauge.evaluation import score_matrices
    from irgauge.studies import _plots

    eval_options = dict(eval_options or {})
    seed = common.seed_or_fresh(seed)
    if matrices is None:
        if qrels is None or runs is None:
            from irgauge.errors import InputError

            raise InputError("the predictive study needs qrels and runs, or score matrices")
        labels = {v: k for k, v in MEASURES.items()}
        matrices = common.renamed(score_matrices(qrels, runs, list(labels), **eval_options), labels)
        inputs = {"qrels": str(qrels), "runs": common.path_list(runs)}
    else:
        matrices = align(dict(matrices))
        inputs = {"score_matrices": {k: m.source for k, m in matrices.items()}}
    if top_k is not None:
        top_fraction = None
    chosen = common.select(matrices, top_k, top_fraction, by)
    first = next(iter(chosen.values()))
    ks = list(sizes) if sizes is not None else subset_sizes(first.n_topics)
    result = predictive_power(
        chosen,
        halvings=trials,
        seed=seed,
        top_fraction=1.0,
        subset_sizes=ks,
        variant=variant,
        progress=progress("halvings") if progress else None,
    )
    names = list(chosen)
    square = result.table.pivot(index="measure_a", columns="measure_b", values="phi")
    square = square.loc[names, names]
    sd = result.table.pivot(index="measure_a", columns="measure_b", values="sd")
    se = sd.loc[names, names] / np.sqrt(trials)

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    try:
        systems = common.systems_phrase(
            first.n_systems, next(iter(matrices.values())).n_systems, top_k, top_fraction, by
        )
        writer.table(
            "phi",
            square.reset_index().rename(columns={"measure_a": "predictor"}),
            common.caption(
                f"Predictive power phi(row predicts column) on {systems} "
                f"({trials} random halvings of {first.n_topics} topics, "
                f"tau-{variant})",
                "predictive",
                "Tables 1-2",
            ),
            digits=3,
        )
        writer.table(
            "phi_se",
            se.reset_index().rename(columns={"measure_a": "predictor"}),
            "Monte Carlo standard error of phi: sd of tau over the halvings / sqrt(halvings)",
            digits=4,
        )
        writer.table(
            "phi_sd",
            sd.loc[names, names].reset_index().rename(columns={"measure_a": "predictor"}),
            "Standard deviation of tau over the halvings",
            digits=3,
        )
        curve = result.details["curve"]
        pairs = [p for p in CURVE_PAIRS if p[0] in names and p[1] in names] or [
            (m, m) for m in names
        ]
        picked = pd.concat(
            [curve[(curve["measure_a"] == a) & (curve["measure_b"] == b)] for a, b in pairs],
            ignore_index=True,
        )
        writer.table(
            "phi_by_k",
            picked.pivot(index="k", columns=["measure_a", "measure_b"], values="phi")
            .pipe(_flat)
            .reset_index(),
            "phi against topic subset size k (two disjoint subsets of k topics)",
            digits=3,
        )
        writer.figure(
            "phi_vs_k",
            _phi_curves,
            picked,
            common.caption(
                "Predictive power against topic subset size (mean ± sd of tau over the halvings)",
                "predictive",
                "Figure 1",
            ),
        )
        writer.figure(
            "phi_heatmap",
            _plots.heatmap,
            square,
            "phi(row predicts column)",
            label="predictive power phi",
            digits=3,
        )

        summary = _summary(square, se, systems)
        parameters = {
            **common.filter_parameters(top_k, top_fraction, by),
            "trials": trials,
            "halvings": trials,
            "subset_sizes": ks,
            "variant": variant,
            "measures": {k: MEASURES.get(k, k) for k in names},
            "eval_options": eval_options,
        }
        res = writer.finish(
            parameters,
            {"seed": seed, "predictive_power": seed},
            first.systems,
            first.topics,
            summary,
            inputs,
        )
    except BaseException:
        writer.abort()
        raise
    return common.finish_report(res, qrels, runs, out, report, eval_options)


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    frame.columns = [f"{a} -> {b}" for a, b in frame.columns]
    return frame


def _phi_curves(picked: pd.DataFrame, directory, stem: str):
    from irgauge.studies._plots import curves

    frame = picked.assign(
        series=picked["measure_a"] + " -> " + picked["measure_b"], phi_sd=picked["sd"]
    )
    return curves(
        frame,
        directory,
        stem,
        "k",
        "phi",
        "topics per subset (k)",
        "predictive power phi",
        group="series",
    )


def _summary(square: pd.DataFrame, se: pd.DataFrame, systems: str) -> list:
    from irgauge.studies import _noise

    names = list(square.index)
    diagonal = {m: (float(square.loc[m, m]), float(se.loc[m, m])) for m in names}
    lines = [f"Self-predictivity phi(A, A) on {systems}: {_noise.ordering(diagonal)}."]
    for target in names:
        own = (float(square.loc[target, target]), float(se.loc[target, target]))
        for m in names:
            if m == target:
                continue
            other = (float(square.loc[m, target]), float(se.loc[m, target]))
            if other[0] > own[0]:
                if _noise.separated(other[0], other[1], own[0], own[1]):
                    lines.append(
                        f"{m} predicts {target} better "
                        f"({_noise.fmt(*other)}) than {target} predicts itself "
                        f"({_noise.fmt(*own)})."
                    )
                else:
                    lines.append(
                        f"{m} predicting {target} ({_noise.fmt(*other)}) and "
                        f"{target} predicting itself ({_noise.fmt(*own)}) are within "
                        f"noise."
                    )
    if len(lines) == 1:
        lines.append("Every metric is its own best predictor on this collection.")
    return lines
