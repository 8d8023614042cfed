"""The options of ``irgauge study NAME``: each study's options are adders, each adding its
arguments to the study's parser and returning the builder of its keywords to the study
function (``Keywords``); ``study_options`` builds them all from the parsed options."""

from __future__ import annotations

import argparse
from typing import Any, Callable, Dict, List, Optional, Tuple

from irgauge import _checks
from irgauge.cli import _options as opt
from irgauge.cli import answer_options
from irgauge.cli import option_spellings
from irgauge.cli import output_options
from irgauge.errors import InputError


# parsed options -> the keywords they give the study function
Keywords = Callable[[argparse.Namespace], Dict[str, Any]]
# adds its options to a study's parser, returns the builder of their keywords
Adder = Callable[[argparse.ArgumentParser], Keywords]


def _none(args: argparse.Namespace) -> Dict[str, Any]:
    """The keywords of an option read by the command itself, or by :func:`study_options`
    for every study (--seed, --report), not passed on by its own adder."""
    return {}


def _gain_list(text: str) -> List[str]:
    try:
        variants = _checks.items(text, None, "gains", spaces=False)
    except InputError as err:  # argparse's words for the others: argument --gains: ...
        raise argparse.ArgumentTypeError(str(err)) from None
    for variant in variants:  # each refused here, naming --gains, as eval's --gains
        opt.gains(variant)
    return variants


def inputs(gold: bool = False, runs: str = "run files") -> Adder:
    """QRELS (the qa study's GOLD), RUN... and --out, read by the command (cmd_study.run)."""

    def add(p: argparse.ArgumentParser) -> Keywords:
        p.add_argument(
            "qrels",
            nargs="?",
            metavar="GOLD" if gold else "QRELS",
            help="answer gold file" if gold else "qrels file",
        )
        p.add_argument("runs", nargs="*", metavar="RUN", help=runs)
        output_options.add_out(p)
        return _none

    return add


def seed(of: str = "") -> Adder:
    def add(p: argparse.ArgumentParser) -> Keywords:
        opt.add_seed(p, of=of)
        return _none

    return add


def shared(add_option: Callable[..., None], *dests: str, **kwargs: Any) -> Adder:
    """An option that other commands take too, added by its adder of ``_options`` (with
    ``kwargs``), its ``dests`` passed to the study function under their names."""

    def add(p: argparse.ArgumentParser) -> Keywords:
        add_option(p, **kwargs)
        return lambda args: {dest: getattr(args, dest) for dest in dests}

    return add


def report(p: argparse.ArgumentParser) -> Keywords:
    p.add_argument("--report", action="store_true", help="also write DIR/report.html")
    return _none


def quiet(p: argparse.ArgumentParser) -> Keywords:
    opt.add_quiet(p)  # read by _progress
    return _none


def common_options(
    p: argparse.ArgumentParser,
    study: str,
    top_k: Optional[int] = None,
    top_fraction: Optional[float] = None,
    by: Optional[str] = "AP",
) -> None:
    """Inputs, output folder, collections, system filter, seed, report and --quiet."""
    inputs(gold=study == "qa", runs="answer files" if study == "qa" else "run files")(p)
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
    seed()(p)
    report(p)
    quiet(p)
    opt.add_engine(p, "repetitions, reductions, topic resamples and their chunks")


def eval_options(p: argparse.ArgumentParser, complete: bool = False) -> Keywords:
    g = p.add_argument_group("evaluation conventions")
    opt.add_order(g)
    opt.add_rel_level(g)
    opt.add_empty_topics(g)
    if complete:
        opt.add_complete(g)
    return _eval_kwargs


def eval_options_complete(p: argparse.ArgumentParser) -> Keywords:
    """The evaluation conventions and -c/--complete, for a study that compares runs topic
    by topic on the qrels' topics (a run missing one is refused without it)."""
    return eval_options(p, complete=True)


def qa_eval_options(p: argparse.ArgumentParser) -> Keywords:
    g = p.add_argument_group("evaluation conventions")
    # --normalise None: the readers' exact, recorded only when given
    answer_options.add_answer_inputs(g, trec=True, normalise=None)
    opt.add_rel_level(g)
    return _qa_kwargs


def bootstrap(p: argparse.ArgumentParser) -> Keywords:
    opt.add_samples(p, old=("--B",))
    opt.add_alpha(p)
    return lambda args: {"samples": args.samples, "alpha": args.alpha}


def subsets(p: argparse.ArgumentParser) -> Keywords:
    opt.add_trials(p, detail=" of each swap / stability repetition")
    p.add_argument(
        "--repetitions",
        type=opt.positive_int,
        default=5,
        help="independent repetitions of every random experiment (Monte Carlo error)",
    )
    opt.add_subset_size(p, detail=" (the papers' c)")
    opt.add_swap_mode(p)
    return _subset_kwargs


def reduced_to(p: argparse.ArgumentParser) -> Keywords:
    """--rates or --depth (one of them): the shares of judgments kept at random, or the
    pool depths (as irgauge incomplete's)."""
    how = p.add_mutually_exclusive_group()
    opt.add_rates(how)
    opt.add_depths(how)
    return lambda args: {"rates": _rates(args.rates), "depths": args.depth}


def _rates(given: Optional[str]) -> List[float]:
    from irgauge.collection.reduce import parse_rates  # (None: its default rates)

    return parse_rates(given)


