"""Study ``qa`` (Sakai, "A note on the reliability of Japanese question answering
evaluation", 2004).

On QA runs (ranked answer lists) scored against gold answers in equivalence classes
(:func:`irgauge.qa.qa_evaluate`): RR, NQcorrect1, NQcorrect5 and Q-measure with gains
1:1:1, 2:1.5:1 and 3:2:1 (S:A:B); with ``list_task=True`` the instance F-measure of list
answers (the note's Table 3 and Figures 11-13).

* mean reciprocal rank of each run (Figures 3 and 7);
* minority rate / proportion of ties curves (fuzziness 0.01-0.10) at c = half the questions
  (Figures 4 and 8);
* swap-rate curves for c = half the questions and c = 50 (Figures 5-6, 9-10);
* sensitivity tables (Tables 1-3): required difference at 95% confidence, largest mean,
  relative difference and the share of comparisons reaching it, for each c;
* the share of system pairs the sign test finds significant at 0.01 and 0.05.

Stability and swap experiments are repeated ``repetitions`` times with independent seeds.

:func:`qa_collection_from_adhoc` turns an ad hoc collection into QA-shaped data (relevant
documents become answers grouped into equivalence classes, runs cut to 5 answers) so that
the study can be tried without QA data; such data is marked as derived (a ``derived.json``
beside the gold file) and every output of the study says so.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Dict, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge.studies import _common as common

NAME = "qa"
TITLE = "Reliability of QA evaluation metrics (Sakai, 2004)"

FIRST_ANSWER = {"RR": "RR", "NQcorrect1": "NQcorrect1", "NQcorrect5": "NQcorrect5"}
GAIN_VARIANTS = ("1:1:1", "2:1.5:1", "3:2:1")  # S:A:B, the note's mild to steep gains


def answer_measures(gains: Sequence[str] = GAIN_VARIANTS) -> Dict[str, str]:
    """label -> measure: RR, NQcorrect1/5 and Q-measure under each S:A:B gain variant."""
    from irgauge.studies.onerel import irgauge_gains

    return {**FIRST_ANSWER, **{f"Q {v}": f"Q-measure(gains={irgauge_gains(v)})" for v in gains}}


LIST_MEASURES = {"F-measure": "F-measure"}
SECOND_C = 50
DERIVED_MARKER = "derived.json"
DERIVED_NOTE = (
    "QA data DERIVED from ad hoc relevance data (relevant documents stand in for "
    "answers): a weak stand-in for real QA data"
)


def derived_from(gold) -> Optional[Dict[str, Any]]:
    """The marker of QA data made by :func:`qa_collection_from_adhoc`, if ``gold`` is such."""
    try:
        marker = Path(gold).parent / DERIVED_MARKER
    except TypeError:
        return None
    if marker.is_file():
        data = json.loads(marker.read_text(encoding="utf-8"))
        if Path(data.get("gold", "")).name == Path(gold).name:
            return data
    return None


def run_qa(
    gold,
    runs,
    out,
    *,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = None,
    by: Optional[str] = None,
    seed: Optional[int] = None,
    trials: int = 1000,
    subset_size: Optional[int] = None,
    second_size: Optional[int] = SECOND_C,
    list_task: bool = False,
    repetitions: int = 5,
    swap_mode: str = "strict",
    sign_alphas: Sequence[float] = (0.01, 0.05),
    gains: Sequence[str] = GAIN_VARIANTS,
    qa_options: Optional[Dict[str, Any]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study on ``gold`` answers and QA ``runs``; write under ``out/qa``.

    ``subset_size``: c of the stability and first swap experiment (default half the
    questions); ``second_size``: c of the second swap experiment (50; None: none; skipped,
    with a message, when larger than half the questions). ``qa_options`` go to
    :func:`irgauge.qa.qa_evaluate` (normalise, gold_format, run_format, answer_order,
    rel_level, ...) and are recorded. ``sign_alphas``: levels of the sign-test table.
    ``gains``: the Q-measure gain variants, written S:A:B as in the note.
    """
    from irgauge.errors import InputError
    from irgauge.qa import qa_evaluate
    from irgauge.scores import align, from_frame
    from irgauge.stats import compare_pairs
    from irgauge.studies import _noise, _plots, _repeat

    if repetitions < 1:
        raise InputError(f"repetitions must be at least 1, got {repetitions}")
    qa_options = dict(qa_options or {})
    seed = common.seed_or_fresh(seed)
    seeds = _noise.repetition_seeds(seed, repetitions)
    derived = derived_from(gold)
    chosen = LIST_MEASURES if list_task else answer_measures(gains)
    by = by or next(iter(chosen))
    from irgauge.qa import answer_formats as formats

    run_list = list(runs) if not isinstance(runs, (str, Path)) else [runs]
    gold_format = qa_options.pop("gold_format", "auto")
    run_format = qa_options.pop("run_format", "auto")
    gold_in, runs_in = formats.load(gold, run_list, gold_format, run_format)
    if gold_in is gold:
        qa_options["gold_format"] = gold_format
    if runs_in is run_list:
        qa_options["run_format"] = run_format
    from irgauge.io.progress import step_counter

    step = step_counter(progress("evaluation") if progress else None, 1)
    result = qa_evaluate(gold_in, runs_in, list(chosen.values()), **qa_options)
    step()
    qa_options.update(gold_format=gold_format, run_format=run_format)
    every = align(
        from_frame(result.per_topic[["run", "measure", "topic", "value"]], source=str(gold))
    )
    every = common.renamed(every, {v: k for k, v in chosen.items()})
    matrices = common.select(every, top_k, top_fraction, by)
    first = next(iter(matrices.values()))
    n = first.n_topics
    c = subset_size or n // 2
    notes = [DERIVED_NOTE] if derived else []
    title = TITLE + (" [QA data derived from ad hoc data]" if derived else "")
    systems = common.systems_phrase(
        first.n_systems, next(iter(every.values())).n_systems, top_k, top_fraction, by
    )
    tag = " [derived QA data]" if derived else ""

    writer = common.StudyWriter(Path(out), NAME, title)
    try:
        head = next(iter(matrices))
        per_run = pd.DataFrame(
            {"run": matrices[head].systems, f"mean {head}": matrices[head].means()}
        ).sort_values(f"mean {head}", ascending=False, kind="stable")
        figure_no = "Table 3, Figures 11-13" if list_task else "Figures 3 and 7"
        writer.table(
            f"mean_{'f' if list_task else 'rr'}_per_run",
            per_run,
            common.caption(f"Mean {head} of each run over {n} questions{tag}", "qa", figure_no),
            digits=4,
        )
        writer.figure(
            f"mean_{'f' if list_task else 'rr'}_per_run",
            _plots.bars,
            per_run,
            common.caption(f"Mean {head} per run{tag}", "qa", figure_no),
            x="run",
            y=f"mean {head}",
            ylabel=f"mean {head}",
        )
        st_rows, st_curve = _repeat.stability(matrices, c, trials, seeds, progress)
        writer.table(
            "stability",
            _repeat.stability_table(st_curve),
            common.caption(
                f"Minority rate and proportion of ties at fuzziness 0.05 (c = {c}, {trials} "
                f"trials x {repetitions} repetitions, SE){tag}",
                "qa",
            ),
            digits=4,
        )
        st_pairs = _noise.stability_comparison(st_rows)
        writer.table(
            "stability_pairs",
            st_pairs,
            common.caption(
                "Stability read from the curves: minority rate of each pair at the smallest "
                "proportion of ties both reach (mean and SE over the repetitions)",
                "qa",
            ),
            digits=4,
        )
        writer.figure(
            "minority_ties",
            _plots.stability_curves,
            st_curve,
            common.caption(
                f"Minority rate against proportion of ties (c = {c}; mean ± sd){tag}",
                "qa",
                "Figures 4 and 8",
            ),
        )
        sizes = [c]
        if second_size is not None and second_size != c:
            if 2 * second_size <= n:
                sizes.append(second_size)
            else:
                notes.append(
                    f"swap experiment at c = {second_size} skipped: it needs two "
                    f"disjoint subsets, i.e. at least {2 * second_size} questions "
                    f"(have {n})"
                )
        swap_lines = []
        for size in sizes:
            _, _, curve, spread = _repeat.swap(
                matrices, size, trials, seeds, swap_mode, False, progress
            )
            writer.table(
                f"sensitivity_c{size}",
                _repeat.swap_summary_table(spread),
                common.caption(
                    f"Sensitivity at 95% confidence, c = {size}: required "
                    f"difference, largest mean, relative difference (none for the "
                    f"catch-all bin >= 0.20), share of comparisons reaching it "
                    f"(means over {repetitions} repetitions, SE){tag}",
                    "qa",
                    "Tables 1-3",
                ),
                _repeat.SWAP_DIGITS,
            )
            writer.figure(
                f"swap_rates_c{size}",
                _plots.swap_curves,
                curve,
                common.caption(
                    f"Swap rate against performance difference (c = {size}; mean ± sd){tag}",
                    "qa",
                    "Figures 5-6, 9-10",
                ),
            )
            swap_lines += _repeat.swap_sentences(
                spread, list(matrices), size, _repeat.flat_measures(matrices)
            )
        sign = _sign_table(matrices, compare_pairs, sign_alphas)
        writer.table(
            "sign_test",
            sign,
            common.caption(
                f"System pairs significantly different by the sign test (all questions){tag}", "qa"
            ),
            digits=3,
        )

        summary = [DERIVED_NOTE + "."] if derived else []
        summary.append(
            _repeat.stability_sentence(st_pairs, st_curve, list(matrices), f"{systems}, c = {c}")
        )
        summary += swap_lines
        summary.append(_sign_sentence(sign, sign_alphas))
        parameters = {
            **common.filter_parameters(top_k, top_fraction, by),
            "trials": trials,
            "repetitions": repetitions,
            "subset_size": c,
            "second_size": second_size,
            "swap_subset_sizes": sizes,
            "swap_mode": swap_mode,
            "list_task": list_task,
            "sign_alphas": list(sign_alphas),
            "derived": bool(derived),
            "gain_variants": [] if list_task else list(gains),
            "measures": dict(chosen),
            "qa_options": qa_options,
            "fuzziness": sorted(set(st_rows["fuzziness"])),
            "qa_rule": result.metadata.get("qa_rule"),
            "conventions": {
                k: result.metadata.get(k)
                for k in (
                    "gains",
                    "rel_level",
                    "complete",
                    "empty_topics",
                    "answer_normalisation",
                    "answer_order",
                )
            },
        }
        seed_record = {"seed": seed, "repetitions": seeds, "stability": seeds, "swap_rates": seeds}
        inputs = {"gold": str(gold), "runs": common.path_list(runs), "derived_from": derived}
        res = writer.finish(
            parameters,
            seed_record,
            first.systems,
            first.topics,
            summary,
            inputs,
            notes,
            extra={"derived": bool(derived)},
        )
    except BaseException:
        writer.abort()
        raise
    return common.finish_report(res, None, None, out, report)


