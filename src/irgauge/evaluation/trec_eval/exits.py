"""Where trec_eval 10.0 stops, and with what message and exit status: a qrels topic the run
does not answer, a document judged or retrieved twice, a first topic of negative levels
only. A stop is (topic, error): trec_eval prints the topics before it, then fails."""

from __future__ import annotations

from typing import Any, Mapping, Optional, Tuple

from irgauge.collection.judgments import Judgments
from irgauge.evaluation.trec_eval.drop_in_options import Chosen
from irgauge.evaluation.trec_eval.evaluated_topics import byte_order, negative_levels_only
from irgauge.io.records import Qrels
from irgauge.measures.trec_eval_words import TrecEvalError

# the topic where trec_eval stops and the error it stops with, or None
Stop = Optional[Tuple[str, TrecEvalError]]


def missing_stop(missing: Optional[str]) -> Stop:
    """(topic, error) where trec_eval 10.0 stops: a qrels topic the run does not answer."""
    if missing is None:
        return None
    return missing, TrecEvalError(
        f"trec_eval: result qid '{missing}' not found in qrels\n"
        f"irgauge: qrels topic '{missing}' is not in the run, which stops "
        "trec_eval 10.0 (exit 4); -c scores such topics 0",
        4,
    )


def repeat_stop(qrels: Qrels, topics: Mapping[str, int], chosen: Chosen) -> Stop:
    """(topic, error) where trec_eval 10.0 stops: the first topic it evaluates (in byte
    order) whose qrels judge a document twice, with the same level or another
    (form_res_rels.c), or None; none when no measure asked for reads the qrels."""
    evaluated = [repeat for repeat in qrels.repeats if repeat[0] in topics]
    measure = _first_measured(chosen)
    if not evaluated or measure is None:
        return None
    # trec_eval names the topic's first docno in byte order
    topic, line, docno = min(evaluated, key=lambda r: (byte_order(r[0]), r[2], r[1]))
    return topic, TrecEvalError(
        f"trec_eval.form_res_rels: duplicate docs {_id_text(docno)}\n"
        f"trec_eval: Can't calculate measure '{measure}'\n"
        f"irgauge: error: {qrels.source}:{line}: topic '{topic}' judges document "
        f"{_shown(docno)} again, which stops trec_eval 10.0 when it evaluates the topic "
        "(exit 4)",
        4,
    )


def duplicate_stop(
    repeated: Mapping[str, Tuple[bytes, int, int]],
    topics: Mapping[str, int],
    chosen: Chosen,
    where: Tuple[str, str],
) -> Stop:
    """(topic, error) where trec_eval 10.0 stops: the first topic it evaluates (in byte
    order) whose documents, as far as -M keeps them, hold a document twice
    (form_res_rels.c), or None; none when no measure asked for reads the run.
    ``repeated``: topic id -> (docno, first line, line), see ``RepeatedDocs``;
    ``where``: the run's source and what its positions count (lines or rows)."""
    evaluated = [topic for topic in repeated if topic in topics]
    measure = _first_measured(chosen)
    if not evaluated or measure is None:
        return None
    topic = min(evaluated, key=byte_order)
    docno, first_line, line = repeated[topic]
    source, unit = where
    return topic, TrecEvalError(
        f"trec_eval.form_res_qrels: duplicate docs {_id_text(docno)}\n"
        f"trec_eval: Can't calculate measure '{measure}'\n"
        f"irgauge: error: {source}:{line}: document {_shown(docno)} is retrieved again for "
        f"topic '{topic}' (also on {unit} {first_line}), which stops trec_eval 10.0 when "
        "it evaluates the topic (exit 4)",
        4,
    )


def refuse_group_repeats(groups: Mapping[str, Any]) -> None:
    """trec_eval reads a qrels_jg file whose group judges a document of a topic twice, with
    the same level or another, as no file at all (get_qrels_jg.c: exit 2, before any
    output); it names the first such docno in the order (topic, group, docno)."""
    found = [(t, g, d, line, q.source) for g, q in groups.items() for t, line, d in q.repeats]
    if not found:
        return
    topic, group, docno, line, source = min(
        found, key=lambda r: (byte_order(r[0]), byte_order(r[1]), r[2], r[3])
    )
    raise TrecEvalError(
        f"trec_eval.get_qrels: duplicate docs {_id_text(docno)}\n"
        f"trec_eval: Quit in file '{source}'\n"
        f"irgauge: error: {source}:{line}: judgment group '{group}' of topic '{topic}' "
        f"judges document {_shown(docno)} again, which trec_eval 10.0 refuses (exit 2)",
        2,
    )


def first_stop(*stops: Stop) -> Stop:
    """The stop trec_eval reaches first: the one at the topic first in byte order (at one
    topic, the one given first)."""
    found = [stop for stop in stops if stop is not None]
    return min(found, key=lambda stop: byte_order(stop[0])) if found else None


def unjudged_first_stop(judgments: Judgments, chosen: Chosen, topics: Mapping[str, int]) -> Stop:
    """(topic, error) where trec_eval 10.0 stops, or None: it sizes its table of levels by
    the first topic's highest level, so when the first topic it evaluates (``topics``:
    those evaluated; the first in byte order) has negative levels only, that table has no
    room and the first measure fails (form_res_rels.c), exit 4. (A qrels topic before it
    that the run does not answer stops trec_eval there first: ``first_stop``.)"""
    if not topics:
        return None
    first = min(topics, key=byte_order)
    measure = _first_measured(chosen)
    if not negative_levels_only(judgments)[topics[first]] or measure is None:
        return None
    return first, TrecEvalError(
        f"trec_eval: Can't calculate measure '{measure}'\n"
        f"irgauge: trec_eval 10.0 fails when its first topic ('{first}') has "
        "negative qrels levels only",
        4,
    )


def _first_measured(chosen: Chosen) -> Optional[str]:
    """The measure whose computation fails first where trec_eval stops at a topic: the
    first in its order asked for that reads the topic's documents (not runid, num_q)."""
    return next((name for name, _ in chosen if name not in ("runid", "num_q")), None)


def _id_text(ident: bytes) -> str:
    return ident.decode("utf-8", "surrogateescape")


def _shown(ident: bytes) -> str:
    return repr(ident.decode("utf-8", "backslashreplace"))
