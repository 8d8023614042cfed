"""``irgauge reduce QRELS --rates 90,70,50,30,10 --seed S --out DIR``: reduced relevance data."""

from __future__ import annotations

import sys
from irgauge.cli._options import rates, rel_level, seed


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "reduce",
        help="write reduced qrels (Buckley-Voorhees) at several rates",
        description="For each topic shuffle its relevant and, separately, its nonrelevant "
        "judgments once (seeded); at rate j keep the first max(1, trunc(R*j/100)) "
        "and max(10, trunc(N*j/100)) (all when fewer exist). Writes one qrels file "
        "per rate in the input's format (the kept lines as written) and "
        "manifest.json (seed, rates, per-topic R, N and kept counts).",
    )
    parser.add_argument("qrels", help="qrels file (TREC or NTCIR)")
    parser.add_argument(
        "--rates",
        type=rates,
        default="90,70,50,30,10",
        help="comma-separated percentages in (0, 100] (default: %(default)s)",
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
        default=1,
        help="relevant means level >= this (default: %(default)s)",
    )
    parser.add_argument("--out", required=True, metavar="DIR", help="output directory")
    parser.set_defaults(func=run)


def run(args) -> int:
    from irgauge.collection.reduce import reduce_qrels, write_reduced

    reduction = reduce_qrels(args.qrels, args.rates, args.seed, args.rel_level)
    manifest = write_reduced(reduction, args.out)
    total = len(reduction.qrels)
    lines = [
        f"# seed: {manifest['seed']}",
        f"# source: {manifest['source']}",
        "rate\tjudgments\tshare\tfile",
    ]
    for rate, name in manifest["files"].items():
        kept = manifest["judgments"][rate]
        lines.append(f"{rate}\t{kept}\t{kept / total:.4f}\t{name}")
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
