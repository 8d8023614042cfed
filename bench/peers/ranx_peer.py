"""Peer: ranx on the standard set, means per run.

ranx compiles its metrics with numba on first use; that start-up is part of what a user
waits for, so it is part of this whole-process measurement.
"""

from ranx import Qrels, Run, evaluate

from _common import parse_args, print_means, run_name

# ranx name -> irgauge name. ranx's ndcg uses gain = level and log2(r+1), like trec_eval.
MEASURES = {
    "map": "AP",
    "ndcg": "nDCG",
    "ndcg@10": "nDCG@10",
    "precision@10": "P@10",
    "mrr": "RR",
    "r-precision": "Rprec",
    "bpref": "bpref",
    "recall@1000": "R@1000",
}


def main() -> None:
    args = parse_args(__doc__)
    qrels = Qrels.from_file(args.qrels, kind="trec")
    rows = []
    for path in args.runs:
        run = Run.from_file(path, kind="trec")
        means = evaluate(qrels, run, list(MEASURES), make_comparable=True)
        rows.append((run_name(path), {MEASURES[m]: float(v) for m, v in means.items()}))
    print_means(rows)


if __name__ == "__main__":
    main()
