"""``irgauge study NAME QRELS RUN... --out DIR``: rerun one paper's experiment on a collection.

Each study has its own options (``irgauge study NAME --help``) with its paper's defaults.
Each writes tables (txt, csv, tex), figures (pdf, svg, png) and manifest.json to DIR/NAME,
and prints its tables and a summary in words; ``--report`` also writes DIR/report.html.
With ``--collection NAME=QRELS:RUNDIR`` (repeatable) or ``--collections FILE.toml`` the
study runs on every collection (DIR/NAME/<study>) and DIR/<study>-comparison holds the
side-by-side tables.
"""

from __future__ import annotations

import sys
from pathlib import Path

from irgauge.citations import cite
from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt

STUDY_HELP = {
    "onerel": "metrics for finding one relevant document: P-plus, P-measure, O-measure, "
    "NWRR, RR (with AP, Q-measure): discriminative power, gain values, swap "
    "rates, stability, Kendall's tau; " + cite("onerel") + "; " + cite("pmeasure"),
    "incomplete": "the bpref family and condensed-list metrics on full and reduced "
    "relevance data; " + cite("bpref"),
    "qa": "QA metrics RR, NQcorrect1/5, Q-measure gain variants (or the list task's "
    "F-measure): stability, swap rates, sensitivity, sign test; " + cite("qa"),
    "predictive": "predictive power phi of P@10, RR, RBP (p=0.95), AP, nDCG (log2); "
    + cite("predictive"),
    "topicset": "topic set size design: the topics each measure needs (paired t-test, "
    "one-way ANOVA, confidence interval width) from its residual variance, with a "
    "bootstrap over topics; " + cite("topicset"),
    "pooling": "pooling strategies (depth, fusion, mtf, bandit, sample) on budgets of "
    "judgments per topic: relevant documents found, Kendall's tau and tau_AP of the system "
    "ranking against the full judgments, the largest rank change and the RMSE of the means, "
    "each with its topic-sampling interval",
    "reusability": "leave one group out of the depth-K pool: every run scored with the "
    "judgments the collection would lack without each group; Kendall's tau, tau_AP, rank "
    "drops and score changes per measure; " + cite("zobel1998") + "; " + cite("voorhees2018"),
}


def _gain_list(text: str):
    variants = [t.strip() for t in text.split(",") if t.strip()]
    for variant in variants:  # each refused here, naming --gains, as eval's --gains
        opt.gains(variant)
    return variants


def _common_options(p, study: str, top_k=None, top_fraction=None, by="AP") -> None:
    """Inputs, output folder, collections, system filter, seed, report and --quiet."""
    p.add_argument(
        "qrels",
        nargs="?",
        metavar="GOLD" if study == "qa" else "QRELS",
        help="answer gold file" if study == "qa" else "qrels file",
    )
    p.add_argument(
        "runs", nargs="*", metavar="RUN", help="answer files" if study == "qa" else "run files"
    )
    p.add_argument("--out", required=True, metavar="DIR", help="output folder")
    p.add_argument(
        "--collection",
        action="append",
        metavar="NAME=QRELS:RUNDIR",
        help="run on this named collection (repeatable; every file in RUNDIR "
        "is a run); writes DIR/NAME/... and side-by-side tables",
    )
    p.add_argument(
        "--collections",
        metavar="FILE.toml",
        help="collections from a TOML file ([collections.NAME] qrels, runs)",
    )
    kept = f"--top-k {top_k}" if top_k else f"--top-fraction {top_fraction}" if top_fraction else ""
    sel = p.add_argument_group(
        "system filter",
        f"default: {kept} by {by}" if kept else "default: every system",
    )
    # --top-k and --top-fraction default to None so that either replaces the study's default
    opt.add_selection(sel, by=by)
    p.set_defaults(study_selection={"top_k": top_k, "top_fraction": top_fraction})
    if top_k or top_fraction:  # where every system is the default, --all-systems would do nothing
        sel.add_argument("--all-systems", action="store_true", help="keep every system")
    opt.add_seed(p, "random seed (default: a fresh one, recorded in the manifest)")
    p.add_argument("--report", action="store_true", help="also write DIR/report.html")
    opt.add_quiet(p)
    opt.add_engine(p, "repetitions, reductions, topic resamples and their chunks")


