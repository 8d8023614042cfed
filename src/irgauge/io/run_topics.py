"""Whether a run answers its qrels' topics: the one check of every study that compares
runs topic by topic against a collection (a reproduction, leave-one-group-out). A topic a
run misses would be scored 0 for that run alone, which reads as a loss of effectiveness,
not as a missing input; the check refuses it at the run's file instead."""

from __future__ import annotations

from typing import Sequence

from irgauge.errors import InputError
from irgauge.io.records import Run
from irgauge.io.words import counted, listed


def require_qrels_topics(
    run: Run, qrels_topics: Sequence[str], qrels_name: str, extra: bool = False
) -> None:
    """Refuse ``run`` (at its file) when it misses a topic of ``qrels_topics``, and, with
    ``extra=False``, when it answers a topic the qrels lack. Topic ids match as written."""
    from irgauge.io.keys import unique_names

    mine = set(unique_names(run.topics)[0])
    judged = set(qrels_topics)
    missing = sorted(judged - mine)
    unjudged = [] if extra else sorted(mine - judged)
    if not missing and not unjudged:
        return
    parts = []
    if missing:
        parts.append(
            f"misses {counted(len(missing), 'topic')} of {qrels_name} ({listed(missing, 3)})"
        )
    if unjudged:
        parts.append(
            f"answers {counted(len(unjudged), 'topic')} {qrels_name} lacks ({listed(unjudged, 3)})"
        )
    raise InputError(
        "its topics differ from the qrels': " + "; ".join(parts) + "; topic ids match as written",
        run.source,
    )


__all__ = ["require_qrels_topics"]
