"""Study ``qa`` (seed 003, Sakai "A note on the reliability of Japanese QA evaluation").

On QA runs (ranked answer lists) scored against gold answers in equivalence classes
(:func:`irgauge.qa.qa_evaluate`): RR, NQcorrect1, NQcorrect5 and Q-measure with gains
1:1:1, 2:1.5:1 and 3:2:1 (S:A:B); with ``list_task=True`` the F-measure of list answers.

* minority rate / proportion of ties curves (fuzziness 0.01-0.10) at c = half the questions
  (Figures 4 and 8);
* swap-rate curves for c = half the questions and c = 50 (Figures 5-6, 9-10);
* sensitivity tables (Tables 1-3): required difference at 95% confidence, largest mean,
  relative difference and the share of comparisons reaching it, for each c;
* the share of system pairs the sign test finds significant at 0.01 and 0.05.

:func:`qa_collection_from_adhoc` turns an ad hoc collection into QA-shaped data (relevant
documents become answers grouped into equivalence classes, runs cut to 5 answers) so that
the study can be tried without QA data (the demo does that with the bundled sample).
"""
from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List, Optional

import numpy as np
import pandas as pd

from irgauge.studies import _common as common

NAME = "qa"
TITLE = "Reliability of QA evaluation metrics (Sakai, seed 003)"

MEASURES = {"RR": "RR", "NQcorrect1": "NQcorrect1", "NQcorrect5": "NQcorrect5",
            "Q 1:1:1": "Q-measure(gains=1:1:1)", "Q 2:1.5:1": "Q-measure(gains=1:1.5:2)",
            "Q 3:2:1": "Q-measure(gains=1:2:3)"}
LIST_MEASURES = {"F-measure": "F-measure"}
SECOND_C = 50


def run_qa(gold, runs, out, *, top_k: Optional[int] = None,
           top_fraction: Optional[float] = None, by: Optional[str] = None,
           seed: Optional[int] = None, trials: int = 1000, B: Optional[int] = None,
           subset_size: Optional[int] = None, second_size: int = SECOND_C,
           list_task: bool = False, qa_options: Optional[Dict[str, Any]] = None,
           report: bool = False) -> common.StudyResult:
    """Run the study on ``gold`` answers and QA ``runs``; write under ``out/qa``.

    ``subset_size``: c of the stability and first swap experiment (default half the
    questions); ``second_size``: c of the second swap experiment (50; skipped when larger
    than half the questions). ``qa_options`` go to :func:`irgauge.qa.qa_evaluate`
    (normalise, gold_format, run_format, ...). ``B`` is accepted and unused.
    """
    from irgauge.meta import stability, swap_rates
    from irgauge.qa import qa_evaluate
    from irgauge.report import figures
    from irgauge.scores import align, from_frame
    from irgauge.stats import compare_pairs

    qa_options = dict(qa_options or {})
    seed = common.seed_or_fresh(seed)
    chosen = LIST_MEASURES if list_task else MEASURES
    by = by or next(iter(chosen))
    result = qa_evaluate(gold, list(runs) if not isinstance(runs, (str, Path)) else [runs],
                         list(chosen.values()), **qa_options)
    matrices = align(from_frame(result.per_topic[["run", "measure", "topic", "value"]],
                                source=str(gold)))
    matrices = common.renamed(matrices, {v: k for k, v in chosen.items()})
    matrices = common.select(matrices, top_k, top_fraction, by)
    first = next(iter(matrices.values()))
    n = first.n_topics
    c = subset_size or n // 2
    notes = []

    writer = common.StudyWriter(Path(out), NAME, TITLE)
    st = stability(matrices, subset_size=c, trials=trials, seed=seed)
    writer.table("stability", _at(st.table, 0.05),
                 f"Minority rate and proportion of ties at fuzziness 0.05 (c = {c}, "
                 f"{trials} trials)")
    writer.figure("minority_ties", figures.stability_curves, st.table,
                  f"Minority rate against proportion of ties (c = {c}; seed 003, Figs. 4, 8)")
    sizes = [c] + ([second_size] if second_size != c and 2 * second_size <= n else [])
    if second_size != c and 2 * second_size > n:
        notes.append(f"swap experiment at c = {second_size} skipped: it needs two disjoint "
                     f"subsets, i.e. at least {2 * second_size} questions (have {n})")
    swaps = {}
    for size in sizes:
        sw = swap_rates(matrices, subset_size=size, trials=trials, seed=seed)
        swaps[size] = sw.details["summary"]
        writer.table(f"sensitivity_c{size}", sw.details["summary"],
                     f"Sensitivity at 95% confidence, c = {size}: required difference, "
                     f"largest mean, relative difference, share of comparisons reaching it "
                     f"(seed 003, Tables 1-3)")
        writer.figure(f"swap_rates_c{size}", figures.swap_curves, sw.table,
                      f"Swap rate against performance difference (c = {size})")
    sign = _sign_table(matrices, compare_pairs)
    writer.table("sign_test", sign, "System pairs significantly different by the sign test "
                                    "(all questions)")

    summary = _summary(st.table, swaps, sign, c, first.n_systems)
    parameters = {**common.filter_parameters(top_k, top_fraction, by), "trials": trials,
                  "subset_size": c, "swap_subset_sizes": sizes, "list_task": list_task,
                  "measures": dict(chosen), "qa_options": qa_options,
                  "fuzziness": st.parameters["fuzziness"],
                  "qa_rule": result.metadata.get("qa_rule"),
                  "conventions": {k: result.metadata.get(k) for k in
                                  ("gains", "rel_level", "complete", "empty_topics",
                                   "answer_normalisation", "answer_order")}}
    seeds = {"seed": seed, "stability": st.parameters["seed"], "swap_rates": seed}
    inputs = {"gold": str(gold), "runs": common.path_list(runs)}
    res = writer.finish(parameters, seeds, first.systems, first.topics, summary, inputs,
                        notes)
    return common.finish_report(res, None, None, out, report)


