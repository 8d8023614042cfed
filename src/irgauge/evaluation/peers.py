"""Where irgauge's defaults differ from trec_eval's, and the options that give trec_eval's
numbers: every note of such a difference names its option, and ``irgauge eval --like
trec_eval`` sets them all at once.

The differences (docs/conventions.md), each a convention of ``evaluate``:

- ``empty_topics``: irgauge leaves a qrels topic without relevant documents out of the
  mean (``skip``); trec_eval scores it (0 for the measures that need a relevant document)
  and averages it (``zero``).
- ``negative``: irgauge reads a negative qrels level as judged nonrelevant; trec_eval as in
  the pool but unjudged (``unjudged``), which bpref and the other measures of unjudged
  documents tell apart.

The document order needs no option: a TREC run is ordered as trec_eval orders it by default
(``score``); ranked lists, in the file's order, are a format trec_eval does not read.
"""

from __future__ import annotations

import functools
from _thread import allocate_lock  # threading.Lock itself, without loading threading
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Any, Callable, Collection, Dict, Iterator, List, Mapping, Optional, TypeVar, cast

from irgauge.io.words import counted

M = TypeVar("M", bound=Mapping[str, Any])
F = TypeVar("F", bound=Callable[..., Any])

# peer -> {the evaluate() convention: the peer's value}
LIKE: Dict[str, Dict[str, str]] = {
    "trec_eval": {"empty_topics": "zero", "negative": "unjudged"},
}
# convention -> its option on the command line
OPTIONS = {"empty_topics": "--empty-topics", "negative": "--negative"}
# the notes of the evaluations of the innermost study running in this context, or None: a
# study evaluates in many places, and its manifest records what each evaluation differed
# in. A ContextVar: the threads of a study's steps run in copies of its context
# (io.threads.worker_pool) and add to its list, and two studies in two threads of one
# process keep theirs apart.
_GATHERING: ContextVar[Optional[List[str]]] = ContextVar("irgauge_peer_notes", default=None)
# one lock for every list: notes come from the steps' threads at once
_ADDING = allocate_lock()


def like_options(peer: str) -> str:
    """The options ``--like PEER`` stands for: "--empty-topics zero, --negative unjudged, ..."."""
    return ", ".join(f"{OPTIONS[k]} {v}" for k, v in LIKE[peer].items())


def _fix(convention: str, takes: Optional[Collection[str]], score_files: bool) -> str:
    """How to get trec_eval's number: the command's option, or eval's scores as a file
    (where the command reads score files; else eval's own scores)."""
    option = f"{OPTIONS[convention]} {LIKE['trec_eval'][convention]}"
    if takes is None:
        return f"{option} (or --like trec_eval) gives its number"
    if convention in takes:
        return f"{option} gives its number"
    if not score_files:
        return f"irgauge eval {option} gives its scores"
    return f"the scores of irgauge eval -q --format tsv {option}, given as a score file, have it"


def peer_notes(
    metadata: Mapping[str, Any],
    takes: Optional[Collection[str]] = None,
    score_files: bool = True,
) -> List[str]:
    """The notes of an evaluation whose numbers differ from trec_eval's by a default of
    irgauge's, each saying how to get trec_eval's number: every command that scores runs
    prints them (eval; the meta-evaluation commands with --qrels/--run). ``takes``: the
    conventions (keys of OPTIONS) the command takes as options; None: all, and
    ``--like trec_eval`` (eval); ``score_files``: whether the command reads score files
    (the meta commands), through which eval's scores with the other option reach it."""
    notes = []
    skipped = metadata.get("topics_without_relevant") or []
    if skipped:
        notes.append(
            f"{counted(len(skipped), 'qrels topic')} without relevant documents left out of "
            f"the mean; trec_eval averages them: {_fix('empty_topics', takes, score_files)}"
        )
    negative = metadata.get("negative_judgments", 0)
    if negative and metadata.get("negative_levels") == "nonrelevant":
        notes.append(
            f"{counted(negative, 'qrels line')} with a negative level read as judged "
            f"nonrelevant; trec_eval reads them as pooled but unjudged: "
            f"{_fix('negative', takes, score_files)}"
        )
    return notes


@contextmanager
def collecting() -> Iterator[List[str]]:
    """Gather the peer notes of every :func:`irgauge.evaluate` run inside (a study's, which
    takes --empty-topics but no score files), in this thread and in the threads of its
    steps, each once, in the list yielded."""
    found: List[str] = []
    token = _GATHERING.set(found)
    try:
        yield found
    finally:
        _GATHERING.reset(token)


def gathering(function: F) -> F:
    """``function`` (a study's ``run_<name>``) run within :func:`collecting`: its manifest
    notes where its scores differ from trec_eval's (:func:`collected`), however it is
    called."""

    @functools.wraps(function)
    def gathered(*args: Any, **kwargs: Any) -> Any:
        with collecting():
            return function(*args, **kwargs)

    return cast(F, gathered)


def collect(metadata: M, takes: Collection[str] = ("empty_topics",)) -> M:
    """Called by :func:`irgauge.evaluate` (and the leave-out, which takes no
    ``empty_topics``) with its metadata: add its notes to the innermost
    :func:`collecting` of this context, if any; return the metadata."""
    found = _GATHERING.get()
    if found is not None:
        notes = peer_notes(metadata, takes, score_files=False)
        with _ADDING:
            found += [note for note in notes if note not in found]
    return metadata


def collected() -> List[str]:
    """The notes gathered so far by the innermost :func:`collecting` of this context (none
    outside)."""
    found = _GATHERING.get()
    if found is None:
        return []
    with _ADDING:
        return list(found)
