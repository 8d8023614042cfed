"""Retrieval measures: pure functions over graded ranked lists, one family per module.

Importing this package registers every family. ``parse_measure("nDCG@10")`` gives a
configured Measure; ``list_measures()`` describes them all. ``register_measure`` (or the
decorator ``measure``) adds your own family under a name; installed plugins (entry point
group ``irgauge.measures``) load when a name is not found.
"""

from __future__ import annotations

from typing import Dict, List

from irgauge.measures import ap, blended, bpref, counts, ndcg, precision, rbp, rr  # noqa: F401
from irgauge.measures import capped_recall  # noqa: F401  (BEIR's R_cap)
from irgauge.measures import cascade, ncu, nrbp  # noqa: F401  (NTCIREVAL families)

# trec_eval families
from irgauge.measures import gain_ratio, infap, iprec, ndcg_trec, set_based  # noqa: F401
from irgauge.measures import unjudged, utility, yaap  # noqa: F401

# estimates from sampled judgments (prels)
from irgauge.measures import stat_ap, stat_precision, stat_r  # noqa: F401
from irgauge.measures.base import REGISTRY, Family, Measure, families, rank_sum
from irgauge.measures.parse import ALIASES, parse_measure, parse_measures

# after every built-in family: your own measures and the plugins (installs the lookup hook)
from irgauge.measures.custom import (
    custom_measures,
    load_plugins,
    measure,
    plugin_failures,
    register_measure,
    unregister_measure,
)
from irgauge.measures.custom import _STATE as _PLUGINS

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
    """Every family with its parameters, defaults, aliases and one-line definition
    (installed measure plugins included)."""
    if not _PLUGINS["loaded"]:
        load_plugins()
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
    "rank_sum",
    "register_measure",
    "measure",
    "unregister_measure",
    "custom_measures",
    "load_plugins",
    "plugin_failures",
]
