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
from typing import Any, Callable, NamedTuple, Optional

from irgauge.citations import cite
from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt

Keywords = Callable[[Any], dict]  # parsed options -> keywords of the study function
Adder = Callable[[Any], Keywords]  # adds its options to a parser, returns their Keywords


def _none(args) -> dict:
    """The keywords of an option read by the command itself, or by :func:`study_options`
    for every study (--seed, --report), not passed on by its own adder."""
    return {}


def _gain_list(text: str):
    variants = [t.strip() for t in text.split(",") if t.strip()]
    for variant in variants:  # each refused here, naming --gains, as eval's --gains
        opt.gains(variant)
    return variants


def _inputs(gold: bool = False, runs: str = "run files") -> Adder:
    """QRELS (the qa study's GOLD), RUN... and --out, read by :func:`run`."""

    def add(p) -> Keywords:
        p.add_argument(
            "qrels",
            nargs="?",
            metavar="GOLD" if gold else "QRELS",
            help="answer gold file" if gold else "qrels file",
        )
        p.add_argument("runs", nargs="*", metavar="RUN", help=runs)
        p.add_argument("--out", required=True, metavar="DIR", help="output folder")
        return _none

    return add


def _seed(help: str) -> Adder:
    def add(p) -> Keywords:
        opt.add_seed(p, help)
        return _none

    return add


def _report(p) -> Keywords:
    p.add_argument("--report", action="store_true", help="also write DIR/report.html")
    return _none


def _quiet(p) -> Keywords:
    opt.add_quiet(p)  # read by _progress
    return _none


def _common_options(p, study: str, top_k=None, top_fraction=None, by="AP") -> None:
    """Inputs, output folder, collections, system filter, seed, report and --quiet."""
    _inputs(gold=study == "qa", runs="answer files" if study == "qa" else "run files")(p)
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
    _seed("random seed (default: a fresh one, recorded in the manifest)")(p)
    _report(p)
    _quiet(p)
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


def _eval_options(p, complete: bool = False) -> Keywords:
    g = p.add_argument_group("evaluation conventions")
    g.add_argument(
        "--order",
        choices=("score", "file"),
        default=None,
        help="document order (default: what each run's format implies)",
    )
    _rel_level(g)
    opt.add_empty_topics(g)
    if complete:
        opt.add_complete(g)
    return _eval_kwargs


def _eval_options_complete(p) -> Keywords:
    """The evaluation conventions and -c/--complete, for a study that compares runs topic
    by topic on the qrels' topics (a run missing one is refused without it)."""
    return _eval_options(p, complete=True)


def _qa_eval_options(p) -> Keywords:
    g = p.add_argument_group("evaluation conventions")
    _answer_options(g)
    _rel_level(g)
    return _qa_kwargs


def _rel_level(g) -> None:
    g.add_argument(
        "-l",
        "--rel-level",
        type=opt.rel_level,
        default=1,
        help="lowest relevance level counted as relevant",
    )


def _bootstrap(p) -> Keywords:
    opt.add_renamed(
        p, ("-B", "--samples"), ("--B",), type=opt.draws, default=1000, help="bootstrap samples"
    )
    p.add_argument("--alpha", type=opt.alpha, default=0.05, help="significance level")
    return lambda args: {"samples": args.samples, "alpha": args.alpha}


