"""Measure strings: ``NAME[(param=value,...)][@cutoff]``, and the spellings of other tools.

One resolver serves every command and the Python API. A spelling that belongs to one tool
means that tool's measure with that tool's defaults (tables and order in ``aliases``):
NTCIREVAL's output names (zero-padded cutoffs ``AP@0010``, ``NCUrb,P``, ``j:`` for the
condensed pass), trec_eval's names (``map``, ``ndcg_cut_10``, ``iprec_at_recall_0.10``),
ir_measures' ``str(measure)`` spellings (``AP(rel=2)``, ``nDCG(dcg='exp-log2')@10``,
``nDCG(gains={2:3,3:7})@10``, ``ERR@10``, ``IPrec@0.1``, ``Judged@10``, ``SetP``,
``NumQ``), then irgauge's own families. A measure keeps the spelling the user gave as
its label, so output rows read as the user asked; ``Measure.full`` is the canonical form
with every parameter.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field, replace
from typing import Any, Dict, Iterable, List, Optional, Tuple

from irgauge.errors import InputError, MeasureError
from irgauge.measures import aliases as A
from irgauge.measures import trec_eval_words as TE
from irgauge.measures.base import REGISTRY, Measure, check_cutoff
from irgauge.measures.user_code import failure_note

_SYNTAX = re.compile(
    r"^\s*(?P<name>[A-Za-z][\w\-+'.]*?(,[A-Za-z]+)?)\s*"
    r"(\((?P<params>.*)\))?\s*(@\s*(?P<cutoff>[0-9]*\.?[0-9]+))?\s*$"
)
_TREC_CUTOFF = re.compile(r"^(?P<base>" + "|".join(A.TREC_EVAL_CUTOFF) + r")_?(?P<k>[0-9]+)$")
_TREC_REAL = re.compile(r"^(?P<base>" + "|".join(A.TREC_EVAL_REAL) + r")(?P<x>[0-9]*\.?[0-9]+)$")

# kept for ``list_measures``: every alias -> (family, fixed params)
ALIASES: Dict[str, Tuple[str, Dict[str, str]]] = {
    **A.IRGAUGE,
    **A.IR_MEASURES,
    **A.TREC_EVAL,
    **{name: forms[0] for name, forms in A.NTCIREVAL.items() if name not in REGISTRY},
}


@dataclass
class Resolution:
    """How a spelling resolves: the tool whose spelling it is, the family and parameters."""

    tool: str
    family: str
    params: Dict[str, str] = field(default_factory=dict)
    cutoff: Optional[str] = None
    note: str = ""


def resolve(label: str) -> Resolution:
    """The tool, family, parameters and cutoff a spelling stands for (not yet validated)."""
    if label.startswith("j:"):  # NTCIREVAL's condensed-list pass (label -j)
        inner = resolve(label[2:])
        inner.params["judged_only"] = "true"
        inner.tool = "NTCIREVAL"
        inner.note = "j: = NTCIREVAL's condensed-list pass (unjudged documents removed)"
        return inner
    trec = _trec_eval_name(label)
    if trec is not None:
        return trec
    match = _SYNTAX.match(label)
    if not match:
        raise MeasureError(
            f"cannot read measure {label!r}; expected NAME[(param=value,...)][@cutoff]"
        )
    name, cutoff = match.group("name"), match.group("cutoff")
    given = _params(match.group("params"), label)
    if name.endswith("'") and name not in ALIASES:
        return _condensed(label, name, given)
    if cutoff is not None and "." in cutoff:
        return _real_cutoff(name, given, cutoff, label)
    found = _ntcireval(name, given, cutoff, label) or _named(name, given, cutoff, label)
    if found is not None:
        return found
    if name in A.IR_MEASURES_UNSUPPORTED:
        raise MeasureError(f"{label}: ir_measures' {name} {A.IR_MEASURES_UNSUPPORTED[name]}")
    folded = [n for n in list(REGISTRY) + list(ALIASES) if n.lower() == name.lower()]
    if len(folded) == 1:
        return resolve(label.replace(name, folded[0], 1))
    close = [n for n in REGISTRY if n.lower().startswith(name.lower()[:2])]
    hint = f"; did you mean {', '.join(sorted(close))}?" if close else ""
    # a plugin that failed to load may be the one holding the name: say so
    raise MeasureError(
        f"unknown measure {name!r} in {label!r}{hint} (`irgauge measures` lists them all)"
        + failure_note()
    )


def _condensed(label: str, name: str, given: Dict[str, str]) -> Resolution:
    """Sakai's X' (X on the condensed list: unjudged documents removed) is
    X(judged_only=true), for every measure: ``Q-measure'``, ``nDCG'@10``, ``P'@10``."""
    if given.get("judged_only", "true").strip().lower() != "true":
        raise MeasureError(
            f"{label}: {name} is {name[:-1]} on condensed lists, which "
            f"judged_only={given['judged_only']} contradicts"
        )
    inner = resolve(label.replace(name, name[:-1], 1))
    inner.params["judged_only"] = "true"
    inner.note = f"{name} = {name[:-1]} on the condensed list (unjudged documents removed)"
    return inner