def _answer_options(g) -> None:
    g.add_argument(
        "--answer-order",
        choices=("file", "rank", "score"),
        default="file",
        help="order of a run's answers",
    )
    g.add_argument(
        "--gold-format",
        default="auto",
        choices=("auto", "eqrels", "erel", "tsv", "json", "trec-patterns"),
        help="gold answers: NTCIREVAL eqrels/erel, TREC QA answer patterns, irgauge tsv/json",
    )
    g.add_argument(
        "--run-format",
        default="auto",
        choices=("auto", "semicolon", "trec", "list", "tsv", "json", "trec-qa"),
        help="answer runs: NTCIREVAL semicolon/list, TREC QA runs (trec-qa: "
        "qid tag docid answer), irgauge tsv/json",
    )
    g.add_argument(
        "--normalise",
        metavar="RULES",
        default=None,
        help="answer normalisation, e.g. nfkc,space,case (default: exact)",
    )


def _eval_options(p, answers: bool = False) -> None:
    g = p.add_argument_group("evaluation conventions")
    if answers:
        _answer_options(g)
    else:
        g.add_argument(
            "--order",
            choices=("score", "file"),
            default=None,
            help="document order (default: what each run's format implies)",
        )
    g.add_argument(
        "--rel-level",
        type=opt.rel_level,
        default=1,
        help="lowest relevance level counted as relevant",
    )


def _bootstrap(p) -> None:
    p.add_argument("--B", type=opt.draws, default=1000, help="bootstrap samples")
    p.add_argument("--alpha", type=opt.alpha, default=0.05, help="significance level")


def _subsets(p, trials: int = 1000) -> None:
    p.add_argument(
        "--trials",
        type=opt.draws,
        default=trials,
        help="topic-subset trials of each swap / stability repetition",
    )
    p.add_argument(
        "--repetitions",
        type=opt.positive_int,
        default=5,
        help="independent repetitions of every random experiment (Monte Carlo error)",
    )
    opt.add_subset_size(
        p, type=opt.positive_int, help="topics per subset (the papers' c; default: half the topics)"
    )
    p.add_argument(
        "--swap-mode",
        choices=("strict", "original"),
        default="strict",
        help="strict: a tie on one subset and not the other is a swap too",
    )


def _gains(p, default, help: str) -> None:
    p.add_argument("--gains", type=_gain_list, default=default, metavar="S:A:B,...", help=help)


def _onerel_options(s) -> None:
    _common_options(s, "onerel", top_k=30)
    _bootstrap(s)
    _subsets(s)
    s.add_argument(
        "--replacement",
        action="store_true",
        help="draw the two swap subsets with replacement (the poster's variant)",
    )
    _gains(
        s, ["3:2:1", "10:5:1", "1:1:1", "0.3:0.2:0.1"], "gain-value variants (Table 4); '' for none"
    )
    opt.add_topic_resamples(s)
    _eval_options(s)


def _incomplete_options(s) -> None:
    _common_options(s, "incomplete", top_k=30)
    _bootstrap(s)
    s.add_argument(
        "--reductions",
        type=opt.positive_int,
        default=5,
        help="independent seeded reductions of the relevance data",
    )
    s.add_argument(
        "--rates",
        type=opt.list_of(opt.number(0, 100, min_open=True, what="a percentage")),
        default=[90, 70, 50, 30, 10],
        metavar="J,...",
        help="shares of judgments kept (%%)",
    )
    opt.add_topic_resamples(s)
    _eval_options(s)


def _qa_options(s) -> None:
    _common_options(s, "qa", by=None)
    _subsets(s)
    s.add_argument(
        "--second-size",
        type=opt.positive_int,
        metavar="C2",
        default=50,
        help="c of the second swap experiment (skipped, with a message, without 2*C2 questions)",
    )
    s.add_argument(
        "--list-task", action="store_true", help="the list task: instance F-measure of list answers"
    )
    _gains(s, ["1:1:1", "2:1.5:1", "3:2:1"], "Q-measure gain-value variants")
    s.add_argument(
        "--sign-alphas",
        type=opt.list_of(opt.alpha),
        default=[0.01, 0.05],
        metavar="A,...",
        help="significance levels of the sign-test table",
    )
    s.add_argument(
        "--derive-qa",
        action="store_true",
        help="GOLD and RUNs are ad hoc qrels and runs: derive QA-shaped data from them "
        "(relevant documents stand in for answers; a weak stand-in, labelled so in every "
        "output) under DIR/qa-derived-data",
    )
    opt.add_topic_resamples(s)
    _eval_options(s, answers=True)


