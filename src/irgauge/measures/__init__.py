"""Retrieval measures: pure functions over graded ranked lists, one family per module.

Importing this package registers every family. ``parse_measure("nDCG@10")`` gives a
configured Measure; ``list_measures()`` describes them all.
"""

from __future__ import annotations

from typing import Dict, List

from irgauge.measures import ap, blended, bpref, counts, ndcg, precision, rbp, rr  # noqa: F401
from irgauge.measures import cascade, ncu, nrbp  # noqa: F401  (NTCIREVAL families)

# trec_eval families
from irgauge.measures import gain_ratio, infap, iprec, ndcg_trec, set_based  # noqa: F401
from irgauge.measures import unjudged, utility  # noqa: F401
from irgauge.measures.base import REGISTRY, Family, Measure, families
from irgauge.measures.parse import ALIASES, parse_measure, parse_measures

DEFAULT_MEASURES = (
    "AP",
    "nDCG",
    "nDCG@10",
    "P@10",
    "R@1000",
    "RR",
    "Rprec",
    "bpref",
    "Q-measure",
    "num_ret",
    "num_rel",
    "num_rel_ret",
)


def list_measures() -> List[Dict[str, object]]:
    """Every family with its parameters, defaults, aliases and one-line definition."""
    aliases: Dict[str, List[str]] = {}
    for alias, (name, _) in ALIASES.items():
        aliases.setdefault(name, []).append(alias)
    return [
        {
            "name": f.name,
            "definition": f.summary,
            "cutoff": f.cutoff != "none",
            "params": {
                p.name: {
                    "default": p.default,
                    "doc": p.doc,
                    "valid": p.span(),
                    **({"choices": list(p.choices)} if p.choices else {}),
                }
                for p in f.all_params()
            },
            "aliases": sorted(aliases.get(f.name, [])),
        }
        for f in families()
    ]


__all__ = [
    "Measure",
    "Family",
    "REGISTRY",
    "parse_measure",
    "parse_measures",
    "list_measures",
    "DEFAULT_MEASURES",
]