def _trec_eval_name(label: str) -> Optional[Resolution]:
    """trec_eval's names with the cutoff or recall level in the name (``ndcg_cut_10``)."""
    trec = _TREC_CUTOFF.match(label)
    if trec:
        return Resolution("trec_eval", A.TREC_EVAL_CUTOFF[trec.group("base")], {}, trec.group("k"))
    real = _TREC_REAL.match(label)
    if real:
        family, param = A.TREC_EVAL_REAL[real.group("base")]
        return Resolution("trec_eval", family, {param: real.group("x")})
    if label in A.TREC_EVAL_SPECIAL:
        return Resolution("trec_eval", A.TREC_EVAL_SPECIAL[label])
    return None


def _ntcireval(
    name: str, given: Dict[str, str], cutoff: Optional[str], label: str
) -> Optional[Resolution]:
    """NTCIREVAL's output names, when the spelling is NTCIREVAL's rather than another's."""
    # NTCIREVAL prints cutoffs with four digits (%04d): @0010 is NTCIREVAL's alone, while
    # @1000 is also how ir_measures prints a cutoff of 1000
    four = cutoff is not None and len(cutoff) == 4
    zero_led = four and str(cutoff).startswith("0")
    if name not in A.NTCIREVAL or not (
        zero_led
        or (four and not given)
        or name in A.NTCIREVAL_ONLY
        or (name not in REGISTRY and name not in A.IR_MEASURES)
    ):
        return None
    if four and not zero_led and name in A.AMBIGUOUS:
        ours, theirs = (form.format(k=cutoff) for form in A.AMBIGUOUS[name])
        raise MeasureError(
            f"{label} is ambiguous: NTCIREVAL means {ours}, "
            f"ir_measures {theirs}; write the one you mean"
        )
    family, fixed = A.NTCIREVAL[name][cutoff is not None]
    return Resolution("NTCIREVAL", family, {**fixed, **given}, cutoff)


def _named(
    name: str, given: Dict[str, str], cutoff: Optional[str], label: str
) -> Optional[Resolution]:
    """ir_measures', irgauge's and trec_eval's names, in that order of precedence."""
    if name == "RBP":
        return _rbp(given, cutoff, label)
    if name == "ERR" and cutoff is None and not given:
        return _bare_ntcireval("ERR", "bare ERR is NTCIREVAL's; ir_measures' ERR is ERR@k (gdeval)")
    if name in A.IR_MEASURES:
        return _ir_measures(name, given, cutoff, label)
    if name in REGISTRY:
        return Resolution("irgauge", name, given, cutoff)
    for tool, table in (("trec_eval", A.TREC_EVAL), ("irgauge", A.IRGAUGE)):
        if name in table:
            family, fixed = table[name]
            return Resolution(tool, family, {**fixed, **given}, cutoff)
    return None


def _bare_ntcireval(name: str, note: str) -> Resolution:
    """A name without cutoff or parameters that means NTCIREVAL's measure."""
    family, fixed = A.NTCIREVAL[name][0]
    return Resolution("NTCIREVAL", family, dict(fixed), None, note)


def _rbp(given: Dict[str, str], cutoff: Optional[str], label: str) -> Resolution:
    if "rel" in given and "p" not in given and "graded" not in given:
        return Resolution(
            "ir_measures",
            "RBP",
            {"p": "0.8", **given},
            cutoff,
            "ir_measures' RBP(rel=k): binary at level k, p = 0.8",
        )
    if given:
        return Resolution("irgauge", "RBP", given, cutoff)
    if cutoff is not None:
        ours, theirs = (form.format(k=cutoff) for form in A.AMBIGUOUS["RBP"])
        raise MeasureError(
            f"{label} is ambiguous: NTCIREVAL prints RBP@{int(cutoff):04d} "
            f"for {ours}, ir_measures RBP@{cutoff} for p = 0.8; write "
            f"RBP@{int(cutoff):04d}, {ours} or {theirs}"
        )
    return _bare_ntcireval(
        "RBP",
        "bare RBP is NTCIREVAL's graded RBP; binary RBP is RBP(p=...) or "
        "ir_measures' RBP(rel=1) (p = 0.8)",
    )


