"""``irgauge simulate``: write a synthetic test collection (qrels, runs, manifest) to a folder."""

from __future__ import annotations

import argparse
import sys

from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import output_options
from irgauge.cli._options import (
    MAX_COUNT,
    colon_list,
    count,
    digits,
    integer,
    nonnegative,
    number,
    probability,
    add_quiet,
)
from irgauge.io.words import counted


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "simulate",
        help="generate a synthetic test collection "
        "(graded qrels by pooling, runs of graded quality)",
        description=(
            "Generate a synthetic test collection and write DIR/qrels.txt (TREC qrels), "
            "DIR/runs/<name>.run (TREC runs) and DIR/manifest.json (every parameter, the seed "
            "and summary figures). The same parameters and seed give the same files."
        ),
        formatter_class=HelpFormatter,
    )
    output_options.add_out(p)
    _size_options(p.add_argument_group("size"))
    _relevance_options(p.add_argument_group("relevance and judgments"))
    _run_options(p.add_argument_group("runs"))
    opt.add_seed(p, 0)
    p.add_argument("--overwrite", action="store_true", help="replace a collection already in DIR")
    add_quiet(p)
    p.set_defaults(func=run)


def _size_options(g) -> None:
    g.add_argument("--topics", type=count, default=50, help="number of topics")
    g.add_argument("--runs", type=count, default=20, help="number of runs")
    opt.add_pool_depth(g, 1000, role="the runs written are K deep")
    g.add_argument(
        "--docs-per-topic",
        type=count,
        default=None,
        metavar="N",
        help="documents per topic in the collection (default 2 x depth)",
    )
    g.add_argument(
        "--first-topic",
        type=integer(0, MAX_COUNT, what="a topic number"),
        default=1,
        help="id of the first topic",
    )


def _relevance_options(g) -> None:
    g.add_argument(
        "--pool-depth",
        type=count,
        default=100,
        help="documents ranked this high by any run are judged",
    )
    g.add_argument(
        "--judged-per-topic",
        type=count,
        default=None,
        metavar="N",
        help="judge N documents per topic (by best rank over the runs) instead of "
        "pooling to a fixed depth",
    )
    g.add_argument(
        "--rel-median",
        type=number(0.0, 1e9, min_open=True, what="a median count"),
        default=30.0,
        help="median number of relevant documents per topic (log-normal)",
    )
    g.add_argument(
        "--level-probs",
        type=colon_list(nonnegative, "level_probs"),
        default="0.6:0.3:0.1",
        metavar="P1:P2:...",
        help="probabilities of relevance levels 1, 2, 3, ... among relevant documents",
    )
    # non-negative spreads, noises and boosts of the model (module irgauge.collection.simulate)
    for option, default, what in (
        ("--rel-spread", 1.0, "log-normal spread of the number of relevant documents"),
        (
            "--difficulty-spread",
            0.3,
            "log-normal spread of the topic difficulty shared by all runs",
        ),
        ("--level-boost", 0.5, "extra visibility of each higher relevance level"),
    ):
        g.add_argument(option, type=nonnegative, default=default, help=what)


def _run_options(g) -> None:
    g.add_argument(
        "--quality",
        type=colon_list(number(-1e6, 1e6), "quality"),  # the model's bounds
        default="0.2:1.8",
        metavar="LO:HI",
        help="range of run effectiveness",
    )
    g.add_argument(
        "--topic-noise",
        type=nonnegative,
        default=0.5,
        help="per-topic noise of a run's effectiveness (sd)",
    )
    g.add_argument(
        "--shared-weight",
        type=probability,
        default=0.6,
        help="weight (0..1) of the score component all runs share (run overlap)",
    )
    g.add_argument(
        "--tie-fraction",
        type=probability,
        default=0.25,
        help="share of runs whose scores are rounded, producing ties",
    )
    g.add_argument(
        "--tie-decimals", type=digits, default=1, help="decimals kept in the scores of tied runs"
    )
    g.add_argument(
        "--score-decimals", type=digits, default=4, help="decimals of the scores of untied runs"
    )


def _floats(text: str, option: str):
    from irgauge.errors import InputError

    try:
        return [float(x) for x in text.split(":")]
    except ValueError:
        raise InputError(f"{option}: expected numbers separated by ':', got {text!r}") from None


def _generation_options(args: argparse.Namespace) -> dict:
    """Keyword arguments of simulate_collection from the options."""
    from irgauge.errors import InputError

    quality = _floats(args.quality, "--quality")
    if len(quality) != 2 or quality[0] > quality[1]:
        raise InputError(f"--quality: expected LO:HI with LO <= HI, got {args.quality!r}")
    names = (
        "pool_depth judged_per_topic docs_per_topic rel_median rel_spread topic_noise "
        "difficulty_spread shared_weight level_boost tie_fraction tie_decimals "
        "score_decimals first_topic"
    )
    options = {name: getattr(args, name) for name in names.split()}
    options.update(
        level_probs=_floats(args.level_probs, "--level-probs"), quality_range=tuple(quality)
    )
    return options


def run(args: argparse.Namespace) -> int:
    # numpy/pandas load here, not at import, so that `irgauge --help` stays fast.
    from irgauge.errors import InputError
    from irgauge.collection.simulate import simulate_collection, write_collection
    from irgauge.cli._bars import bar

    options = _generation_options(args)
    try:
        collection = simulate_collection(
            args.topics,
            args.runs,
            args.depth,
            args.seed,
            progress=bar("simulate: drawing runs", args.quiet),
            **options,
        )
        manifest = write_collection(
            collection,
            args.out,
            overwrite=args.overwrite,
            progress=bar("simulate: writing files", args.quiet),
        )
    except (ValueError, FileExistsError) as err:
        raise InputError(str(err)) from None
    stats = manifest["stats"]
    print(
        f"wrote {args.out}: {counted(stats['topics'], 'topic')}, {counted(stats['runs'], 'run')}, "
        f"judged per topic {stats['judged_per_topic']['mean']:g} (mean), "
        f"relevant per topic {stats['relevant_per_topic']['min']}.."
        f"{stats['relevant_per_topic']['max']}",
        file=sys.stderr,
    )
    return 0
