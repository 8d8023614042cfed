"""``irgauge eval QRELS RUN [RUN ...]`` (or ``irgauge eval --prels PRELS RUN [RUN ...]``):
score runs with any measures."""

from __future__ import annotations

import argparse
import sys

from irgauge.errors import InputError
from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import output_options
from irgauge.cli._bars import bar


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "eval",
        help="evaluate runs against qrels",
        description="Evaluate one or more runs (TREC runs, plain or .gz, or NTCIREVAL-style "
        "ranked lists) against qrels (TREC or NTCIR). Every output records the "
        "conventions used.",
        formatter_class=HelpFormatter,
    )
    parser.add_argument(
        "qrels",
        nargs="?",  # with --prels every argument is a run; checked in run()
        metavar="QRELS",
        help="qrels file (TREC 'qid iter docno rel', NTCIR 'qid docno L2' or S/A/B); "
        "with --prels, the first run",
    )
    parser.add_argument("runs", nargs="*", metavar="RUN", help="run files")
    parser.add_argument(
        "--prels",
        default=None,
        metavar="PRELS",
        help="judgments of a sample, each with its inclusion probability ('topic docno "
        "level inclusion', or the Million Query track's 'topic docno level method "
        "inclusion'), in place of QRELS: statAP, statP@k, statR and infAP estimate from "
        "them; every argument is then a run",
    )
    opt.add_measures(
        parser,
        "a standard set; see `irgauge measures`",
        ", each NAME[(param=value,...)][@cutoff]",
    )
    add_convention_options(parser)
    parser.add_argument(
        "--like",
        choices=("trec_eval",),
        default=None,
        help="set every convention whose default differs from trec_eval's to trec_eval's "
        "(--empty-topics zero, --negative unjudged), for trec_eval's numbers; an option "
        "given as well wins",
    )
    opt.add_per_topic(parser)
    opt.add_quiet(parser)
    output_options.add_text_output(
        parser,
        ("table", "tsv", "json", "trec"),
        format_detail=": tsv is long and tidy: run, measure, topic, value (topic 'all' "
        "for aggregates), the format the meta-evaluation reads",
        digits_detail=" in table and trec output",
    )
    add_memory(parser)
    opt.add_engine(
        parser,
        "runs, and spans of whole topics of big run files,",
        steps=False,
        aliases=("--threads",),
        runs_on="run on N threads, or N worker processes for a run file of 64 MB or more",
    )
    parser.set_defaults(func=run, input_name=input_name)


def input_name(args, dest: str) -> str:
    """What the argument ``dest`` is, as the usage names it: with --prels, the first
    positional (QRELS otherwise) is a RUN."""
    if dest == "runs" or (dest == "qrels" and getattr(args, "prels", None) is not None):
        return "RUN"
    return dest.upper()


def add_memory(parser: argparse.ArgumentParser) -> None:
    parser.add_argument(
        "--memory",
        type=opt.memory_size,
        default=None,
        metavar="SIZE",
        help="memory budget of the runs' data, e.g. 512M or 4G: run files are read and "
        "scored in parts of whole topics that fit it, with the same results (default: 1G, "
        "or a quarter of the available memory if less; the qrels come on top)",
    )


def add_convention_options(parser: argparse.ArgumentParser, skip=()) -> None:
    """Options that fix the evaluation conventions (shared with other commands); ``skip``:
    the dests of those a command declares its own way (each option is declared once)."""
    if "order" not in skip:
        opt.add_order(parser)
    opt.add_rel_level(parser)
    opt.add_gains(parser)
    parser.add_argument(
        "-j",
        "--judged-only",
        action="store_true",
        help="score every measure on condensed lists (unjudged documents "
        "removed): AP', Q', nDCG', ...",
    )
    if "complete" not in skip:
        opt.add_complete(parser)
    opt.add_empty_topics(parser, default="skip")
    parser.add_argument(
        "--negative",
        choices=("nonrelevant", "unjudged"),
        default="nonrelevant",
        help="what a negative qrels level means: judged nonrelevant, or in "
        "the pool but unjudged (trec_eval's reading)",
    )
    parser.add_argument(
        "-M",
        "--max-docs",
        type=opt.count,
        default=None,
        metavar="N",
        help="evaluate only the first N documents of each topic, in "
        "evaluation order (trec_eval -M)",
    )
    parser.add_argument(
        "--aggregate",
        choices=("mean", "gmean"),
        default="mean",
        help="aggregate over topics: arithmetic or geometric mean (GMAP-style); counts are summed",
    )


