"""``irgauge trec_eval [trec_eval options] QRELS RUN``: a drop-in for trec_eval 10.0's
command line, printing its output byte for byte (also the console script
``irgauge-trec_eval``)."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from irgauge import __version__
from irgauge.cli._process import apply_process_settings

FORMATS_READ = {
    "-R": (("qrels", "qrels_jg"), "rel_format"),
    "-T": (("trec_results",), "retrieval results format"),
}
NOT_READ = {
    "prefs": "preference judgments",
    "qrels_prefs": "preferences derived from qrels (the prefs_* measures)",
}


DESCRIPTION = (
    "A drop-in for trec_eval 10.0: its options, its -m words "
    "(P.5,10, ndcg_cut, official, all_trec, ...) and its output byte for byte. "
    "-R qrels_jg reads multi-judge qrels for the *_avgjg measures. "
    "Not supported: -R prefs/qrels_prefs (the prefs_* measures), -Z, -D above 0. "
    "rbp is trec_eval's with its uninitialised min and max at 0 (its value alone): "
    "after some measures trec_eval's own is undefined (see the guide)."
)
OLD_FORMAT_NOTE = "(the old results format) is obsolete in trec_eval 10.0 and changes nothing"


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "trec_eval",
        help="trec_eval 10.0's command line and output, byte for byte",
        description=DESCRIPTION,
    )
    parser.once = False  # trec_eval takes the last of an option given twice
    parser.add_argument("qrels", metavar="rel_info_file", help="TREC qrels")
    parser.add_argument("run", metavar="results_file", help="TREC run ('-': standard input)")
    flag = dict(action="store_true")
    parser.add_argument("-q", "--query_eval_wanted", help="also each topic's values", **flag)
    parser.add_argument(
        "-m", "--measure", action="append", default=[], metavar="measure[.params]",
        help="a measure, name.params or set (official, all_trec, set); repeatable",
    )  # fmt: skip
    parser.add_argument(
        "-c", "--complete_rel_info_wanted", help="average over every qrels topic", **flag
    )
    parser.add_argument(
        "-l", "--level_for_rel", default="1", metavar="num",
        help="relevance threshold: a judged document is relevant when its level is >= num "
        "(default 1)",
    )  # fmt: skip
    parser.add_argument("-n", "--nosummary", help="no summary ('all') lines", **flag)
    parser.add_argument(
        "-D",
        "--Debug_level",
        default="0",
        metavar="num",
        help="0, or 0.query: that qrels topic evaluated alone (debug output is not printed)",
    )
    parser.add_argument("-J", "--Judged_docs_only", help="drop unjudged documents", **flag)
    parser.add_argument(
        "-N", "--Number_docs_in_coll", default="0", metavar="num",
        help="documents in the collection, for the measures that count the unretrieved ones "
        "(utility's d term; default 0)",
    )  # fmt: skip
    parser.add_argument(
        "-M", "--Max_retrieved_per_topic", default=None, metavar="num",
        help="evaluate the first num documents of each topic, in trec_eval's order "
        "(default: all)",
    )  # fmt: skip
    parser.add_argument(
        "-R", "--Rel_info_format", default="qrels", metavar="format",
        help="format of rel_info_file: qrels (default) or qrels_jg (multi-judge qrels, for "
        "the *_avgjg measures); prefs and qrels_prefs are refused",
    )  # fmt: skip
    parser.add_argument(
        "-T", "--Results_format", default="trec_results", metavar="format",
        help="format of results_file: trec_results only (the default)",
    )  # fmt: skip
    parser.add_argument("-o", "--Output_old_results_format", help=OLD_FORMAT_NOTE, **flag)
    parser.add_argument(
        "-Z", "--Zscore", default=None, metavar="Zmean_file",
        help="trec_eval's Z-scores against per-topic means and deviations in Zmean_file: "
        "refused (not supported)",
    )  # fmt: skip
    parser.add_argument(
        "-v",
        "--version",
        action=_Version,
        nargs=0,
        help="print the version (on standard error, as trec_eval does) and exit",
    )
    parser.error = _usage_error(parser)
    # an unknown option is this parser's error too (argparse leaves it to the top parser)
    known = parser.parse_known_args

    def strict(args=None, namespace=None):
        namespace, extras = known(args, namespace)
        if extras:
            parser.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    parser.parse_known_args = strict
    parser.set_defaults(func=run)


class _Version(argparse.Action):
    """trec_eval -v prints its version on standard error and exits 0 (argparse's version
    action prints on standard output)."""

    def __call__(self, parser, namespace, values, option_string=None):
        print(f"trec_eval version 10.0 (irgauge {__version__})", file=sys.stderr)
        parser.exit(0)


def _usage_error(parser):
    """A command-line error exits 1, as trec_eval's usage message does (argparse: 2)."""

    def error(message: str):
        parser.print_usage(sys.stderr)
        print(f"irgauge trec_eval: error: {message}", file=sys.stderr)
        sys.exit(1)

    return error


