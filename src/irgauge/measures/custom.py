"""Your own measures: a function over irgauge's ranked arrays, registered under a name.

``register_measure`` (or the decorator ``measure``) adds a family to the same registry the
built-in families use, so the name works everywhere a measure string does:
``irgauge.evaluate``, ``irgauge eval -m``, ``compare`` / ``discpower`` / the other meta
commands with ``--qrels/--run``, ``irgauge.to_ir_measures`` and ``irgauge measures``.

The command line finds measures defined outside irgauge through the entry point group
``irgauge.measures`` (each entry point names a module whose import registers measures) and
through the environment variable ``IRGAUGE_MEASURES`` (module names separated by commas,
importable from the Python path). Both are read once, and only when a measure name is not
found, so start-up stays fast. Registered functions and plugin imports run under the guard
of ``irgauge.measures.user_code``.
"""

from __future__ import annotations

import importlib
import inspect
import keyword
import os
import re
from functools import partial
from typing import Any, Callable, Dict, Iterator, List, Mapping, Optional, Tuple


from irgauge.errors import MeasureError
from irgauge.measures import aliases as A
from irgauge.measures.base import (
    COMMON_PARAMS,
    GAINS_PARAM,
    KIND_NAMES,
    REGISTRY,
    Family,
    Param,
    Registry,
    register,
)
from irgauge.measures.names import owner
from irgauge.measures.parse import ALIASES, parse_measures
from irgauge.measures.user_code import FAILED, GuardedMeasure, load_plugin, origin_of

GROUP = "irgauge.measures"  # entry point group of measure plugins
ENVIRONMENT = "IRGAUGE_MEASURES"  # modules to import, separated by commas

_NAME = re.compile(r"^[A-Za-z][\w\-+'.]*$")
_PARAM_KEYS = ("default", "kind", "doc", "choices", "low", "high", "low_open", "high_open")
_RESERVED = tuple(p.name for p in COMMON_PARAMS) + (GAINS_PARAM.name,)
_CUSTOM: Dict[str, Family] = {}  # the families registered through this module
_STATE = {"loaded": False, "busy": False}


