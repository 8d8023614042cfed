"""``irgauge repro``: did a reproduction or replication reproduce the original runs?"""

from __future__ import annotations

import sys

from irgauge.cli import HelpFormatter
from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt
from irgauge.cli import output_options
from irgauge.io.words import counted


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "repro",
        help="reproducibility and replicability measures, with intervals (Breuer et al.)",
        description="Did the repeated runs reproduce the original ones? The measures of "
        "Breuer et al. (SIGIR 2020): KTU and RBO of the top-k documents and RMSE of the "
        "scores (reproduction only), ARP, effect ratio ER, Delta RI and a t-test (paired "
        "for a reproduction, Welch's for a replication), each with a percentile bootstrap "
        "interval over topics. The same qrels on both sides is a reproduction; "
        "--repeated-qrels makes it a replication. Output columns: run, measure, "
        "statistic, cutoff, value, low, high (and first, with several --repeated, "
        "repeated: the pair of each row block).",
        formatter_class=HelpFormatter,
    )
    p.add_argument("qrels", metavar="QRELS", help="the original collection's qrels")
    p.add_argument(
        "--original",
        nargs="+",
        required=True,
        metavar="RUN",
        help="the original baseline run, and the advanced run if any",
    )
    p.add_argument(
        "--repeated",
        nargs="+",
        action="append",
        required=True,
        metavar="RUN",
        help="the repeated baseline (and advanced) run; repeat for several repetitions, "
        "one row block each",
    )
    p.add_argument(
        "--repeated-qrels",
        metavar="QRELS",
        help="qrels of another collection the repeated runs ran on: a replication",
    )
    opt.add_measures(p, "AP and nDCG@10")
    p.add_argument(
        "--cutoffs",
        type=opt.list_of(opt.count),
        help="cutoffs k of the document-order statistics (and of RMSE's curve), e.g. "
        "5,10,20,50,100,1000 (default 1000)",
    )
    p.add_argument(
        "--rbo-p",
        type=opt.number(0.0, 1.0, True, True, "a persistence"),
        help="RBO's persistence p (default 0.95)",
    )
    opt.add_samples(p)
    opt.add_confidence(p, " of the bootstrap intervals")
    opt.add_empty_topics(p, default="skip")
    common.add_output_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.errors import InputError
    from irgauge.studies.reproduction import reproducibility

    paths = [args.qrels, args.repeated_qrels] + args.original + sum(args.repeated, [])
    common.note_inputs(args, paths)
    for flag, runs in [("--original", args.original)] + [("--repeated", g) for g in args.repeated]:
        if len(runs) > 2:
            raise InputError(
                f"{flag} takes a baseline run and at most an advanced run; "
                f"got {counted(len(runs), 'run')}"
            )
    common.check_outputs(args)
    result = reproducibility(
        args.qrels,
        args.original,
        args.repeated if len(args.repeated) > 1 else args.repeated[0],
        opt.split_measures(args.measures),  # -m '': refused, as eval refuses it
        repeated_qrels=args.repeated_qrels,
        cutoffs=args.cutoffs,
        rbo_p=args.rbo_p,
        samples=args.samples,
        seed=args.seed,
        confidence=args.confidence,
        empty_topics=args.empty_topics,
    )
    _emit(result, args)
    if args.figures:
        from irgauge.report.repro_figures import repro_figures

        repro_figures(result.result, common.figures_folder(args), result.title())
    return 0


def _emit(result, args) -> None:
    """The table with the study's metadata (the sentences among it), in the chosen format;
    the notes on non-finite values after it, on stderr."""
    from irgauge.io.tables import render

    metadata = result.metadata()
    notes = list(metadata.get("notes", [])) + result.notes
    if notes:
        metadata["notes"] = notes
    text = render(result.columns(), args.format, metadata, people=True)
    if args.format == "table" and result.conclusions:
        # the sentences in full: the header summarises long values
        text += "".join(f"# {line}\n" for line in ["conclusions:"] + result.conclusions)
    common.write_output(output_options.without_header(text, args), args)
    for note in notes:
        sys.stderr.write(f"irgauge: note: {note}\n")
