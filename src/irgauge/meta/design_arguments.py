"""The arguments of a topic set design (:mod:`irgauge.meta.topicset`) checked as the
public functions take them: alpha, beta and their power, the design, positive numbers or
arrays, the number of systems M, and arrays of them checked element by element and
broadcast together."""

from __future__ import annotations

from typing import Any, Callable, Dict, Tuple

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError

DESIGNS = ("ttest", "anova", "ci")
MAX_TOPICS = _checks.MAX_COUNT  # the most systems M and topics n a caller may give


def checked_alpha(alpha: Any) -> float:
    """alpha in (0, 1), any: the critical values hold down to the smallest subnormal
    number (:func:`irgauge.stats.tails.log_f_critical`)."""
    return _checks.alpha(alpha, "alpha")


def checked_beta(beta: Any) -> float:
    return _checks.real(beta, "beta", 0.0, 1.0, True, True, what="a type II error rate")


def checked_alpha_beta(alpha: Any, beta: Any) -> Tuple[float, float]:
    alpha, beta = checked_alpha(alpha), checked_beta(beta)
    if 1 - beta <= alpha:
        raise _checks.refused(
            "beta",
            f"the power 1 - beta = {1 - beta:g} must exceed alpha = {alpha:g} "
            "(a test with power alpha needs no topics at all)",
        )
    return alpha, beta


def checked_design(design: str) -> str:
    return _checks.choice(design, "design", DESIGNS)


def positive_values(value: Any, name: str) -> np.ndarray:
    """``value`` (a number or an array) as a float array, every element finite and > 0."""
    if isinstance(value, bool):
        raise InputError(f"{name}: expected a number > 0; got {value!r}")
    array: np.ndarray = _checks.real_array(value, name, "a number or an array")
    if array.size == 0 or not np.all(np.isfinite(array)) or np.any(array <= 0):
        raise InputError(f"{name}: expected a number > 0; got {value!r}")
    return array


def checked_systems(value: Any) -> int:
    return _checks.whole(value, "anova_systems", 2, MAX_TOPICS, what="a number of systems M")


def each_checked(value: Any, check: Callable[[Any], Any]) -> np.ndarray:
    """``value`` (one value or an array of them) as an array of ``check(element)``: each
    distinct element checked once, its refusal the scalar's."""
    if np.ndim(value) == 0:
        return np.asarray(check(value.item() if isinstance(value, np.ndarray) else value))
    raw = np.asarray(value, dtype=object)
    seen: Dict[Any, Any] = {}
    checked = [seen[v] if v in seen else seen.setdefault(v, check(v)) for v in raw.ravel()]
    return np.array(checked).reshape(raw.shape)


def broadcast_shape(shapes: Dict[str, Tuple[int, ...]]) -> Tuple[int, ...]:
    """The shape the arguments' ``shapes`` (name: shape) broadcast to; refused, naming
    the arguments and their shapes, where they do not."""
    try:
        return tuple(np.broadcast_shapes(*shapes.values()))
    except ValueError:
        given = ", ".join(f"{name} {shape}" for name, shape in shapes.items() if shape)
        first = next(name for name, shape in shapes.items() if shape)
        raise _checks.refused(
            first, f"the arrays given do not broadcast together (shapes: {given})"
        ) from None
