"""Measure definitions, measure objects and the registry.

A measure family is a pure function ``f(ranked: RankedLists, **params) -> ndarray``
(one value per row) registered with its parameters. A ``Measure`` is one configured
use of a family: parameter values, cutoff, judged-only (condensed) lists, gains and
aggregation across topics. ``judged_only`` and ``gains`` are applied here once, so
every family gets them without code of its own.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple

import numpy as np

from irgauge.errors import MeasureError

AGGREGATES = ("mean", "gmean")
GMEAN_EPSILON = 1e-5  # trec_eval's MIN_GEO_MEAN


@dataclass(frozen=True)
class Param:
    name: str
    default: Any
    kind: str  # float | int | bool | str | levels (colon-separated numbers)
    doc: str
    choices: Tuple[str, ...] = ()

    def convert(self, text: Any, measure: str) -> Any:
        try:
            if self.kind == "float":
                value = float(text)
            elif self.kind == "int":
                value = int(text)
            elif self.kind == "bool":
                value = _to_bool(text)
            elif self.kind == "levels":
                value = _levels(text)
            else:
                value = str(text)
        except (TypeError, ValueError):
            raise MeasureError(f"{measure}: parameter {self.name}={text!r} is not a valid "
                               f"{self.kind}") from None
        if self.choices and value not in self.choices:
            raise MeasureError(f"{measure}: parameter {self.name} must be one of "
                               f"{', '.join(self.choices)}; got {value!r}")
        return value


class GainMap(tuple):
    """Gains given per level as ``{level: gain}`` (ir_measures' ``gains={2:3,3:7}``): a
    sorted tuple of (level, gain) pairs; a level not listed keeps gain = level, as in
    ir_measures."""

    def table(self, max_level: int) -> Tuple[float, ...]:
        given = dict(self)
        return tuple(float(given.get(level, level)) for level in range(1, max_level + 1))

    def __str__(self) -> str:
        return "{" + ",".join(f"{_fmt(k)}:{_fmt(v)}" for k, v in self) + "}"


def _levels(text: Any):
    """``1:2:3`` (gains of levels 1, 2, 3) or ``{2:3,3:7}`` (a GainMap)."""
    if text is None or isinstance(text, tuple):
        return text
    text = str(text).strip()
    if text.startswith("{") and text.endswith("}"):
        pairs = []
        for item in filter(None, (part.strip() for part in text[1:-1].split(","))):
            level, gain = item.split(":")
            level, gain = int(level), float(gain)
            if level < 1 or gain < 0:
                raise ValueError(text)
            pairs.append((level, gain))
        return GainMap(sorted(pairs))
    return tuple(float(v) for v in text.split(":"))


def _to_bool(text: Any) -> bool:
    if isinstance(text, bool):
        return text
    lowered = str(text).strip().lower()
    if lowered in ("true", "1", "yes", "on"):
        return True
    if lowered in ("false", "0", "no", "off"):
        return False
    raise ValueError(text)


COMMON_PARAMS = (
    Param("judged_only", False, "bool",
          "score the condensed list: unjudged documents removed before ranking (AP', Q', ...)"),
    Param("rel", None, "int", "relevance threshold of this measure (ir_measures' rel=, "
          "trec_eval's -l); default: the evaluation's"),
    Param("agg", None, "str", "aggregate over topics: arithmetic or geometric mean "
          f"(with epsilon {GMEAN_EPSILON}, as trec_eval's gm_map)", AGGREGATES),
)
GAINS_PARAM = Param("gains", None, "levels",
                    "gain per relevance level 1:2:... or {level:gain,...} (levels not listed "
                    "keep gain = level, as ir_measures); default: the run-wide --gains")


@dataclass(frozen=True)
class Family:
    """A registered measure family."""

    name: str
    func: Callable[..., np.ndarray]
    summary: str
    params: Tuple[Param, ...] = ()
    cutoff: str = "optional"  # optional | none
    graded: bool = False  # uses gains
    condensed: bool = False  # defined on condensed lists only (the bpref family)
    integer: bool = False  # a count (printed without decimals)

    def all_params(self) -> Tuple[Param, ...]:
        extra = (GAINS_PARAM,) if self.graded else ()
        return self.params + extra + COMMON_PARAMS

    def param(self, name: str) -> Param:
        for p in self.all_params():
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.all_params())
        raise MeasureError(f"{self.name} has no parameter {name!r} (it has: {known})")


REGISTRY: Dict[str, Family] = {}


def register(name: str, summary: str, params: Tuple[Param, ...] = (), cutoff: str = "optional",
             graded: bool = False, condensed: bool = False, integer: bool = False):
    """Decorator registering a measure family under ``name``."""
    def wrap(func: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        if name in REGISTRY:
            raise RuntimeError(f"measure {name} registered twice")
        REGISTRY[name] = Family(name, func, summary, params, cutoff, graded, condensed, integer)
        return func
    return wrap


@dataclass(frozen=True)
class Measure:
    """A configured measure: family, parameters, cutoff and the common options."""

    family: Family
    params: Tuple[Tuple[str, Any], ...] = ()
    cutoff: Optional[int] = None
    judged_only: bool = False
    gains: Optional[Tuple[float, ...]] = None
    agg: Optional[str] = None  # None: the evaluation's default aggregation
    rel: Optional[int] = None  # None: the evaluation's relevance threshold
    label: str = field(default="", compare=False)

    @property
    def name(self) -> str:
        return self.label or self.canonical

    @property
    def canonical(self) -> str:
        """Family, the parameters that differ from their defaults, and the cutoff."""
        return self._text(self.params)

    @property
    def full(self) -> str:
        """The canonical form with every parameter of the family, defaults included."""
        given = dict(self.params)
        params = tuple((p.name, given.get(p.name, p.default)) for p in self.family.params
                       if given.get(p.name, p.default) is not None)  # None: unset
        return self._text(params, every=True)

    def _text(self, params, every: bool = False) -> str:
        parts = [f"{k}={_fmt(v)}" for k, v in params]
        if self.rel is not None:
            parts.append(f"rel={self.rel}")
        if self.gains is not None:
            parts.append(f"gains={_fmt(self.gains)}")
        if self.judged_only and not self.family.condensed:
            parts.append("judged_only=true")
        elif every and not self.family.condensed:  # the bpref family is always condensed
            parts.append(f"judged_only={_fmt(self.judged_only)}")
        if self.agg is not None:
            parts.append(f"agg={self.agg}")
        text = self.family.name + (f"({','.join(parts)})" if parts else "")
        return text + (f"@{self.cutoff}" if self.cutoff is not None else "")

    def compute(self, ranked) -> np.ndarray:
        """One value per row of ``ranked`` (a RankedLists)."""
        if self.rel is not None:
            ranked = ranked.at_rel_level(self.rel)
        if isinstance(self.gains, GainMap):
            ranked = ranked.with_gains(self.gains.table(ranked.judgments.max_level))
        elif self.gains is not None:
            ranked = ranked.with_gains(self.gains)
        if self.judged_only or self.family.condensed:
            ranked = ranked.condensed
        ranked = ranked.truncate(self.cutoff)
        return np.asarray(self.family.func(ranked, **dict(self.params)), dtype=np.float64)

    def aggregation(self, default: str = "mean") -> str:
        """How topic values combine: counts are summed (as trec_eval prints them)."""
        if self.family.integer:
            return "sum"
        return self.agg or default

    def aggregate(self, values: np.ndarray, default: str = "mean") -> float:
        how = self.aggregation(default)
        if how == "sum":
            return float(np.sum(values))
        if len(values) == 0:
            return float("nan")
        if how == "gmean":
            return float(np.exp(np.mean(np.log(np.maximum(values, GMEAN_EPSILON)))))
        return float(np.mean(values))

    def __str__(self) -> str:
        return self.name


def _fmt(value: Any) -> str:
    if isinstance(value, GainMap):
        return str(value)
    if isinstance(value, tuple):
        return ":".join(_fmt(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def ratio(numerator: np.ndarray, denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def families() -> List[Family]:
    return sorted(REGISTRY.values(), key=lambda f: f.name.lower())
