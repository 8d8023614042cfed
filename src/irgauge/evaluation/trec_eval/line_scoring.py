"""The scoring behind trec_eval's lines: the run read in parts and scored under one set of
judgments or several (-R qrels_jg's groups), each line's values held per topic
(``LineValues``), and what trec_eval prints of the run beyond them (``RunWatcher``)."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np

from irgauge.collection.judgments import Judgments
from irgauge.collection.run_matching import MatchedRun
from irgauge.evaluation.memory import part_bytes
from irgauge.evaluation.run_scoring import (
    PartWatcher,
    ScoredRun,
    ScoringPlan,
    score_empty,
    score_source_jointly,
    score_unanswered,
)
from irgauge.evaluation.topic_tables import eligible_topics
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions, read_depth
from irgauge.evaluation.trec_eval.evaluated_topics import evaluated_mask
from irgauge.io.records import Run
from irgauge.measures import parse_measure
from irgauge.measures.trec_eval_words import TrecEvalError, TrecLine


def score_lines(
    plan: List[TrecLine],
    judgments: Judgments,
    run: Any,
    options: TrecEvalOptions,
    budget: int,
    name: Optional[str] = None,
    watcher: Optional[PartWatcher] = None,
    read_from: Optional[str] = None,
) -> Tuple[LineValues, ScoredRun]:
    """(label, topic or 'all') -> value of every measured line, and the run as scored: read
    in parts of whole topics within ``budget`` and matched in trec_eval's order (score,
    ties by docno descending), -M applied. ``watcher``: told of each part; ``read_from``:
    the run's copy to read (see ``score_source``)."""
    reading = (name, read_from)
    return score_lines_jointly(plan, [judgments], run, options, budget, [watcher], reading)[0]


def score_lines_jointly(
    plan: Sequence[TrecLine],
    judgments_list: Sequence[Judgments],
    run: Any,
    options: TrecEvalOptions,
    budget: int,
    watchers: Sequence[Optional[PartWatcher]],
    reading: Tuple[Optional[str], Optional[str]],
) -> List[Tuple[LineValues, ScoredRun]]:
    """:func:`score_lines` under each of ``judgments_list`` (with the watcher at its place in
    ``watchers``), the run read once for all of them; ``reading``: (the run's name, its
    copy to read). A list of (values, run as scored), in the order of the judgments."""
    measures = [replace(parse_measure(line.spec), label=line.label) for line in plan if line.spec]
    if options.judged_only:
        measures = [replace(m, judged_only=True) for m in measures]
    scorings = [
        ScoringPlan(
            measures,
            judgments,
            "score",
            read_depth(options),
            # trec_eval scores topics without relevant docs; -D 0.query one topic alone;
            # under -M 0 no document of the run is scored
            eligible_topics(judgments, "zero")
            & evaluated_mask(judgments, options.only_topic)
            & (options.max_docs != 0),
            part_bytes(budget, 1),
            watcher=watcher,
            duplicates="record",  # trec_eval stops where it evaluates such a topic
        )
        for judgments, watcher in zip(judgments_list, watchers)
    ]
    name, read_from = reading
    results = []
    for scoring, scored in zip(scorings, score_source_jointly(run, name, scorings, read_from)):
        judgments = scoring.judgments
        evaluated = evaluated_mask(judgments, options.only_topic)
        if options.max_docs == 0:  # every ranking trec_eval evaluates is empty
            score_empty(
                scoring, scored, np.flatnonzero(evaluated & (scored.answered | options.complete))
            )
        elif options.complete:
            score_unanswered(scoring, [scored], [np.flatnonzero(evaluated)])
        # evaluate's mean: of the values in topic order; trec_eval's parameters (rbp.p=-inf,
        # set_F.-2) can make values infinite, whose sums are IEEE's, as in C
        with np.errstate(invalid="ignore", over="ignore"):
            scored.values.finish(measures, "mean")
        values = LineValues(judgments.topic_ids)
        for i, measure in enumerate(measures):
            values.fill(measure.name, scored.values.topic_rows, scored.values.column(i))
            values[(measure.name, "all")] = scored.values.means[i]
        results.append((values, scored))
    return results


