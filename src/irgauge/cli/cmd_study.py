"""``irgauge study NAME QRELS RUN... --out DIR``: rerun one paper's experiment on a collection.

Studies: onerel (seeds 000/001), incomplete (seed 002), qa (seed 003), predictive (seed 004).
Each writes tables (txt, csv, tex), figures (png, svg) and manifest.json to DIR/NAME, and
prints its tables and a summary in words; ``--report`` also writes DIR/report.html.
"""
from __future__ import annotations

from irgauge.cli import HelpFormatter
from irgauge.cli._options import alpha, count, draws, fraction, rel_level, seed

STUDY_HELP = {
    "onerel": "metrics for one relevant document: P-plus, P, O, NWRR, RR (+AP, Q); "
              "discriminative power, gain values, swap, stability, tau (seeds 000/001)",
    "incomplete": "the ten bpref-family and condensed-list metrics on full and reduced qrels "
                  "(seed 002)",
    "qa": "QA metrics RR, NQcorrect1/5, Q-measure gain variants: stability, swap rates, "
          "sensitivity (seed 003)",
    "predictive": "predictive power phi of P@10, RR, RBP, AP, nDCG (seed 004)",
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "study", help="rerun a paper's experiment (onerel, incomplete, qa, predictive)",
        description="Rerun one of the papers' experiments on your collection. "
                    + " ".join(f"{k}: {v}." for k, v in STUDY_HELP.items()),
        formatter_class=HelpFormatter)
    p.add_argument("study", choices=tuple(STUDY_HELP), help="which study")
    p.add_argument("qrels", nargs="?", help="qrels (for qa: the answer gold file)")
    p.add_argument("runs", nargs="*", metavar="RUN", help="run files (for qa: answer files)")
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument("--scores", nargs="+", metavar="[NAME=]FILE",
                   help="predictive only: score files in place of qrels and runs")
    sel = p.add_argument_group("system filter (default: the paper's)")
    sel.add_argument("--top-k", type=count, metavar="K",
                     help="keep the K best systems (onerel/incomplete default 30)")
    sel.add_argument("--top-fraction", type=fraction, metavar="F",
                     help="keep the best fraction F (predictive default 0.75)")
    sel.add_argument("--all-systems", action="store_true", help="keep every system")
    sel.add_argument("--by", metavar="M", help="measure ranking the systems (default AP; "
                                               "qa: RR)")
    p.add_argument("--seed", type=seed, default=None,
                   help="random seed (default: a fresh one, recorded in the manifest)")
    p.add_argument("--B", type=draws, default=1000, help="bootstrap samples")
    p.add_argument("--trials", type=draws, default=1000,
                   help="trials (swap, stability, reductions) or halvings (predictive)")
    p.add_argument("--alpha", type=alpha, default=0.05, help="significance level")
    p.add_argument("--order", choices=("score", "file"), default=None,
                   help="document order (default: what each run's format implies)")
    p.add_argument("--rel-level", type=rel_level, default=1, help="relevance threshold")
    p.add_argument("--report", action="store_true", help="also write DIR/report.html")
    p.set_defaults(func=run)


def study_options(args) -> dict:
    """Keyword arguments of the study function from the parsed options."""
    options = {"seed": args.seed, "B": args.B, "trials": args.trials, "report": args.report}
    if args.study in ("onerel", "incomplete"):
        options["alpha"] = args.alpha
    if args.all_systems:
        options.update(top_k=None, top_fraction=None)
    elif args.top_k is not None:
        options.update(top_k=args.top_k, top_fraction=None)
    elif args.top_fraction is not None:
        options.update(top_k=None, top_fraction=args.top_fraction)
    if args.by:
        options["by"] = args.by
    if args.study != "qa":
        eval_options = {"rel_level": args.rel_level}
        if args.order:
            eval_options["order"] = args.order
        options["eval_options"] = eval_options
    return options


def run(args) -> int:
    from irgauge.errors import InputError
    from irgauge.studies import study_function

    options = study_options(args)
    if args.scores:
        if args.study != "predictive":
            raise InputError("--scores is only for the predictive study")
        from irgauge.scores import combine, read_scores

        parts = []
        for spec in args.scores:
            name, path = spec.split("=", 1) if "=" in spec else (None, spec)
            parts.append(read_scores(path, name=name))
        options["matrices"] = combine(parts)
        result = study_function(args.study)(None, None, args.out, **options)
    else:
        if not args.qrels or not args.runs:
            raise InputError(f"study {args.study} needs QRELS and at least one RUN")
        result = study_function(args.study)(args.qrels, args.runs, args.out, **options)
    if result.report:
        print(f"report: {result.report}")
    print(result.text(), end="")
    return 0
