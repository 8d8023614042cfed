"""``irgauge incomplete QRELS RUN... -m MEASURE...``: metrics under reduced relevance data,
on original and condensed lists (Sakai 2007, "Alternatives to bpref": mean score, Kendall's
tau, discriminative power)."""

from __future__ import annotations

import sys

from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import output_options


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "incomplete",
        help="how measures behave with incomplete judgments",
        formatter_class=HelpFormatter,
        description="For 100% and each rate j, reduce the qrels (as `irgauge reduce`), score "
        "every measure on the original and on condensed lists (AP vs AP', ...; the "
        "bpref family once) and report per measure and rate the mean score, "
        "Kendall's tau against the full-qrels ranking and discriminative power. With "
        "--depth, reduce instead to the depth-K pool of the runs (Sakai and Kando 2008).",
    )
    parser.add_argument("qrels", help="qrels file (TREC or NTCIR)")
    parser.add_argument("runs", nargs="+", metavar="RUN", help="run files (at least 2)")
    opt.add_measures(parser, "AP Q-measure nDCG bpref")
    how = parser.add_mutually_exclusive_group()
    opt.add_rates(how)
    opt.add_depths(how)
    _bootstrap_options(parser)
    conventions = parser.add_argument_group("evaluation conventions")
    opt.add_order(conventions)
    opt.add_rel_level(conventions)
    opt.add_gains(conventions)
    opt.add_empty_topics(conventions)
    output_options.add_text_output(parser, ("table", "tsv", "json"))
    output_options.add_out(
        parser,
        required=False,
        detail=": also write incomplete.tsv, incomplete.json, the three figures (PNG and SVG) "
        "and the reduced qrels with manifest.json there",
        default_words="none, nothing written",
    )
    opt.add_quiet(parser)
    opt.add_engine(parser, "the rates (each scored, then bootstrapped)")
    parser.set_defaults(func=run)


def _bootstrap_options(parser) -> None:
    """The reduction's seed and the discriminative power's bootstrap."""
    opt.add_seed(parser, of=" of the reduction (and of the bootstrap unless --bootstrap-seed)")
    opt.add_samples(parser)
    opt.add_alpha(parser)
    parser.add_argument(
        "--bootstrap-seed", type=opt.seed, default=None, help="seed of the bootstrap"
    )


def _measures(values):
    if not values:
        return ["AP", "Q-measure", "nDCG", "bpref"]
    return opt.split_measures(values)


def run(args) -> int:
    from irgauge.cli._bars import bar
    from irgauge.io.atomic import write_text
    from irgauge.errors import InputError
    from irgauge.collection.reduce import write_reduced
    from irgauge.studies.incomplete_result import incomplete_study
    from irgauge.io.tables import render

    output_options.shown_digits(args)  # a refusal comes before the work
    if len(args.runs) < 2:
        raise InputError("at least 2 runs are needed to rank systems")
    result = incomplete_study(
        args.qrels,
        args.runs,
        _measures(args.measures),
        args.rates if args.rates is not None else "90,70,50,30,10",
        args.seed,
        samples=args.samples,
        alpha=args.alpha,
        bootstrap_seed=args.bootstrap_seed,
        rel_level=args.rel_level,
        order=args.order,
        gains=args.gains,
        progress=bar("incomplete judgments", args.quiet),
        depths=args.depth,
        **({"empty_topics": args.empty_topics} if args.empty_topics else {}),
    )
    text = output_options.without_header(
        render(result.table, args.format, result.metadata, output_options.shown_digits(args)), args
    )
    if args.out:
        from irgauge.io.staging import output_folder
        from irgauge.report.incomplete_figures import incomplete_figures

        # staged with -o: every file is complete before any replaces what was there
        out = output_folder(args.out, last=("incomplete.json",), replace_any=False)
        for fmt, name in (("tsv", "incomplete.tsv"), ("json", "incomplete.json")):
            write_text(out / name, render(result.table, fmt, result.metadata))
        incomplete_figures(result.table, out, title=_title(args, result))
        write_reduced(result.reduction, out / "qrels")
    if args.output:
        from irgauge.io.staging import output_file

        write_text(output_file(args.output), text)
    else:
        sys.stdout.write(text)
    # after the output, as every command prints its notes
    for note in result.metadata.get("notes", []):
        sys.stderr.write(f"irgauge: note: {note}\n")
    return 0


def _title(args, result) -> str:
    """Figure title: the qrels file's name, the reduction seed and the bootstrap samples."""
    from pathlib import Path

    from irgauge.report.style import describe

    return describe(
        Path(args.qrels).name, seed=result.metadata.get("seed"), B=args.samples, runs=len(args.runs)
    )
