"""``irgauge discpower``: Sakai's bootstrap discriminative power and required difference."""

from __future__ import annotations

from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "discpower",
        help="discriminative power of measures (paired bootstrap, all pairs)",
        description="For every measure, run the paired bootstrap test on every system pair with "
        "the same B bootstrap samples of topics; report the number and share of "
        "pairs with ASL < alpha and the required difference (Sakai 2006, "
        '"Bootstrap-based comparisons of IR metrics").',
    )
    opt.add_samples(p)
    opt.add_alpha(p, (0.01, 0.05), several=True)
    p.add_argument("--pairs", action="store_true", help="print the per-pair ASL table")
    common.add_output_options(p)
    opt.add_engine(p, "the chunks of system pairs of every measure")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.meta.discpower import discriminative_power

    matrices = common.load_matrices(args)
    result = discriminative_power(
        matrices,
        samples=args.samples,
        alphas=tuple(args.alpha or (0.01, 0.05)),
        seed=args.seed,
        progress=common.progress_bar("bootstrap", args),
    )
    common.emit_result(result, result.columns("pairs") if args.pairs else result.columns(), args)
    if args.figures:
        from irgauge.report.figures import asl_curves

        asl_curves(
            result.details["pairs"],
            common.figures_folder(args),
            title=common.figure_title(args, result),
            samples=result.parameters.get("bootstrap_samples"),
        )
    return 0
