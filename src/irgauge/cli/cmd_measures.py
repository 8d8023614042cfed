"""``irgauge measures``: every measure with its parameters, defaults and definition."""

from __future__ import annotations

import json
import sys


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "measures",
        help="list every measure",
        description="List every measure family with its "
        "parameters, defaults, aliases and one-line definition.",
    )
    parser.add_argument(
        "--format", choices=("table", "json"), default="table", help="output format"
    )
    parser.add_argument(
        "--explain",
        action="append",
        metavar="NAME",
        help="print how a measure name resolves: the tool whose spelling it "
        "is and the canonical measure with every parameter; repeatable, "
        "or a comma/space-separated list",
    )
    parser.set_defaults(func=run)


def run(args) -> int:
    from irgauge.measures import DEFAULT_MEASURES, list_measures
    from irgauge.measures.custom import plugin_failures
    from irgauge.measures.base import MAX_CUTOFF

    if args.explain:
        return _explain(args.explain, args.format)
    listing = list_measures()
    for label, why in plugin_failures().items():  # their measures are missing from the list
        print(
            f"irgauge: note: measure plugin {label} failed to load, its measures are not "
            f"listed: {why}",
            file=sys.stderr,
        )
    if args.format == "json":
        sys.stdout.write(json.dumps(listing, indent=2, default=str) + "\n")
        return 0
    out = [
        "Measure strings: NAME[(param=value,...)][@cutoff]; e.g. nDCG(dcg=jk,b=2)@1000.",
        "Every measure also takes judged_only=true (condensed list), rel=N (its own "
        "relevance threshold, as ir_measures' rel=) and agg=gmean.",
        f"Valid values are shown in brackets; cutoffs lie in [1, {MAX_CUTOFF}].",
        f"Default set: {' '.join(DEFAULT_MEASURES)}",
        "",
    ]
    for entry in listing:
        cutoff = "@k" if entry["cutoff"] else ""
        out.append(f"{entry['name']}{cutoff}  {entry['definition']}")
        if entry["aliases"]:
            out.append(f"    aliases: {', '.join(entry['aliases'])}")
        for name, spec in entry["params"].items():
            if name in ("judged_only", "agg", "rel"):
                continue
            valid = f" [{'|'.join(spec['choices'])}]" if "choices" in spec else f" {spec['valid']}"
            out.append(f"    {name}={spec['default']}{valid}: {spec['doc']}")
    out.append("")
    out.append(
        "trec_eval names: map, gm_map, ndcg, ndcg_cut_K, P_K, recall_K, map_cut_K, "
        "success_K, recip_rank, Rprec, bpref, num_ret, num_rel, num_rel_ret."
    )
    out.append(
        "NTCIREVAL's names as its output prints them (AP@0010, nDCG@0010, NCUrb,P, "
        "j:Q-measure) and ir_measures' (AP(rel=2), nDCG(dcg='exp-log2')@10, ERR@10, "
        "IPrec@0.1, Judged@10, SetP, NumQ) mean their tool's measure; "
        "`irgauge measures --explain NAME` shows how a name resolves."
    )
    sys.stdout.write("\n".join(out) + "\n")
    return 0


def _explain(names, format: str) -> int:
    from irgauge.cli._options import split_measures
    from irgauge.errors import InputError, MeasureError
    from irgauge.measures.parse import explain, parse_measure, resolve

    rows, texts = [], []
    names = split_measures(names)
    if not names:  # '' explained nothing, with exit 0
        raise InputError("--explain: no measure name given")
    for name in names:
        try:
            spec, measure = resolve(name), parse_measure(name)
        except MeasureError as err:  # an ambiguous or unknown name: say why, go on
            rows.append({"name": name, "refused": str(err)})
            texts.append(f"{name}\n  refused:   {err}")
            continue
        rows.append({"name": name, "tool": spec.tool, "measure": measure.full, "note": spec.note})
        texts.append(explain(name))
    if format == "json":
        sys.stdout.write(json.dumps(rows, indent=2) + "\n")
    else:
        sys.stdout.write("\n".join(texts) + "\n")
    return 2 if any("refused" in row for row in rows) else 0
