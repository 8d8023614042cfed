"""Measure strings: ``NAME[(param=value,...)][@cutoff]``, plus trec_eval's names.

ir_measures' names are canonical (AP, nDCG, P, R, RR, Rprec, Bpref, RBP, ...);
trec_eval's (map, ndcg_cut_10, P_10, recall_1000, recip_rank, gm_map, ...) and
NTCIREVAL's spellings are aliases. A measure keeps the spelling the user gave as its
label, so output rows read as the user asked.
"""
from __future__ import annotations

import re
from typing import Dict, Iterable, List, Optional, Tuple

from irgauge.errors import MeasureError
from irgauge.measures.base import REGISTRY, Measure, check_cutoff

_SYNTAX = re.compile(r"^\s*(?P<name>[A-Za-z][\w\-+'.]*?)\s*(\((?P<params>[^)]*)\))?\s*"
                     r"(@\s*(?P<cutoff>\d+))?\s*$")

# alias -> (canonical family, fixed params)
ALIASES: Dict[str, Tuple[str, Dict[str, str]]] = {
    "map": ("AP", {}), "AveP": ("AP", {}), "MAP": ("AP", {}),
    "gm_map": ("AP", {"agg": "gmean"}), "GMAP": ("AP", {"agg": "gmean"}),
    "ndcg": ("nDCG", {}), "NDCG": ("nDCG", {}), "MSnDCG": ("nDCG", {}),
    "recip_rank": ("RR", {}), "MRR": ("RR", {}),
    "Bpref": ("bpref", {}), "gm_bpref": ("bpref", {"agg": "gmean"}),
    "bpref_allnonrel": ("bpref_N", {}), "AP'": ("bpref_relative2", {}),
    "Q": ("Q-measure", {"norm": "min"}),  # NTCIREVAL's Q@l divides by min(l, R)
    "Qmeasure": ("Q-measure", {}), "Q-measure'": ("Q-measure", {}),
    "O": ("O-measure", {}), "P+": ("P-plus", {}), "P-plus-measure": ("P-plus", {}),
    "Prec": ("P", {}), "PDoc": ("P", {}), "Recall": ("R", {}), "recall": ("R", {}),
    "R-prec": ("Rprec", {}), "success": ("Hit", {}), "NQcorrect": ("Hit", {}),
    "WP": ("nCG", {}),
    # trec_eval's rbp: p = 0.9, graded with its per-topic normalisation; its residual
    # adds the weight of unjudged ranks and is 0 when none was retrieved
    "rbp": ("RBP", {"p": "0.9", "graded": "true", "norm": "trec_eval"}),
    "rbp_resid": ("RBP_resid", {"p": "0.9", "form": "trec_eval"}),
    "set_P": ("P", {}), "set_recall": ("R", {}), "set_F": ("SetF", {}),
    "set_map": ("SetAP", {}), "set_relative_P": ("RelP", {}), "relative_P": ("RelP", {}),
    "utility": ("Utility", {}), "unj": ("Unjudged", {}),
    "R_measure": ("R-measure", {}),
}
# trec_eval's name_k spellings with a cutoff
_UNDERSCORE_CUTOFF = {
    "P": "P", "recall": "R", "ndcg_cut": "nDCG", "map_cut": "AP", "success": "Hit",
    "NQcorrect": "Hit", "relative_P": "RelP", "unj": "Unjudged",
}
_TREC_CUTOFF = re.compile(r"^(?P<base>P|recall|ndcg_cut|map_cut|success|NQcorrect|relative_P|unj)"
                          r"_?(?P<k>\d+)$")
# trec_eval's names whose suffix is a real-valued parameter: iprec_at_recall_0.10,
# Rprec_mult_0.20, and ir_measures' IPrec@0.1
_TREC_REAL = re.compile(r"^(?P<base>iprec_at_recall_|Rprec_mult_|IPrec@)(?P<x>\d*\.?\d+)$")
_REAL_PARAM = {"iprec_at_recall_": ("IPrec", "recall"), "IPrec@": ("IPrec", "recall"),
               "Rprec_mult_": ("Rprec", "mult")}
