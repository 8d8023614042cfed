"""Evaluation: runs scored against qrels with many measures at once (``evaluate``), the
result with its conventions (``EvalResult``) and its text formats."""

from irgauge.evaluation.engine import evaluate, read_runs, score_matrices
from irgauge.evaluation.eval_result import EvalResult

__all__ = ["EvalResult", "evaluate", "read_runs", "score_matrices"]
