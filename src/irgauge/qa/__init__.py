"""Question-answering evaluation with answer equivalence classes (Sakai 2004, "A
note on the reliability of Japanese question answering evaluation").

``qa_evaluate(gold, runs, measures)`` maps answers to classes and scores them with the
core evaluator; see :mod:`irgauge.qa.scoring` for the mapping, :mod:`irgauge.qa.gold`
and :mod:`irgauge.qa.answer_runs` for the formats, :mod:`irgauge.qa.normalise` for matching.
"""

from irgauge.qa.scoring import (
    DEFAULT_QA_MEASURES,
    answer_qrels,
    answer_run,
    label_answers,
    parse_qa_measure,
    qa_evaluate,
)
from irgauge.qa.gold import AnswerGold, read_gold
from irgauge.qa.normalise import Normaliser, make_normaliser
from irgauge.qa.answer_runs import AnswerRun, read_answers

__all__ = [
    "qa_evaluate",
    "read_gold",
    "read_answers",
    "AnswerGold",
    "AnswerRun",
    "Normaliser",
    "make_normaliser",
    "label_answers",
    "answer_qrels",
    "answer_run",
    "parse_qa_measure",
    "DEFAULT_QA_MEASURES",
]