def _sign_table(matrices, compare_pairs, alphas) -> pd.DataFrame:
    rows = []
    for name, m in matrices.items():
        p = compare_pairs(m.values, m.systems, tests=("sign",)).table["p_sign"].to_numpy()
        row = {"measure": name, "pairs": len(p)}
        for a in alphas:
            row[f"significant_{a:g}"] = float(np.mean(p < a))
        rows.append(row)
    return pd.DataFrame(rows)


def _sign_sentence(sign: pd.DataFrame, alphas) -> str:
    row = sign.iloc[0]
    parts = [f"{row[f'significant_{a:g}']:.0%} at {a:g}" for a in sorted(alphas)]
    return (
        f"Sign test with {row['measure']} over all questions (exact, no resampling): "
        f"{', '.join(parts)} of the {row['pairs']} pairs significant."
    )


# ------------------------------------------------------------------ QA data from ad hoc


def qa_collection_from_adhoc(
    qrels, runs, out, answers: int = 5, class_size: int = 2
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
    frame = pd.DataFrame(
        {
            "topic": [t.decode() for t in q.topics],
            "answer": [d.decode() for d in q.docnos],
            "level": np.asarray(q.levels),
        }
    )
    frame = frame[frame["level"] > 0].sort_values(["topic", "answer"], kind="stable")
    position = frame.groupby("topic", sort=False).cumcount()
    frame["class"] = "c" + (position // class_size).astype(str)
    gold = out / "gold.tsv"
    frame.to_csv(gold, sep="\t", index=False, header=["topic", "answer", "level", "class"])
    paths = []
    from irgauge.io.atomic import write_text

    write_text(
        out / DERIVED_MARKER,
        json.dumps(
            {
                "derived": True,
                "gold": gold.name,
                "from_qrels": str(qrels),
                "answers_per_question": answers,
                "class_size": class_size,
                "note": DERIVED_NOTE,
            },
            indent=2,
        )
        + "\n",
    )
    for run in [runs] if isinstance(runs, (str, Path)) else runs:
        table = pd.read_csv(
            run, sep=r"\s+", header=None, dtype=str, usecols=[0, 2], names=["topic", "answer"]
        )
        top = table.groupby("topic", sort=False).head(answers)
        path = out / "runs" / f"{Path(run).stem}.tsv"
        top.to_csv(path, sep="\t", index=False, header=["topic", "answer"])
        paths.append(path)
    return {"gold": gold, "runs": paths}