def _subsets(p) -> Keywords:
    p.add_argument(
        "--trials",
        type=opt.draws,
        default=1000,
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
    return _subset_kwargs


def _reduced_to(p) -> Keywords:
    """--rates or --depth (one of them): the shares of judgments kept at random, or the
    pool depths (as irgauge incomplete's)."""
    how = p.add_mutually_exclusive_group()
    how.add_argument(
        "--rates",
        type=opt.list_of(opt.number(0, 100, min_open=True, what="a percentage")),
        default=[90, 70, 50, 30, 10],
        metavar="J,...",
        help="shares of judgments kept (%%)",
    )
    opt.add_depths(how)
    return lambda args: {"rates": args.rates, "depths": args.depth}


def _topic_resamples(p) -> Keywords:
    opt.add_topic_resamples(p)
    return lambda args: {"topic_resamples": args.topic_resamples}


def _topicset_resamples(p) -> Keywords:
    # its own bootstrap, once spelled --trials, which the other commands spell for draws:
    # retired, so that --trials has one meaning
    opt.add_topic_resamples(
        p, retired=("--trials",), detail="the uncertainty of V_E and of the topics needed"
    )
    return lambda args: {"topic_resamples": args.topic_resamples}


def _own(
    *flags,
    keyword: Optional[str] = None,
    value: Callable[[Any], Any] = lambda given: given,
    old: tuple = (),
    retired: tuple = (),
    **kwargs,
) -> Adder:
    """A study's own option, passed to the study function as ``keyword`` (default: its
    dest) with ``value`` of what was given; ``old``: its deprecated spellings, ``retired``:
    its refused ones (``_options.add_renamed``)."""

    def add(p) -> Keywords:
        if old or retired:
            dest = opt.add_renamed(p, flags, old, retired, **kwargs).dest
        else:
            dest = p.add_argument(*flags, **kwargs).dest
        return lambda args: {keyword or dest: value(getattr(args, dest))}

    return add


def _gains(default, help: str) -> Adder:
    return _own("--gains", type=_gain_list, default=default, metavar="S:A:B,...", help=help)


def _read_by_command(*flags, **kwargs) -> Adder:
    """An option the command reads itself (the inputs), not a keyword of the study function."""

    def add(p) -> Keywords:
        p.add_argument(*flags, **kwargs)
        return _none

    return add


_scores = _read_by_command(  # read by _score_matrices
    "--scores",
    nargs="+",
    metavar="[NAME=]FILE",
    help="score files (any measures) in place of qrels and runs",
)


def _measures(help: str, blank_is_default: bool = False) -> Adder:
    """-m, passed as ``measures`` when given (else the study's default); a blank -m is
    refused by the study ("no measures given"), or with ``blank_is_default`` (pooling's
    rule) means the default."""

    def add(p) -> Keywords:
        opt.add_measures(p, help)
        return lambda args: _measures_kwargs(args, blank_is_default)

    return add


def _topicset_measures(p) -> Keywords:
    opt.add_measures(
        p,
        "measures to evaluate (default AP, Q-measure, nDCG@10, nERR@10, P@10); with "
        "--scores, the ones to use",
        dest="measure",
        metavar="M",
    )
    return lambda args: {"measures": opt.split_measures(args.measure)}


def _one_collection(p) -> Keywords:
    # one collection at a time (a study whose inputs belong to one collection)
    p.set_defaults(collection=None, collections=None)
    return _none


class Study(NamedTuple):
    """One study as the command offers it: its help, its options in --help order, each an
    adder that adds its arguments and returns the builder of its keywords to the study
    function, and, with ``common`` (the inputs, --collection(s), the system filter, --seed,
    --report, --quiet and the engine, see :func:`_common_options`) before them, its default
    system selection."""

    help: str
    options: tuple
    top_k: Optional[int] = None
    top_fraction: Optional[float] = None
    by: Optional[str] = "AP"
    common: bool = True


POOLING_STRATEGIES = ("depth", "fusion", "mtf", "bandit", "sample")  # collection.pooling's

STUDIES = {
    "onerel": Study(
        "metrics for finding one relevant document: P-plus, P-measure, O-measure, "
        "NWRR, RR (with AP, Q-measure): discriminative power, gain values, swap "
        "rates, stability, Kendall's tau; " + cite("onerel") + "; " + cite("pmeasure"),
        top_k=30,
        options=(
            _bootstrap,
            _subsets,
            _own(
                "--replacement",
                action="store_true",
                help="draw the two swap subsets with replacement (the poster's variant)",
            ),
            _gains(
                ["3:2:1", "10:5:1", "1:1:1", "0.3:0.2:0.1"],
                "gain-value variants (Table 4); '' for none",
            ),
            _topic_resamples,
            _eval_options,
        ),
    ),
    "incomplete": Study(
        "the bpref family and condensed-list metrics on full and reduced "
        "relevance data; " + cite("bpref"),
        top_k=30,
        options=(
            _bootstrap,
            _own(
                "--reductions",
                type=opt.positive_int,
                default=5,
                help="independent seeded reductions of the relevance data",
            ),
            _reduced_to,
            _topic_resamples,
            _eval_options,
        ),
    ),
    "qa": Study(
        "QA metrics RR, NQcorrect1/5, Q-measure gain variants (or the list task's "
        "F-measure): stability, swap rates, sensitivity, sign test; " + cite("qa"),
        by=None,
        options=(
            _subsets,
            _own(
                "--second-size",
                type=opt.positive_int,
                metavar="C2",
                default=50,
                help="c of the second swap experiment "
                "(skipped, with a message, without 2*C2 questions)",
            ),
            _own(
                "--list-task",
                action="store_true",
                help="the list task: instance F-measure of list answers",
            ),
            _gains(["1:1:1", "2:1.5:1", "3:2:1"], "Q-measure gain-value variants"),
            _own(
                "--sign-alphas",
                type=opt.list_of(opt.alpha),
                default=[0.01, 0.05],
                metavar="A,...",
                help="significance levels of the sign-test table",
            ),
            _read_by_command(
                "--derive-qa",
                action="store_true",
                help="GOLD and RUNs are ad hoc qrels and runs: derive QA-shaped data from "
                "them (relevant documents stand in for answers; a weak stand-in, labelled "
                "so in every output) under DIR/qa-derived-data",
            ),
            _topic_resamples,
            _qa_eval_options,
        ),
    ),
    "predictive": Study(
        "predictive power phi of P@10, RR, RBP (p=0.95), AP, nDCG (log2); " + cite("predictive"),
        top_fraction=0.75,
        options=(
            _scores,
            _own(
                "-P",
                "--halvings",
                retired=("--trials",),  # the other studies' --trials counts subset draws
                type=opt.draws,
                default=2000,
                help="random halvings of the topic set",
            ),
            _own(
                "-k",
                "--subset-size",
                "--subset-sizes",
                old=("--sizes",),
                dest="subset_sizes",
                type=opt.list_of(opt.positive_int),
                default=None,
                metavar="K,...",
                help="topic subset sizes k of the phi curve (default 5, 10, ..., n/2)",
            ),
            _own("--variant", choices=("a", "b"), default="b", help="Kendall's tau variant"),
            _topic_resamples,
            _eval_options,
        ),
    ),
    "topicset": Study(
        "topic set size design: the topics each measure needs (paired t-test, "
        "one-way ANOVA, confidence interval width) from its residual variance, with a "
        "bootstrap over topics; " + cite("topicset"),
        options=(
            _scores,
            _topicset_measures,
            _own(
                "--min-diff",
                type=opt.number(0.0, None, min_open=True, what="a difference > 0"),
                default=0.05,
                metavar="D",
                help="minimum difference D between two systems to detect",
            ),
            _own("--alpha", type=opt.alpha, default=0.05, help="significance level"),
            _own(
                "--beta",
                type=opt.number(0.0, 1.0, True, True, what="a type II error rate"),
                default=0.20,
                help="type II error rate: the power is 1 - beta",
            ),
            _own(
                "--systems",
                dest="anova_systems",  # M, as the results record it: systems= are names in Python
                type=opt.integer(2, opt.MAX_COUNT, what="a number of systems"),
                default=2,
                metavar="M",
                help="systems M compared by the one-way ANOVA design",
            ),
            _own(
                "--ci-width",
                type=opt.number(0.0, None, min_open=True, what="a width > 0"),
                default=0.10,
                metavar="W",
                help="width W of the confidence-interval design",
            ),
            _topicset_resamples,
            _eval_options,
        ),
    ),
    "pooling": Study(
        "pooling strategies (depth, fusion, mtf, bandit, sample) on budgets of "
        "judgments per topic: relevant documents found, Kendall's tau and tau_AP of the system "
        "ranking against the full judgments, the largest rank change and the RMSE of the means, "
        "each with its topic-sampling interval",
        options=(
            _own(
                "--budgets",
                type=opt.list_of(opt.count),
                default=[10, 20, 50, 100],
                metavar="N,...",
                help="judgments per topic (each at most the smallest pool)",
            ),
            _own(
                "--strategies",
                value=lambda given: [t for t in given.replace(" ", ",").split(",") if t],
                default=",".join(POOLING_STRATEGIES),
                metavar="S,...",
                help="pooling strategies (irgauge pool's)",
            ),
            _measures(
                "measures scored on the judgments made (default: AP and AP')",
                blank_is_default=True,
            ),
            _own(
                "--depth",
                type=opt.count,
                default=None,
                metavar="K",
                help="pool each run's top K (default: whole runs)",
            ),
            _topic_resamples,
            _eval_options_complete,
        ),
    ),
    "reusability": Study(
        "leave one group out of the depth-K pool: every run scored with the "
        "judgments the collection would lack without each group; Kendall's tau, tau_AP, rank "
        "drops and score changes per measure; " + cite("zobel1998") + "; " + cite("voorhees2018"),
        common=False,  # one collection at a time: the groups are the collection's
        options=(
            _one_collection,
            _inputs(runs="run files (the pooled runs)"),
            _own("--depth", type=opt.count, required=True, metavar="K", help="pool depth K (>= 1)"),
            _own(
                "--groups",
                metavar="FILE",
                default=None,
                help="TSV of run and group (a run not named is a group of its own; default: "
                "each run alone)",
            ),
            _measures(
                "measures (default AP, AP', bpref, infAP, Q-measure'; primed: condensed lists)"
            ),
            _seed("seed of the topic resamples (default: a fresh one, recorded)"),
            _topic_resamples,
            _report,
            _quiet,
            _eval_options_complete,
        ),
    ),
}
STUDY_HELP = {name: study.help for name, study in STUDIES.items()}


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "study",
        help=f"rerun a paper's experiment ({', '.join(STUDIES)})",
        description="Rerun one of the papers' experiments on your collection(s). "
        "'irgauge study NAME --help' lists each study's options.",
        formatter_class=HelpFormatter,
    )
    studies = p.add_subparsers(dest="study", metavar="NAME", required=True)
    for name, study in STUDIES.items():
        s = studies.add_parser(
            name, help=study.help, description=study.help, formatter_class=HelpFormatter
        )
        if study.common:
            _common_options(s, name, study.top_k, study.top_fraction, study.by)
        s.set_defaults(study_keywords=tuple(add(s) for add in study.options))
    p.set_defaults(func=run)