def _predictive_options(s) -> None:
    _common_options(s, "predictive", top_fraction=0.75)
    s.add_argument(
        "--scores",
        nargs="+",
        metavar="[NAME=]FILE",
        help="score files (any measures) in place of qrels and runs",
    )
    s.add_argument(
        "--trials", type=opt.draws, default=2000, help="random halvings of the topic set"
    )
    s.add_argument(
        "--sizes",
        type=opt.list_of(opt.positive_int),
        default=None,
        metavar="K,...",
        help="topic subset sizes k of the phi curve (default 5, 10, ..., n/2)",
    )
    s.add_argument("--variant", choices=("a", "b"), default="b", help="Kendall's tau variant")
    opt.add_topic_resamples(s)
    _eval_options(s)


def _topicset_options(s) -> None:
    _common_options(s, "topicset")
    s.add_argument(
        "--scores",
        nargs="+",
        metavar="[NAME=]FILE",
        help="score files (any measures) in place of qrels and runs",
    )
    opt.add_measures(
        s,
        "measures to evaluate (default AP, Q-measure, nDCG@10, nERR@10, P@10); with "
        "--scores, the ones to use",
        dest="measure",
        metavar="M",
    )
    s.add_argument(
        "--min-diff",
        type=opt.number(0.0, None, min_open=True, what="a difference > 0"),
        default=0.05,
        metavar="D",
        help="minimum difference D between two systems to detect",
    )
    s.add_argument("--alpha", type=opt.alpha, default=0.05, help="significance level")
    s.add_argument(
        "--beta",
        type=opt.number(0.0, 1.0, True, True, what="a type II error rate"),
        default=0.20,
        help="type II error rate: the power is 1 - beta",
    )
    s.add_argument(
        "--systems",
        type=opt.integer(2, opt.MAX_COUNT, what="a number of systems"),
        default=2,
        metavar="M",
        help="systems M compared by the one-way ANOVA design",
    )
    s.add_argument(
        "--ci-width",
        type=opt.number(0.0, None, min_open=True, what="a width > 0"),
        default=0.10,
        metavar="W",
        help="width W of the confidence-interval design",
    )
    s.add_argument(
        "--trials",
        type=opt.draws,
        default=1000,
        help="bootstrap resamples of the topics (uncertainty of V_E and of the topics needed)",
    )
    _eval_options(s)


POOLING_STRATEGIES = ("depth", "fusion", "mtf", "bandit", "sample")  # collection.pooling's


def _pooling_options(s) -> None:
    _common_options(s, "pooling")
    s.add_argument(
        "--budgets",
        type=opt.list_of(opt.count),
        default=[10, 20, 50, 100],
        metavar="N,...",
        help="judgments per topic (each at most the smallest pool)",
    )
    s.add_argument(
        "--strategies",
        default=",".join(POOLING_STRATEGIES),
        metavar="S,...",
        help="pooling strategies (irgauge pool's)",
    )
    opt.add_measures(s, "measures scored on the judgments made (default: AP and AP')")
    s.add_argument(
        "--depth",
        type=opt.count,
        default=None,
        metavar="K",
        help="pool each run's top K (default: whole runs)",
    )
    opt.add_topic_resamples(s)
    _eval_options(s)


def _reusability_options(s) -> None:
    s.add_argument("qrels", nargs="?", metavar="QRELS", help="qrels file")
    s.add_argument("runs", nargs="*", metavar="RUN", help="run files (the pooled runs)")
    s.add_argument("--out", required=True, metavar="DIR", help="output folder")
    s.add_argument(
        "--depth", type=opt.count, required=True, metavar="K", help="pool depth K (>= 1)"
    )
    s.add_argument(
        "--groups",
        metavar="FILE",
        default=None,
        help="TSV of run and group (a run not named is a group of its own; default: each "
        "run alone)",
    )
    opt.add_measures(
        s,
        "measures (default AP, AP', bpref, infAP, Q-measure'; primed: condensed lists)",
    )
    opt.add_seed(s, "seed of the topic resamples (default: a fresh one, recorded)")
    opt.add_topic_resamples(s)
    s.add_argument("--report", action="store_true", help="also write DIR/report.html")
    opt.add_quiet(s)
    _eval_options(s)
    # one collection at a time: the groups are the collection's
    s.set_defaults(collection=None, collections=None)


STUDY_OPTIONS = {
    "onerel": _onerel_options,
    "incomplete": _incomplete_options,
    "qa": _qa_options,
    "predictive": _predictive_options,
    "topicset": _topicset_options,
    "pooling": _pooling_options,
    "reusability": _reusability_options,
}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "study",
        help="rerun a paper's experiment (onerel, incomplete, qa, predictive, topicset, pooling, "
        "reusability)",
        description="Rerun one of the papers' experiments on your collection(s). "
        "'irgauge study NAME --help' lists each study's options.",
        formatter_class=HelpFormatter,
    )
    studies = p.add_subparsers(dest="study", metavar="NAME", required=True)
    for name, add_options in STUDY_OPTIONS.items():
        add_options(
            studies.add_parser(
                name,
                help=STUDY_HELP[name],
                description=STUDY_HELP[name],
                formatter_class=HelpFormatter,
            )
        )
    p.set_defaults(func=run)