class LineValues:
    """(label, topic id or 'all') -> the value of a line, held as an array of each label's
    values over the topics: a dict of (label, topic) keys takes some 150 bytes a value,
    1.5 GB for 300,000 topics and the 30 lines of official. A topic not scored: NaN."""

    def __init__(self, topic_ids: Sequence[str]) -> None:
        self.index = {topic: i for i, topic in enumerate(topic_ids)}
        self.columns: Dict[str, np.ndarray] = {}
        self.means: Dict[str, float] = {}

    def fill(self, label: str, rows: np.ndarray, values: np.ndarray) -> None:
        """The values of ``label`` of the topics at ``rows`` (indices of ``topic_ids``)."""
        self._column(label)[rows] = values

    def _column(self, label: str) -> np.ndarray:
        if label not in self.columns:
            self.columns[label] = np.full(len(self.index), math.nan)
        return self.columns[label]

    def __getitem__(self, key: Tuple[str, str]) -> float:
        label, topic = key
        if topic == "all":
            return self.means[label]
        return float(self.columns[label][self.index[topic]])

    def __setitem__(self, key: Tuple[str, str], value: float) -> None:
        label, topic = key
        if topic == "all":
            self.means[label] = value
        else:
            self._column(label)[self.index[topic]] = value

    def __contains__(self, key: Tuple[str, str]) -> bool:
        label, topic = key
        return label in (self.means if topic == "all" else self.columns)


class RunWatcher(PartWatcher):
    """What trec_eval prints of the run beyond the measures' values, kept as each part is
    read: the runid (unless given: the first line's tag, else the run's name), and the
    first ``width`` grades of each topic's ranking (-J: of its judged documents), for
    relstring and for the topics -J leaves empty; and the topics whose documents kept hold
    one twice, where trec_eval stops."""

    def __init__(self, width: int, judged_only: bool, runid: Optional[str] = None) -> None:
        self.width = width
        self.judged_only = judged_only
        self.runid = runid
        self.grades: Dict[int, np.ndarray] = {}  # qrels topic index -> first grades
        # qrels topic index -> (docno, first line, line) of a document retrieved twice
        self.repeated: Dict[int, Tuple[bytes, int, int]] = {}
        self.where = ("<memory>", "line")  # the run's source, what its positions count

    def take_repeated(self, judgments: Judgments) -> Dict[str, Tuple[bytes, int, int]]:
        """The topics retrieving a document twice, by topic id (``judgments``: those the
        run was matched with), forgotten here: the next judgments number topics anew."""
        ids = judgments.topic_ids
        taken = {ids[index]: found for index, found in self.repeated.items()}
        self.repeated = {}
        return taken

    def read(self, run: Run) -> None:
        if run.scores is None:
            raise TrecEvalError(
                f"trec_eval.get_results: Malformed line 1\ntrec_eval: Quit in file "
                f"'{run.source}'\n"
                "irgauge: trec_eval reads TREC runs only: 'qid Q0 docno rank score tag' per line",
                2,
            )
        if self.runid is None:
            self.runid = _runid(run)
        self.where = (run.source, run.position_unit)

    def matched(self, matched: MatchedRun) -> None:
        if self.repeated:  # a topic matched again (a scattered run, regrouped): its last
            for index in np.intersect1d(list(self.repeated), matched.row_topic).tolist():
                del self.repeated[index]
        found = matched.repeated
        if found is not None:
            self.repeated.update(
                zip(found.topics, zip(found.docnos, found.first_lines, found.lines))
            )
        if not self.width:
            return
        starts, lengths = matched.row_start.tolist(), matched.row_length.tolist()
        for row, index in enumerate(matched.row_topic.tolist()):
            grades = matched.grades[starts[row] : starts[row] + lengths[row]]
            if self.judged_only:
                grades = grades[grades >= 0]
            # copied: a view would hold the part's arrays
            self.grades[index] = grades[: self.width].copy()


def _runid(run: Run) -> str:
    return run.tag if run.tag is not None else run.name


def grades_kept(plan: List[TrecLine], judged_only: bool) -> int:
    """How many of each topic's first grades the output needs: relstring's width, and with
    -J at least one, to tell the topics left without a document."""
    width = max((line.width for line in plan if line.kind == "relstring"), default=0)
    return max(width, 1) if judged_only else width
