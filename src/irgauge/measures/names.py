"""Every measure name a tool prints or accepts, in any case: the one list a new measure's
name is checked against (``register_measure``), so that no registered name reads, in
this case or another, as a spelling of another measure.

The list is made from the resolver's own tables, never a copy of them:

- irgauge's families (every registered measure included) and its aliases;
- trec_eval's measures (``trec_eval_words.MEASURES``: ``map_avgjg``, ``binG``, ...), its
  ``-m`` sets (``official``, ``set``), its ``-m`` words ``name.params`` (``P.5``), and
  every line name it prints for a parameter of any value, by the measure's kind:
  ``P_7``, ``ndcg_cut_13``, ``success_2`` (cutoffs), ``iprec_at_recall_0.35``,
  ``Rprec_mult_0.70`` (levels), ``set_F_0.5``, ``relstring_20`` (a number); the
  ``level=gain`` forms hold ``=``, which no name may;
- the resolver's own readings of trec_eval's names (``aliases.TREC_EVAL``, the shorter
  ``P7`` and ``ndcg_cut13``, ``11pt_avg``);
- NTCIREVAL's names and ir_measures' names (those irgauge computes and those it names as
  not computed). Their forms with a cutoff hold ``@``, which no name may.
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Dict, Iterable, List, Optional, Tuple

from irgauge.measures import aliases as A
from irgauge.measures import trec_eval_words as TE
from irgauge.measures.base import REGISTRY

_NUMBER = r"[-+]?(\d+\.?\d*|\.\d+)"
# trec_eval's line names per kind of measure: the suffix after name_ (trec_eval_words.lines)
_SUFFIX = {"cut_long": r"_\d+", "cut_double": "_" + _NUMBER, "p_double": "_" + _NUMBER}
_SUFFIX["relstring"] = _SUFFIX["p_double"]


@lru_cache(maxsize=None)
def _words() -> Dict[str, Tuple[str, str]]:
    """lowercase name -> (tool, its spelling) for the names every table holds as they are."""
    tables = (
        ("irgauge", A.IRGAUGE),
        ("trec_eval", TE.MEASURES),
        ("trec_eval", TE.SETS),
        ("trec_eval", A.TREC_EVAL),
        ("trec_eval", A.TREC_EVAL_SPECIAL),
        ("NTCIREVAL", A.NTCIREVAL),
        ("ir_measures", A.IR_MEASURES),
        ("ir_measures", A.IR_MEASURES_UNSUPPORTED),
    )
    words: Dict[str, Tuple[str, str]] = {}
    for tool, table in tables:
        for name in table:
            words.setdefault(name.lower(), (tool, name))
    return words


def _pattern(
    bases: Iterable[str], suffix: str, tool: str = "trec_eval"
) -> Tuple[re.Pattern, Dict[str, str], str]:
    """A case-insensitive pattern of ``base`` + ``suffix``, lowercase base -> base, and
    the tool whose spelling it is."""
    spelled = {b.lower(): b for b in bases}
    # longest first: ndcg_cut before ndcg, Rprec_mult_avgjg before Rprec_mult
    alternatives = "|".join(re.escape(b) for b in sorted(spelled.values(), key=len, reverse=True))
    return re.compile(rf"(?P<base>{alternatives}){suffix}", re.IGNORECASE), spelled, tool


@lru_cache(maxsize=None)
def _patterns() -> List[Tuple[re.Pattern, Dict[str, str], str]]:
    """trec_eval's printed names with a parameter, its -m words and the resolver's forms."""
    by_suffix: Dict[str, List[str]] = {}
    for name, (kind, _) in TE.MEASURES.items():
        if kind in _SUFFIX:
            by_suffix.setdefault(_SUFFIX[kind], []).append(name)
    found = [_pattern(bases, suffix) for suffix, bases in by_suffix.items()]
    found.append(_pattern([*TE.MEASURES, *TE.SETS], r"\..*"))  # -m words: P.5, official.x
    found.append(_pattern(A.TREC_EVAL_CUTOFF, r"_?\d+", "irgauge"))  # read: P5 as P_5
    found.append(_pattern(A.TREC_EVAL_REAL, _NUMBER, "irgauge"))  # iprec_at_recall_0.1
    return found


def owner(name: str) -> Optional[Tuple[str, str]]:
    """(tool, that tool's spelling) when some tool prints or accepts ``name`` in any case:
    ``owner("Success_1") == ("trec_eval", "success_1")``; None when no tool does."""
    low = name.lower()
    for family in list(dict.keys(REGISTRY)):  # every family now, without loading plugins
        if family.lower() == low:
            return "irgauge", family
    if low in _words():
        return _words()[low]
    for pattern, spelled, tool in _patterns():
        match = pattern.fullmatch(name)
        if match:
            return tool, spelled[match.group("base").lower()] + name[match.end("base") :]
    return None