def register_measure(
    name: str,
    function: Callable[..., Any],
    params: Optional[Mapping[str, Any]] = None,
    cutoff: bool = True,
    summary: Optional[str] = None,
    graded: bool = False,
    integer: bool = False,
    replace: bool = False,
) -> Family:
    """Register ``function`` as the measure family ``name`` and return the family.

    The function has the signature every family has, ``function(ranked, **params)``: it
    receives a batch of ranked lists (``irgauge.collection.rankings.RankedLists``, one row
    per (run, topic), one column per rank, already cut at the cutoff and, for
    ``judged_only=true``, condensed) and returns one float per row, computed over the whole
    batch with numpy (no loop per document). What a batch offers:

    - per rank (rows x ranks): ``isrel`` (relevant: level >= the relevance threshold,
      ``rel=`` / -l), ``gain`` (gain of the level, ``gains=`` / --gains; 0 if not
      relevant), ``judged``, ``count`` (relevant in ranks 1..r), ``cg`` (cumulative gain),
      ``ideal_gain``; ``ranks`` is 1..width; ranks past a list's end hold no relevant,
      judged or gaining document;
    - per row: ``lengths`` (documents within the cutoff), ``R`` (relevant documents of the
      topic), ``N`` (judged nonrelevant), ``n_rel_ret``, ``first_rel_rank``; ``cutoff`` (k,
      or None for the whole list); ``at_rank(cumulative, ranks)`` reads a per-rank array at
      a rank per row; ``memo(key, fn)`` keeps a per-rank array computed once per batch.

    For example, reciprocal ranks of the relevant documents weighted by a patience p,
    ``PRR@k = sum_{r<=k} isrel(r) p^(r-1) / r``. Sum over ranks with ``irgauge.rank_sum``
    (in rank order): numpy's ``sum(axis=1)`` rounds by the width of the batch, so a
    topic's value would move in the last bit with the topics scored beside it:

        import irgauge

        @irgauge.measure("PRR", params={"p": 0.9}, summary="sum_r isrel(r) p^(r-1) / r")
        def patient_rr(ranked, p=0.9):
            return irgauge.rank_sum(ranked.isrel * p ** (ranked.ranks - 1) / ranked.ranks)

        irgauge.evaluate(qrels, runs, ["PRR@10", "PRR(p=0.5)@10", "PRR(rel=2)"])

    The arguments:

    - ``name``: the measure's name, a letter then letters, digits or ``_-+'.``; refused if it
      is already a measure, another tool's spelling of one, or differs from one only in case;
    - ``function``: ``function(ranked, **params) -> ndarray`` as above;
    - ``params``: parameter name -> its default (whose type gives the kind: bool, int, float
      or str), or -> a dict with ``default`` and any of ``kind``, ``doc``, ``choices`` (str),
      ``low``/``high``/``low_open``/``high_open`` (numbers), or -> a ``Param``; the
      declared default is the one used (a value given in the measure string replaces it).
      Every measure also takes ``rel``, ``agg`` and ``judged_only`` (and ``gains`` when
      ``graded``): these names are refused here;
    - ``cutoff``: whether the measure takes ``@k``;
    - ``summary``: the one-line definition ``irgauge measures`` prints (default: the first
      line of the function's docstring);
    - ``graded``: the measure reads gains, takes ``gains=`` and follows ``--gains``;
    - ``integer``: a count, summed over topics and printed without decimals;
    - ``replace``: replace a measure of that name registered earlier with this function
      (a notebook cell run again); built-in measures are never replaced.

    A bad name or declaration raises a MeasureError saying what is wrong. In every engine,
    what the function raises, or an answer that is not one finite real number per row,
    raises a UserCodeError naming the measure, its plugin and the topic (``user_code``).
    """
    if replace and name in _CUSTOM:
        unregister_measure(name)
    _check_name(name)
    declared = _declared(name, params)
    _check_signature(name, function, declared)
    defaults = {p.name: p.default for p in declared}
    checked = GuardedMeasure(name, function, defaults, origin_of(function), bool(integer))
    summary = _summary(name, function, summary)
    kind = "optional" if cutoff else "none"
    register(name, summary, declared, kind, graded, False, integer)(checked)
    family = _CUSTOM[name] = REGISTRY[name]
    found = _meaning(name)
    if found != name:
        unregister_measure(name)
        raise MeasureError(f"measure name {name!r} already means {found}: choose another name")
    return family


def _summary(name: str, function: Any, given: Optional[str]) -> str:
    """The summary given, one line (``irgauge measures`` prints a measure a line), else
    the first line of the function's docstring."""
    if given is not None:
        if len(str(given).splitlines()) > 1:
            raise MeasureError(f"measure {name}: summary is one line; got {given!r}")
        return str(given)
    doc = inspect.getdoc(function) or ""
    return doc.splitlines()[0] if doc else f"{name} (a registered measure)"


def _meaning(name: str) -> str:
    """What the measure string ``name`` reads as: the family's name when it means the one
    family of that name, else a description of what it means (another tool's word, ...)."""
    try:
        parsed = _quietly(parse_measures, [name])
    except MeasureError as err:
        return f"an error ({err})"
    if len(parsed) == 1 and parsed[0].family.name == name and parsed[0].name == name:
        return name
    return ", ".join(m.canonical for m in parsed[:4]) + (", ..." if len(parsed) > 4 else "")


def measure(
    name: str,
    params: Optional[Mapping[str, Any]] = None,
    cutoff: bool = True,
    summary: Optional[str] = None,
    graded: bool = False,
    integer: bool = False,
    replace: bool = False,
) -> Callable[[Callable[..., Any]], Callable[..., Any]]:
    """Decorator form of :func:`register_measure`; the function is returned unchanged."""

    def wrap(function: Callable[..., Any]) -> Callable[..., Any]:
        register_measure(name, function, params, cutoff, summary, graded, integer, replace)
        return function

    return wrap