def run(args) -> int:
    from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
    from irgauge.evaluation.trec_eval.output import trec_eval_chunks
    from irgauge.measures.c_numbers import atol
    from irgauge.measures.trec_eval_words import TrecEvalError

    try:
        _refuse_unsupported(args)
        options = TrecEvalOptions(
            per_topic=args.query_eval_wanted,
            complete=args.complete_rel_info_wanted,
            rel_level=atol(args.level_for_rel),
            max_docs=None
            if args.Max_retrieved_per_topic is None
            else atol(args.Max_retrieved_per_topic),
            judged_only=args.Judged_docs_only,
            summary=not args.nosummary,
            num_docs=atol(args.Number_docs_in_coll),
            rel_format=args.Rel_info_format,
            only_topic=_debug_query(args.Debug_level),
        )
        # written as it comes: -q over many topics is not held whole
        for text in trec_eval_chunks(args.qrels, args.run, args.measure, options):
            sys.stdout.write(text)
        if args.Output_old_results_format:  # accepted, as trec_eval 10.0 accepts it
            print(f"irgauge: note: -o {OLD_FORMAT_NOTE}", file=sys.stderr)
    except TrecEvalError as err:
        sys.stdout.write(err.output)
        sys.stdout.flush()
        print(err.stderr, file=sys.stderr)
        return err.status
    return 0


def _refuse_unsupported(args) -> None:
    from irgauge.measures.c_numbers import atol
    from irgauge.measures.trec_eval_words import TrecEvalError

    for given, (option, (known, what)) in (
        (args.Rel_info_format, ("-R", FORMATS_READ["-R"])),
        (args.Results_format, ("-T", FORMATS_READ["-T"])),
    ):
        if given in known:
            continue
        if given in NOT_READ:
            raise TrecEvalError(
                f"irgauge: {option} {given}: irgauge does not read {NOT_READ[given]}", 2
            )
        raise TrecEvalError(f"trec_eval: Illegal {what} '{given}'", 2)
    if args.Zscore is not None:
        raise TrecEvalError("irgauge: -Z (z-scores against a mean/sd file) is not supported", 2)
    if atol(args.Debug_level.partition(".")[0]) != 0:
        raise TrecEvalError(
            f"irgauge: -D {args.Debug_level}: trec_eval's debug output is not supported "
            "(-D 0.query, one topic evaluated alone, is)",
            2,
        )


def _debug_query(text: str) -> Optional[str]:
    """The query of -D level.query (trec_eval splits at the first '.'), or None."""
    _, dot, query = text.partition(".")
    return query if dot else None


def console_main(argv: Optional[List[str]] = None) -> int:
    """The ``irgauge-trec_eval`` console script: ``irgauge trec_eval ARGS``, after the
    process settings and stop signals that ``irgauge`` itself sets (``cli.console_main``):
    a stop signal removes the temporary files of a scattered run."""
    from irgauge.cli import install_signal_handlers, run_as_process

    apply_process_settings()
    install_signal_handlers()
    return run_as_process(["trec_eval", *(sys.argv[1:] if argv is None else argv)])
