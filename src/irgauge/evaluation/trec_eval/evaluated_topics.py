"""The topics trec_eval evaluates and the judgments it evaluates them under: byte order of
topic ids (trec_eval sorts the qrels), -D 0.query's one topic, -c's unanswered topics, the
qrels read with -l and their negative levels."""

from __future__ import annotations

from typing import Dict, List, Optional, Sequence, Tuple

import numpy as np

from irgauge.collection.judgments import TREC_LOWEST_LEVEL, Judgments
from irgauge.evaluation.topic_tables import check_conventions
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions, read_depth
from irgauge.io.records import Qrels


def byte_order(topic: str) -> bytes:
    return topic.encode("utf-8", "surrogateescape")


def indices(mask: np.ndarray) -> List[int]:
    return np.flatnonzero(mask).tolist()


def evaluated_mask(judgments: Judgments, only_topic: Optional[str]) -> np.ndarray:
    """Per qrels topic, whether trec_eval evaluates it: -D 0.query skips every other topic
    (trec_eval.c), before it looks for the topic in the run."""
    if only_topic is None:
        return np.ones(judgments.n_topics, bool)
    return np.array([topic == only_topic for topic in judgments.topic_ids], bool)


def evaluated_topics(
    judgments: Judgments, answered: np.ndarray, options: TrecEvalOptions
) -> Tuple[Dict[str, int], Optional[str]]:
    """The topics trec_eval evaluates (id -> topic index): the qrels topics the run
    answers (``answered``: bool per qrels topic), or with -c every qrels topic, of those
    -D 0.query leaves (``evaluated_mask``); and the first of them (in byte order) the run
    does not answer, which stops trec_eval without -c (else None)."""
    ids = judgments.topic_ids
    evaluated = evaluated_mask(judgments, options.only_topic)
    unanswered = [ids[i] for i in indices(evaluated & ~answered)]
    complete = options.complete
    missing = None if complete or not unanswered else min(unanswered, key=byte_order)
    return {ids[i]: i for i in indices(evaluated & (answered | complete))}, missing


def most_relevant(judgments_list: Sequence[Judgments], options: TrecEvalOptions) -> int:
    """The most relevant documents of a topic trec_eval may evaluate (R, under -l), under
    any of the judgments: recall levels and multiples of R are refused where their
    product with it is past a C long."""
    return max(
        (
            int(judgments.R[evaluated_mask(judgments, options.only_topic)].max(initial=0))
            for judgments in judgments_list
        ),
        default=0,
    )


def trec_judgments(qrels: Qrels, options: TrecEvalOptions) -> Judgments:
    """The judgments as trec_eval reads them: a negative level is pooled but unjudged."""
    # any -l past the highest level makes no document relevant, as the level above it does
    top = int(qrels.levels.max()) if len(qrels.levels) else 0
    # below 0 trec_eval compares -l with its levels -1 (outside the qrels) and -2 (judged
    # negative): any -l below -2 reads as -2 (Judgments.relevant_grades)
    rel_level = max(min(options.rel_level, max(top + 1, 1)), TREC_LOWEST_LEVEL)
    # -l 0 (every judged document relevant) is trec_eval's, not irgauge eval's: the
    # conventions check the depth only
    check_conventions("score", "zero", "mean", max(rel_level, 1), read_depth(options))
    return Judgments(qrels, rel_level=rel_level, negative="unjudged")


def negative_levels_only(judgments: Judgments) -> np.ndarray:
    """Per qrels topic, whether it holds no judgment at a level >= 0 (those at negative
    levels are not among the judgments), which form_res_rels.c counts per level."""
    empty: np.ndarray = np.bincount(judgments.topic, minlength=len(judgments.topic_ids)) == 0
    return empty
