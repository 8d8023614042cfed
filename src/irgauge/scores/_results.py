"""The one check at the boundary of every public result: each value is finite and in its
range (a p-value in [0, 1], kappa and alpha at most 1, tau in [-1, 1], a number of topics
at least 2, ...), or it is not finite and its reason is recorded, as a note that reaches
the output. A finite value out of its range is a defect, refused with ResultError.

Every public result type derives from :class:`CheckedResult`, which runs the check on
construction over each of its fields (numbers, arrays, tables, mappings of them) and keeps
the reasons in ``notes``: a result type added later is held the same way, and
tests/test_result_notes.py refuses one that does not derive from it.
Numpy only: pandas is not imported for a table given as ``{column: values}``.
"""

from __future__ import annotations

import math
from typing import Any, ClassVar, Dict, List, Mapping, Optional, Tuple

import numpy as np

from irgauge.io.words import counted

INF = math.inf
_SLACK = 1e-9  # rounding beyond a range's end that is still read as the end

_TIED = "a ranking ties every system, so the rank correlation is 0/0"
# tau_AP's C(i) counts the systems the reference ranks above the i-th: with no order in it
# every C(i) is 0, which the formula would read as complete disagreement (-1)
_REFERENCE_TIED = "the reference ranking ties every system, so tau_AP has no order to agree with"
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
    "tau_ap": _REFERENCE_TIED,
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
    # a t statistic of constant differences is mean/0: inf, or 0/0 where they are all 0
    "mean_difference": _CONSTANT,
    "effect": "Cohen's d_z is not defined for the baseline against itself, nor where the "
    "per-topic differences are constant (sd 0)",
    "effect_dz": _CONSTANT,
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


class NotedFloat(float):
    """A number result that is not finite, with its reason in ``notes``: a float, so every
    use of the number works, as a result object's ``notes`` say why its values are not
    finite (:func:`checked_number`)."""

    notes: List[str]


def checked_number(
    name: str, value: float, low: float = -INF, high: float = INF, reason: Optional[str] = None
) -> float:
    """The one check on a result that is a single number: ``value`` as a float where it is
    finite (and in [low, high], else ResultError), else a :class:`NotedFloat` whose notes
    give the reason (``reason``, or the reason known for ``name``)."""
    notes = check_result_values(name, value, low, high, reason)
    if not notes:
        return float(value)
    noted = NotedFloat(value)
    noted.notes = notes
    return noted


class CheckedResult:
    """Base of every public result type: on construction (``__post_init__``, which a
    dataclass calls) the one results check runs over each field, and ``notes`` holds one
    line per field or column with values that are not finite, with the reason.

    A field is checked by its kind: a number or numeric array by
    :func:`check_result_values`, a table (DataFrame or ``{column: values}`` of arrays) by
    :func:`check_table`, a mapping of tables or arrays entry by entry, named
    ``"<field> <key>"``; strings, lists of words and objects are not results. Ranges come
    from ``RANGES`` by name, then the class's ``value_ranges``; reasons from its
    ``nan_reasons``, then ``REASONS``. Fields named in ``must_be_finite`` must be finite (a
    non-finite one is a defect: ResultError); those in ``not_results`` are inputs."""

    value_ranges: ClassVar[Mapping[str, Tuple[float, float]]] = {}
    nan_reasons: ClassVar[Mapping[str, str]] = {}
    must_be_finite: ClassVar[Tuple[str, ...]] = ()
    not_results: ClassVar[Tuple[str, ...]] = ("parameters", "metadata", "seed")

    # why a value of this result is NaN or infinite, one line per field or column
    notes: List[str]

    def __post_init__(self) -> None:
        # object.__setattr__: frozen dataclasses too; an attribute, not a property, so that a
        # result whose notes are a field of its own (given or made) keeps its place for them
        object.__setattr__(self, "notes", list(self.check_notes()))

    def check_notes(self) -> List[str]:
        """The check over every field (a subclass holding its notes elsewhere overrides
        this); raises ResultError for a value out of its range or a non-finite
        ``must_be_finite`` field."""
        notes: List[str] = []
        for name, value in _fields(self):
            if name in self.not_results or name == "notes":
                continue
            found = _check_value(name, value, {**RANGES, **self.value_ranges}, self.nan_reasons)
            if found and name in self.must_be_finite:
                raise ResultError(f"{type(self).__name__}.{name} is not finite")
            notes += found
        return notes


def _fields(result: Any) -> List[Tuple[str, Any]]:
    """(name, value) of each field of a dataclass result, else of its public attributes."""
    import dataclasses

    if dataclasses.is_dataclass(result):
        return [(f.name, getattr(result, f.name)) for f in dataclasses.fields(result)]
    return [(k, v) for k, v in vars(result).items() if not k.startswith("_")]


def _check_value(
    name: str, value: Any, ranges: Mapping[str, Tuple[float, float]], reasons: Mapping[str, str]
) -> List[str]:
    """The notes of one field ``name`` holding ``value`` (see :class:`CheckedResult`)."""
    if value is None or isinstance(value, (str, bytes, bool)):
        return []
    if hasattr(value, "columns"):  # a DataFrame
        return [f"{name}: {n}" for n in check_table(value, ranges, reasons)]
    if isinstance(value, Mapping):
        notes: List[str] = []
        for key, item in value.items():
            notes += _check_value(f"{name} {key}", item, ranges, reasons)
        return notes
    if isinstance(value, (list, tuple)):
        numbers = [v for v in value if isinstance(v, (int, float, np.number))]
        if not value or len(numbers) < len(value) or any(isinstance(v, bool) for v in value):
            return []  # words, nested lists: not a result's numbers
        value = np.asarray(numbers, dtype=float)
    if not isinstance(value, (int, float, np.number, np.ndarray)):
        return []
    low, high = ranges.get(name, (-INF, INF))
    if isinstance(value, (int, float)) and math.isfinite(value) and low <= value <= high:
        return []  # a number plainly in its range: the common case, without numpy's cost
    return check_result_values(name, value, low, high, reasons.get(name))