def _at(table: pd.DataFrame, f: float) -> pd.DataFrame:
    at = table[(table["fuzziness"] - f).abs() < 1e-9]
    return at[["measure", "fuzziness", "minority_rate", "proportion_ties"]]


def _sign_table(matrices, compare_pairs) -> pd.DataFrame:
    rows = []
    for name, m in matrices.items():
        p = compare_pairs(m.values, m.systems, tests=("sign",)).table["p_sign"].to_numpy()
        rows.append({"measure": name, "pairs": len(p),
                     "significant_0.01": float(np.mean(p < 0.01)),
                     "significant_0.05": float(np.mean(p < 0.05))})
    return pd.DataFrame(rows)


def _summary(stab, swaps, sign, c, n_systems) -> List[str]:
    at = _at(stab, 0.05)
    lines = [f"{common.ordering(dict(zip(at['measure'], at['minority_rate'])), False)} in "
             f"minority rate at fuzziness 0.05 (c = {c}, {n_systems} systems; most stable "
             f"first)."]
    for size, table in swaps.items():
        useful = {m: s for m, s in zip(table["measure"], table["share_reaching"])
                  if pd.notna(s)}
        if len(useful) == 1:
            m = next(iter(useful))
            lines.append(f"At c = {size} only {m} has a 95% required difference "
                         f"({useful[m]:.0%} of comparisons reach it).")
        elif useful:
            lines.append(f"{common.ordering(useful)} in the share of comparisons reaching the "
                         f"95% required difference at c = {size}.")
        never = [m for m, s in zip(table["measure"], table["share_reaching"]) if pd.isna(s)]
        if never:
            lines.append(f"At c = {size} the swap rate of {', '.join(never)} never stays at "
                         f"or below 5%: no required difference at 95% confidence.")
    row = sign.iloc[0]
    lines.append(f"Sign test with {row['measure']}: {row['significant_0.01']:.0%} of the "
                 f"{row['pairs']} pairs significant at 0.01, "
                 f"{row['significant_0.05'] - row['significant_0.01']:.0%} more at 0.05.")
    return lines


# ------------------------------------------------------------------ QA data from ad hoc

def qa_collection_from_adhoc(qrels, runs, out, answers: int = 5, class_size: int = 2
                             ) -> Dict[str, Any]:
    """Write QA-shaped data derived from an ad hoc collection to ``out``.

    Each topic's relevant documents, in docno order, are grouped into equivalence classes of
    ``class_size`` strings (a class's strings keep their own levels); ``gold.tsv`` lists
    them (topic, answer, level, class). Each run keeps its first ``answers`` documents per
    topic in file order as ranked answers (``runs/<name>.tsv``): a second document of a
    class is then a duplicate and counts as incorrect. Returns ``{"gold", "runs"}`` paths.
    """
    from irgauge.io.qrels import read_qrels

    out = Path(out)
    (out / "runs").mkdir(parents=True, exist_ok=True)
    q = read_qrels(qrels)
    frame = pd.DataFrame({"topic": [t.decode() for t in q.topics],
                          "answer": [d.decode() for d in q.docnos],
                          "level": np.asarray(q.levels)})
    frame = frame[frame["level"] > 0].sort_values(["topic", "answer"], kind="stable")
    position = frame.groupby("topic", sort=False).cumcount()
    frame["class"] = "c" + (position // class_size).astype(str)
    gold = out / "gold.tsv"
    frame.to_csv(gold, sep="\t", index=False, header=["topic", "answer", "level", "class"])
    paths = []
    for run in ([runs] if isinstance(runs, (str, Path)) else runs):
        table = pd.read_csv(run, sep=r"\s+", header=None, dtype=str,
                            usecols=[0, 2], names=["topic", "answer"])
        top = table.groupby("topic", sort=False).head(answers)
        path = out / "runs" / f"{Path(run).stem}.tsv"
        top.to_csv(path, sep="\t", index=False, header=["topic", "answer"])
        paths.append(path)
    return {"gold": gold, "runs": paths}
