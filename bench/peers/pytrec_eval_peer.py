"""Peer: pytrec_eval (PyPI pytrec-eval-terrier) on the standard set, means per run.

Reads the files in Python with pytrec_eval's own parsers, as a user would.
"""

import pytrec_eval

from _common import parse_args, print_means, run_name, wanted

# pytrec_eval request name -> (result key, irgauge name)
MEASURES = {
    "map": ("map", "AP"),
    "ndcg": ("ndcg", "nDCG"),
    "ndcg_cut.10": ("ndcg_cut_10", "nDCG@10"),
    "P.10": ("P_10", "P@10"),
    "recip_rank": ("recip_rank", "RR"),
    "Rprec": ("Rprec", "Rprec"),
    "bpref": ("bpref", "bpref"),
    "recall.1000": ("recall_1000", "R@1000"),
}


def main() -> None:
    args = parse_args(__doc__)
    chosen = wanted(args, [name for _, name in MEASURES.values()])
    measures = {k: v for k, v in MEASURES.items() if v[1] in chosen}
    with open(args.qrels) as f:
        qrels = pytrec_eval.parse_qrel(f)
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, set(measures))
    rows = []
    for path in args.runs:
        with open(path) as f:
            per_topic = evaluator.evaluate(pytrec_eval.parse_run(f))
        n = len(per_topic)
        means = {}
        for key, name in measures.values():
            means[name] = sum(scores[key] for scores in per_topic.values()) / n if n else 0.0
        rows.append((run_name(path), means))
    print_means(rows)


if __name__ == "__main__":
    main()