def _ir_measures(name: str, given: Dict[str, str], cutoff: Optional[str], label: str) -> Resolution:
    family, fixed = A.IR_MEASURES[name]
    params = {**fixed, **given}
    if name == "SetP" and params.pop("relative", "false").lower() == "true":
        family = "RelP"  # ir_measures' SetP(relative=True) is trec_eval's set_relative_P
    if name == "NumRet" and "rel" in params:
        family = "num_rel_ret"  # NumRet(rel=k): relevant retrieved at level k
    if name.startswith("Set") and cutoff is not None:
        raise MeasureError(f"{label}: {name} is a set measure and takes no cutoff")
    return Resolution("ir_measures", family, params, cutoff)


def _real_cutoff(name: str, given: Dict[str, str], cutoff: str, label: str) -> Resolution:
    """ir_measures' IPrec@x: interpolated precision at recall x, pytrec_eval's rounding."""
    if name != "IPrec":
        raise MeasureError(
            f"{label}: the cutoff must be a whole number (IPrec@x alone takes a recall level)"
        )
    return Resolution(
        "ir_measures",
        "IPrec",
        {"rounding": "v9", **given, "recall": cutoff},
        None,
        "ir_measures' IPrec@x (pytrec_eval: x*R rounded as trunc(x*R+0.9))",
    )


def parse_measure(text: str) -> Measure:
    """Parse one measure string into a Measure labelled with the spelling given."""
    label = measure_text(text).strip()  # None or b"AP": a MeasureError, not AttributeError
    spec = resolve(label)
    return _configure(REGISTRY[spec.family], spec.params, spec.cutoff, label)


def explain(text: str) -> str:
    """How a spelling resolves: the tool it belongs to and the canonical measure."""
    label = measure_text(text).strip()
    spec = resolve(label)
    measure = parse_measure(label)
    lines = [
        f"{label}",
        f"  tool:      {spec.tool}",
        f"  measure:   {measure.full}",
        f"  family:    {measure.family.name}: {measure.family.summary}",
    ]
    if spec.note:
        lines.append(f"  note:      {spec.note}")
    return "\n".join(lines)


def _split_params(text: str) -> List[str]:
    """Split on commas outside braces and quotes."""
    parts: List[str] = []
    current: List[str] = []
    depth, quote = 0, ""
    for ch in text:
        if quote:
            quote = "" if ch == quote else quote
        elif ch in "'\"":
            quote = ch
        elif ch == "{":
            depth += 1
        elif ch == "}":
            depth -= 1
        elif ch == "," and depth == 0:
            parts.append("".join(current))
            current = []
            continue
        current.append(ch)
    parts.append("".join(current))
    return parts


def _params(text: Optional[str], label: str) -> Dict[str, str]:
    if not text or not text.strip():
        return {}
    params: Dict[str, str] = {}
    for part in _split_params(text):
        if "=" not in part:
            raise MeasureError(f"{label}: parameter {part.strip()!r} must be written name=value")
        key, value = part.split("=", 1)
        key, value = key.strip(), value.strip()
        if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
            value = value[1:-1]  # ir_measures quotes string values: dcg='exp-log2'
        if key in params:
            raise MeasureError(
                f"{label}: parameter {key!r} is given twice ({params[key]} and {value})"
            )
        params[key] = value
    return params


def _cutoff(text: Optional[str], label: str) -> Optional[int]:
    return check_cutoff(text, label)


def _configure(family, params: Dict[str, str], cutoff: Optional[str], label: str) -> Measure:
    if cutoff is not None and family.cutoff == "none":
        raise MeasureError(f"{label}: {family.name} takes no cutoff")
    common: Dict[str, Any] = {"judged_only": False, "gains": None, "agg": None, "rel": None}
    own: List[Tuple[str, object]] = []
    defaults = {p.name: p.default for p in family.params}
    for key, raw in params.items():
        value = family.param(key).convert(raw, label)
        if key in common:
            common[key] = value
        elif value != defaults.get(key):
            own.append((key, value))
    return Measure(
        family,
        tuple(sorted(own)),
        _cutoff(cutoff, label),
        judged_only=bool(common["judged_only"]),
        gains=common["gains"],
        agg=common["agg"],
        rel=common["rel"],
        label=label,
    )


