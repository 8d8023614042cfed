"""``irgauge study NAME QRELS RUN... --out DIR``: rerun one paper's experiment on a collection.

Each study has its own options (``irgauge study NAME --help``) with its paper's defaults.
Each writes tables (txt, csv, tex), figures (pdf, svg, png) and manifest.json to DIR/NAME,
and prints its tables and a summary in words; ``--report`` also writes DIR/report.html.
With ``--collection NAME=QRELS:RUNDIR`` (repeatable) or ``--collections FILE.toml`` the
study runs on every collection (DIR/NAME/<study>) and DIR/<study>-comparison holds the
side-by-side tables.

The studies and their options in --help order are the table ``STUDIES``; the options' adders
are :mod:`irgauge.cli._study_options`, the inputs the command reads itself
:mod:`irgauge.cli._study_inputs`.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, NamedTuple, Optional, Tuple

from irgauge import _checks
from irgauge.citations import cite
from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import answer_options
from irgauge.cli import output_options
from irgauge.cli import topic_design_options
from irgauge.cli import _study_options as adders
from irgauge.cli._study_inputs import collections_given, qa_inputs, qa_pair, score_matrices
from irgauge.cli._study_options import Adder, study_options

if TYPE_CHECKING:  # the studies load on use
    from irgauge.studies._common import StudyResult


class Study(NamedTuple):
    """One study as the command offers it: its help, its options in --help order, each an
    adder that adds its arguments and returns the builder of its keywords to the study
    function, and, with ``common`` (the inputs, --collection(s), the system filter, --seed,
    --report, --quiet and the engine, see :func:`irgauge.cli._study_options.common_options`)
    before them, its default system selection."""

    help: str
    options: Tuple[Adder, ...]
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
            adders.bootstrap,
            adders.subsets,
            adders.shared(opt.add_replacement, "replacement", detail=" (the poster's variant)"),
            adders.gains(["3:2:1", "10:5:1", "1:1:1", "0.3:0.2:0.1"], " of Table 4 ('' for none)"),
            adders.topic_resamples,
            adders.eval_options,
        ),
    ),
    "incomplete": Study(
        "the bpref family and condensed-list metrics on full and reduced "
        "relevance data; " + cite("bpref"),
        top_k=30,
        options=(
            adders.bootstrap,
            adders.own(
                "--reductions",
                type=opt.positive_int,
                default=5,
                help="independent seeded reductions of the relevance data",
            ),
            adders.reduced_to,
            adders.topic_resamples,
            adders.eval_options,
        ),
    ),
    "qa": Study(
        "QA metrics RR, NQcorrect1/5, Q-measure gain variants (or the list task's "
        "F-measure): stability, swap rates, sensitivity, sign test; " + cite("qa"),
        by=None,
        options=(
            adders.subsets,
            adders.own(
                "--second-size",
                type=opt.positive_int,
                metavar="C2",
                default=50,
                help="c of the second swap experiment "
                "(skipped, with a message, without 2*C2 questions)",
            ),
            adders.own(
                "--list-task",
                action="store_true",
                help="the list task: instance F-measure of list answers",
            ),
            adders.gains(["1:1:1", "2:1.5:1", "3:2:1"], " of the Q-measure"),
            adders.own(
                "--sign-alphas",
                type=opt.list_of(opt.alpha),
                default=[0.01, 0.05],
                metavar="A,...",
                help="significance levels of the sign-test table",
            ),
            adders.read_by_command(
                "--derive-qa",
                action="store_true",
                help="GOLD and RUNs are ad hoc qrels and runs: derive QA-shaped data from "
                "them (relevant documents stand in for answers; a weak stand-in, labelled "
                "so in every output) under DIR/qa-derived-data",
            ),
            adders.topic_resamples,
            adders.qa_eval_options,
        ),
    ),
    "predictive": Study(
        "predictive power phi of P@10, RR, RBP (p=0.95), AP, nDCG (log2); " + cite("predictive"),
        top_fraction=0.75,
        options=(
            adders.scores,
            # the other studies' --trials counts subset draws
            adders.shared(opt.add_halvings, "halvings", retired=("--trials",)),
            adders.shared(
                opt.add_subset_sizes,
                "subset_sizes",
                default="5, 10, ..., n/2",
                detail=" of the phi curve",
                old=("--sizes",),
            ),
            adders.shared(opt.add_variant, "variant"),
            adders.topic_resamples,
            adders.eval_options,
        ),
    ),
    "topicset": Study(
        "topic set size design: the topics each measure needs (paired t-test, "
        "one-way ANOVA, confidence interval width) from its residual variance, with a "
        "bootstrap over topics; " + cite("topicset"),
        options=(
            adders.scores,
            adders.topicset_measures,
            adders.shared(
                topic_design_options.add_topic_design,
                *("min_diff", "alpha", "beta", "anova_systems", "ci_width"),
                min_diff=0.05,
                ci_width=0.10,
            ),
            adders.topicset_resamples,
            adders.eval_options,
        ),
    ),
    "pooling": Study(
        "pooling strategies (depth, fusion, mtf, bandit, sample) on budgets of "
        "judgments per topic: relevant documents found, Kendall's tau and tau_AP of the system "
        "ranking against the full judgments, the largest rank change and the RMSE of the means, "
        "each with its topic-sampling interval",
        options=(
            adders.own(
                "--budgets",
                type=opt.list_of(opt.count),
                default=[10, 20, 50, 100],
                metavar="N,...",
                help="judgments per topic (each at most the smallest pool)",
            ),
            adders.own(
                "--strategies",
                value=lambda given: _checks.items(given, "--strategies", "strategies"),
                default=",".join(POOLING_STRATEGIES),
                metavar="S,...",
                help="pooling strategies (irgauge pool's)",
            ),
            adders.measures("AP and AP'", " scored on the judgments made", blank_is_default=True),
            adders.shared(opt.add_pool_depth, "depth", role="each run's top K pooled"),
            adders.topic_resamples,
            adders.eval_options_complete,
        ),
    ),
    "reusability": Study(
        "leave one group out of the depth-K pool: every run scored with the "
        "judgments the collection would lack without each group; Kendall's tau, tau_AP, rank "
        "drops and score changes per measure; " + cite("zobel1998") + "; " + cite("voorhees2018"),
        common=False,  # one collection at a time: the groups are the collection's
        options=(
            adders.one_collection,
            adders.inputs(runs="run files (the pooled runs)"),
            adders.shared(
                opt.add_pool_depth, "depth", required=True, role="each run's top K pooled"
            ),
            adders.own(
                "--groups",
                metavar="FILE",
                default=None,
                help="TSV of run and group (a run not named is a group of its own; default: "
                "each run alone)",
            ),
            adders.measures("AP, AP', bpref, infAP, Q-measure'", " (primed: on condensed lists)"),
            adders.seed(" of the topic resamples"),
            adders.topic_resamples,
            adders.report,
            adders.quiet,
            adders.eval_options_complete,
        ),
    ),
}


STUDY_HELP = {name: study.help for name, study in STUDIES.items()}


def register(subparsers: Any) -> None:
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
            adders.common_options(s, name, study.top_k, study.top_fraction, study.by)
        s.set_defaults(study_keywords=tuple(add(s) for add in study.options))
    p.set_defaults(func=run)


def _notes(result: StudyResult) -> None:
    for note in result.manifest.get("notes", []):
        print(f"irgauge: note: {note}", file=sys.stderr)


def run(args: argparse.Namespace) -> int:
    options = study_options(args)
    if args.collection or args.collections:
        return _run_on_collections(args, options)
    from irgauge.cli._meta_common import note_inputs
    from irgauge.studies import study_function

    scores = getattr(args, "scores", None)
    note_inputs(args, [answer_options.named_file(s)[1] for s in scores] if scores else [args.qrels])
    if scores:
        options["matrices"] = score_matrices(args)
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
        gold, runs = qa_inputs(args) if args.study == "qa" else (args.qrels, args.runs)
        result = study_function(args.study)(gold, runs, args.out, **options)
    _notes(result)
    if result.report:
        print(f"report: {result.report}")
    print(_text(result), end="")
    return 0


def _text(result: StudyResult) -> str:
    """The study's text, its summary wrapped to the terminal."""
    from irgauge.studies._common import SUMMARY_WIDTH

    return result.text(output_options.terminal_width(SUMMARY_WIDTH))


def _run_on_collections(args: argparse.Namespace, options: Dict[str, Any]) -> int:
    from irgauge.studies import collections as many

    collections = collections_given(args)
    if args.study == "qa":
        collections = {
            name: qa_pair(args, qrels, runs, Path(args.out) / name)
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
