"""``irgauge measures``: every measure with its parameters, defaults and definition."""
from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser("measures", help="list every measure",
                                   description="List every measure family with its "
                                   "parameters, defaults, aliases and one-line definition.")
    parser.add_argument("--format", choices=("table", "json"), default="table")
    parser.set_defaults(func=run)


def run(args) -> int:
    from irgauge.measures import DEFAULT_MEASURES, list_measures

    listing = list_measures()
    if args.format == "json":
        sys.stdout.write(json.dumps(listing, indent=2, default=str) + "\n")
        return 0
    out = ["Measure strings: NAME[(param=value,...)][@cutoff]; e.g. nDCG(dcg=jk,b=2)@1000.",
           "Every measure also takes judged_only=true (condensed list) and agg=gmean.",
           f"Default set: {' '.join(DEFAULT_MEASURES)}", ""]
    for entry in listing:
        cutoff = "@k" if entry["cutoff"] else ""
        out.append(f"{entry['name']}{cutoff}  {entry['definition']}")
        if entry["aliases"]:
            out.append(f"    aliases: {', '.join(entry['aliases'])}")
        for name, spec in entry["params"].items():
            if name in ("judged_only", "agg"):
                continue
            choices = f" [{'|'.join(spec['choices'])}]" if "choices" in spec else ""
            out.append(f"    {name}={spec['default']}{choices}: {spec['doc']}")
    out.append("")
    out.append("trec_eval names: map, gm_map, ndcg, ndcg_cut_K, P_K, recall_K, map_cut_K, "
               "success_K, recip_rank, Rprec, bpref, num_ret, num_rel, num_rel_ret.")
    sys.stdout.write("\n".join(out) + "\n")
    return 0