def _progress(args):
    """The studies' ``label -> callback`` factory: bars on a terminal, unless --quiet."""
    from irgauge.cli._progress import bars

    return bars(f"{args.study}: ", args.quiet)


def _selection(args) -> dict:
    """--all-systems, --top-k or --top-fraction (one of them; without any, the study's
    default selection), and --by."""
    from irgauge.errors import InputError

    given = [
        flag
        for flag, value in (
            ("--all-systems", getattr(args, "all_systems", False)),
            ("--top-k", args.top_k is not None),
            ("--top-fraction", args.top_fraction is not None),
        )
        if value
    ]
    if len(given) > 1:
        raise InputError(f"{' and '.join(given)} each choose the systems: give one")
    if given:
        chosen = {"top_k": args.top_k, "top_fraction": args.top_fraction}
    else:
        chosen = dict(args.study_selection)
    if args.by:
        chosen["by"] = args.by
    return chosen


def _subset_kwargs(args) -> dict:
    return dict(
        trials=args.trials,
        repetitions=args.repetitions,
        subset_size=args.subset_size,
        swap_mode=args.swap_mode,
    )


def _eval_kwargs(args) -> dict:
    eval_options = {"rel_level": args.rel_level}
    if args.order:
        eval_options["order"] = args.order
    return {"eval_options": eval_options}


def _onerel_kwargs(args) -> dict:
    return dict(
        B=args.B,
        alpha=args.alpha,
        replacement=args.replacement,
        gains=args.gains,
        topic_resamples=args.topic_resamples,
        **_subset_kwargs(args),
        **_eval_kwargs(args),
    )


def _incomplete_kwargs(args) -> dict:
    return dict(
        B=args.B,
        alpha=args.alpha,
        reductions=args.reductions,
        rates=args.rates,
        topic_resamples=args.topic_resamples,
        **_eval_kwargs(args),
    )


def _qa_kwargs(args) -> dict:
    qa = {
        "rel_level": args.rel_level,
        "answer_order": args.answer_order,
        "gold_format": args.gold_format,
        "run_format": args.run_format,
    }
    if args.normalise:
        qa["normalise"] = args.normalise
    return dict(
        second_size=args.second_size,
        list_task=args.list_task,
        sign_alphas=args.sign_alphas,
        gains=args.gains,
        qa_options=qa,
        topic_resamples=args.topic_resamples,
        **_subset_kwargs(args),
    )


def _predictive_kwargs(args) -> dict:
    return dict(
        trials=args.trials,
        sizes=args.sizes,
        variant=args.variant,
        topic_resamples=args.topic_resamples,
        **_eval_kwargs(args),
    )


def _topicset_kwargs(args) -> dict:
    return dict(
        measures=opt.split_measures(args.measure),
        min_diff=args.min_diff,
        alpha=args.alpha,
        beta=args.beta,
        systems=args.systems,
        ci_width=args.ci_width,
        trials=args.trials,
        **_eval_kwargs(args),
    )


def _pooling_kwargs(args) -> dict:
    measures = opt.split_measures(args.measures)
    return dict(
        budgets=args.budgets,
        strategies=[t for t in args.strategies.replace(" ", ",").split(",") if t],
        depth=args.depth,
        topic_resamples=args.topic_resamples,
        **({"measures": measures} if measures else {}),
        **_eval_kwargs(args),
    )


def _reusability_kwargs(args) -> dict:
    kwargs = dict(depth=args.depth, groups=args.groups, topic_resamples=args.topic_resamples)
    if args.measures:
        kwargs["measures"] = opt.split_measures(args.measures)
    return {**kwargs, **_eval_kwargs(args)}


STUDY_KWARGS = {
    "onerel": _onerel_kwargs,
    "incomplete": _incomplete_kwargs,
    "qa": _qa_kwargs,
    "predictive": _predictive_kwargs,
    "topicset": _topicset_kwargs,
    "pooling": _pooling_kwargs,
    "reusability": _reusability_kwargs,
}


