"""trec_eval's options (``TrecEvalOptions``) and the checks of their domain: the values of
-M and -l that trec_eval's own output is reproduced for, mapped onto what irgauge scores,
and the others refused in one line."""

from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Optional, Sequence, Tuple

from irgauge._checks import MAX_COUNT
from irgauge.measures.trec_eval_words import TrecEvalError

# the measures -m chose, each with its parameter text (trec_eval_words.select)
Chosen = Sequence[Tuple[str, Optional[str]]]


@dataclass(frozen=True)
class TrecEvalOptions:
    """trec_eval's options: -q, -c, -l, -M, -J, -n (``summary=False``), -N, -R, and the
    query of -D 0.query (``only_topic``: that qrels topic is evaluated alone; with -c the
    means still divide by the number of qrels topics)."""

    per_topic: bool = False
    complete: bool = False
    rel_level: int = 1
    max_docs: Optional[int] = None
    judged_only: bool = False
    summary: bool = True
    num_docs: int = 0
    rel_format: str = "qrels"  # -R: qrels, or qrels_jg (judgment groups)
    only_topic: Optional[str] = None  # -D 0.query


def in_domain(options: TrecEvalOptions) -> TrecEvalOptions:
    """trec_eval's -M and -l as C longs (its defaults: -M MAXLONG, -l 1), mapped onto what
    irgauge scores with the same output, or refused in one line where trec_eval's own
    output is not reproduced: a -M past any ranking irgauge reads (MAX_COUNT documents)
    cuts none; -M 0 leaves every ranking empty (``read_depth``); a negative -M is refused
    (trec_eval crashes, or prints negative counts of documents). -l below 0 is read by
    the judgments (``trec_judgments``)."""
    if options.max_docs is not None and options.max_docs < 0:
        raise TrecEvalError(
            f"irgauge: -M {options.max_docs}: trec_eval 10.0 crashes or prints negative "
            "counts for it; -M takes 0 or more documents per topic",
            2,
        )
    if options.max_docs is not None and options.max_docs > MAX_COUNT:
        options = replace(options, max_docs=None)
    return options


# levels past trec_eval's table that bpref reads without reaching unmapped memory (it
# crashed from some 16,600 on, on a small input: the heap's first 132 KiB)
LEVELS_READ_PAST = 1024


def refuse_level_past_table(options: TrecEvalOptions, chosen: Chosen, top: int) -> None:
    """trec_eval's bpref and gm_bpref count the nonrelevant documents by reading its table
    of each level's count for every level below -l (m_bpref.c), past the table's end
    when -l exceeds the highest level + 1. What it reads there counts for nothing (no
    document is relevant then, so bpref is 0), but far enough past it, it crashes."""
    reading = [name for name, _ in chosen if name in ("bpref", "gm_bpref")]
    if reading and options.rel_level > top + 1 + LEVELS_READ_PAST:
        raise TrecEvalError(
            f"irgauge: -l {options.rel_level} with {reading[0]}: trec_eval 10.0 reads its "
            f"table of levels (up to {top} here) that far past its end, and crashes",
            2,
        )


def read_depth(options: TrecEvalOptions) -> Optional[int]:
    """-M as the run is read: -M 0, where trec_eval evaluates empty rankings, reads each
    topic's first document, which tells the topics the run answers (a document kept
    twice is never among one), and scores none of them (``score_lines_jointly``)."""
    return 1 if options.max_docs == 0 else options.max_docs
