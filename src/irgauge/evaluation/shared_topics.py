"""One rule for the topics of a comparison between qrels: the full qrels against qrels
reduced from them (a random reduction, a shallower pool, a group left out, a budget of
judgments), where a reduction can leave a topic without a relevant document.

The topics are the full qrels', decided once by ``evaluate``'s ``empty_topics``
(docs/conventions.md), and every qrels of the comparison is scored on them:

- ``skip`` (the default): a topic without a relevant document (level >= rel_level) in the
  full qrels is left out of every qrels compared, as ``irgauge eval`` leaves it out;
- ``zero`` (trec_eval's reading): every topic of the full qrels is kept.

A topic that a reduction leaves without a relevant document stays: it scores 0 there by
the measures that need one (by every measure where no judgment of it is left). It is a
topic of the collection that the reduced judgments fail, and that failure is what the
comparison measures; leaving it out would hide it, and would give each reduction other
topics, so that a change of mean, a ranking or a topic resample would no longer compare
like with like.

Every command that compares reduced qrels with the full ones goes through
:func:`shared_topics` and records :meth:`SharedTopics.record` and
:meth:`SharedTopics.notes` in its output: which rule, and how many topics each qrels
left without a relevant document.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Optional, Sequence

import numpy as np

from irgauge.errors import InputError
from irgauge.evaluation.eval_result import nothing_scored
from irgauge.evaluation.topic_tables import EMPTY_TOPICS
from irgauge.io.words import counted

FULL = "full qrels"  # the full qrels' label in the record


@dataclass(frozen=True, eq=False)
class SharedTopics:
    """The topics every qrels of a comparison is scored on (``topics``, in the full
    qrels' order; ``kept``, their positions there), the rule that chose them, and per
    qrels (by its label, the full qrels first) the full qrels' topics it leaves without a
    relevant document."""

    topics: List[str]
    kept: np.ndarray
    empty_topics: str
    lost: Dict[str, List[str]]

    def record(self) -> Dict[str, Any]:
        """What a manifest or a result's metadata records: the rule, the topics scored,
        and the topics each qrels left without a relevant document."""
        return {
            "empty_topics": self.empty_topics,
            "topics_scored": len(self.topics),
            "topics_without_relevant": {label: len(t) for label, t in self.lost.items()},
        }

    def notes(self) -> List[str]:
        """The notes of the comparison, none where no qrels lacks a relevant document:
        the full qrels' topics left out (as every command's peer note says it, naming
        the option that keeps them), and per reduced qrels the topics it left without a
        relevant document, which score 0 there."""
        notes = []
        left_out = self.lost.get(FULL, []) if self.empty_topics == "skip" else []
        if left_out:
            notes.append(
                f"{counted(len(left_out), 'qrels topic')} without relevant documents left out "
                f"of the mean of every qrels compared; trec_eval averages them: "
                f"--empty-topics zero gives its number"
            )
        # the topics a reduction itself left without one (the full qrels had one)
        had = set(self.topics) - set(self.lost.get(FULL, []))
        failed = {
            label: sum(t in had for t in topics)
            for label, topics in self.lost.items()
            if label != FULL
        }
        failed = {label: n for label, n in failed.items() if n}
        if failed:
            each = ", ".join(f"{label}: {n}" for label, n in failed.items())
            notes.append(
                f"reduced qrels without a relevant document for some of the "
                f"{counted(len(self.topics), 'topic')} scored ({each}): they score 0 there, "
                f"as every qrels compared is scored on the same topics"
            )
        return notes


def shared_topics(
    topic_ids: Sequence[str],
    full: np.ndarray,
    reduced: Mapping[str, np.ndarray],
    empty_topics: str = "skip",
    source: Optional[str] = None,
    rel_level: int = 1,
) -> SharedTopics:
    """The topics of a comparison (module docstring). ``topic_ids``: the full qrels'
    topics; ``full``: whether each has a relevant document in the full qrels; ``reduced``:
    the same per reduced qrels (label -> a boolean per topic of ``topic_ids``);
    ``empty_topics``: ``skip`` keeps the topics with a relevant document in the full
    qrels, ``zero`` keeps them all. Full qrels (``source``) without a relevant document
    at ``rel_level`` are refused under ``skip``, as ``irgauge eval`` refuses them."""
    if empty_topics not in EMPTY_TOPICS:
        raise InputError(
            f"empty_topics must be one of {', '.join(EMPTY_TOPICS)}", parameter="empty_topics"
        )
    ids = list(topic_ids)
    has = np.asarray(full, dtype=bool)
    lost = {FULL: [ids[t] for t in np.flatnonzero(~has)]}
    for label, flags in reduced.items():
        lost[label] = [ids[t] for t in np.flatnonzero(~np.asarray(flags, dtype=bool))]
    keep = has if empty_topics == "skip" else np.ones(len(ids), dtype=bool)
    kept = np.flatnonzero(keep)
    if not len(kept):
        raise nothing_scored(source, rel_level)
    return SharedTopics([ids[t] for t in kept], kept, empty_topics, lost)


def relevant_counts(topic_codes: np.ndarray, levels: np.ndarray, n_topics: int,
                    rel_level: int) -> np.ndarray:  # fmt: skip
    """R of each of ``n_topics`` topics: its judgments at ``rel_level`` or above, from the
    judgments' topic codes and levels (a qrels, or a reduced one: the rows it keeps)."""
    codes = np.asarray(topic_codes)[np.asarray(levels) >= rel_level]
    return np.bincount(codes, minlength=n_topics)


def relevant_by_topic(topic_codes: np.ndarray, levels: np.ndarray, n_topics: int,
                      rel_level: int) -> np.ndarray:  # fmt: skip
    """Whether each of ``n_topics`` topics has a relevant document: R > 0
    (:func:`relevant_counts`)."""
    return relevant_counts(topic_codes, levels, n_topics, rel_level) > 0