def is_foreign_measure(item) -> bool:
    """An ir_measures Measure object (duck-typed: ir_measures is not a dependency)."""
    return (
        hasattr(item, "SUPPORTED_PARAMS")
        and hasattr(item, "NAME")
        and not isinstance(item, (str, Measure))
    )


def measure_text(item) -> str:
    """A measure string, or an ir_measures Measure object read as its ``str()`` spelling."""
    if isinstance(item, str):
        return item
    if is_foreign_measure(item):
        return str(item)
    raise MeasureError(
        f"a measure must be a string such as 'nDCG@10', an irgauge Measure or "
        f"an ir_measures measure; got {type(item).__name__} {item!r}"
    )


def measure_texts(measures: Any, default: Iterable[str] = ()) -> List[str]:
    """The measure strings a function is given, as a list: one string (``"AP"``) is one
    measure, not a list of its letters (``list("AP")`` is A and P); None gives
    ``default``, and an empty list is refused, not read as the default (``-m ''`` and
    ``measures=[]`` gave reproducibility and agreement their defaults where evaluate
    refused them). A measure given twice is refused (:func:`refuse_repeats`)."""
    if measures is None:
        chosen = list(default)
    elif isinstance(measures, str):
        chosen = [measures]
    else:
        try:
            chosen = list(measures)
        except TypeError:  # one object, not a list: a measure (ir_measures') or refused
            chosen = [measure_text(measures)]
    if not chosen:
        raise MeasureError("no measures given")
    refuse_repeats(chosen)
    return chosen


def refuse_repeats(measures: Iterable[Any]) -> None:
    """Refuse, as an InputError of the parameter ``measures``, a list that names one
    measure twice (:func:`given_twice`): the one check of every function that takes
    measures, as ``-m`` is the command line's. One string is one list (``"AP,AP"``)."""
    twice = given_twice([measures] if isinstance(measures, str) else measures)
    if twice:
        raise InputError(twice, parameter="measures")


def given_twice(items: Iterable[Any]) -> str:
    """The refusal of measures given more than once (``measure given twice: AP; give each
    once``), each named once; "" when there is none. A measure names a column or rows of a
    result, where a second would be dropped or written twice: the command line's ``-m``
    and :func:`refuse_repeats` refuse them.

    ``items``: measure strings (each a list, as :func:`split_list` splits it), Measure
    objects or ir_measures objects. Two are one measure when they parse to equal measures
    (a label is no part of a measure's equality): an alias (``MAP`` for ``AP``, ``P_10``
    for ``P@10``) is named with the spelling it repeats (``MAP (as AP)``)."""
    seen: List[Tuple[Any, str]] = []  # (identity, spelling); Measures are not all hashable
    twice: List[str] = []
    for item in items:
        for text in split_list([item]) if isinstance(item, str) else [item]:
            spelled = text if isinstance(text, str) else _spelling(text)
            for identity in _identities(text):
                first = next((name for key, name in seen if key == identity), None)
                if first is None:
                    seen.append((identity, spelled))
                    continue
                name = first if first == spelled else f"{spelled} (as {first})"
                if name not in twice:
                    twice.append(name)
    if not twice:
        return ""
    word = "measure" if len(twice) == 1 else "measures"
    return f"{word} given twice: {', '.join(twice)}; give each once"


def _spelling(item: Any) -> str:
    """How the refusal names a measure given as an object."""
    if isinstance(item, Measure):
        return item.label or item.family.name
    return str(item)


def _identities(item: Any) -> List[Any]:
    """What ``item`` names, for comparing: each measure it stands for (trec_eval's
    ``P.5,10`` is two, ``official`` a set) as its family, parameters and cutoff as written
    (:func:`resolve`), so that an alias is the measure it names (``MAP`` and ``map`` are
    ``AP``, ``P_10`` is ``P@10``) while parameters written out stay a measure of their own
    (``Rprec(mult=1.00)`` is trec_eval's ``Rprec_mult_1.00``, a line of its own beside
    ``Rprec``); the text itself where it does not resolve (the parser refuses it later,
    with the command's context). A Measure object is its label's measure when its label
    spells it, else itself under its label (a label names a column)."""
    if isinstance(item, Measure):
        key = _resolved(item.label) if item.label else None
        return [key if key is not None and _spells(item.label, item) else (item, item.label)]
    try:
        text = measure_text(item)
        if TE.is_word(text):
            specs = [spec for _, spec in TE.expand(text, parse=parse_measure)]
        else:
            specs = [text]
    except (ValueError, KeyError):  # MeasureError and InputError are ValueErrors
        return [item]
    return [_resolved(spec) or spec for spec in specs]


