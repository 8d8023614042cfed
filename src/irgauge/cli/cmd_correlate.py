"""``irgauge correlate``: Kendall's tau and tau_AP between the measures' system rankings."""

from __future__ import annotations

from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "correlate",
        help="rank correlation (Kendall tau, tau_AP) between measures",
        description="Kendall's tau, tau_AP and tau_AP_b between the system rankings (by mean "
        "score) of every pair of measures, with the significance threshold of tau "
        "for the number of systems (Yilmaz et al. 2008; Urbano and Marrero 2017).",
    )
    opt.add_variant(p)
    opt.add_alpha(p)
    common.add_output_options(p, seed=False)
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.meta.correlation import rank_correlations

    matrices = common.load_matrices(args)
    result = rank_correlations(matrices, variant=args.variant, alpha=args.alpha)
    common.emit_result(result, result.table, args)
    if args.figures:
        from irgauge.report.figures import tau_heatmap

        tau_heatmap(
            result.details["matrix"],
            common.figures_folder(args),
            title=common.figure_title(args, result),
        )
    return 0
