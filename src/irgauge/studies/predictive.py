"""Study ``predictive`` (seed 004, Webber, Moffat, Zobel & Sakai): predictive power phi.

phi(A, B) for P@10, RR, RBP(p=0.95), AP and nDCG on the top 75% of systems by AP
(Tables 1-2 of seed 004: one table per collection), and phi against the topic subset size k
(Figure 1: nDCG of itself, P@10 of itself, nDCG of P@10). Takes qrels and runs, or score
matrices (``matrices=``, any measures) from any tool.
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import pandas as pd

from irgauge.studies import _common as common

NAME = "predictive"
TITLE = "Predictive power of metrics (Webber et al., seed 004)"

MEASURES = {"P@10": "P@10", "RR": "RR", "RBP(0.95)": "RBP(p=0.95)", "AP": "AP",
            "nDCG": "nDCG"}
# Figure 1 of seed 004: (predictor, predicted) pairs
CURVE_PAIRS = (("nDCG", "nDCG"), ("P@10", "P@10"), ("nDCG", "P@10"))


def subset_sizes(n_topics: int, step: int = 5) -> list:
    """k = 5, 10, ... up to half the topics (always including n // 2)."""
    half = n_topics // 2
    sizes = list(range(step, half + 1, step)) or [half]
    if sizes[-1] != half:
        sizes.append(half)
    return [k for k in sizes if k >= 1]


def run_predictive(qrels=None, runs=None, out=".", *, matrices=None,
                   top_k: Optional[int] = None, top_fraction: Optional[float] = 0.75,
                   by: str = "AP", seed: Optional[int] = None, trials: int = 1000,
                   sizes: Optional[Sequence[int]] = None, B: Optional[int] = None,
                   eval_options: Optional[Dict[str, Any]] = None,
                   report: bool = False) -> common.StudyResult:
    """Run the study; write tables and figures under ``out/predictive``.

    ``trials``: random halvings P (the paper uses 2000). ``sizes``: subset sizes k of the
    curve (default 5, 10, ..., n/2). ``top_k`` overrides the top-fraction filter.
    ``B`` is accepted for a uniform interface and unused (no bootstrap here).
    """
    from irgauge.meta import predictive_power
    from irgauge.report import figures
    from irgauge.scores import align, score_matrices

    eval_options = dict(eval_options or {})
    seed = common.seed_or_fresh(seed)
    if matrices is None:
        if qrels is None or runs is None:
            from irgauge.errors import InputError

            raise InputError("the predictive study needs qrels and runs, or score matrices")
        labels = {v: k for k, v in MEASURES.items()}
        matrices = common.renamed(score_matrices(qrels, runs, list(labels), **eval_options),
                                  labels)
        inputs = {"qrels": str(qrels), "runs": common.path_list(runs)}
    else:
        matrices = align(dict(matrices))
        inputs = {"score_matrices": {k: m.source for k, m in matrices.items()}}
    if top_k is not None:
        top_fraction = None
    chosen = common.select(matrices, top_k, top_fraction, by)
    first = next(iter(chosen.values()))
    ks = list(sizes) if sizes is not None else subset_sizes(first.n_topics)
    result = predictive_power(chosen, halvings=trials, seed=seed, top_fraction=1.0,
                              subset_sizes=ks)
    names = list(chosen)
    square = result.table.pivot(index="measure_a", columns="measure_b", values="phi")
    square = square.loc[names, names]
    sd = result.table.pivot(index="measure_a", columns="measure_b", values="sd")

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    systems = (f"top {top_k} systems by {by}" if top_k else
               f"top {top_fraction:.0%} of systems by {by}" if top_fraction else "all systems")
    writer.table("phi", square.reset_index().rename(columns={"measure_a": "predictor"}),
                 f"Predictive power phi(row predicts column) on the {systems} "
                 f"({first.n_systems} systems, {trials} random halvings of {first.n_topics} "
                 f"topics) (seed 004, Tables 1-2)", digits=3)
    writer.table("phi_sd", sd.loc[names, names].reset_index().rename(
        columns={"measure_a": "predictor"}), "Standard deviation of tau over the halvings",
        digits=3)
    curve = result.details["curve"]
    pairs = [p for p in CURVE_PAIRS if p[0] in names and p[1] in names] or \
        [(m, m) for m in names]
    picked = pd.concat([curve[(curve["measure_a"] == a) & (curve["measure_b"] == b)]
                        for a, b in pairs], ignore_index=True)
    writer.table("phi_by_k", picked.pivot(index="k", columns=["measure_a", "measure_b"],
                                          values="phi").pipe(_flat).reset_index(),
                 "phi against topic subset size k (two disjoint subsets of k topics)",
                 digits=3)
    writer.figure("phi_vs_k", figures.phi_curves, picked,
                  "Predictive power against topic subset size (seed 004, Figure 1)")
    writer.figure("phi_heatmap", _phi_heatmap, square, "phi(row predicts column)")

    summary = _summary(square, first.n_systems, systems)
    parameters = {**common.filter_parameters(top_k, top_fraction, by), "trials": trials,
                  "halvings": trials, "subset_sizes": ks, "variant": "b",
                  "measures": {k: MEASURES.get(k, k) for k in names},
                  "eval_options": eval_options}
    res = writer.finish(parameters, {"seed": seed, "predictive_power": seed}, first.systems,
                        first.topics, summary, inputs)
    return common.finish_report(res, qrels, runs, out, report, eval_options)


def _flat(frame: pd.DataFrame) -> pd.DataFrame:
    frame.columns = [f"{a} -> {b}" for a, b in frame.columns]
    return frame


def _phi_heatmap(square, directory, stem: str = "phi_heatmap"):
    """The phi table as a heat map (reuses the tau heat map: phi is a mean tau)."""
    from irgauge.report.figures import tau_heatmap

    return tau_heatmap(square, directory, stem=stem)


def _summary(square: pd.DataFrame, n_systems: int, systems: str) -> list:
    names = list(square.index)
    diagonal = {m: float(square.loc[m, m]) for m in names}
    lines = [f"{common.ordering(diagonal)} in self-predictivity phi(A, A) on the {systems} "
             f"({n_systems} systems)."]
    for target in names:
        column = {m: float(square.loc[m, target]) for m in names}
        best = max(column, key=column.get)
        if best != target:
            lines.append(f"{best} predicts {target} better ({column[best]:.3f}) than {target} "
                         f"predicts itself ({column[target]:.3f}).")
    if len(lines) == 1:
        lines.append("every metric is its own best predictor on this collection.")
    return lines
