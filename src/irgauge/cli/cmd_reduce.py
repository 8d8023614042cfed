"""``irgauge reduce QRELS --rates 90,70,50,30,10 --seed S --out DIR``: reduced relevance data;
``irgauge reduce QRELS --depth 10,50 --runs RUN... --out DIR``: pool-depth reduction."""

from __future__ import annotations

import sys
from typing import Any
from irgauge.cli import _options as opt
from irgauge.cli import output_options


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "reduce",
        help="write reduced qrels (Buckley-Voorhees, or a shallower pool) at several rates "
        "or depths",
        description="For each topic shuffle its relevant and, separately, its nonrelevant "
        "judgments once (seeded); at rate j keep the first max(1, trunc(R*j/100)) "
        "and max(10, trunc(N*j/100)) (all when fewer exist). With --depth and --runs, "
        "keep instead the judgments of the documents in the depth-K pool of the runs "
        "(the union of every run's top K in trec_eval's order; Sakai and Kando 2008). "
        "Writes one qrels file per rate or depth in the input's format (the kept lines "
        "as written) and manifest.json (seed, rates or depths, per-topic counts).",
    )
    parser.add_argument("qrels", help="qrels file (TREC or NTCIR)")
    how = parser.add_mutually_exclusive_group()
    opt.add_rates(how)
    opt.add_depths(how, runs="--runs, one file each")
    parser.add_argument(
        "--runs", nargs="+", metavar="RUN", default=None, help="the runs pooled (with --depth)"
    )
    opt.add_order(parser, detail="; only with --depth, for the pooled runs")
    opt.add_seed(parser)
    opt.add_rel_level(parser, " of --rates (R, the relevant judgments of a topic)", True)
    output_options.add_out(parser)
    parser.set_defaults(func=run)


def run(args) -> int:
    from irgauge.collection.reduce import reduce_qrels, write_reduced
    from irgauge.errors import InputError

    if args.depth is not None:
        from irgauge.collection.depth_reduce import reduce_to_depth

        if not args.runs:
            raise InputError("--depth needs the runs to pool: --runs RUN...")
        for given, option in ((args.seed, "--seed"), (args.rel_level, "--rel-level")):
            if given is not None:  # a pool is neither random nor by level
                raise InputError(f"{option} is for --rates; a pool-depth reduction has none")
        reduction: Any = reduce_to_depth(args.qrels, args.runs, args.depth, args.order)
    else:
        for given, option in ((args.runs, "--runs"), (args.order, "--order")):
            if given is not None:
                raise InputError(f"{option} is for a pool-depth reduction: give --depth K too")
        rates = args.rates if args.rates is not None else "90,70,50,30,10"
        level = args.rel_level if args.rel_level is not None else 1
        reduction = reduce_qrels(args.qrels, rates, args.seed, level)
    manifest = write_reduced(reduction, args.out)
    total = len(reduction.qrels)
    lines = [f"# seed: {manifest['seed']}"] if "seed" in manifest else []
    lines += [f"# source: {manifest['source']}", f"{reduction.kind}\tjudgments\tshare\tfile"]
    for step in reduction.steps:
        label = reduction.label(step)
        kept = manifest["judgments"][label]
        lines.append(f"{step}\t{kept}\t{kept / total:.4f}\t{manifest['files'][label]}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
