"""``irgauge topics``: topic set size design (Sakai 2016) from the collection's variance."""

from __future__ import annotations

from irgauge.cli import _meta_common as common
from irgauge.cli import topic_design_options


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "topics",
        help="topic set size design: topics needed for a power or an interval width",
        description="From each measure's residual variance V_E (two-way ANOVA without "
        "replication, systems x topics): the topics a paired t-test and a one-way ANOVA over "
        "M systems need to detect a difference D with power 1 - beta at level alpha, the "
        "topics for a confidence interval of width W, and the smallest D and the interval "
        'width this collection\'s topics give (Sakai 2016, "Topic set size design").',
    )
    topic_design_options.add_topic_design(p)
    common.add_output_options(p, seed=False)
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.meta.topicset import topic_set_size

    matrices = common.load_matrices(args)
    result = topic_set_size(
        matrices,
        args.min_diff,
        alpha=args.alpha,
        beta=args.beta,
        anova_systems=args.anova_systems,
        ci_width=args.ci_width,
    )
    common.emit_result(result, result.columns(), args)
    if args.figures:
        from irgauge.report.topicset_figures import topic_set_curves

        table = result.columns()
        variances = {
            m: v
            for d, m, s, v in zip(
                table["design"], table["measure"], table["statistic"], table["value"]
            )
            if s == "variance"
        }
        topic_set_curves(
            variances,
            len(result.topics),
            common.figures_folder(args),
            min_diff=args.min_diff,
            title=common.figure_title(args, result),
        )
    return 0