def _resolved(text: str) -> Optional[Tuple[Any, ...]]:
    """(family, parameters as written, cutoff) of a spelling; None where it names none."""
    try:
        found = resolve(text)
    except (ValueError, KeyError):
        return None
    return (found.family, tuple(sorted(found.params.items())), found.cutoff)


def _spells(label: str, measure: Measure) -> bool:
    try:
        return parse_measure(label) == measure
    except (ValueError, KeyError):
        return False


def parse_measures(texts: Iterable[str]) -> List[Measure]:
    """Parse several measure strings; each string may hold several, separated by commas
    or spaces outside parentheses. Repeated spellings are kept once.

    trec_eval's words are read as trec_eval reads them (``trec_eval_words``): ``P.5,10``
    is P_5 and P_10, ``ndcg_cut`` its nine cutoffs, ``official`` and ``all_trec`` its
    sets, each value named as trec_eval prints it."""
    measures: List[Measure] = []
    seen = set()
    for token in split_list([measure_text(t) for t in texts]):
        pairs = TE.expand(token, parse=parse_measure) if TE.is_word(token) else [(token, token)]
        for label, spec in pairs:
            if label not in seen:
                seen.add(label)
                measures.append(_labelled(parse_measure(spec), label))
    return measures


def _labelled(measure: Measure, label: str) -> Measure:
    return measure if measure.label == label else replace(measure, label=label)


# NTCIREVAL's NCU names hold a comma (NCUrb,P): a list separator never precedes these
_NCU_TAIL = re.compile(r"^(P|BR|IE)(@\d+)?$")
# a parameter of trec_eval's ``name.params`` (``P.5,10``, ``ndcg.1=3,2=9``, ``utility.2,-1,0,0``)
_TREC_PARAM = re.compile(r"^[-+]?(\d+\.?\d*|\.\d+)(=[-+]?(\d+\.?\d*|\.\d+))?$")


def _joined(before: str, after: str) -> bool:
    """Whether a comma between ``before`` and ``after`` belongs to one name: NTCIREVAL's
    NCU names (NCUrb,P) and the parameter list of trec_eval's ``name.params``."""
    following = re.split(r"[,\s]", after, maxsplit=1)[0]
    if before.endswith(("NCUrb", "NCUgu")) and _NCU_TAIL.match(following):
        return True
    return "." in before and TE.is_word(before) and bool(_TREC_PARAM.match(following))


def split_list(items: Iterable[str]) -> List[str]:
    """Measure names from several strings, each a comma- or space-separated list.

    Separators inside parentheses or braces belong to parameters, so
    ``nDCG(dcg=jk,b=2)@1000,AP`` is two measures; ``NCUrb,P@0010`` stays one (NTCIREVAL's
    name), and so does ``P.5,10`` (trec_eval's name.params). Unbalanced parentheses are
    left for the measure parser to report. An empty item between commas (``AP,,P@5``,
    ``AP,``) and an empty string are refused, as in every list (``_checks.items``): a
    measure is missing there.
    """
    names: List[str] = []
    for item in items:
        if not item.strip():  # -m '' names no measure: not the default, as in every list
            raise MeasureError(f"no measure given in {item!r}")
        depth, start, since_comma = 0, 0, 0
        for i, char in enumerate(item):
            if char in "({":
                depth += 1
            elif char in ")}":
                depth = max(depth - 1, 0)
            elif depth == 0 and (char == "," or char.isspace()):
                if char == "," and _joined(item[start:i].strip(), item[i + 1 :]):
                    continue
                if char == "," and not item[since_comma:i].strip():
                    raise _empty_item(item)
                if item[start:i].strip():
                    names.append(item[start:i].strip())
                start = i + 1
                since_comma = i + 1 if char == "," else since_comma
        if since_comma and not item[since_comma:].strip():
            raise _empty_item(item)
        if item[start:].strip():
            names.append(item[start:].strip())
    return names


def _empty_item(item: str) -> MeasureError:
    return MeasureError(
        f"an empty item in the measure list {item!r}: a measure between two commas is missing"
    )