def unregister_measure(name: str) -> None:
    """Remove a measure added with :func:`register_measure` (built-in ones stay)."""
    if name not in _CUSTOM:
        raise MeasureError(f"{name!r} is not a registered custom measure")
    del _CUSTOM[name]
    dict.pop(REGISTRY, name, None)


def custom_measures() -> List[str]:
    """The names of the measures added with :func:`register_measure`."""
    return sorted(_CUSTOM)


def _check_name(name: Any) -> None:
    if not isinstance(name, str) or not _NAME.match(name):
        raise MeasureError(
            f"measure name {name!r}: a letter, then letters, digits or _-+'. "
            "(measure strings read NAME(params)@cutoff)"
        )
    if REGISTRY.known(name):
        raise MeasureError(
            f"measure name {name!r} is taken: {REGISTRY[name].summary}; choose another name"
        )
    found = owner(name)
    if found is not None:
        tool, spelling = found
        relation = "is already" if spelling == name else "differs only in case from"
        whose = tool + ("'" if tool.endswith("s") else "'s")  # ir_measures'
        raise MeasureError(
            f"measure name {name!r} {relation} {whose} {spelling}; choose another name"
        )


def _kind(value: Any, measure: str, key: str) -> str:
    for kind, name in ((bool, "bool"), (int, "int"), (float, "float"), (str, "str")):
        if isinstance(value, kind):
            return name
    raise MeasureError(
        f"measure {measure}: parameter {key}: the default {value!r} is none of bool, int, "
        "float, str; declare it as a dict with 'kind' and 'default'"
    )


def _declared(measure: str, params: Any) -> Tuple[Param, ...]:
    """The Params of a declaration ``{name: default or dict or Param}``."""
    if params is not None and not isinstance(params, Mapping):
        raise MeasureError(
            f"measure {measure}: params is a {{name: default}} mapping; got {type(params).__name__}"
        )
    return tuple(_param(measure, key, spec) for key, spec in (params or {}).items())


def _param(measure: str, key: Any, spec: Any) -> Param:
    """A Param from a declaration: a default value, a dict or a Param."""
    where = f"measure {measure}: parameter {key!r}"
    if not isinstance(key, str) or not key.isidentifier() or keyword.iskeyword(key):
        raise MeasureError(f"{where}: a parameter name is a Python identifier")
    if key in _RESERVED:
        raise MeasureError(f"{where} is one every measure has ({', '.join(_RESERVED)})")
    if isinstance(spec, Param):
        param = spec
    elif isinstance(spec, Mapping):
        unknown = sorted(set(spec) - set(_PARAM_KEYS))
        if unknown or "default" not in spec:
            raise MeasureError(
                f"{where}: a declaration holds 'default' and any of "
                f"{', '.join(_PARAM_KEYS[1:])}; got {', '.join(map(str, spec))}"
            )
        fields = {k: spec[k] for k in _PARAM_KEYS[2:] if k in spec}
        fields["choices"] = tuple(fields.get("choices", ()))
        kind = spec.get("kind") or _kind(spec["default"], measure, key)
        param = Param(key, spec["default"], kind, **{"doc": "", **fields})
    else:
        param = Param(key, spec, _kind(spec, measure, key), "")
    _check_param(where, key, param)
    return param


def _check_param(where: str, key: str, param: Param) -> None:
    if param.name != key:
        raise MeasureError(f"{where}: the Param is named {param.name!r}")
    if param.kind not in KIND_NAMES:
        raise MeasureError(f"{where}: kind {param.kind!r} is not one of {', '.join(KIND_NAMES)}")
    if param.choices and param.kind != "str":
        raise MeasureError(f"{where}: choices are for str parameters")
    if (param.low is not None or param.high is not None) and param.kind not in ("int", "float"):
        raise MeasureError(f"{where}: low/high bound int and float parameters")
    if param.default is None:
        raise MeasureError(f"{where}: give a default value")
    try:
        param.convert(param.default, f"{where.split(':')[0]}: default")
    except MeasureError as err:
        raise MeasureError(str(err)) from None


