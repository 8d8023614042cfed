"""Evaluation: runs scored against qrels with many measures at once (``evaluate``), the
result with its conventions (``EvalResult``) and its text formats.

The names load on first use, so that the trec_eval drop-in, which needs only the scoring
modules, does not pay for the rest at start-up (it runs once per run file in scripts)."""

from __future__ import annotations

from irgauge import _lazy_attributes

_LAZY = {
    "EvalResult": "irgauge.evaluation.eval_result",
    "evaluate": "irgauge.evaluation.engine",
    "read_runs": "irgauge.evaluation.engine",
    "score_matrices": "irgauge.evaluation.engine",
}

__all__ = sorted(_LAZY)


__getattr__, __dir__ = _lazy_attributes(__name__, _LAZY, globals())
