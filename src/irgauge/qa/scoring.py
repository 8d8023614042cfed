"""QA evaluation by the core evaluator: answer classes become documents.

Mapping (Sakai's answer equivalence classes, Sakai 2004):

* every equivalence class of a question is one judged "document" whose level is the
  class's level (the highest level of its strings), so R = number of classes at or above
  the relevance threshold and the ideal list holds one entry per class;
* in a run's answer list (in rank order) the FIRST answer from a class retrieves that
  class, with the level of the answer string itself (NTCIREVAL's ``label -ec``); a later
  answer from the same class (a duplicate, also the same string repeated) is a judged
  incorrect pseudo-document, and an answer not in the gold data an unjudged one. So with
  judged-only (condensed) lists duplicates stay in the list as incorrect and unknown
  answers are removed, as NTCIREVAL's ``label -j -ec``;
* :func:`irgauge.evaluate` then scores the lists in that order (``order="file"``), so
  every core measure applies unchanged with gains per level: Q-measure, RR, Hit@k
  (NQcorrect1, NQcorrect5), nDCG, AP, P@k, ...

List questions (an unordered set of L answers, c distinct correct classes among them):
instance precision = c / L (the core ``P`` without cutoff), instance recall = c / R (the core
``R`` without cutoff) and the F-measure ``F = 2PR/(P+R) = 2c/(L+R)`` (0 when c = 0).
"""

from __future__ import annotations

import re
from dataclasses import replace
from typing import Any, List, Optional, Sequence, Tuple, Union

import numpy as np

from irgauge.collection import Judgments, Qrels, Run
from irgauge.errors import InputError
from irgauge.io.qrels import _encode
from irgauge.measures import Measure, parse_measure
from irgauge.measures.parse import refuse_repeats
from irgauge.measures.base import Family, ratio
from irgauge.qa.gold import AnswerGold, read_gold
from irgauge.qa.answer_runs import AnswerRun, read_answers
from irgauge.evaluation import EvalResult, evaluate
from irgauge.types import AnswerRunsLike, GainsLike, GoldLike, NormaliserLike

SEP = b"\x1f"  # separates a class id from the level of the string that opened it
DUPLICATE = b"d"  # ``<class>\x1fd<rank>``: a later answer of an opened class
DEFAULT_QA_MEASURES = ("RR", "NQcorrect1", "NQcorrect5", "Q-measure", "nDCG")
QA_RULE = (
    "first answer of a class counts with its string's level; later answers of the "
    "class (also a repeated string) are judged incorrect; answers not in the gold "
    "data are incorrect and unjudged (dropped from judged-only lists)"
)


class AnswerJudgments(Judgments):
    """Judgments over answer classes; a retrieved pseudo-document ``<class>\\x1f<level>``
    is the class, graded with the level of the answer string that opened it."""

    def grades_of(self, topic_codes, docnos, keys):
        if len(docnos) == 0:
            return super().grades_of(topic_codes, docnos, keys)
        parts = np.char.rpartition(docnos, SEP)
        heads, seps, tails = (np.ascontiguousarray(parts[:, i]) for i in range(3))
        grades = super().grades_of(topic_codes, heads, self.run_keys(topic_codes, heads))
        opened = np.flatnonzero((grades >= 0) & (seps == SEP))
        duplicate = np.char.startswith(tails[opened], DUPLICATE)
        grades[opened[duplicate]] = 0  # judged, incorrect: kept by judged-only lists
        opened = opened[~duplicate]
        grades[opened] = tails[opened].astype(grades.dtype)
        return grades


class AnswerQrels(Qrels):
    """Qrels whose documents are answer classes (read by AnswerJudgments)."""

    judgments_type = AnswerJudgments


def answer_qrels(gold: AnswerGold) -> AnswerQrels:
    """One judged document per (question, class), with the class's level."""
    topics, docnos, levels = [], [], []
    for topic, classes in gold.classes.items():
        for class_id, level in classes.items():
            topics.append(topic)
            docnos.append(class_id)
            levels.append(level)
    return AnswerQrels.from_arrays(
        _encode(topics),
        _encode(docnos),
        np.asarray(levels, np.int64),
        source=gold.source,
        fmt=f"qa-{gold.fmt}",
    )


def label_answers(
    gold: AnswerGold, run: AnswerRun
) -> List[Tuple[str, int, str, str, Optional[str], int]]:
    """Every answer labelled: (topic, rank, answer, status, class id, level).

    status: ``correct`` (opens a class of level >= 1), ``incorrect`` (opens a class of
    level 0), ``duplicate`` (a class already opened above) or ``unknown`` (not in the gold).
    """
    rows: List[Tuple[str, int, str, str, Optional[str], int]] = []
    for topic, answers in run.answers.items():
        opened = set()
        for rank, answer in enumerate(answers, start=1):
            hit = gold.lookup(topic, answer)
            if hit is None:
                rows.append((topic, rank, answer, "unknown", None, 0))
            elif hit[0] in opened:
                rows.append((topic, rank, answer, "duplicate", hit[0], hit[1]))
            else:
                opened.add(hit[0])
                rows.append(
                    (topic, rank, answer, "correct" if hit[1] > 0 else "incorrect", hit[0], hit[1])
                )
    return rows