def convention_kwargs(args) -> dict:
    return dict(
        order=getattr(args, "order", None),
        rel_level=args.rel_level,
        gains=args.gains,
        judged_only=args.judged_only,
        complete=args.complete,
        empty_topics=args.empty_topics,
        aggregate=args.aggregate,
        max_docs=args.max_docs,
        negative=args.negative,
    )


def run(args) -> int:
    from irgauge.evaluation import evaluate

    output_options.shown_digits(args)  # a refusal comes before the work
    qrels, runs = args.qrels, args.runs
    if args.prels is not None:
        qrels, runs = None, [args.qrels, *args.runs] if args.qrels is not None else []
    if not runs:
        missing = "RUN" if qrels is not None or args.prels is not None else "QRELS, RUN"
        raise InputError(f"the following arguments are required: {missing}")
    like = apply_like(args)
    result = evaluate(
        qrels,
        runs,
        opt.split_measures(args.measures),
        prels=args.prels,
        jobs=args.jobs,
        memory=args.memory,
        engine=args.engine,
        scheduler=args.scheduler,
        progress=bar("reading runs", args.quiet),
        **convention_kwargs(args),
    )
    if like:  # first in the header: the conventions below are the peer's
        result.metadata = {"like": like, **result.metadata}
    write_result(result, args)
    return 0


def apply_like(args):
    """Set the conventions of ``--like PEER`` that were not given as options; what it did,
    for the header ("trec_eval: --empty-topics zero, --negative unjudged"), or None."""
    if not args.like:
        return None
    from irgauge.evaluation.peers import LIKE, OPTIONS

    done = []
    for dest, value in LIKE[args.like].items():
        given = args.given_options.get(dest)
        if given is None:
            setattr(args, dest, value)
            done.append(f"{OPTIONS[dest]} {value}")
        else:
            done.append(f"{given} {getattr(args, dest)} (given)")
    return f"{args.like}: {', '.join(done)}"


def write_result(result, args) -> None:
    """Print or save an EvalResult in the chosen format, block by block (its text can be
    several times the size of its values), and note what was not averaged."""
    from irgauge.evaluation.rendering import evaluation_blocks

    blocks = evaluation_blocks(
        result, args.format, args.per_topic, output_options.shown_digits(args)
    )
    header = output_options.without_header(next(blocks), args)
    _report_skipped(result.metadata)
    if args.output:
        from irgauge.io.atomic import atomic_file
        from irgauge.io.staging import output_file

        with atomic_file(output_file(args.output)) as handle:
            handle.write(header)
            handle.writelines(blocks)
    else:
        sys.stdout.write(header)
        sys.stdout.writelines(blocks)


def _report_skipped(metadata: dict) -> None:
    """Tell on stderr what was not averaged, so that nothing is dropped silently."""
    from irgauge.evaluation.engine import none_averaged
    from irgauge.evaluation.peers import peer_notes
    from irgauge.io.words import counted

    notes = peer_notes(metadata)  # each names the option that gives trec_eval's number
    for run, topics in metadata.get("topics_missing_from_run", {}).items():
        notes.append(
            f"run {run}: {counted(len(topics), 'qrels topic')} not answered, left out "
            "of the mean (use --complete to score them 0)"
        )
    for run, topics in metadata.get("run_topics_not_in_qrels", {}).items():
        notes.append(
            f"run {run}: {counted(len(topics), 'topic')} not in the qrels, not scored: "
            + ", ".join(topics[:5])
            + (" ..." if len(topics) > 5 else "")
        )
    averaged = metadata.get("topics_averaged")
    notes += [n for n in metadata.get("notes", []) if "no topic averaged" not in n]
    for run, count in (averaged if isinstance(averaged, dict) else {}).items():
        if count == 0:  # its means are NaN: one note for all of them, with the reason
            notes.append(f"run {run}: its means are NaN: {none_averaged(run, metadata)}")
    for note in notes:
        print(f"irgauge: note: {note}", file=sys.stderr)
