"""One rule for the topics of a comparison between qrels: the full qrels against qrels
reduced from them (a random reduction, a shallower pool, a group left out, a budget of
judgments), where a reduction can leave a topic without a relevant document.

The rule is ``evaluate``'s ``empty_topics`` (docs/conventions.md), applied to every qrels
of the comparison at once, so that each is scored on the same topics:

- ``skip`` (the default): a topic without a relevant document (level >= rel_level) in
  any of the qrels compared is left out of all of them. A mean, a ranking, a change or a
  topic resample then compares the same topics, and a difference is a difference of
  scores, not of topic sets.
- ``zero`` (trec_eval's reading): every topic of the full qrels is scored in each, 0 for
  the measures that need a relevant document where the qrels have none (or no judgment
  left at all).

Every command that compares reduced qrels with the full ones goes through
:func:`shared_topics` and records :meth:`SharedTopics.record` and
:meth:`SharedTopics.notes` in its output: which rule, and how many topics each qrels
lost.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Dict, List, Mapping, Sequence

import numpy as np

from irgauge.errors import InputError
from irgauge.evaluation.topic_tables import EMPTY_TOPICS
from irgauge.io.words import counted


@dataclass(frozen=True, eq=False)
class SharedTopics:
    """The topics every qrels of a comparison is scored on (``topics``, in the full
    qrels' order; ``kept``, their positions there), the rule that chose them, and per
    qrels (by its label) the full qrels' topics it leaves without a relevant document."""

    topics: List[str]
    kept: np.ndarray
    empty_topics: str
    lost: Dict[str, List[str]]
    n_topics: int  # the full qrels' topics

    def record(self) -> Dict[str, Any]:
        """What a manifest or a result's metadata records: the rule, the topics scored,
        and the topics each qrels lost."""
        return {
            "empty_topics": self.empty_topics,
            "topics_scored": len(self.topics),
            "topics_without_relevant": {label: len(t) for label, t in self.lost.items()},
        }

    def notes(self) -> List[str]:
        """One sentence when some qrels lost a topic (none otherwise): the rule used, how
        many topics each qrels lost, and the option that gives the other rule."""
        losing = {label: len(t) for label, t in self.lost.items() if t}
        if not losing:
            return []
        each = ", ".join(f"{label}: {n}" for label, n in losing.items())
        if self.empty_topics == "skip":
            gone = counted(self.n_topics - len(self.topics), "qrels topic")
            return [
                f"{gone} without relevant documents left out of the mean of every qrels "
                f"compared ({each}), so that each is scored on the same {len(self.topics)} of "
                f"the {counted(self.n_topics, 'topic')}; trec_eval averages them: "
                f"--empty-topics zero gives its number"
            ]
        return [
            f"--empty-topics zero: the topics with no relevant document ({each}, of the "
            f"{counted(self.n_topics, 'topic')}) scored 0 and averaged in every qrels "
            f"compared; --empty-topics skip leaves them out of all"
        ]


def shared_topics(
    topic_ids: Sequence[str], relevant: Mapping[str, np.ndarray], empty_topics: str = "skip"
) -> SharedTopics:
    """The topics of a comparison. ``topic_ids``: the full qrels' topics; ``relevant``:
    per qrels compared (label -> a boolean per topic of ``topic_ids``), whether it holds a
    relevant document for the topic; ``empty_topics``: ``skip`` keeps the topics with a
    relevant document in every qrels, ``zero`` keeps them all."""
    if empty_topics not in EMPTY_TOPICS:
        raise InputError(
            f"empty_topics must be one of {', '.join(EMPTY_TOPICS)}", parameter="empty_topics"
        )
    ids = list(topic_ids)
    has = np.ones(len(ids), dtype=bool)
    lost = {}
    for label, flags in relevant.items():
        flags = np.asarray(flags, dtype=bool)
        lost[label] = [ids[t] for t in np.flatnonzero(~flags)]
        has &= flags
    keep = has if empty_topics == "skip" else np.ones(len(ids), dtype=bool)
    kept = np.flatnonzero(keep)
    if ids and not len(kept):
        raise InputError(
            f"none of the {counted(len(ids), 'topic')} has a relevant document in every "
            f"qrels compared; empty_topics='zero' scores them 0",
            parameter="empty_topics",
        )
    return SharedTopics([ids[t] for t in kept], kept, empty_topics, lost, len(ids))


def relevant_by_topic(topic_codes: np.ndarray, levels: np.ndarray, n_topics: int,
                      rel_level: int) -> np.ndarray:  # fmt: skip
    """Whether each of ``n_topics`` topics has a judgment at ``rel_level`` or above, from
    the judgments' topic codes and levels (a reduced qrels: the full one's rows it
    keeps)."""
    codes = np.asarray(topic_codes)[np.asarray(levels) >= rel_level]
    return np.bincount(codes, minlength=n_topics) > 0
