"""The options of question-answering inputs, which ``irgauge qa`` and ``irgauge study qa``
take (``--normalise``, ``--gold-format``, ``--run-format``, ``--answer-order``), and the
``[NAME=]FILE`` arguments that name score files."""

from __future__ import annotations

from typing import Any, Optional, Tuple

from irgauge.cli.option_spellings import stated
from irgauge.errors import InputError


def add_answer_inputs(
    parser: Any,
    trec: bool = False,
    normalise: Optional[str] = "exact",
    order: Optional[str] = "file",
) -> None:
    """``--normalise``, ``--gold-format``, ``--run-format`` and ``--answer-order`` of QA
    answers; ``trec``: TREC QA's answer patterns and runs are read too (the qa study);
    ``normalise``, ``order``: the parser's defaults, None where the command passes the
    option on only when given (the readers' exact and file then apply)."""
    action = parser.add_argument(
        "--normalise",
        metavar="RULES",
        default=normalise,
        help="answer matching: exact, or any of nfkc,space,case (comma-separated), or all "
        "(default: exact)",
    )
    stated(action, default="default: exact")
    gold = ", TREC QA answer patterns (trec-patterns)" if trec else ""
    action = parser.add_argument(
        "--gold-format",
        default="auto",
        choices=("auto", "eqrels", "erel", "tsv", "json") + (("trec-patterns",) if trec else ()),
        help=f"gold answers: NTCIREVAL eqrels/erel, irgauge tsv/json{gold} (auto: from the "
        "content)",
    )
    if trec:
        stated(action, trec=gold)
    runs = ", TREC QA runs (trec-qa: qid tag docid answer)" if trec else ""
    action = parser.add_argument(
        "--run-format",
        default="auto",
        choices=("auto", "semicolon", "trec", "list", "tsv", "json")
        + (("trec-qa",) if trec else ()),
        help=f"answer runs: NTCIREVAL semicolon/list, TREC, irgauge tsv/json{runs} (auto: "
        "from the content)",
    )
    if trec:
        stated(action, trec=runs)
    action = parser.add_argument(
        "--answer-order",
        default=order,
        choices=("file", "rank", "score"),
        help="order of each answer list: file order (NTCIREVAL), rank column, or score "
        "descending (ties in file order) (default: file)",
    )
    stated(action, default="default: file")


def named_file(spec: str) -> Tuple[Optional[str], str]:
    """``(name, path)`` of a ``[NAME=]FILE`` argument. A file whose own name holds ``=`` is
    read as that file (so is any argument whose part before ``=`` holds a ``/``: a name has
    none); when both readings name existing files the argument is refused as ambiguous
    rather than guessed, and an empty name or file is refused too."""
    import os

    if "=" not in spec:
        return None, spec
    name, path = spec.split("=", 1)
    literal = os.path.exists(spec)
    if "/" in name or os.sep in name:
        return None, spec
    if literal and name and os.path.exists(path):
        raise InputError(
            f"{spec!r} names both the file {spec} and the file {path} as {name}; "
            f"write ./{spec} for the first, {name}=./{path} for the second"
        )
    if literal:
        return None, spec
    if not name or not path:
        raise InputError(f"{spec!r}: expected [NAME=]FILE, a name before '=' and a file after")
    return name, path