def study_options(args) -> dict:
    """Keyword arguments of the study function from the parsed options."""
    options = {"seed": args.seed, "report": args.report, "progress": _progress(args)}
    if "study_selection" in vars(args):  # a study of selected systems
        options.update(_selection(args))
    options.update(STUDY_KWARGS[args.study](args))
    return options


def _notes(result) -> None:
    for note in result.manifest.get("notes", []):
        print(f"irgauge: note: {note}", file=sys.stderr)


def run(args) -> int:
    options = study_options(args)
    if args.collection or args.collections:
        return _run_on_collections(args, options)
    from irgauge.cli._meta_common import note_inputs
    from irgauge.studies import study_function

    scores = getattr(args, "scores", None)
    note_inputs(args, [opt.named_file(s)[1] for s in scores] if scores else [args.qrels])
    if scores:
        options["matrices"] = _score_matrices(args)
        result = study_function(args.study)(None, None, args.out, **options)
    else:
        if not args.qrels or not args.runs:
            from irgauge.errors import InputError

            what = (
                "GOLD and at least one answer file"
                if args.study == "qa"
                else "QRELS and at least one RUN"
            )
            raise InputError(f"study {args.study} needs {what} (or --collection)")
        gold, runs = _qa_inputs(args) if args.study == "qa" else (args.qrels, args.runs)
        result = study_function(args.study)(gold, runs, args.out, **options)
    _notes(result)
    if result.report:
        print(f"report: {result.report}")
    print(result.text(), end="")
    return 0


DERIVED_DIR = "qa-derived-data"


def _qa_inputs(args):
    """(gold, runs) of the qa study: as given, or derived from ad hoc qrels and runs with
    --derive-qa; ad hoc qrels without it are refused with a pointer to the option."""
    return _qa_pair(args, args.qrels, args.runs, Path(args.out))


def _qa_pair(args, gold, runs, out: Path):
    """(gold, runs) of one collection of the qa study: derived under ``out`` with
    --derive-qa, refused when they look like ad hoc qrels without it."""
    from irgauge.studies.qa import qa_collection_from_adhoc

    if args.derive_qa:
        made = qa_collection_from_adhoc(gold, runs, out / DERIVED_DIR)
        return made["gold"], made["runs"]
    if _looks_like_qrels(gold):
        from irgauge.errors import InputError

        raise InputError(
            f"{gold} looks like ad hoc TREC qrels (topic, iteration, document, level), "
            f"not QA gold answers: pass --derive-qa to derive QA-shaped data from qrels and "
            f"runs (a weak stand-in for real QA data)"
        )
    return gold, runs


def _looks_like_qrels(path) -> bool:
    """True when the first line of ``path`` reads as a TREC qrels line: four fields, the
    last an integer level."""
    try:
        with open(path, "rb") as handle:
            fields = handle.readline().split()
    except OSError:
        return False
    return len(fields) == 4 and fields[3].lstrip(b"-").isdigit()


def _score_matrices(args):
    """--scores (studies predictive and topicset): the score files' matrices, combined."""
    from irgauge.errors import InputError
    from irgauge.scores import combine, read_scores

    if args.qrels or args.runs:
        raise InputError("give --scores or QRELS RUN..., not both")
    parts = []
    for spec in args.scores:
        name, path = opt.named_file(spec)
        parts.append(read_scores(path, name=name))
    return combine(parts)


def _collections(args) -> dict:
    """``{name: (qrels, runs)}`` from --collections (first) and --collection."""
    from irgauge.errors import InputError
    from irgauge.studies import collections as many

    if args.qrels or args.runs or getattr(args, "scores", None):
        raise InputError(
            "give the collections with --collection/--collections, or one "
            "collection as QRELS RUN..., not both"
        )
    collections = {}
    if args.collections:
        collections.update(many.read_collections_toml(args.collections))
    for spec in args.collection or []:
        name, value = many.parse_collection(spec)
        if name in collections:
            raise InputError(f"collection {name!r} given twice")
        collections[name] = value
    return collections


def _run_on_collections(args, options: dict) -> int:
    from irgauge.studies import collections as many

    collections = _collections(args)
    if args.study == "qa":
        collections = {
            name: _qa_pair(args, qrels, runs, Path(args.out) / name)
            for name, (qrels, runs) in collections.items()
        }
    results, comparison = many.run_on_collections(args.study, collections, args.out, **options)
    for result in results.values():
        _notes(result)
        if result.report:
            print(f"report ({result.directory.parent.name}): {result.report}")
    if options["report"]:
        from irgauge.report.html import write_report

        print(f"report: {write_report(args.out)}")
    for result in list(results.values()) + [comparison]:
        print(result.text(), end="")
    return 0