def answer_run(gold: AnswerGold, run: AnswerRun) -> Run:
    """The run as ranked pseudo-documents (file order) for the core evaluator."""
    topics, docnos, lines = [], [], []
    for topic, rank, _, status, class_id, level in label_answers(gold, run):
        topics.append(topic)
        if class_id is None:  # unknown: distinct and never judged
            docnos.append(SEP + f"{status[0]}{rank}".encode())
        elif status == "duplicate":  # judged (its class is), incorrect
            docnos.append(class_id.encode("utf-8") + SEP + DUPLICATE + str(rank).encode())
        else:  # correct or incorrect
            docnos.append(class_id.encode("utf-8") + SEP + str(level).encode())
        lines.append(run.lines[topic][rank - 1] or 0)
    if not topics:
        empty = np.array([], dtype="S1")
        return Run(run.name, empty, empty, None, "file", run.source, np.zeros(0, np.int64))
    return Run(
        run.name,
        _encode(topics),
        np.array(docnos, dtype=object).astype(bytes),
        None,
        "file",
        run.source,
        np.asarray(lines, np.int64),
    )


# ------------------------------------------------------------------ list-question measures


def _f_measure(ranked) -> np.ndarray:
    return ratio(2.0 * ranked.n_rel_ret, ranked.lengths + ranked.R)


F_FAMILY = Family(
    "F-measure",
    _f_measure,
    "instance F = 2PR/(P+R) = 2c/(L+R): c distinct correct classes among L answers",
)
_QA_NAMES = re.compile(
    r"^(?P<name>F|F-measure|instance_precision|instP|instance_recall|instR)"
    r"(@(?P<k>\d+))?$"
)


def parse_qa_measure(text: Union[str, Measure]) -> Measure:
    """A core measure string, or F-measure/F, instance_precision/instP,
    instance_recall/instR (optionally @k)."""
    if isinstance(text, Measure):
        return text
    label = text.strip()
    match = _QA_NAMES.match(label)
    if not match:
        return parse_measure(label)
    cutoff = int(match.group("k")) if match.group("k") else None
    name = match.group("name")
    if name in ("F", "F-measure"):
        return Measure(F_FAMILY, cutoff=cutoff, label=label)
    core = "P" if name in ("instance_precision", "instP") else "R"
    return replace(parse_measure(core + (f"@{cutoff}" if cutoff else "")), label=label)


def qa_measures(measures) -> List[Measure]:
    """The QA measures of ``measures``, a measure given twice refused, as given and as
    parsed (a QA name's aliases are one measure too)."""
    if measures is not None:
        refuse_repeats(measures)
    if measures is None:
        measures = list(DEFAULT_QA_MEASURES)
    elif isinstance(measures, (str, Measure)):
        measures = [measures]
    parsed = []
    for m in measures:
        if isinstance(m, str) and " " in m.strip():
            parsed += [parse_qa_measure(part) for part in m.split()]
        else:
            parsed.append(parse_qa_measure(m))
    refuse_repeats(parsed)
    return parsed


# --------------------------------------------------------------------------- evaluation


def _as_runs(runs) -> List[Any]:
    if isinstance(runs, (str, AnswerRun)) or hasattr(runs, "__fspath__"):
        return [runs]
    if isinstance(runs, dict):
        values = list(runs.values())
        if values and all(isinstance(v, list) for v in values):
            return [runs]  # one {topic: [answers]} run
        return [
            read_answers(v, name=str(k)) if not isinstance(v, AnswerRun) else v
            for k, v in runs.items()
        ]
    return list(runs)


def qa_evaluate(
    gold: GoldLike,
    runs: AnswerRunsLike,
    measures: Optional[Sequence[Union[str, Measure]]] = None,
    *,
    normalise: NormaliserLike = None,
    gold_format: str = "auto",
    run_format: str = "auto",
    answer_order: str = "file",
    rel_level: int = 1,
    gains: GainsLike = None,
    complete: bool = True,
    **options: Any,
) -> EvalResult:
    """Evaluate QA runs (ranked answer lists) against gold answer classes.

    gold: path or AnswerGold (see :mod:`irgauge.qa.gold`); runs: one or more paths,
    ``{topic: [answers]}`` mappings or AnswerRuns. normalise: answer normalisation spec
    (``"nfkc,space,case"``; default exact). gains: per level 1, 2, ... ("1:2:3" is S:A:B =
    3:2:1). complete (default True): questions a run did not answer score 0. Further
    options (judged_only, empty_topics, aggregate, ...) go to :func:`irgauge.evaluate`.
    Returns its EvalResult, with QA metadata added.
    """

    measure_list = qa_measures(measures)  # refused before the files are read, as -m is
    gold = read_gold(gold, gold_format=gold_format, normalise=normalise)
    answer_runs = [
        read_answers(r, run_format=run_format, answer_order=answer_order) for r in _as_runs(runs)
    ]
    if not answer_runs:
        raise InputError("no runs to evaluate")
    for r in answer_runs:  # the core evaluator needs at least one answer per run
        if not any(r.answers.get(t) for t in gold.classes):
            raise InputError(
                f"run {r.name!r} holds no answers to any question of the gold data", r.source
            )
    result = evaluate(
        answer_qrels(gold),
        [answer_run(gold, r) for r in answer_runs],
        measure_list,
        order="file",
        rel_level=rel_level,
        gains=gains,
        complete=complete,
        **options,
    )
    meta = {
        "gold": gold.source,
        "gold_format": gold.fmt,
        "answer_normalisation": gold.normaliser.spec,
        "answer_order": ", ".join(sorted({f"{r.order}" for r in answer_runs})),
        "qa_rule": QA_RULE,
    }
    result.metadata = {**result.metadata, **meta}
    return result
