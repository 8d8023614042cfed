"""Peer: ir_measures on the standard set, means per run (one evaluator built per qrels)."""

import ir_measures
from ir_measures import AP, RR, Bpref, P, R, Rprec, nDCG

from _common import parse_args, print_means, run_name

MEASURES = {
    AP: "AP",
    nDCG: "nDCG",
    nDCG @ 10: "nDCG@10",
    P @ 10: "P@10",
    RR: "RR",
    Rprec: "Rprec",
    Bpref: "bpref",
    R @ 1000: "R@1000",
}


def main() -> None:
    args = parse_args(__doc__)
    qrels = list(ir_measures.read_trec_qrels(args.qrels))
    evaluator = ir_measures.evaluator(list(MEASURES), qrels)
    rows = []
    for path in args.runs:
        agg = evaluator.calc_aggregate(ir_measures.read_trec_run(path))
        rows.append((run_name(path), {MEASURES[m]: float(v) for m, v in agg.items()}))
    print_means(rows)


if __name__ == "__main__":
    main()
