"""The names of what irgauge's public functions accept, for type checkers and for readers
of their signatures (``from irgauge.types import QrelsLike, RunsLike``).

irgauge reads the ecosystem's data structures by duck typing (see :mod:`irgauge.io.adapters`):
DataFrames with ir_measures' or PyTerrier's columns, iterables of ir_datasets or
ir_measures records, ranx objects. None of them is a dependency, so each is an ``Any`` part
of its union, named for what it stands for; the unions say which of irgauge's own types,
paths and nested dicts are taken. The classes named here are imported for type checkers
only: this module loads nothing at run time.
"""

from __future__ import annotations

import os
from typing import TYPE_CHECKING, Any, Callable, Dict, Mapping, Optional, Sequence, Union

from numpy.typing import ArrayLike

if TYPE_CHECKING:
    from irgauge.evaluation.eval_result import EvalResult
    from irgauge.io.records import Qrels, Run
    from irgauge.measures.base import Measure
    from irgauge.qa.answer_runs import AnswerRun
    from irgauge.qa.gold import AnswerGold
    from irgauge.qa.normalise import Normaliser
    from irgauge.scores.matrix import ScoreMatrix

PathLike = Union[str, "os.PathLike[str]"]
"""A file's path; ``-`` is standard input where a reader says so."""

Frame = Any
"""A pandas DataFrame (columns as :mod:`irgauge.io.adapters` lists them)."""

Records = Any
"""An iterable of records (ir_datasets ``TrecQrel``/``ScoredDoc``, ir_measures ``Qrel``/
``ScoredDoc``), or a ranx ``Qrels``/``Run``."""

QrelsLike = Union[PathLike, "Qrels", Mapping[str, Mapping[str, Any]], Frame, Records]
"""Judgments: a qrels file, a Qrels, ``{qid: {docno: level}}``, a DataFrame or records."""

RunLike = Union[PathLike, "Run", Mapping[str, Mapping[str, float]], Frame, Records]
"""One run: a run file, a Run, ``{qid: {docno: score}}``, a DataFrame or records."""

RunsLike = Union[RunLike, Sequence[RunLike], Mapping[str, RunLike]]
"""One run, a list of runs, or ``{name: run}``."""

ScoresLike = Union["ScoreMatrix", "EvalResult", Mapping[str, Any], Frame]
"""Per-topic scores: a ScoreMatrix, an EvalResult, ``{measure: ScoreMatrix or DataFrame}``
or a DataFrame (long: system, topic, measure, value; or wide: topics by systems)."""

Matrices = Dict[str, "ScoreMatrix"]
"""Score matrices by measure name."""

MeasureLike = Union[str, "Measure", Any]
"""A measure: its name (``"nDCG@10"``, any tool's spelling), a Measure or an ir_measures
measure."""

MeasuresLike = Union[None, str, Sequence[MeasureLike]]
"""Measures to compute: one, several, or None for the default set."""

TopicScores = ArrayLike
"""One system's scores, one per topic, in the same topic order as the system it is paired
with (a list, a NumPy array)."""

ScoreRows = ArrayLike
"""Scores as a systems x topics array, one row per system."""

Indices = Optional[ArrayLike]
"""Precomputed random draws (topic indices or signs), one row per draw; None draws them."""

GoldLike = Union[PathLike, "AnswerGold"]
"""QA gold answers: a file (any of irgauge.qa.gold's formats) or an AnswerGold."""

AnswersLike = Union[PathLike, "AnswerRun", Mapping[str, Sequence[str]]]
"""One QA run: a file, an AnswerRun or ``{topic: [answers]}`` (ranked)."""

AnswerRunsLike = Union[AnswersLike, Sequence[AnswersLike], Mapping[str, AnswersLike]]
"""One QA run, a list of them, or ``{name: run}``."""

NormaliserLike = Union[None, str, "Normaliser"]
"""Answer normalisation: ``"nfkc,space,case"``, ``"exact"`` (None), ``"all"`` or a
Normaliser."""

RatesLike = Union[None, str, float, Sequence[float]]
"""Shares of judgments kept, in per cent: ``"90,70,50"``, numbers, or None for the
default."""

GainsLike = Union[None, str, Sequence[float]]
"""Gain per relevance level 1, 2, ...: ``"1:2:3"`` or numbers; None: gain = level."""

# pool depths: one K, a list, or text "10,20"
DepthsLike = Union[int, str, Sequence[int]]

# a baseline run, or a (baseline, advanced) pair of runs
RunPairLike = Union[RunLike, Sequence[RunLike]]

# prels: a file of judgments with their inclusion probabilities, or Qrels that carry them
PrelsLike = Union[PathLike, "Qrels"]

Progress = Callable[[int, int], None]
"""``progress(done, total)``, called as a long computation advances."""

Seed = Optional[int]
"""A random seed; None draws a fresh one (reported in the result)."""

__all__ = [
    "AnswerRunsLike",
    "AnswersLike",
    "DepthsLike",
    "Frame",
    "GainsLike",
    "GoldLike",
    "Indices",
    "Matrices",
    "MeasureLike",
    "MeasuresLike",
    "NormaliserLike",
    "PathLike",
    "PrelsLike",
    "Progress",
    "QrelsLike",
    "RatesLike",
    "Records",
    "RunLike",
    "RunPairLike",
    "RunsLike",
    "ScoreRows",
    "ScoresLike",
    "Seed",
    "TopicScores",
]
