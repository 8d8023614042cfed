"""Measure definitions, measure objects and the registry.

A measure family is a pure function ``f(ranked: RankedLists, **params) -> ndarray``
(one value per row) registered with its parameters. A ``Measure`` is one configured
use of a family: parameter values, cutoff, judged-only (condensed) lists, gains and
aggregation across topics. ``judged_only`` and ``gains`` are applied here once, so
every family gets them without code of its own.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, Dict, List, Optional, Tuple, Union

import numpy as np

from irgauge._checks import GAIN_MAX, as_int, in_interval, interval, plain_number_text
from irgauge.collection.trec_gains import pairs_text, parse_pairs
from irgauge.errors import InputError, MeasureError

AGGREGATES = ("mean", "gmean")
GMEAN_EPSILON = 1e-5  # trec_eval's MIN_GEO_MEAN
DOUBLE_MAX = 1.7976931348623157e308  # the largest finite double (C's DBL_MAX)


MAX_CUTOFF = 2**31 - 1  # far beyond any run; keeps rank arithmetic inside int64/float64


@dataclass(frozen=True)
class Param:
    """One parameter of a measure family: its type, default and valid values, declared once.

    ``choices`` lists the values of a ``str`` parameter; ``low``/``high`` bound a number
    (for ``levels``: every number of the list), each end closed unless ``low_open`` /
    ``high_open``. ``convert`` is the one path from a user's value (a string from the
    command line, or a Python value from the API) to a checked value.
    """

    name: str
    default: Any
    kind: str  # float | int | bool | str | levels (colon-separated numbers) | pairs
    doc: str
    choices: Tuple[str, ...] = ()
    low: Optional[float] = None
    high: Optional[float] = None
    low_open: bool = False
    high_open: bool = False
    # any C double, infinities and NaNs included: a parameter that trec_eval reads with
    # atof and computes with, whose family's check confines it outside trec_eval's form
    c_double: bool = False

    def convert(self, text: Any, measure: str) -> Any:
        """The checked value of ``text`` (a string or a Python value); MeasureError naming
        the measure, the parameter, the valid values and the value given otherwise."""
        if text is None and self.default is None:
            return None
        try:
            value = self._parse(text)
        except (TypeError, ValueError, OverflowError):
            raise MeasureError(
                f"{measure}: parameter {self.name}={_show(text)} is not {KIND_NAMES[self.kind]}"
            ) from None
        if self.choices and value not in self.choices:
            raise MeasureError(
                f"{measure}: parameter {self.name} must be one of "
                f"{', '.join(self.choices)}; got {value!r}"
            )
        if isinstance(value, GainMap):
            numbers = tuple(gain for _, gain in value)
        else:
            numbers = (
                value
                if self.kind == "levels"
                else (value,)
                if self.kind in ("int", "float")
                else ()
            )
        for number in numbers:
            if not self.admits(number):
                what = "every value of " if self.kind == "levels" else ""
                raise MeasureError(
                    f"{measure}: {what}parameter {self.name} must lie in "
                    f"{self.span()}; got {_show(value)}"
                )
        return value

    def _parse(self, text: Any) -> Any:
        if self.kind in ("float", "int", "levels") and not _plain(text):
            raise ValueError(text)  # 0_5 (5.0 to float()), full-width digits
        if self.kind == "float":
            return float(text) if not isinstance(text, bool) else _refuse(text)
        if self.kind == "int":
            return as_int(text)
        if self.kind == "bool":
            return _to_bool(text)
        if self.kind == "pairs":  # trec_eval's gain table (collection/trec_gains.py)
            return pairs_text(parse_pairs(text)) if isinstance(text, str) else _refuse(text)
        if self.kind == "levels":
            if isinstance(text, GainMap) or (isinstance(text, str) and text.strip()[:1] == "{"):
                return _levels(text)
            parts = str(text).split(":") if isinstance(text, str) else list(text)
            if not parts or any(isinstance(v, bool) for v in parts):
                raise ValueError(text)
            return tuple(float(v) for v in parts)
        if not isinstance(text, str):
            raise TypeError(text)
        return text

    def admits(self, number: float) -> bool:
        """Whether a number lies in the declared range (never NaN or infinite, but for a
        ``c_double``, which takes every double)."""
        if self.c_double:
            return True
        return in_interval(number, self.low, self.high, self.low_open, self.high_open)

    def span(self) -> str:
        """The valid values as text: ``[0, 1)``, ``(1, inf)``, ``one of a, b``."""
        if self.choices:
            return "one of " + ", ".join(self.choices)
        if self.kind == "bool":
            return "true or false"
        if self.kind == "pairs":
            return "level=gain pairs separated by ';' (any whole level, any double gain)"
        if self.c_double:
            return "[-inf, inf] and nan (any double; its family may confine it)"
        return interval(self.low, self.high, self.low_open, self.high_open, _fmt)


KIND_NAMES = {
    "float": "a number",
    "int": "a whole number",
    "bool": "true or false",
    "levels": "numbers separated by ':' or a {level:gain,...} map",
    "str": "a word",
    "pairs": "level=gain pairs separated by ';'",
}


def _show(value: Any) -> str:
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return ":".join(_show(v) if isinstance(v, str) else _fmt(v) for v in value)
    return _fmt(value)


def _refuse(value: Any):
    raise TypeError(value)


class GainMap(tuple):
    """Gains given per level as ``{level: gain}`` (ir_measures' ``gains={2:3,3:7}``): a
    sorted tuple of (level, gain) pairs; a level not listed keeps gain = level, as in
    ir_measures."""

    def table(self, max_level: int) -> Tuple[float, ...]:
        given = dict(self)
        return tuple(float(given.get(level, level)) for level in range(1, max_level + 1))

    def __str__(self) -> str:
        return "{" + ",".join(f"{_fmt(k)}:{_fmt(v)}" for k, v in self) + "}"


def _plain(value: Any) -> bool:
    return not isinstance(value, str) or plain_number_text(value)


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
    Param(
        "judged_only",
        False,
        "bool",
        "score the condensed list: unjudged documents removed before ranking (AP', Q', ...)",
    ),
    Param(
        "rel",
        None,
        "int",
        "relevance threshold of this measure (ir_measures' rel=, "
        "trec_eval's -l); default: the evaluation's",
        low=1,
        high=2**31 - 1,
    ),
    Param(
        "agg",
        None,
        "str",
        "aggregate over topics: arithmetic or geometric mean "
        f"(with epsilon {GMEAN_EPSILON}, as trec_eval's gm_map)",
        AGGREGATES,
    ),
)
GAINS_PARAM = Param(
    "gains",
    None,
    "levels",
    "gain per relevance level 1:2:... or {level:gain,...} (levels not listed "
    "keep gain = level, as ir_measures); default: the run-wide --gains",
    low=0.0,
    high=GAIN_MAX,
)


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
    # the parameters' values together (defaults filled in) -> why they do not go
    # together, or None: a range one parameter opens only under another's value
    check: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None
    # the parameters' values together -> which relevance levels the family reads (LEVELS);
    # None: "threshold". Declared beside the function, so that the header states it
    levels: Optional[Callable[[Dict[str, Any]], str]] = None
    # the parameters' values together -> whether a graded family reads gains under them
    # (RBP only with graded=true); None: always. Declared beside the function, as levels
    reads_gains: Optional[Callable[[Dict[str, Any]], bool]] = None
    # the parameters' values together -> what the family estimates from sampled judgments
    # (prels) and how near it comes (unbiased or not), for the header; None: no estimator
    estimator: Optional[Callable[[Dict[str, Any]], str]] = None

    def all_params(self) -> Tuple[Param, ...]:
        extra = (GAINS_PARAM,) if self.graded else ()
        return self.params + extra + COMMON_PARAMS

    def param(self, name: str) -> Param:
        for p in self.all_params():
            if p.name == name:
                return p
        known = ", ".join(p.name for p in self.all_params())
        raise MeasureError(f"{self.name} has no parameter {name!r} (it has: {known})")


class Registry(Dict[str, "Family"]):
    """Family name -> Family. A name not found asks ``on_miss`` (set by
    ``irgauge.measures.custom``) once before answering no: the measures of installed plugins
    (entry point group ``irgauge.measures``) load only when a name is not found, so
    start-up stays fast."""

    on_miss: Optional[Callable[[str], bool]] = None

    def __contains__(self, name: object) -> bool:
        if dict.__contains__(self, name):
            return True
        hook = Registry.on_miss
        return bool(
            hook is not None
            and isinstance(name, str)
            and hook(name)
            and dict.__contains__(self, name)
        )

    def known(self, name: str) -> bool:
        """Whether ``name`` is registered now (no plugin is loaded to find it)."""
        return dict.__contains__(self, name)


REGISTRY = Registry()

# Which relevance levels a family reads, for the conventions it states:
# - threshold: relevance and gains at the measure's threshold (rel=, else -l), levels
#   below it earning nothing;
# - all: every level >= 1 relevant with its gain whatever the threshold (trec_eval's
#   graded measures, which read the lists through ``at_rel_level(1)``);
# - all_gains: every level >= 1 earns its gain, but which topics have a relevant
#   document is decided at the threshold (trec_eval's Rndcg).
LEVELS = ("threshold", "all", "all_gains")


def _constant_levels(levels: str) -> Callable[[Dict[str, Any]], str]:
    if levels not in LEVELS:
        raise ValueError(f"levels must be one of {', '.join(LEVELS)}; got {levels!r}")
    return lambda values: levels


def _constant_text(text: str) -> Callable[[Dict[str, Any]], str]:
    return lambda values: text


def register(
    name: str,
    summary: str,
    params: Tuple[Param, ...] = (),
    cutoff: str = "optional",
    graded: Union[bool, Callable[[Dict[str, Any]], bool]] = False,
    condensed: bool = False,
    integer: bool = False,
    check: Optional[Callable[[Dict[str, Any]], Optional[str]]] = None,
    levels: Union[None, str, Callable[[Dict[str, Any]], str]] = None,
    estimator: Union[None, str, Callable[[Dict[str, Any]], str]] = None,
):
    """Decorator registering a measure family under ``name``. ``graded``: whether it reads
    gains (or a function of the parameters' values saying whether); ``levels``: which
    relevance levels it reads (one of LEVELS, or a function of the parameters' values
    giving one); ``estimator``: what it estimates from prels and whether unbiasedly (a
    text, or a function of the parameters' values giving one)."""
    if isinstance(levels, str):
        levels = _constant_levels(levels)
    if isinstance(estimator, str):
        estimator = _constant_text(estimator)
    reads_gains = None if isinstance(graded, bool) else graded

    def wrap(func: Callable[..., np.ndarray]) -> Callable[..., np.ndarray]:
        if REGISTRY.known(name):
            raise RuntimeError(f"measure {name} registered twice")
        REGISTRY[name] = Family(
            name,
            func,
            summary,
            params,
            cutoff,
            bool(graded),
            condensed,
            integer,
            check,
            levels,
            reads_gains,
            estimator,
        )
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

    def __post_init__(self) -> None:
        """Check every value, whether it came from a measure string or from Python code:
        the API refuses ``gains=(1, -1)`` exactly as the string ``gains=1:-1``."""
        where = self.label or self.family.name
        checked = tuple(
            (key, self.family.param(key).convert(value, where)) for key, value in self.params
        )
        object.__setattr__(self, "params", checked)
        if self.family.check is not None:
            reason = self.family.check(self._param_values())
            if reason:
                raise MeasureError(f"{where}: {reason}")
        object.__setattr__(self, "cutoff", check_cutoff(self.cutoff, where, self.family))
        object.__setattr__(self, "gains", GAINS_PARAM.convert(self.gains, where))
        for common in COMMON_PARAMS:
            object.__setattr__(self, common.name, common.convert(getattr(self, common.name), where))

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
        params = tuple(
            (p.name, given.get(p.name, p.default))
            for p in self.family.params
            if given.get(p.name, p.default) is not None
        )  # None: unset
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
        gains = self._gain_list(ranked.judgments.max_level)
        if gains is not None:
            try:
                ranked = ranked.with_gains(gains)
            except InputError as err:  # too few gains for the qrels' levels: name the measure
                raise MeasureError(f"parameter gains: {err.problem}") from None
        if self.judged_only or self.family.condensed:
            ranked = ranked.condensed
        ranked = ranked.truncate(self.cutoff)
        return np.asarray(self.family.func(ranked, **dict(self.params)), dtype=np.float64)

    def _gain_list(self, max_level: int) -> Optional[Tuple[float, ...]]:
        """The gains of levels 1..max_level this measure sets (None: the evaluation's)."""
        if isinstance(self.gains, GainMap):
            return self.gains.table(max_level)
        return self.gains

    def conventions(self, judgments) -> Dict[str, Any]:
        """What this measure reads of ``judgments`` (the evaluation's): ``rel_level``, the
        threshold at which a document counts as relevant; ``gains``, the gain each level
        1, 2, ... earns (graded families under the parameters that read gains; None for
        binary ones); ``condensed``, whether
        unjudged documents are removed first. Passed back as ``rel=``, ``gains=`` and
        ``judged_only=`` under the default options, they give the same values."""
        values = self._param_values()
        levels = self.family.levels(values) if self.family.levels else "threshold"
        rel = self.rel if self.rel is not None else judgments.rel_level
        gains = None
        reads = self.family.reads_gains
        if self.family.graded and (reads is None or reads(values)):
            read = judgments.with_rel_level(rel)
            listed = self._gain_list(read.max_level)
            if listed is not None:
                read = read.with_gains(listed)
            gains = read.with_rel_level(1 if levels != "threshold" else rel).gain_text()
        return {
            "rel_level": 1 if levels == "all" else rel,
            "gains": gains,
            "condensed": bool(self.judged_only or self.family.condensed),
        }

    def estimator(self) -> Optional[str]:
        """What this measure estimates from sampled judgments (prels) and how near it
        comes, as its family declares it; None for a measure that reads prels as qrels."""
        if self.family.estimator is None:
            return None
        return self.family.estimator(self._param_values())

    def _param_values(self) -> Dict[str, Any]:
        """The family's parameters' values together, the defaults filling those not given:
        what the family's declarations (check, levels, reads_gains, estimator) read."""
        values = {p.name: p.default for p in self.family.params}
        values.update(self.params)
        return values

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


def check_cutoff(cutoff: Any, measure: str, family: Optional[Family] = None) -> Optional[int]:
    """A cutoff is a whole number in [1, MAX_CUTOFF] (None: the whole list)."""
    if cutoff is None:
        return None
    if family is not None and family.cutoff == "none":
        raise MeasureError(f"{measure}: {family.name} takes no cutoff")
    try:
        k = as_int(cutoff)
    except (TypeError, ValueError, OverflowError):
        raise MeasureError(f"{measure}: cutoff {_show(cutoff)} is not a whole number") from None
    if not 1 <= k <= MAX_CUTOFF:
        raise MeasureError(f"{measure}: cutoff must lie in [1, {MAX_CUTOFF}]; got {k}")
    return k


def _fmt(value: Any) -> str:
    if isinstance(value, GainMap):
        return str(value)
    if isinstance(value, tuple):
        return ":".join(_fmt(v) for v in value)
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, float) and value.is_integer() and abs(value) < 1e16:
        return str(int(value))  # larger: 1e+308, not its 309 digits
    return str(value)


def found_over(total: np.ndarray, R: np.ndarray) -> np.ndarray:
    """total / R where something relevant was found (total > 0), else 0: trec_eval's map,
    gm_map and binG divide without a check of R, which is an infinity where documents
    outside R count as relevant (its -l below 0) in a topic with R = 0."""
    with np.errstate(divide="ignore", invalid="ignore"):  # 0/0 where nothing is found
        return np.where(total > 0, np.asarray(total, np.float64) / np.maximum(R, 0), 0.0)


def ratio(numerator: Union[float, np.ndarray], denominator: np.ndarray) -> np.ndarray:
    """numerator / denominator, 0 where the denominator is 0."""
    numerator = np.asarray(numerator, dtype=np.float64)
    denominator = np.asarray(denominator, dtype=np.float64)
    out = np.zeros(np.broadcast(numerator, denominator).shape)
    np.divide(numerator, denominator, out=out, where=denominator != 0)
    return out


def rank_sum(terms: np.ndarray) -> np.ndarray:
    """Each row's terms added rank by rank, as trec_eval and NTCIREVAL add them.

    The padding past a list's end adds exact zeros, so a topic's sum is the same in any
    batch: numpy's pairwise ``sum(axis=1)`` groups the terms by the row's width, which is
    the longest list of the batch, and moved values in the last bit with the size of the
    parts a run was read in."""
    if terms.shape[1] == 0:
        return np.zeros(terms.shape[0])
    return np.cumsum(terms, axis=1)[:, -1]


def rank_sum_cells(rows: np.ndarray, place: np.ndarray, terms: np.ndarray, n_rows: int):
    """:func:`rank_sum` of the rows x ranks matrix holding ``terms`` at the cells
    (``rows``, ``place`` = the cell's place among its row's, in rank order; as
    :func:`irgauge.collection.rankings.cells` gives them) and 0 elsewhere, number for
    number: the terms are added in rank order as there, and the zeros between them add
    nothing (s + 0.0 is s)."""
    width = int(place.max()) + 1 if len(place) else 0
    table = np.zeros((n_rows, width))
    table[rows, place] = terms
    return rank_sum(table)


def families() -> List[Family]:
    return sorted(REGISTRY.values(), key=lambda f: f.name.lower())