def topic_resamples(p: argparse.ArgumentParser) -> Keywords:
    opt.add_topic_resamples(p)
    return lambda args: {"topic_resamples": args.topic_resamples}


def topicset_resamples(p: argparse.ArgumentParser) -> Keywords:
    # its own bootstrap, once spelled --trials, which the other commands spell for draws:
    # retired, so that --trials has one meaning
    opt.add_topic_resamples(
        p, retired=("--trials",), detail="the uncertainty of V_E and of the topics needed"
    )
    return lambda args: {"topic_resamples": args.topic_resamples}


def own(
    *flags: str,
    keyword: Optional[str] = None,
    value: Callable[[Any], Any] = lambda given: given,
    old: Tuple[str, ...] = (),
    retired: Tuple[str, ...] = (),
    **kwargs: Any,
) -> Adder:
    """A study's own option, passed to the study function as ``keyword`` (default: its
    dest) with ``value`` of what was given; ``old``: its deprecated spellings, ``retired``:
    its refused ones (``option_spellings.add_renamed``)."""

    def add(p: argparse.ArgumentParser) -> Keywords:
        if old or retired:
            dest = option_spellings.add_renamed(p, flags, old, retired, **kwargs).dest
        else:
            dest = p.add_argument(*flags, **kwargs).dest
        return lambda args: {keyword or dest: value(getattr(args, dest))}

    return add


def gains(default: List[str], detail: str) -> Adder:
    """``--gains`` of a study: the gain-value variants it compares (eval's --gains is one)."""

    def add(p: argparse.ArgumentParser) -> Keywords:
        words = ",".join(default)
        action = p.add_argument(
            "--gains",
            type=_gain_list,
            default=default,
            metavar="S:A:B,...",
            help=f"gain-value variants{detail}, comma-separated, each a gain per level "
            f"(default: {words})",
        )
        option_spellings.stated(action, detail=detail, default=words)
        return lambda args: {"gains": args.gains}

    return add


def read_by_command(*flags: str, **kwargs: Any) -> Adder:
    """An option the command reads itself (the inputs), not a keyword of the study function."""

    def add(p: argparse.ArgumentParser) -> Keywords:
        p.add_argument(*flags, **kwargs)
        return _none

    return add


scores = read_by_command(  # read by _study_inputs.score_matrices
    "--scores",
    nargs="+",
    metavar="[NAME=]FILE",
    help="score files (any measures) in place of qrels and runs",
)


def measures(default: str, detail: str = "", blank_is_default: bool = False) -> Adder:
    """-m, passed as ``measures`` when given (else the study's default); a blank -m is
    refused by the study ("no measures given"), or with ``blank_is_default`` (pooling's
    rule) means the default."""

    def add(p: argparse.ArgumentParser) -> Keywords:
        opt.add_measures(p, default, detail)
        return lambda args: _measures_kwargs(args, blank_is_default)

    return add


def topicset_measures(p: argparse.ArgumentParser) -> Keywords:
    opt.add_measures(
        p,
        "AP, Q-measure, nDCG@10, nERR@10, P@10",
        " to evaluate, or with --scores to use",
        dest="measure",
    )
    return lambda args: {"measures": opt.split_measures(args.measure)}


def one_collection(p: argparse.ArgumentParser) -> Keywords:
    # one collection at a time (a study whose inputs belong to one collection)
    p.set_defaults(collection=None, collections=None)
    return _none


def study_options(args: argparse.Namespace) -> Dict[str, Any]:
    """Keyword arguments of the study function from the parsed options."""
    options = {"seed": args.seed, "report": args.report, "progress": _progress(args)}
    if "study_selection" in vars(args):  # a study of selected systems
        options.update(_selection(args))
    for keywords in args.study_keywords:
        options.update(keywords(args))
    return options


def _progress(args: argparse.Namespace) -> Optional[Callable[[str], object]]:
    """The studies' ``label -> callback`` factory: bars on a terminal, unless --quiet."""
    from irgauge.cli._bars import bars

    return bars(f"{args.study}: ", args.quiet)


def _selection(args: argparse.Namespace) -> Dict[str, Any]:
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


def _subset_kwargs(args: argparse.Namespace) -> Dict[str, Any]:
    return dict(
        trials=args.trials,
        repetitions=args.repetitions,
        subset_size=args.subset_size,
        swap_mode=args.swap_mode,
    )


def _qa_kwargs(args: argparse.Namespace) -> Dict[str, Any]:
    qa = {
        "rel_level": args.rel_level,
        "answer_order": args.answer_order,
        "gold_format": args.gold_format,
        "run_format": args.run_format,
    }
    if args.normalise is not None:  # '' is refused by the study, as by qa eval
        qa["normalise"] = args.normalise
    return {"qa_options": qa}


def _eval_kwargs(args: argparse.Namespace) -> Dict[str, Any]:
    eval_options = {"rel_level": args.rel_level}
    if args.order:
        eval_options["order"] = args.order
    if getattr(args, "empty_topics", None):
        eval_options["empty_topics"] = args.empty_topics
    if getattr(args, "complete", False):  # declared by eval_options_complete
        eval_options["complete"] = True
    return {"eval_options": eval_options}


def _measures_kwargs(args: argparse.Namespace, blank_is_default: bool) -> Dict[str, Any]:
    measures = opt.split_measures(args.measures)
    if measures is None or (blank_is_default and not measures):
        return {}
    return {"measures": measures}
