"""The one check at the boundary of every public result: each value is finite and in its
range (a p-value in [0, 1], kappa and alpha at most 1, tau in [-1, 1], a number of topics
at least 2, ...), or it is not finite and its reason is recorded, as a note that reaches
the output. A finite value out of its range is a defect, refused with ResultError.

Result types call it on construction: :class:`irgauge.meta.result.MetaResult` on each of
its tables (its ``notes``), the tests' results (:mod:`irgauge.stats`) on their p-values.
Numpy only: pandas is not imported for a table given as ``{column: values}``.
"""

from __future__ import annotations

import math
from typing import Any, Dict, List, Mapping, Optional, Tuple

import numpy as np

from irgauge.io.words import counted

INF = math.inf
_SLACK = 1e-9  # rounding beyond a range's end that is still read as the end

_TIED = "a ranking ties every system, so the rank correlation is 0/0"
_CONSTANT = "the pair's per-topic differences are constant (sd 0)"
_NOT_REACHED = (
    "no difference reaches the required level (discpower: no pair significant "
    "at that alpha, or B*alpha < 1; swap: no bin with few enough swaps)"
)
# why a column of a result can hold a value that is not finite
_NO_INTERVAL = (
    "no interval: too few topics for a bootstrap (a note names them), or the statistic is "
    "undefined on every bootstrap sample"
)
REASONS: Dict[str, str] = {
    "tau": _TIED,
    "tau_ap": _TIED,
    "tau_ap_b": _TIED,
    "phi": _TIED,
    "sd": "one halving only (the sd needs two), or " + _TIED,
    "required_difference": _NOT_REACHED,
    "required_difference_2sf": _NOT_REACHED,
    "relative_difference": _NOT_REACHED,
    "share_reaching": _NOT_REACHED,
    "effect_size": _CONSTANT,
    "t": _CONSTANT,
    "statistic": _CONSTANT,
    "low": _NO_INTERVAL,
    "high": _NO_INTERVAL,
    # topic set size design: an answer beyond the largest double (1.8e308), e.g. at a
    # tiny alpha on 2 topics of huge scores
    "min_detectable_diff": "the smallest detectable difference exceeds the largest double",
    "ci_width": "the interval is wider than the largest double",
}
DEFAULT_REASON = "undefined for these scores"

_UNIT = (0.0, 1.0)
_SIGNED = (-1.0, 1.0)
# the range of a column (or, in a long table, of a statistic) by its name
RANGES: Dict[str, Tuple[float, float]] = {
    "p": _UNIT,
    "pvalue": _UNIT,
    "p_value": _UNIT,
    "asl": _UNIT,
    "power": _UNIT,
    "swap_rate": _UNIT,
    "share_reaching": _UNIT,
    "discriminative_power": _UNIT,
    "tau": _SIGNED,
    "tau_ap": _SIGNED,
    "tau_ap_b": _SIGNED,
    "pearson": _SIGNED,
    "spearman": _SIGNED,
    "kappa": (-INF, 1.0),
    "alpha": (-INF, 1.0),
    "n_topics": (2.0, INF),
    "variance": (0.0, INF),
    "ci_width": (0.0, INF),
    "min_detectable_diff": (0.0, INF),
    "sd": (0.0, INF),
}


class ResultError(RuntimeError):
    """A result holds a finite value outside its range: a defect of irgauge, not of the
    input."""


def check_result_values(
    name: str,
    values: Any,
    low: float = -INF,
    high: float = INF,
    reason: Optional[str] = None,
) -> List[str]:
    """Check ``values`` (a number or an array) of the result ``name``: every finite value
    in [low, high] (rounding within 1e-9 of an end is accepted), else ResultError; returns
    one note, ``"<count> <name> values are not finite: <reason>"``, when some are not
    finite (``reason`` or the reason known for ``name``), else no note."""
    array = np.asarray(values)
    if array.dtype.kind not in "fcbiu":
        return []
    if array.dtype.kind == "c":
        raise ResultError(f"{name}: complex values in a result")
    array = array.astype(float, copy=False)
    finite = np.isfinite(array)
    inside = (array >= low - _SLACK * max(1.0, abs(low))) & (
        array <= high + _SLACK * max(1.0, abs(high))
    )
    wrong = finite & ~inside
    if wrong.any():
        first = float(array[wrong].flat[0])
        raise ResultError(f"{name}: {first!r} lies outside [{low:g}, {high:g}]")
    bad = int(array.size - finite.sum())
    if not bad:
        return []
    why = reason or REASONS.get(name, DEFAULT_REASON)
    named = "" if name == "value" else f" {name}"  # a long table's column says nothing more
    values = counted(bad, f"{named} value".lstrip())
    return [f"{values} {'is' if bad == 1 else 'are'} not finite: {why}"]


def check_fields(result: Any, ranges: Mapping[str, Tuple[float, float]]) -> None:
    """For a result without a place for notes (a dataclass of numbers): each named field
    finite and in its range, else ResultError; called from the result's __post_init__."""
    for name, (low, high) in ranges.items():
        if check_result_values(name, getattr(result, name), low, high):
            raise ResultError(f"{type(result).__name__}.{name} is not finite")


def check_table(
    table: Any,
    ranges: Optional[Mapping[str, Tuple[float, float]]] = None,
    reasons: Optional[Mapping[str, str]] = None,
) -> List[str]:
    """:func:`check_result_values` on every numeric column of ``table`` (a DataFrame or
    ``{column: values}``), each in its range (``ranges``, then RANGES, by column name);
    in a long table, with columns ``statistic`` and ``value``, each statistic's values in
    the statistic's range. Returns the notes of the columns holding non-finite values."""
    if table is None or not hasattr(table, "__getitem__"):
        return []
    columns = list(table) if isinstance(table, dict) else list(getattr(table, "columns", []))
    ranges = {**RANGES, **dict(ranges or {})}
    reasons = dict(reasons or {})
    notes: List[str] = []
    if "statistic" in columns and "value" in columns:
        statistic = np.asarray(table["statistic"], dtype=object)
        value = np.asarray(table["value"], dtype=object)
        for name in dict.fromkeys(statistic.tolist()):
            chosen = _numbers(value[statistic == name])
            if chosen is not None:
                low, high = ranges.get(str(name), (-INF, INF))
                notes += check_result_values(str(name), chosen, low, high, reasons.get(name))
        columns = [c for c in columns if c not in ("statistic", "value")]
    for column in columns:
        chosen = _numbers(np.asarray(table[column]))
        if chosen is not None:
            low, high = ranges.get(str(column), (-INF, INF))
            notes += check_result_values(str(column), chosen, low, high, reasons.get(column))
    return notes


def _numbers(values: np.ndarray) -> Optional[np.ndarray]:
    """``values`` as floats where they are all numbers (not bools), else None."""
    if values.dtype.kind in "fiu":
        return values
    if values.dtype.kind != "O" or not values.size:
        return None
    if all(isinstance(v, (int, float, np.number)) and not isinstance(v, bool) for v in values):
        return values.astype(float)
    return None