# names that do not start with a letter
_SPECIAL = {"11pt_avg": "IPrec_avg"}


def parse_measure(text: str) -> Measure:
    """Parse one measure string into a Measure."""
    label = text.strip()
    trec = _TREC_CUTOFF.match(label)
    if trec:
        family = REGISTRY[_UNDERSCORE_CUTOFF[trec.group("base")]]
        return Measure(family, cutoff=_cutoff(trec.group("k"), label), label=label)
    real = _TREC_REAL.match(label)
    if real:
        name, param = _REAL_PARAM[real.group("base")]
        return _configure(REGISTRY[name], {param: real.group("x")}, None, label)
    if label in _SPECIAL:
        return _configure(REGISTRY[_SPECIAL[label]], {}, None, label)
    match = _SYNTAX.match(label)
    if not match:
        raise MeasureError(f"cannot read measure {label!r}; expected NAME[(param=value,...)]"
                           "[@cutoff]")
    family, fixed = _family(match.group("name"), label)
    params = dict(fixed)
    params.update(_params(match.group("params"), label))
    return _configure(family, params, match.group("cutoff"), label)


def _family(name: str, label: str):
    if name in REGISTRY:
        return REGISTRY[name], {}
    if name in ALIASES:
        canonical, fixed = ALIASES[name]
        return REGISTRY[canonical], fixed
    folded = [n for n in list(REGISTRY) + list(ALIASES) if n.lower() == name.lower()]
    if len(folded) == 1:
        return _family(folded[0], label)
    close = [n for n in REGISTRY if n.lower().startswith(name.lower()[:2])]
    hint = f"; did you mean {', '.join(sorted(close))}?" if close else ""
    raise MeasureError(f"unknown measure {name!r} in {label!r}{hint} "
                       "(`irgauge measures` lists them all)")


def _params(text: Optional[str], label: str) -> Dict[str, str]:
    if not text or not text.strip():
        return {}
    params = {}
    for part in text.split(","):
        if "=" not in part:
            raise MeasureError(f"{label}: parameter {part.strip()!r} must be written name=value")
        key, value = part.split("=", 1)
        params[key.strip()] = value.strip()
    return params


def _cutoff(text: Optional[str], label: str) -> Optional[int]:
    return check_cutoff(text, label)


def _configure(family, params: Dict[str, str], cutoff: Optional[str], label: str) -> Measure:
    if cutoff is not None and family.cutoff == "none":
        raise MeasureError(f"{label}: {family.name} takes no cutoff")
    common = {"judged_only": False, "gains": None, "agg": None}
    own: List[Tuple[str, object]] = []
    defaults = {p.name: p.default for p in family.params}
    for key, raw in params.items():
        value = family.param(key).convert(raw, label)
        if key in common:
            common[key] = value
        elif value != defaults.get(key):
            own.append((key, value))
    return Measure(family, tuple(sorted(own)), _cutoff(cutoff, label),
                   judged_only=bool(common["judged_only"]), gains=common["gains"],
                   agg=common["agg"], label=label)


def parse_measures(texts: Iterable[str]) -> List[Measure]:
    """Parse several measure strings; each string may hold several, separated by spaces."""
    measures: List[Measure] = []
    for text in texts:
        for token in split_measures(text):
            measures.append(parse_measure(token))
    seen = set()
    unique = []
    for m in measures:
        if m.label not in seen:
            seen.add(m.label)
            unique.append(m)
    return unique


def split_measures(text: str) -> List[str]:
    """Split on whitespace outside parentheses."""
    tokens, depth, current = [], 0, []
    for ch in text:
        depth += ch == "("
        depth -= ch == ")"
        if ch.isspace() and depth == 0:
            if current:
                tokens.append("".join(current))
                current = []
        else:
            current.append(ch)
    if current:
        tokens.append("".join(current))
    return tokens
