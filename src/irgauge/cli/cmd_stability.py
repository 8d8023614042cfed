"""``irgauge stability``: minority rate and proportion of ties against fuzziness."""

from __future__ import annotations

from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt
from irgauge.cli._options import list_of, probability


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "stability",
        help="minority rate and proportion of ties (topic subsets)",
        description="Minority rate and proportion of ties of every measure over random topic "
        "subsets of size c, for fuzziness f = 0.01..0.10 (Buckley and Voorhees "
        "2000; Sakai 2004).",
    )
    common.add_subset_options(p)
    p.add_argument(
        "--fuzziness",
        type=list_of(probability),
        default=None,
        metavar="F,F,...",
        help="fuzziness values (default 0.01,0.02,...,0.10)",
    )
    common.add_output_options(p)
    opt.add_engine(p, "the measures")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.meta.stability import DEFAULT_FUZZINESS, stability

    fuzziness = tuple(args.fuzziness) if args.fuzziness else DEFAULT_FUZZINESS
    matrices = common.load_matrices(args)
    result = stability(
        matrices,
        subset_size=args.subset_size,
        trials=args.trials,
        fuzziness=fuzziness,
        seed=args.seed,
        progress=common.progress_bar("stability", args),
    )
    common.emit_result(result, result.table, args)
    if args.figures:
        from irgauge.report.figures import stability_curves

        stability_curves(
            result.table,
            common.figures_folder(args),
            title=common.figure_title(args, result),
            comparisons=result.parameters["trials"] * result.parameters["pairs"],
        )
    return 0
