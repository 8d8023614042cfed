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

:func:`run_qa` runs three steps, each usable alone: :func:`compute_qa` (every number,
nothing written), :func:`describe_qa` (the summary's sentences) and :func:`write_qa`
(tables, figures and manifest under ``out/qa``).
"""

from __future__ import annotations

import io
import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from irgauge import _checks
from irgauge.io.file_names import file_stem
from irgauge.io.file_text import read_text
from irgauge.io.atomic import make_folders, write_text
from irgauge.io.json_input import read_json_object
from irgauge.io.staging import current_path, staged_outputs
from irgauge.io.qrels import read_qrels
from irgauge.io.runs import refuse_twins
from irgauge.qa import answer_formats, qa_evaluate
from irgauge.report import figures
from irgauge.scores import align, from_frame
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise, _plots, _repeat, _topics, matched_ties
from irgauge.studies.onerel import gain_variants, irgauge_gains
from irgauge.io.words import counted

NAME = "qa"
TITLE = "Reliability of QA evaluation metrics (Sakai, 2004)"

FIRST_ANSWER = {"RR": "RR", "NQcorrect1": "NQcorrect1", "NQcorrect5": "NQcorrect5"}
GAIN_VARIANTS = ("1:1:1", "2:1.5:1", "3:2:1")  # S:A:B, the note's mild to steep gains
TOPIC_RESAMPLES = _noise.TOPIC_RESAMPLES


def answer_measures(gains: Sequence[str] = GAIN_VARIANTS) -> Dict[str, str]:
    """label -> measure: RR, NQcorrect1/5 and Q-measure under each S:A:B gain variant."""
    return {**FIRST_ANSWER, **{f"Q {v}": f"Q-measure(gains={irgauge_gains(v)})" for v in gains}}


LIST_MEASURES = {"F-measure": "F-measure"}
SECOND_C = 50
DERIVED_MARKER = "derived.json"
DERIVED_TAG = " [derived QA data: a weak stand-in]"  # in every caption of derived data
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
        data = read_json_object(marker)
        named = data.get("gold")
        if isinstance(named, str) and Path(named).name == Path(gold).name:
            return data
    return None


@dataclass(frozen=True)
class QaOptions:
    """The options of :func:`run_qa` (see there), the same defaults."""

    top_k: Optional[int] = None
    top_fraction: Optional[float] = None
    by: Optional[str] = None
    seed: Optional[int] = None
    trials: int = 1000
    subset_size: Optional[int] = None
    second_size: Optional[int] = SECOND_C
    list_task: bool = False
    repetitions: int = 5
    swap_mode: str = "strict"
    sign_alphas: Sequence[float] = (0.01, 0.05)
    gains: Sequence[str] = GAIN_VARIANTS
    qa_options: Dict[str, Any] = field(default_factory=dict)
    topic_resamples: int = TOPIC_RESAMPLES


@dataclass
class Sensitivity:
    """The swap experiment at one subset size c."""

    c: int
    curve: pd.DataFrame  # swap rate per difference bin, spread over the repetitions
    spread: pd.DataFrame  # required difference etc., spread over the repetitions
    share: _noise.Statistic  # share of comparisons reaching the required difference


@dataclass
class QaData:
    """Everything the study writes, computed: tables, figure data, manifest record."""

    options: QaOptions
    record: common.Record
    derived: Optional[Dict[str, Any]]  # the marker of QA data derived from ad hoc data
    systems: str  # the systems kept, in words
    n: int  # questions
    c: int  # questions per subset of the stability and first swap experiment
    per_run: pd.DataFrame  # mean of the first measure per run
    stability: pd.DataFrame  # spread of the stability curves
    stability_rows: pd.DataFrame  # the stability curves of each repetition
    stability_pairs: pd.DataFrame
    sensitivity: List[Sensitivity]
    flat: List[str]  # measures giving every system the same score
    sign: pd.DataFrame
    measures: List[str]
    problem: Optional[str]  # why the design is too small to order measures, if it is

    @property
    def tag(self) -> str:
        return DERIVED_TAG if self.derived else ""


@common.study_entry
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
    topic_resamples: int = TOPIC_RESAMPLES,
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
    options = QaOptions(
        top_k=top_k,
        top_fraction=top_fraction,
        by=by,
        seed=seed,
        trials=trials,
        subset_size=subset_size,
        second_size=second_size,
        list_task=list_task,
        repetitions=repetitions,
        swap_mode=swap_mode,
        sign_alphas=_checks.sequence(sign_alphas, "sign_alphas", _checks.alpha),
        gains=gain_variants(gains),
        qa_options=dict(qa_options or {}),
        topic_resamples=topic_resamples,
    )
    result = write_qa(compute_qa(gold, runs, options, progress), out)
    return collection_record.finish_report(result, None, None, out, report)


def compute_qa(gold, runs, options: QaOptions = QaOptions(), progress=None) -> QaData:
    """Every number of the study, nothing written."""
    o = options
    seed, seeds = common.seeds_for(o.seed, o.repetitions)
    derived = derived_from(gold)
    chosen = LIST_MEASURES if o.list_task else answer_measures(o.gains)
    by = o.by or next(iter(chosen))
    result, every, qa_options = _evaluate(gold, runs, chosen, o.qa_options, progress)
    matrices, systems = common.selected(every, o.top_k, o.top_fraction, by)
    first = next(iter(matrices.values()))
    n = first.n_topics
    c = o.subset_size or n // 2
    sizes, skipped = _swap_sizes(c, o.second_size, n)
    topic = _repeat.topic_draw(seed, n, o.topic_resamples, o.trials, o.repetitions)
    stability_rows, stability = _repeat.stability(matrices, c, o.trials, seeds, progress)
    topic_curves = _topics.stability(matrices, c, topic.trials, topic.experiments, topic.seed)
    sensitivity = [_sensitivity(matrices, size, o, seeds, topic, progress) for size in sizes]
    parameters = {
        **common.filter_parameters(o.top_k, o.top_fraction, by),
        "trials": o.trials,
        "repetitions": o.repetitions,
        "subset_size": c,
        "second_size": o.second_size,
        "swap_subset_sizes": sizes,
        "swap_mode": o.swap_mode,
        "list_task": o.list_task,
        "sign_alphas": list(o.sign_alphas),
        "derived": bool(derived),
        "gain_variants": [] if o.list_task else list(o.gains),
        "measures": dict(chosen),
        "qa_options": qa_options,
        "fuzziness": sorted(set(stability_rows["fuzziness"])),
        "qa_rule": result.metadata.get("qa_rule"),
        "conventions": {k: result.metadata.get(k) for k in CONVENTIONS},
        "topic_sampling": topic.record(),
    }
    seed_record = {
        "seed": seed,
        "repetitions": seeds,
        "stability": seeds,
        "swap_rates": seeds,
        "topic_resamples": topic.seed,
    }
    inputs = {"gold": str(gold), "runs": common.path_list(runs), "derived_from": derived}
    notes = ([DERIVED_NOTE] if derived else []) + skipped
    record = common.Record(
        parameters,
        seed_record,
        first.systems,
        first.topics,
        inputs,
        notes,
        {"derived": bool(derived)},
    )
    return QaData(
        options=o,
        record=record,
        derived=derived,
        systems=systems,
        n=n,
        c=c,
        per_run=_per_run(matrices),
        stability=stability,
        stability_rows=stability_rows,
        stability_pairs=matched_ties.stability_comparison(stability_rows, topic_curves),
        sensitivity=sensitivity,
        flat=_repeat.flat_measures(matrices),
        sign=_sign_table(matrices, o.sign_alphas),
        measures=list(matrices),
        problem=_noise.design_problem(first.n_systems, n),
    )


def _sensitivity(matrices, size: int, o: QaOptions, seeds, topic, progress) -> Sensitivity:
    """The swap experiment at subset size ``size``, with its topic resamples."""
    _, rows, curve, spread = _repeat.swap(
        matrices, size, o.trials, seeds, o.swap_mode, False, progress
    )
    share, _ = _topics.swap(
        matrices, size, topic.trials, topic.experiments, topic.seed, o.swap_mode, False
    )
    stat = _repeat.statistic(rows, "share_reaching", "required difference", share)
    return Sensitivity(size, curve, spread, stat)


# the evaluation's metadata that says how it scored: recorded with the parameters
CONVENTIONS = (
    "gains",
    "rel_level",
    "measure_conventions",
    "complete",
    "empty_topics",
    "answer_normalisation",
    "answer_order",
)


def _evaluate(gold, runs, chosen: Dict[str, str], qa_options: Dict[str, Any], progress):
    """(the evaluation, its matrices by label, the qa options to record): the gold answers
    and runs read in their formats (converted when they are not irgauge's own)."""
    qa_options = dict(qa_options)
    run_list = list(runs) if not isinstance(runs, (str, Path)) else [runs]
    refuse_twins(run_list)  # QA systems compared, as ad hoc runs are
    gold_format = qa_options.pop("gold_format", "auto")
    run_format = qa_options.pop("run_format", "auto")
    gold_in, runs_in = answer_formats.load(gold, run_list, gold_format, run_format)
    if gold_in is gold:
        qa_options["gold_format"] = gold_format
    if runs_in is run_list:
        qa_options["run_format"] = run_format
    step = common.steps(progress, "evaluation", 1)
    result = qa_evaluate(gold_in, runs_in, list(chosen.values()), **qa_options)
    step()
    qa_options.update(gold_format=gold_format, run_format=run_format)
    every = align(
        from_frame(result.per_topic[["run", "measure", "topic", "value"]], source=str(gold))
    )
    return result, common.renamed(every, {v: k for k, v in chosen.items()}), qa_options


def _swap_sizes(c: int, second_size: Optional[int], n: int) -> Tuple[List[int], List[str]]:
    """(the subset sizes of the swap experiments, a note on the one skipped)."""
    if second_size is None or second_size == c:
        return [c], []
    if 2 * second_size <= n:
        return [c, second_size], []
    return [c], [
        f"swap experiment at c = {second_size} skipped: it needs two "
        f"disjoint subsets, i.e. at least {counted(2 * second_size, 'question')} "
        f"(have {n})"
    ]


def _per_run(matrices) -> pd.DataFrame:
    head = next(iter(matrices))
    return pd.DataFrame(
        {"run": matrices[head].systems, f"mean {head}": matrices[head].means()}
    ).sort_values(f"mean {head}", ascending=False, kind="stable")


def describe_qa(data: QaData) -> List[str]:
    """The summary's sentences, from the computed tables."""
    summary = [DERIVED_NOTE + "."] if data.derived else []
    summary += _noise.design_warning(data.problem, data.flat)
    summary.append(
        _repeat.stability_sentence(
            data.stability_pairs,
            data.stability,
            data.measures,
            f"{data.systems}, c = {data.c}",
            data.problem,
        )
    )
    for s in data.sensitivity:
        summary += _repeat.swap_sentences(s.share, data.measures, s.c, data.flat, data.problem)
    summary.append(_sign_sentence(data.sign, data.options.sign_alphas))
    summary.append(
        _repeat.method_sentence(data.record.parameters["topic_sampling"], data.options.repetitions)
    )
    return summary


def write_qa(data: QaData, out) -> common.StudyResult:
    """Write the tables, figures, manifest and summary under ``out/qa``."""
    title = TITLE + (" [QA data derived from ad hoc data: a weak stand-in]" if data.derived else "")
    with common.study_writer(out, NAME, title) as writer:
        _write_per_run(writer, data)
        _write_stability(writer, data)
        for s in data.sensitivity:
            _write_sensitivity(writer, data, s)
        writer.table(
            "sign_test",
            data.sign,
            common.caption(
                f"System pairs significantly different by the sign test (all questions){data.tag}",
                "qa",
            ),
            digits=3,
        )
        return writer.finish_with(data.record, describe_qa(data))


def _write_per_run(writer: common.StudyWriter, data: QaData) -> None:
    head = data.measures[0]
    stem = f"mean_{'f' if data.options.list_task else 'rr'}_per_run"
    # the list task's figures: 11 (mean F per run), 12 (stability), 13 (swap rates)
    figure_no = "Figure 11" if data.options.list_task else "Figures 3 and 7"
    writer.table(
        stem,
        data.per_run,
        common.caption(
            f"Mean {head} of each run over {counted(data.n, 'question')}{data.tag}", "qa", figure_no
        ),
        digits=4,
    )
    writer.figure(
        stem,
        _plots.bars,
        data.per_run,
        common.caption(f"Mean {head} per run{data.tag}", "qa", figure_no),
        x="run",
        y=f"mean {head}",
        ylabel=f"mean {head}",
    )


def _write_stability(writer: common.StudyWriter, data: QaData) -> None:
    o = data.options
    common.write_stability(
        writer,
        data.stability,
        data.stability_pairs,
        "qa",
        common.caption(
            f"Minority rate and proportion of ties at fuzziness 0.05 (c = {data.c}, "
            f"{counted(o.trials, 'trial')} x {counted(o.repetitions, 'repetition')}, SE){data.tag}",
            "qa",
        ),
        common.caption(
            f"Minority rate against proportion of ties (c = {data.c}; mean with its 95% "
            f"interval, 1.96 Monte Carlo SE){data.tag}",
            "qa",
            "Figure 12" if o.list_task else "Figures 4 and 8",
        ),
        data.stability_rows,
    )


def _write_sensitivity(writer: common.StudyWriter, data: QaData, s: Sensitivity) -> None:
    writer.table(
        f"sensitivity_c{s.c}",
        _repeat.swap_summary_table(s.spread, data.options.repetitions),
        common.caption(
            f"Sensitivity at 95% confidence, c = {s.c}: required "
            f"difference, largest mean, relative difference, share of comparisons "
            f"reaching it (means over the repetitions that reach one, of "
            f"{data.options.repetitions}, SE; not reached (>= 0.20): the catch-all bin, "
            f"left out of the means){data.tag}",
            "qa",
            _paper_item("table", data.options.list_task, s.c == data.c),
        ),
        _repeat.SWAP_DIGITS,
    )
    writer.figure(
        f"swap_rates_c{s.c}",
        figures.swap_curves,
        s.curve,
        common.caption(
            f"Swap rate against performance difference (c = {s.c}; mean with its 95% "
            f"interval, 1.96 Monte Carlo SE; dashed line: the 5% swap rate){data.tag}",
            "qa",
            _paper_item("figure", data.options.list_task, s.c == data.c),
        ),
    )


def _paper_item(kind: str, list_task: bool, half: bool) -> Optional[str]:
    """Where the note prints the swap experiment at c = half the questions (``half``) or at
    the second size: its sensitivity tables and swap-rate figures. The list task has them
    at c = 97 (half its questions) only."""
    if list_task:
        if not half:
            return None
        return "Table 3" if kind == "table" else "Figure 13"
    if kind == "table":
        return "Tables 1 and 2"
    return "Figures 5 and 9" if half else "Figures 6 and 10"


def _sign_table(matrices, alphas) -> pd.DataFrame:
    # imported here: irgauge.stats.pairs loads scipy.stats, about 1 s measured with
    # `python -X importtime`, for this one exact test
    from irgauge.stats import compare_pairs

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
        f"{', '.join(parts)} of the {counted(row['pairs'], 'pair')} significant."
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
    class is then a duplicate and counts as incorrect. Returns ``{"gold", "runs"}`` paths,
    where they can be read now (in a command, in its staged outputs: see
    :func:`irgauge.io.staging.current_path`).
    """
    out = Path(out)
    q = read_qrels(qrels)
    frame = pd.DataFrame(
        {
            "topic": q.topics.decode(),
            "answer": q.docnos.decode(),
            "level": np.asarray(q.levels),
        }
    )
    frame = frame[frame["level"] > 0].sort_values(["topic", "answer"], kind="stable")
    position = frame.groupby("topic", sort=False).cumcount()
    frame["class"] = "c" + (position // class_size).astype(str)
    marker = {
        "derived": True,
        "gold": "gold.tsv",
        "from_qrels": str(qrels),
        "answers_per_question": answers,
        "class_size": class_size,
        "note": DERIVED_NOTE,
    }
    texts = {}  # the runs' answers, read (through the input module) before anything is written
    runs = [runs] if isinstance(runs, (str, Path)) else list(runs)
    stems = [file_stem(run) for run in runs]
    # a/r.run and b/r.run: one runs/r.tsv would hide the other; numbered as evaluation does
    counts, seen = Counter(stems), Counter[str]()
    for k, stem in enumerate(stems):
        if counts[stem] > 1:
            seen[stem] += 1
            stems[k] = f"{stem}#{seen[stem]}"
    for run, stem in zip(runs, stems):
        table = pd.read_csv(
            io.StringIO(read_text(run)),
            sep=r"\s+",
            header=None,
            dtype=str,
            usecols=[0, 2],
            names=["topic", "answer"],
        )
        top = table.groupby("topic", sort=False).head(answers)
        texts[f"{stem}.tsv"] = top.to_csv(sep="\t", index=False, header=["topic", "answer"])
    # written by the output module: all of it appears, the marker last, or none of it
    with staged_outputs(out, last=(DERIVED_MARKER,)) as stage:
        header = ["topic", "answer", "level", "class"]
        write_text(stage / "gold.tsv", frame.to_csv(sep="\t", index=False, header=header))
        make_folders(stage / "runs")
        for name, text in texts.items():
            write_text(stage / "runs" / name, text)
        write_text(stage / DERIVED_MARKER, json.dumps(marker, indent=2) + "\n")
    # where they can be read now: in a command, staged with its other outputs
    return {
        "gold": current_path(out / "gold.tsv"),
        "runs": [current_path(out / "runs" / name) for name in texts],
    }
