"""``irgauge reduce QRELS --rates 90,70,50,30,10 --seed S --out DIR``: reduced relevance data;
``irgauge reduce QRELS --depth 10,50 --runs RUN... --out DIR``: pool-depth reduction."""

from __future__ import annotations

import sys
from typing import Any
from irgauge.cli._options import depths, rates, rel_level, seed


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
    how.add_argument(
        "--rates",
        type=rates,
        default=None,
        help="comma-separated percentages in (0, 100] (default: 90,70,50,30,10)",
    )
    how.add_argument(
        "--depth",
        type=depths,
        default=None,
        metavar="K[,K...]",
        help="pool depths: keep the judgments in the depth-K pool of --runs, one file each",
    )
    parser.add_argument(
        "--runs", nargs="+", metavar="RUN", default=None, help="the runs pooled (with --depth)"
    )
    parser.add_argument(
        "--order",
        choices=("score", "file"),
        default=None,
        help="document order of the pooled runs (default: the run format's)",
    )
    parser.add_argument(
        "--seed",
        type=seed,
        default=None,
        help="random seed (default: a fresh one, reported in the manifest)",
    )
    parser.add_argument(
        "-l",
        "--rel-level",
        type=rel_level,
        default=None,
        help="relevant means level >= this, for the rates (default: 1)",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
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
