"""EvalResult: per-topic values and aggregates of every run and measure, with the
conventions used."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path
from typing import Any, Dict, Iterator, List, Optional, Sequence

import numpy as np

from irgauge.errors import InputError
from irgauge.evaluation.topic_values import PerTopicValues
from irgauge.io.summaries import eval_summary, eval_summary_html
from irgauge.measures import Measure
from irgauge.scores import LONG_HEADER, align, from_frame
from irgauge.scores._results import CheckedResult


@dataclass
class EvalResult(CheckedResult):
    """Per-topic values and aggregates of every run and measure, with the conventions used.

    ``per_topic``: columns run, measure, topic, value. ``means``: run, measure, value
    (the aggregate over the topics listed in ``metadata['topics_averaged']``). Both are
    pandas DataFrames made on first use; ``columns()`` gives the same rows as arrays.
    ``topic_values`` holds the per-topic values run by run (in memory, or in a temporary
    file for big evaluations): :meth:`row_blocks` reads them a block of rows at a time.
    """

    topic_values: PerTopicValues
    means_columns: Dict[str, np.ndarray]
    metadata: Dict[str, Any]
    measures: List[Measure] = field(default_factory=list)

    def check_notes(self) -> List[str]:
        # the engine checked every per-topic value and mean as it made them (the per-topic
        # values may lie in a file); its notes are the metadata's, which every output writes
        return list(self.metadata.get("notes", []))

    @cached_property
    def per_topic_columns(self) -> Dict[str, np.ndarray]:
        """The per-topic rows as arrays: run, measure, topic, value (by run, measure, then
        qrels topic)."""
        return self.topic_values.columns()

    @cached_property
    def per_topic(self):
        import pandas as pd

        return pd.DataFrame(self.per_topic_columns)

    @cached_property
    def means(self):
        import pandas as pd

        return pd.DataFrame(self.means_columns)

    def columns(self, per_topic: bool = True) -> Dict[str, np.ndarray]:
        """The long tidy rows as arrays: run, measure, topic, value; topic 'all' for the
        aggregates, which follow the per-topic rows."""
        parts = [self.per_topic_columns, self._means_rows()] if per_topic else [self._means_rows()]
        return {
            key: np.concatenate(
                [np.asarray(p[key], dtype=object if key != "value" else np.float64) for p in parts]
            )
            for key in ("run", "measure", "topic", "value")
        }

    def row_blocks(self, per_topic: bool, rows: int) -> Iterator[Dict[str, np.ndarray]]:
        """The rows of :meth:`columns`, at most ``rows`` at a time, without joining them:
        the per-topic rows (with ``per_topic``), then the aggregates' with topic 'all'."""
        if per_topic:
            yield from self.topic_values.blocks(rows)
        yield self._means_rows()

    def _means_rows(self) -> Dict[str, np.ndarray]:
        means = dict(self.means_columns)
        means["topic"] = np.full(len(means["run"]), "all", dtype=object)
        return means

    def to_frame(self, per_topic: bool = True):
        """The long tidy table: run, measure, topic, value, with topic 'all' for aggregates."""
        import pandas as pd

        return pd.DataFrame(self.columns(per_topic))

    def table(self):
        """Aggregates as a wide table: one row per run, one column per measure."""
        wide = self.means.pivot(index="run", columns="measure", values="value")
        runs = list(dict.fromkeys(self.means["run"]))
        return wide.loc[runs, [m.name for m in self.measures]]

    def _refuse_unscored_runs(self) -> None:
        """A run without a scored topic would drop out of the score matrices, and a
        comparison would count one system fewer than it was given: refused, naming it."""
        averaged = self.metadata.get("topics_averaged")
        for run, count in (averaged if isinstance(averaged, dict) else {}).items():
            if count == 0:
                raise InputError(
                    f"run {run} has no topic scored: it answers none of the qrels' topics "
                    "that have a relevant document (topic ids match as written)",
                    self.metadata.get("runs", {}).get(run),
                )

    def _first_unscored(self):
        """The first run, in run order, without a score on a topic that another run has
        for the same measure."""
        for _, group in self.per_topic.groupby("measure", sort=False):
            topics = set(group["topic"])
            for run, scored in group.groupby("run", sort=False)["topic"]:
                if topics - set(scored):
                    return run
        return None

    def _same_topics(self) -> bool:
        """Whether every (run, measure) has a value on the same topics."""
        frame = self.per_topic
        found = frame.groupby(["run", "measure"], sort=False)["topic"].agg(frozenset)
        return len(set(found)) <= 1

    def score_matrices(self, measures: Optional[Sequence[str]] = None):
        """``{measure: ScoreMatrix}`` of the per-topic values (systems = runs), for the
        stats and meta functions (``irgauge.compare_table(result.score_matrices())``).

        Paired tests need every run scored on the same topics; ``measures`` (default all)
        picks and orders the measures.
        """
        if not len(self.per_topic_columns["topic"]):
            raise self._nothing_scored()
        self._refuse_unscored_runs()
        try:
            # no file of their own: an error names the run's file, or on the command line
            # the command's inputs (irgauge.cli), not a made-up "evaluate:" path
            matrices = align(from_frame(self.per_topic[list(LONG_HEADER)]))
        except InputError as err:  # runs answered different topics: say how to pair them
            if self._same_topics():  # another fault (a registered measure's 1e200, say)
                raise
            hint = (
                ""
                if self.metadata.get("complete")
                else (" (-c/--complete, complete=True, scores unanswered topics 0)")
            )
            run = self._first_unscored()
            # the run's file, as every other refusal of a run names it
            raise InputError(
                f"{err}; paired tests need every run scored on the same topics{hint}",
                self.metadata.get("runs", {}).get(run),
            ) from None
        if measures is None:
            return matrices
        from irgauge.scores.lookup import pick_measures

        return pick_measures(matrices, measures)

    def _nothing_scored(self) -> InputError:
        """Why no topic was scored, naming the qrels and the option that caused it (the
        relevance level where it left every topic without a relevant document)."""
        meta = self.metadata
        level = meta.get("topic_rel_level") if meta.get("topics_without_relevant") else None
        return nothing_scored(meta.get("qrels"), level)

    @property
    def collection(self) -> Optional[str]:
        """The qrels file's name (never its absolute path), for captions; None in memory."""
        source = self.metadata.get("qrels")
        if not source or str(source).startswith("<"):
            return None
        return Path(str(source)).name

    def __repr__(self) -> str:
        return eval_summary(self)

    def _repr_html_(self) -> str:
        return eval_summary_html(self)


def nothing_scored(source, level=None) -> InputError:
    """The one refusal of an evaluation that scored no topic, for every path that scores
    runs (evaluate, leave-one-group-out): ``level`` is the relevance level that left every
    topic without a relevant document (None: no run answered a topic of the qrels)."""
    source = None if not source or str(source).startswith("<") else str(source)
    if level is not None:
        return InputError(
            f"no topic has a document at relevance level >= {level} "
            f"(-l/--rel-level, rel_level), so no topic is scored",
            source,
        )
    return InputError("no run answers a topic of the qrels, so no topic is scored", source)
