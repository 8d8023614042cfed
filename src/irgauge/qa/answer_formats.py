"""Real factoid QA data in the formats TREC QA distributes (NTCIREVAL's own formats,
``eqrels``/``erel`` gold and ``semicolon``/``list`` runs, are read by :mod:`irgauge.qa.gold`
and :mod:`irgauge.qa.answer_runs`).

* ``trec-qa`` runs (TREC QA main task, factoid and list questions, 2002-2007):
  ``qid run-tag docid answer string...`` one answer per line, in rank order within a
  question; the answer is everything after the third field (it may hold spaces). A line
  whose docid or answer is ``NIL`` says "no answer" and adds nothing.
* ``trec-patterns`` gold (the answer patterns NIST released with the TREC QA questions):
  ``qid pattern`` -- the pattern is a regular expression (the rest of the line) that a
  correct answer string contains; several lines for a question are alternative forms of its
  one correct answer. Matching is ``re.search``, case-insensitive by default.

Patterns become the gold equivalence classes of :class:`irgauge.qa.AnswerGold`: every
distinct answer string of the runs that a question's pattern matches is an answer of that
question's single class (level 1), so a second string matching it is a duplicate of the
same answer, as NTCIREVAL counts it. Each class also lists its first pattern's text, so a
question counts (one correct answer) even when no run answers it.
"""

from __future__ import annotations

import re
from typing import Dict, List, Optional, Sequence, Tuple

from irgauge.errors import InputError
from irgauge.io.file_names import file_stem
from irgauge.qa._text import read_lines
from irgauge.qa.gold import AnswerGold
from irgauge.qa.answer_runs import AnswerRun, read_answers

TREC_GOLD_FORMATS = ("trec-patterns",)
TREC_RUN_FORMATS = ("trec-qa",)
ANSWER_CLASS = "answer"


def read_trec_qa_run(path, name=None) -> AnswerRun:
    """A TREC QA run (``qid run-tag docid answer...``); NIL lines add no answer."""
    path = str(path)
    answers: Dict[str, List[str]] = {}
    tags = set()
    for line, text in read_lines(path):
        parts = text.split(None, 3)
        if len(parts) < 3:
            raise InputError("expected 'qid run-tag docid answer' (TREC QA run)", path, line)
        qid, tag, docid = parts[:3]
        answer = parts[3].strip() if len(parts) == 4 else ""
        tags.add(tag)
        if docid.upper() == "NIL" or answer.upper() in ("", "NIL"):
            answers.setdefault(qid, [])
            continue
        listed = answers.setdefault(qid, [])
        if answer in listed:
            raise InputError(f"answer {answer!r} is listed twice for question {qid!r}", path, line)
        listed.append(answer)
    run_name = name or (next(iter(tags)) if len(tags) == 1 else file_stem(path))
    run = read_answers(answers, name=run_name)
    run.source, run.fmt = path, "trec-qa"
    return run


def read_trec_patterns(
    path, case_sensitive: bool = False
) -> Dict[str, List[Tuple[str, "re.Pattern", int]]]:
    """``{qid: [(pattern text, compiled pattern, line), ...]}`` of a TREC patterns file."""
    path = str(path)
    flags = 0 if case_sensitive else re.IGNORECASE
    patterns: Dict[str, List[Tuple[str, re.Pattern, int]]] = {}
    for line, text in read_lines(path):
        parts = text.strip().split(None, 1)
        if not parts or text.lstrip().startswith("#"):
            continue
        if len(parts) != 2:
            raise InputError("expected 'qid pattern' (TREC answer pattern)", path, line)
        try:
            compiled = re.compile(parts[1], flags)
        except re.error as err:
            raise InputError(
                f"pattern {parts[1]!r} is not a valid regular expression ({err})", path, line
            ) from None
        patterns.setdefault(parts[0], []).append((parts[1], compiled, line))
    if not patterns:
        raise InputError("no answer patterns", path)
    return patterns


def gold_from_patterns(
    patterns_path, runs: Sequence[AnswerRun], case_sensitive: bool = False
) -> AnswerGold:
    """Gold classes from TREC answer patterns and the answer strings of ``runs``."""
    patterns = read_trec_patterns(patterns_path, case_sensitive)
    records: List[Tuple[str, str, int, str, Optional[int]]] = []
    for qid, items in patterns.items():
        first_text, _, first_line = items[0]
        records.append((qid, first_text, 1, ANSWER_CLASS, first_line))
        seen = {first_text}
        for run in runs:
            for answer in run.answers.get(qid, []):
                if answer in seen:
                    continue
                if any(compiled.search(answer) for _, compiled, _ in items):
                    seen.add(answer)
                    records.append((qid, answer, 1, ANSWER_CLASS, None))
    return AnswerGold.from_records(records, str(patterns_path), "trec-patterns")


def load(gold, runs, gold_format: str = "auto", run_format: str = "auto"):
    """(gold, runs) ready for :func:`irgauge.qa.qa_evaluate`: TREC formats are read here,
    the others are passed through unchanged."""
    if run_format in TREC_RUN_FORMATS:
        runs = [read_trec_qa_run(r) for r in runs]
    if gold_format in TREC_GOLD_FORMATS:
        if run_format not in TREC_RUN_FORMATS:
            runs = [read_answers(r, run_format=run_format) for r in runs]
        gold = gold_from_patterns(gold, runs)
    return gold, runs
