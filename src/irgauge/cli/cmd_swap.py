"""``irgauge swap``: swap rates by performance-difference bin and the required difference."""

from __future__ import annotations

from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "swap",
        help="swap rates per difference bin (disjoint topic subsets)",
        description="Swap rates per 0.01 difference bin (21 bins) over pairs of disjoint topic "
        "subsets of size c; the required difference at the given confidence, the "
        "largest mean, the relative difference and the share of comparisons "
        "reaching it (Voorhees and Buckley 2002; Sakai 2004).",
    )
    common.add_subset_options(p)
    opt.add_swap_mode(p, old=("--mode",))
    opt.add_replacement(p)
    opt.add_confidence(
        p, " of the required difference (from it up, every bin's swap rate is <= 1 - level)"
    )
    p.add_argument("--bins", action="store_true", help="print the per-bin swap rates")
    common.add_output_options(p)
    opt.add_engine(p, "the measures")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.meta.swap import swap_rates

    matrices = common.load_matrices(args)
    result = swap_rates(
        matrices,
        subset_size=args.subset_size,
        trials=args.trials,
        seed=args.seed,
        swap_mode=args.swap_mode,
        replacement=args.replacement,
        confidence=args.confidence,
        progress=common.progress_bar("swap", args),
    )
    common.emit_result(result, result.table if args.bins else result.details["summary"], args)
    if args.figures:
        from irgauge.report.figures import swap_curves

        swap_curves(
            result.table,
            common.figures_folder(args),
            max_rate=1 - args.confidence,
            title=common.figure_title(args, result),
        )
    return 0