def _check_signature(name: str, function: Any, declared: Tuple[Param, ...]) -> None:
    """The function takes the ranked lists first, then every declared parameter by name."""
    if not callable(function):
        raise MeasureError(f"measure {name}: {function!r} is not a function")
    try:
        signature = inspect.signature(function)
    except (TypeError, ValueError):
        return  # a builtin without a signature: trusted
    kinds = inspect.Parameter
    args = list(signature.parameters.values())
    if not args or args[0].kind not in (kinds.POSITIONAL_ONLY, kinds.POSITIONAL_OR_KEYWORD):
        raise MeasureError(
            f"measure {name}: the function must take the ranked lists as its first argument: "
            "function(ranked, **params) -> one value per row"
        )
    rest = {a.name: a for a in args[1:]}
    open_keywords = any(a.kind == kinds.VAR_KEYWORD for a in args)
    names = {p.name for p in declared}
    for key in sorted(names):
        if key not in rest and not open_keywords:
            raise MeasureError(f"measure {name}: the function takes no parameter {key!r}")
        if key in rest and rest[key].kind == kinds.POSITIONAL_ONLY:
            raise MeasureError(f"measure {name}: parameter {key!r} must be passable by name")
    required = [
        a.name
        for a in rest.values()
        if a.default is a.empty
        and a.kind not in (kinds.VAR_POSITIONAL, kinds.VAR_KEYWORD)
        and a.name not in names
    ]
    if required:
        raise MeasureError(
            f"measure {name}: the function requires {', '.join(required)}, not declared in "
            "params: declare it with a default, or give it one"
        )


def _quietly(function: Callable[..., Any], *args: Any) -> Any:
    """Call ``function`` with plugin loading held off (checks while registering)."""
    busy = _STATE["busy"]
    _STATE["busy"] = True
    try:
        return function(*args)
    finally:
        _STATE["busy"] = busy


# plugins ------------------------------------------------------------------------------------
def load_plugins() -> List[str]:
    """Import the measure plugins: the modules named in ``IRGAUGE_MEASURES`` (comma-separated)
    and every entry point of the group ``irgauge.measures``. Runs once by itself, when a
    measure name is not found; call it to load them earlier. Returns what was loaded. A
    plugin that fails to load is skipped and kept in :func:`plugin_failures`: a measure
    name that is not found is then refused naming it (the name may be one of its
    measures), and ``irgauge measures`` notes it; measures that are found still work."""
    _STATE["loaded"] = True
    return [label for label, load in _plugin_sources() if _quietly(load_plugin, label, load)]


def plugin_failures() -> Dict[str, str]:
    """Plugin -> why it failed to load (``ImportError: ...``), for each plugin that did."""
    return dict(FAILED)


def _plugin_sources() -> Iterator[Tuple[str, Callable[[], Any]]]:
    for module in filter(None, (m.strip() for m in os.environ.get(ENVIRONMENT, "").split(","))):
        yield f"{module} from {ENVIRONMENT}", partial(_import_module, module)
    from importlib.metadata import entry_points

    try:
        found = entry_points(group=GROUP)
    except TypeError:  # Python 3.9: a dict of groups
        found = entry_points().get(GROUP, ())  # type: ignore[arg-type]  # 3.9's dict
    for point in found:
        yield f"{point.name} = {point.value} from entry point group {GROUP}", point.load


def _import_module(module: str) -> Any:
    """Import a module named in IRGAUGE_MEASURES; a file's path there (``./m.py``) is
    refused saying what to give, where import_module spoke of a module named '/x/m'."""
    if "/" in module or "\\" in module or module.endswith(".py"):
        raise ImportError(
            f"{ENVIRONMENT} names modules, not files: give the module's name (m for m.py) "
            "with its folder in PYTHONPATH"
        )
    return importlib.import_module(module)


def _on_miss(name: object) -> bool:
    """The registry's hook: load the plugins once when a name is not found (names the
    resolver knows as another tool's spelling do not count)."""
    if _STATE["loaded"] or _STATE["busy"] or not isinstance(name, str):
        return False
    if name in ALIASES or name in A.NTCIREVAL or name in A.IR_MEASURES:
        return False
    load_plugins()
    return True


Registry.on_miss = staticmethod(_on_miss)
