"""A run matched against the judgments: its documents in evaluation order, per topic, with
their grades; the rows every measure's ranked lists are built from
(:mod:`irgauge.collection.rankings`)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional

import numpy as np

from irgauge.collection.evaluation_order import in_evaluation_order, resolve_order
from irgauge.collection.judgments import Judgments
from irgauge.collection.repeated_documents import RepeatedDocs, reject_duplicates, repeated_docs
from irgauge.errors import InputError
from irgauge.io.keys import unique_names
from irgauge.io.records import Run


@dataclass
class MatchedRun:
    """One run's documents in evaluation order, matched against the judgments."""

    name: str
    row_topic: np.ndarray  # topic index of each row (one row per topic answered)
    row_start: np.ndarray  # offset of each row in ``grades``
    row_length: np.ndarray
    grades: np.ndarray  # flat, in ranked order
    unknown_topics: List[str]  # run topics absent from the qrels
    order: str
    repeated: Optional["RepeatedDocs"] = None  # match_run(duplicates="record") only
    inclusion: Optional[np.ndarray] = None  # flat as ``grades``; prels only


def match_run(
    run: Run,
    judgments: Judgments,
    order: Optional[str] = None,
    max_docs: Optional[int] = None,
    duplicates: str = "refuse",
) -> MatchedRun:
    """Order a run's documents per topic and look up their grades.

    ``order="score"``: score descending, ties by docno descending (trec_eval);
    ``order="file"``: the order of the file (NTCIREVAL). None: the run's natural order.
    ``max_docs``: keep only the first N documents of each topic in that order
    (trec_eval's -M); every measure then sees the shortened lists.
    ``duplicates``: a document retrieved twice for a judged topic is refused at FILE:LINE
    (``"refuse"``), or ``"record"``: scored as it comes and, where both copies are among
    the documents kept, listed in ``MatchedRun.repeated`` (trec_eval 10.0 stops at such a
    topic when it evaluates it, and sees nothing beyond -M).
    """
    if duplicates not in ("refuse", "record"):
        raise ValueError(f"duplicates must be 'refuse' or 'record', not {duplicates!r}")
    if max_docs is not None and max_docs < 1:
        raise InputError(f"max_docs must be >= 1, got {max_docs}")
    order = resolve_order(run, order)
    codes = judgments.topic_codes(run.topics)
    docnos, scores = run.docnos, run.scores
    known = None
    if (codes < 0).any():  # rows of topics absent from the qrels are reported, not scored
        unknown = unique_names(run.topics[codes < 0])[0]
        known = np.flatnonzero(codes >= 0)
        codes, docnos = codes[known], docnos[known]
        scores = scores[known] if scores is not None else None
    else:
        unknown = []
    keys = judgments.run_keys(codes, docnos)
    if duplicates == "refuse":
        reject_duplicates(run, known, keys, codes, docnos)
    codes, sequence = in_evaluation_order(codes, scores, docnos, order, max_docs)
    if sequence is not None:  # the file was not in evaluation order
        docnos, keys = docnos[sequence], keys[sequence]
    repeated = None
    if duplicates == "record":
        repeated = repeated_docs(run, (known, sequence), keys, codes, docnos)
    grades = judgments.grades_of(codes, docnos, keys)
    inclusion = judgments.inclusion_of(codes, docnos, keys)
    heads = (
        np.flatnonzero(np.concatenate(([True], codes[1:] != codes[:-1])))
        if len(codes)
        else np.zeros(0, dtype=np.intp)
    )
    lengths = np.diff(np.append(heads, len(codes)))
    return MatchedRun(
        run.name, codes[heads], heads, lengths, grades, unknown, order, repeated, inclusion
    )
