"""trec_eval's lines as it prints them: their order, the ``%-22s\\t%s\\t%6.4f`` format,
counts as integers, NaN as C prints it, and relstring."""

from __future__ import annotations

import math
from typing import Dict, Iterator, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irgauge.collection.judgments import POOLED, UNJUDGED
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
from irgauge.evaluation.trec_eval.line_scoring import LineValues
from irgauge.evaluation.trec_eval.exits import Stop
from irgauge.evaluation.trec_eval.evaluated_topics import byte_order
from irgauge.measures.trec_eval_words import TrecEvalError, TrecLine


CHUNK_LINES = 4096  # lines of output per piece written


def render_lines(
    plan: Sequence[TrecLine],
    evaluated: Tuple[Mapping[str, int], int],
    stop: Stop,
    values: LineValues,
    strings: Mapping[str, str],
    options: TrecEvalOptions,
    runid: Optional[str],
) -> Iterator[str]:
    """trec_eval's lines, in pieces of some thousand lines: each topic's (with -q, topics
    in byte order of their ids, up to the topic where trec_eval 10.0 stops, ``stop``:
    (topic, error) or None), then the summary (unless -n). ``evaluated``: the topics
    evaluated, and num_q. No topic evaluated stops trec_eval before the summary (exit 7)."""
    topics, num_q = evaluated
    if not topics and stop is None:
        raise TrecEvalError(
            "trec_eval: No queries with both results and relevance info\n"
            f"irgauge: trec_eval 10.0 evaluates no topic: -D 0.{options.only_topic} names "
            "no qrels topic (exit 7)",
            7,
        )
    out: List[Optional[str]] = []
    if options.per_topic:
        for topic in sorted(topics, key=byte_order):
            if stop is not None and byte_order(topic) >= byte_order(stop[0]):
                break
            out += [_per_topic(line, topic, values, strings) for line in plan]
            if len(out) >= CHUNK_LINES:
                yield _text(out)
                out = []
    if stop is not None:  # trec_eval 10.0 stops there, after the topics before it
        stop[1].output = _text(out)
        raise stop[1]
    if options.summary:
        out += [_summary(line, runid, num_q, values) for line in plan]
    yield _text(out)


def _text(lines_out: List[Optional[str]]) -> str:
    return "".join(line + "\n" for line in lines_out if line is not None)


def relstrings(plan: Sequence[TrecLine], grades: Mapping[str, np.ndarray]) -> Dict[str, str]:
    """relstring per topic: the level of each of the first documents (0-9, '>' above 9),
    '-' for a document not in the qrels, '.' for one pooled but unjudged. ``grades``: each
    topic's first grades (with -J, of judged documents)."""
    width = max((line.width for line in plan if line.kind == "relstring"), default=None)
    if width is None:
        return {}
    return {
        topic: "".join(_relchar(int(g)) for g in first[:width]) for topic, first in grades.items()
    }


def _relchar(grade: int) -> str:
    if grade > 9:
        return ">"
    if grade >= 0:
        return str(grade)
    return {UNJUDGED: "-", POOLED: "."}.get(grade, "<")


def _format(line: TrecLine, value: float) -> str:
    if line.kind == "count":
        return str(int(value))
    if math.isnan(value):  # as C's printf prints a NaN: the sign, then nan
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def _per_topic(
    line: TrecLine, topic: str, values: LineValues, strings: Mapping[str, str]
) -> Optional[str]:
    if line.kind == "relstring":
        return f"{line.label:<22}\t{topic}\t'{strings[topic]}'"
    if line.kind in ("count", "value"):
        return f"{line.label:<22}\t{topic}\t{_format(line, values[(line.label, topic)])}"
    return None  # runid, num_q, gm_map, gm_bpref: summary only


def _summary(line: TrecLine, runid: Optional[str], num_q: int, values: LineValues) -> Optional[str]:
    if line.kind == "runid":
        return f"{'runid':<22}\tall\t{runid}"
    if line.kind == "num_q":
        return f"{'num_q':<22}\tall\t{num_q}"
    if line.kind == "relstring":
        return None  # trec_eval prints relstring per topic only
    return f"{line.label:<22}\tall\t{_format(line, values[(line.label, 'all')])}"
