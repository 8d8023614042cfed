"""Which topics each run is scored on.

Apart from :func:`~irgauge.evaluation.engine.evaluate`, so that the trec_eval drop-in,
which checks its conventions and chooses its topics here, does not load the engine."""

from __future__ import annotations

from typing import Any, Optional, Tuple

import numpy as np

from irgauge import _checks
from irgauge.collection.judgments import Judgments
from irgauge.collection.evaluation_order import ORDERS
from irgauge.errors import InputError
from irgauge.measures.base import AGGREGATES

EMPTY_TOPICS = ("skip", "zero")


def eligible_topics(judgments: Judgments, empty_topics: str) -> np.ndarray:
    """The topics scored when a run answers them."""
    return judgments.R > 0 if empty_topics == "skip" else np.ones(judgments.n_topics, bool)


def check_conventions(
    order: Optional[str], empty_topics: str, aggregate: str, rel_level: Any, max_docs: Any
) -> Tuple[int, Optional[int]]:
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
