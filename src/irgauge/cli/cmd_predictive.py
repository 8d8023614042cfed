"""``irgauge predictive``: Webber et al.'s predictive power phi(A, B) by random halvings."""

from __future__ import annotations

from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "predictive",
        help="predictive power phi(A, B) over random halvings of the topics",
        description="phi(A, B) = mean Kendall tau between the ranking by A on one random half "
        "of the topics and by B on the other, for every ordered pair of measures. "
        "Unless --top-k/--top-fraction is given, only the top 75% of systems by "
        "AP (or --by) are kept (Webber, Moffat, Zobel and Sakai 2008, "
        '"Precision-at-ten considered redundant").',
    )
    opt.add_halvings(p)
    opt.add_subset_sizes(
        p, "none, phi at half the topics", ": also phi against each (two disjoint subsets)"
    )
    opt.add_variant(p)
    p.add_argument(
        "--curve",
        action="store_true",
        help="print the phi-against-k table (measure_a, measure_b, k, phi, sd) "
        "instead of phi at half the topics; needs -k",
    )
    common.add_output_options(p)
    opt.add_engine(p, "the chunks of halvings")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.meta.predictive import predictive_power

    from irgauge.errors import InputError

    sizes = tuple(args.subset_sizes or ())
    if args.curve and not sizes:
        raise InputError("--curve needs the subset sizes to trace (-k K,K,...)")
    if args.figures and not sizes:
        raise InputError("--figures draws phi against the subset size: give the sizes (-k K,K,...)")
    # the paper's default filter (top 75% by AP) applies unless a selection is given
    default_filter = args.top_k is None and args.top_fraction is None
    matrices = common.load_matrices(args)
    result = predictive_power(
        matrices,
        halvings=args.halvings,
        seed=args.seed,
        top_fraction=0.75 if default_filter else 1.0,
        by=args.by,
        subset_sizes=sizes,
        variant=args.variant,
        progress=common.progress_bar("halvings", args),
    )
    common.emit_result(result, result.details["curve"] if args.curve else result.table, args)
    if args.figures and sizes:
        from irgauge.report.figures import phi_curves

        phi_curves(
            result.details["curve"],
            common.figures_folder(args),
            title=common.figure_title(args, result),
            halvings=result.parameters.get("halvings"),
        )
    return 0
