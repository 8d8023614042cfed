"""One coercion for every meta-evaluation function: the score data as users hold it ->
``{measure: ScoreMatrix}``, aligned on common systems and topics.

Accepted: a ScoreMatrix; ``{measure: ScoreMatrix or wide DataFrame}``; a list of
ScoreMatrix; a tidy per-topic DataFrame with columns run, measure, topic, value (as
``EvalResult.per_topic``, rows with topic ``all`` skipped); an EvalResult itself; a wide
DataFrame with topics as rows and systems as columns (one measure, named by ``measure``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Dict, Optional

from irgauge.errors import InputError
from irgauge.scores.matrix import ScoreMatrix, align, from_frame
from irgauge.io.words import counted

EXPECTED = (
    "a ScoreMatrix, {measure: ScoreMatrix or wide DataFrame}, a tidy per-topic "
    "DataFrame (run, measure, topic, value), an EvalResult, or a wide DataFrame "
    "(topics x systems)"
)


def as_score_matrices(data: Any, measure: Optional[str] = None) -> Dict[str, Any]:
    """``{measure: ScoreMatrix}`` from any accepted form (see the module docstring)."""

    if isinstance(data, ScoreMatrix):
        found = {measure or data.measure: data}
    elif hasattr(data, "score_matrices") and hasattr(data, "per_topic"):  # EvalResult
        found = data.score_matrices()
    elif hasattr(data, "columns") and hasattr(data, "iloc"):  # a DataFrame
        found = from_frame(data, measure=measure, source="<DataFrame>")
    elif isinstance(data, Mapping):
        found = {}
        for name, value in data.items():
            if isinstance(value, ScoreMatrix):
                found[str(name)] = value
            elif hasattr(value, "columns") and hasattr(value, "iloc"):
                found.update(from_frame(value, measure=str(name), source=f"<{name}>"))
            else:
                raise InputError(
                    f"score data for measure {name!r} must be a ScoreMatrix or a "
                    f"wide DataFrame; got {type(value).__name__}"
                )
    elif isinstance(data, (list, tuple)) and data and all(isinstance(m, ScoreMatrix) for m in data):
        found = {m.measure: m for m in data}
        if len(found) != len(data):
            raise InputError("several score matrices have the same measure name")
    else:
        raise InputError(f"score data must be {EXPECTED}; got {type(data).__name__}")
    if not found:
        raise InputError(f"no score matrices given (expected {EXPECTED})")
    return align(found)


def as_score_matrix(data: Any, measure: Optional[str] = None) -> Any:
    """One ScoreMatrix: the only measure of ``data``, or the one named ``measure``."""
    matrices = as_score_matrices(data, measure if _is_wide(data) else None)
    if measure is not None and measure in matrices:
        return matrices[measure]
    if len(matrices) != 1:
        raise InputError(
            f"score data hold {counted(len(matrices), 'measure')} ({', '.join(matrices)}); name one"
        )
    return next(iter(matrices.values()))


def _is_wide(data: Any) -> bool:
    """A DataFrame without the tidy columns: one unnamed measure."""
    return (
        hasattr(data, "columns")
        and hasattr(data, "iloc")
        and not {"run", "measure", "topic", "value"} <= {str(c).lower() for c in data.columns}
    )
