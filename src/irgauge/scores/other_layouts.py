"""Score files in irgauge's other output layouts: the JSON of ``--format json`` is read (its
per-topic records are the long layout's rows); the text table of ``--format table`` is
refused, naming the layout to give. Read as a wide CSV, either became one system per
character run of its first line and a message about a non-numeric score."""

from __future__ import annotations

import json
import re
from typing import List

from irgauge.errors import InputError
from irgauge.scores.matrix import LONG_HEADER, TOPIC_COLUMNS, Matrices, long_matrices

_RULE = re.compile(r"-+(?: +-+)*")  # the line under a text table's header
_GIVE = "give irgauge's per-topic TSV (irgauge eval -q --format tsv) or a wide CSV/TSV"


def is_json(line: str) -> bool:
    """Whether the file's first line (after comments) opens a JSON document."""
    return line.lstrip().startswith(("{", "["))


def read_json_scores(text: str, path: str) -> Matrices:
    """``{measure: ScoreMatrix}`` of irgauge's JSON output (``eval -q --format json``):
    ``{"metadata": ..., "results": [{"run", "measure", "topic", "value"}, ...]}``, the
    ``all`` records skipped as in the long TSV. Other JSON is refused in one line."""
    try:
        document = json.loads(text)
    except json.JSONDecodeError as err:
        raise InputError(f"cannot parse the JSON: {err.msg}", path, err.lineno) from None
    records = document.get("results") if isinstance(document, dict) else None
    if not isinstance(records, list) or not records:
        raise InputError(
            "this JSON holds no per-topic results (records of run, measure, topic, value, "
            f"as irgauge eval -q --format json writes): {_GIVE}",
            path,
        )
    for k, record in enumerate(records):
        if not isinstance(record, dict) or not set(LONG_HEADER) <= set(record):
            raise InputError(
                f"results[{k}] is not a per-topic record with the fields "
                f"{', '.join(LONG_HEADER)} (as irgauge eval -q --format json writes): {_GIVE}",
                path,
            )
    rows = ((str(r["run"]), str(r["measure"]), str(r["topic"]), r["value"], None) for r in records)
    return long_matrices(rows, path)


def refuse_text_table(lines: List[str], first: int, path: str) -> None:
    """irgauge's text table (a header line, then a rule of dashes) is for people: its
    columns are aligned by spaces and its values rounded. Refused, naming what to give."""
    following = [k for k in range(first + 1, len(lines)) if lines[k].strip()]
    if following and _RULE.fullmatch(lines[following[0]].strip()):
        raise InputError(
            "this is irgauge's text table (--format table), written for reading, with "
            f"rounded values: {_GIVE}",
            path,
            first + 1,
        )


def refuse_headerless_long(line: str, path: str, number: int) -> None:
    """A first line of four tab-separated fields ending in a decimal score is a row of the
    long layout (run, measure, topic, value) without its header: read as a wide file's
    header, its fields became systems and the next line's run a non-numeric score."""
    fields = line.rstrip("\r\n").split("\t")
    if len(fields) != len(LONG_HEADER) or fields[-1].strip().isdigit():
        return
    try:
        float(fields[-1])
    except ValueError:
        return
    raise InputError(
        "the first line reads as a row of irgauge's per-topic TSV (run, measure, topic, "
        "value) without its header line: add the line run<TAB>measure<TAB>topic<TAB>value",
        path,
        number,
    )


_INTEGER = re.compile(r"[+-]?\d+")
_Q0 = ("Q0", "q0", "0")
# the layouts of the inputs scores are computed from, by their fields' count
_TREC_INPUTS = {  # fields -> (what, a whole field, a numeric field)
    6: ("a TREC run (topic Q0 docno rank score tag)", 3, 4),
    4: ("TREC qrels (topic 0 docno level)", 3, 1),
}


def refuse_trec_inputs(line: str, path: str, number: int) -> None:
    """A run or qrels given where scores are read (``discpower RUN RUN``, as ``eval``
    takes runs): a first line of 6 whitespace-separated fields whose rank is whole and
    score a number (its second field Q0 or 0), or of 4 whose level and iteration are whole.
    Read as a wide file's header, its fields became systems and the message spoke of a
    non-numeric score."""
    fields = line.split()
    if len(fields) not in _TREC_INPUTS or any(c in line for c in ",;"):
        return
    if fields[0].lower() in TOPIC_COLUMNS or (len(fields) == 6 and fields[1] not in _Q0):
        return  # a wide file's header: the topic column, then the systems
    what, whole, other = _TREC_INPUTS[len(fields)]
    if not _INTEGER.fullmatch(fields[whole]):
        return
    try:
        float(fields[other])
    except ValueError:
        return
    raise InputError(
        f"this is {what}, not a score file: give the qrels and the runs to score "
        "(--qrels QRELS --run RUN ...), or their scores (irgauge eval -q --format tsv)",
        path,
        number,
    )
