"""Ranked answer lists of QA runs.

Formats (``run_format``; ``auto`` picks by content: JSON if the file starts with ``{``/``[``,
``semicolon`` if every line has 5 or more ``;``, TSV if lines hold tabs, ``trec`` if
every line reads as a TREC run line, else ``list``):

* ``semicolon`` (NTCIREVAL's QA run): ``topic;0;answer;rank;score;tag``; the answer is
  everything between the second field and the last three, so it may hold spaces and ``;``.
* ``trec``: ``topic Q0 answer rank score tag``, the answer string in place of the docno;
  the answer is everything between the second token and the last three, so it may hold
  spaces (runs of whitespace inside it are kept as written).
* ``list``: one answer per line, in rank order; the topic is the file's stem (NTCIREVAL's
  per-topic ``.res`` files).
* ``tsv`` (irgauge): ``topic<TAB>answer`` with optional ``<TAB>rank<TAB>score``; an optional
  header line starting ``topic<TAB>``; ``#`` lines are comments.
* ``json`` (irgauge): ``{topic: [answer, ...]}`` in rank order; an empty list is allowed.

Answer order (``answer_order``): ``file`` (default, as NTCIREVAL), ``rank`` (the rank
column, ascending, ties in file order) or ``score`` (descending, ties in file order). The
same answer string twice in one topic's list is kept: the later one is an incorrect
duplicate (QAC2). Ranks and scores must be finite numbers.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass
from typing import Dict, List, Optional, Set, Tuple

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.io.records import AGGREGATE_TOPIC, aggregate_topic_error
from irgauge.io.file_names import file_path, file_stem
from irgauge.qa._text import chosen_format, read_json
from irgauge.types import AnswersLike

RUN_FORMATS = ("auto", "semicolon", "trec", "list", "tsv", "json")
ANSWER_ORDERS = ("file", "rank", "score")
_TREC = re.compile(r"^\s*(\S+)\s+(\S+)\s+(.+?)\s+(-?\d+)\s+(\S+)\s+(\S+)\s*$")

Entry = Tuple[str, Optional[int], int, float, float]  # answer, line, position, rank, score


@dataclass
class AnswerRun:
    """``answers[topic]``: the answer strings in rank order; ``lines[topic]`` their lines."""

    name: str
    answers: Dict[str, List[str]]
    lines: Dict[str, List[Optional[int]]]
    source: str = "<memory>"
    fmt: str = "dict"
    order: str = "file"


@_checks.renamed_keywords(fmt="run_format", order="answer_order")
def read_answers(
    source: AnswersLike,
    name: Optional[str] = None,
    run_format: str = "auto",
    answer_order: str = "file",
) -> AnswerRun:
    """Read one QA run from a path (any of RUN_FORMATS), a ``{topic: [answers]}`` mapping or
    an AnswerRun. ``run_format`` and ``answer_order``: as :func:`irgauge.qa_evaluate`,
    ``--run-format`` and ``--answer-order`` name them (``fmt=`` and ``order=``, their old
    names, still work, deprecated: ``order`` names a run's document order elsewhere)."""
    if isinstance(source, AnswerRun):
        return source
    if answer_order not in ANSWER_ORDERS:
        raise InputError(
            f"unknown answer order {answer_order!r}; choose from {', '.join(ANSWER_ORDERS)}"
        )
    if isinstance(source, dict):
        return _build(_listed_entries(source), name or "run", "<dict>", "dict", "file")
    path = file_path(source, "answers", "answers", "a file path, a dict or AnswerRun")
    fmt, lines = chosen_format(run_format, RUN_FORMATS, "answer-run", path, _detect)
    if fmt == "json":
        data = read_json(path)
        if not isinstance(data, dict) or not all(
            isinstance(v, list) and all(isinstance(a, str) for a in v) for v in data.values()
        ):
            raise InputError(
                "JSON answer run must be an object {topic: [answer, ...]} whose "
                "answers are strings",
                path,
            )
        entries = _listed_entries(data)
        tags: Set[str] = set()  # a list's runs carry no tag
    else:
        assert lines is not None  # every format but JSON is read as lines
        reader = {"semicolon": _semicolon, "trec": _trec, "list": _list, "tsv": _tsv}[fmt]
        entries, tags = {}, set()
        for position, (topic, answer, rank, score, tag, line) in enumerate(reader(lines, path)):
            _refuse_missing_key(answer_order, rank, score, path, line)
            rank, score = float(line) if rank is None else rank, score or 0.0
            entries.setdefault(topic, []).append((answer, line, position, rank, score))
            if tag is not None:
                tags.add(tag)
    if answer_order != "file" and fmt in ("list", "json"):
        raise InputError(
            f"answer order {answer_order!r} needs rank and score columns; "
            f"the {fmt} format has none",
            path,
        )
    run_name = name or (next(iter(tags)) if len(tags) == 1 else file_stem(path))
    return _build(entries, run_name, path, fmt, answer_order)


def _refuse_missing_key(order: str, rank, score, path: str, line: int) -> None:
    """Answers ordered by a column a line does not have would stay in file order: refused."""
    if (order == "rank" and rank is None) or (order == "score" and score is None):
        raise InputError(
            f"answer order {order!r} needs a {order} column; this line has none", path, line
        )


def _listed_entries(answers: Dict) -> Dict[str, List[Entry]]:
    """Entries of a ``{topic: [answer, ...]}`` mapping: list order, no lines, no scores."""
    return {
        str(t): [(str(a), None, i, float(i), 0.0) for i, a in enumerate(v)]
        for t, v in answers.items()
    }


def _build(
    entries: Dict[str, List[Entry]], name: str, source: str, fmt: str, order: str
) -> AnswerRun:
    if AGGREGATE_TOPIC in entries:
        raise aggregate_topic_error(source=source, line=entries[AGGREGATE_TOPIC][0][1])
    answers, lines = {}, {}
    for topic, items in entries.items():
        if order == "rank":
            items = sorted(items, key=lambda e: (e[3], e[2]))
        elif order == "score":
            items = sorted(items, key=lambda e: (-e[4], e[2]))
        # a repeated string is kept: it is scored as a duplicate of its class (QAC2)
        answers[topic] = [e[0] for e in items]
        lines[topic] = [e[1] for e in items]
    return AnswerRun(name, answers, lines, source, fmt, order)


def _detect(numbered: List[Tuple[int, str]]) -> str:
    lines = [text for _, text in numbered]
    if all(text.count(";") >= 5 for text in lines):
        return "semicolon"
    if any("\t" in text for text in lines):
        return "tsv"
    if all(_TREC.match(text) for text in lines):
        return "trec"
    return "list"


def _number(text: str, kind, what: str, path: str, line: int):
    try:
        value = kind(text)
    except ValueError:
        raise InputError(f"{what} {text!r} is not a number", path, line) from None
    if not math.isfinite(value):
        raise InputError(f"{what} {text!r} is not a finite number", path, line)
    return value


def _semicolon(lines: List[Tuple[int, str]], path: str):
    for line, text in lines:
        parts = text.split(";")
        if len(parts) < 6:
            raise InputError(
                "expected 'topic;0;answer;rank;score;tag' (6 fields separated by ';')", path, line
            )
        yield (
            parts[0].strip(),
            ";".join(parts[2:-3]),
            _number(parts[-3], float, "rank", path, line),
            _number(parts[-2], float, "score", path, line),
            parts[-1].strip(),
            line,
        )


def _trec(lines: List[Tuple[int, str]], path: str):
    for line, text in lines:
        match = _TREC.match(text)
        if not match:
            raise InputError("expected 'topic Q0 answer rank score tag'", path, line)
        topic, _, answer, rank, score, tag = match.groups()
        yield (
            topic,
            answer,
            _number(rank, float, "rank", path, line),
            _number(score, float, "score", path, line),
            tag,
            line,
        )


def _list(lines: List[Tuple[int, str]], path: str):
    topic = file_stem(path)
    for line, text in lines:
        yield topic, text.strip(), float(line), 0.0, None, line


def _tsv(lines: List[Tuple[int, str]], path: str):
    for line, text in lines:
        if text.startswith("#") or text.lower().startswith("topic\t"):
            continue
        parts = text.split("\t")
        if len(parts) not in (2, 3, 4):
            raise InputError("expected 'topic<TAB>answer[<TAB>rank[<TAB>score]]'", path, line)
        # a column left out is None: ordering by it is refused (read_answers)
        rank = _number(parts[2], float, "rank", path, line) if len(parts) > 2 else None
        score = _number(parts[3], float, "score", path, line) if len(parts) > 3 else None
        yield parts[0].strip(), parts[1], rank, score, None, line