def _progress(args):
    """The studies' ``label -> callback`` factory: bars on a terminal, unless --quiet."""
    from irgauge.cli._bars import bars

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


def _qa_kwargs(args) -> dict:
    qa = {
        "rel_level": args.rel_level,
        "answer_order": args.answer_order,
        "gold_format": args.gold_format,
        "run_format": args.run_format,
    }
    if args.normalise:
        qa["normalise"] = args.normalise
    return {"qa_options": qa}


def _eval_kwargs(args) -> dict:
    eval_options = {"rel_level": args.rel_level}
    if args.order:
        eval_options["order"] = args.order
    if getattr(args, "empty_topics", None):
        eval_options["empty_topics"] = args.empty_topics
    if getattr(args, "complete", False):  # declared by _eval_options_complete
        eval_options["complete"] = True
    return {"eval_options": eval_options}


def _measures_kwargs(args, blank_is_default: bool) -> dict:
    measures = opt.split_measures(args.measures)
    if measures is None or (blank_is_default and not measures):
        return {}
    return {"measures": measures}


def study_options(args) -> dict:
    """Keyword arguments of the study function from the parsed options."""
    options = {"seed": args.seed, "report": args.report, "progress": _progress(args)}
    if "study_selection" in vars(args):  # a study of selected systems
        options.update(_selection(args))
    for keywords in args.study_keywords:
        options.update(keywords(args))
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
    print(_text(result), end="")
    return 0


def _text(result) -> str:
    """The study's text, its summary wrapped to the terminal."""
    from irgauge.studies._common import SUMMARY_WIDTH

    return result.text(opt.terminal_width(SUMMARY_WIDTH))


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
        print(_text(result), end="")
    return 0
