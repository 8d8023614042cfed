"""Which topics each run is scored on, and the per-topic and mean tables of the values.

Apart from :func:`~irgauge.evaluation.engine.evaluate`, so that the trec_eval drop-in,
which checks its conventions and chooses its topics here, does not load the engine."""

from __future__ import annotations

import numpy as np

from irgauge import _checks
from irgauge.collection.judgments import Judgments
from irgauge.collection.rankings import ORDERS
from irgauge.errors import InputError
from irgauge.measures.base import AGGREGATES

EMPTY_TOPICS = ("skip", "zero")


def eligible_topics(judgments: Judgments, empty_topics: str) -> np.ndarray:
    """The topics scored when a run answers them."""
    return judgments.R > 0 if empty_topics == "skip" else np.ones(judgments.n_topics, bool)


def check_conventions(order, empty_topics, aggregate, rel_level, max_docs):
    """Refuse an unknown convention; the checked relevance threshold and depth."""
    if order is not None and order not in ORDERS:
        raise InputError(f"unknown document order {order!r}; choose from {', '.join(ORDERS)}")
    if empty_topics not in EMPTY_TOPICS:
        raise InputError(f"empty_topics must be one of {', '.join(EMPTY_TOPICS)}")
    if aggregate not in AGGREGATES:
        raise InputError(f"aggregate must be one of {', '.join(AGGREGATES)}")
    rel_level = _checks.whole(
        rel_level, "rel_level", 1, _checks.MAX_LEVEL, what="a relevance level"
    )
    if max_docs is not None:
        max_docs = _checks.count(max_docs, "max_docs")
    return rel_level, max_docs


def topics_to_score(judgments, names, answered_by_run, empty_topics, complete):
    """Per run, the topic rows it is scored on, and the eligible topics it did not answer."""
    eligible = eligible_topics(judgments, empty_topics)
    row_topics, missing = [], {}
    for name, answered in zip(names, answered_by_run):
        chosen = eligible if complete else eligible & answered
        row_topics.append(np.flatnonzero(chosen))
        gone = np.flatnonzero(eligible & ~answered)
        if len(gone):
            missing[name] = [judgments.topic_ids[t] for t in gone]
    return row_topics, missing


def result_tables(measure_list, values, run_rows, topic_rows, names, topic_ids, aggregate):
    """Rows ordered by run, then measure (as given), then topic."""
    matrix = np.vstack([np.concatenate(values[mi]) for mi in range(len(measure_list))])
    labels = np.asarray([m.name for m in measure_list], dtype=object)
    measure_idx, row_idx, mean_rows = [], [], []
    for k, name in enumerate(names):
        rows = np.flatnonzero(run_rows == k)
        rows = rows[np.argsort(topic_rows[rows], kind="stable")]
        measure_idx.append(np.repeat(np.arange(len(measure_list)), len(rows)))
        row_idx.append(np.tile(rows, len(measure_list)))
        for mi, measure in enumerate(measure_list):
            mean_rows.append((name, measure.name, measure.aggregate(matrix[mi, rows], aggregate)))
    measure_idx, row_idx = np.concatenate(measure_idx), np.concatenate(row_idx)
    per_topic = {
        "run": np.asarray(names, dtype=object)[run_rows[row_idx]],
        "measure": labels[measure_idx],
        "topic": np.asarray(topic_ids, dtype=object)[topic_rows[row_idx]],
        "value": matrix[measure_idx, row_idx],
    }
    runs, measures, means = zip(*mean_rows) if mean_rows else ((), (), ())
    return per_topic, {
        "run": np.asarray(runs, dtype=object),
        "measure": np.asarray(measures, dtype=object),
        "value": np.asarray(means, dtype=np.float64),
    }
