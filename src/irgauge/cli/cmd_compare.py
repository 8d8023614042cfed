"""``irgauge compare``: significance tests between two systems or all pairs of systems, or
(``--table``) the runs x measures comparison table of IR papers."""

from __future__ import annotations

from irgauge import _checks
from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt
from irgauge.cli import option_spellings
from irgauge.cli import output_options
from irgauge.cli._options import draws, integer
from irgauge.cli.output_options import without_header

TESTS = "bootstrap,t,sign,randomisation,tukey"


def register(subparsers) -> None:
    p = common.command(
        subparsers,
        "compare",
        help="compare systems: paired bootstrap, t, sign, randomisation, Tukey HSD",
        description="Paired significance tests between two systems (--pair A B) or between "
        "all pairs (default), with effect sizes and optional Holm or "
        "Benjamini-Hochberg correction; topic-blocked randomised Tukey HSD "
        "(Carterette 2012; Sakai 2014). With --table: the comparison table of IR "
        "papers, runs as rows and measures as columns, with significance marks "
        "that agree with the pairwise rows on the same seed.",
    )
    _test_options(p)
    group = _Added(p.add_argument_group("comparison table (--table)"))
    _table_options(group)
    # the table's own options, refused without --table (where they would do nothing)
    table_only = [(a.dest, a.default, option_spellings.spelling(a)) for a in group.actions]
    p.set_defaults(table_only=[t for t in table_only if t[0] != "table"])
    common.add_output_options(p, figures=False)  # its results are tables: nothing to draw
    opt.add_engine(
        p, "the chunks of system pairs (bootstrap, randomisation) and of Tukey HSD trials"
    )
    p.set_defaults(func=run)


class _Added:
    """An argument group that keeps the actions added to it (argparse's list is private)."""

    def __init__(self, group):
        self.group, self.actions = group, []

    def add_argument(self, *args, **kwargs):
        self.actions.append(self.group.add_argument(*args, **kwargs))
        return self.actions[-1]


def _test_options(p) -> None:
    """Which systems, which tests, how many draws, which correction."""
    # --systems, its old spelling, is retired: topics and study topicset count systems by it
    option_spellings.add_renamed(
        p,
        ("--pair",),
        (),
        ("--systems",),
        nargs=2,
        metavar=("A", "B"),
        help="compare only A with B",
    )
    p.add_argument(
        "--tests",
        default=None,
        help=f"tests to run, comma-separated (default {TESTS}; with --table one test, default t)",
    )
    opt.add_samples(p, detail=" (and Tukey HSD trials)")
    p.add_argument(
        "--permutations",
        type=draws,
        default=10000,
        help="random sign flips of the randomisation test",
    )
    opt.add_correction(p)


def _table_options(table) -> None:
    """The runs x measures table of --table."""
    table.add_argument(
        "--table",
        nargs="?",
        const="table",
        default=None,
        choices=("table", "markdown", "latex", "html", "csv", "json"),
        metavar="FORMAT",
        help="write the runs x measures table instead of the pairwise rows, as "
        "table (terminal), markdown, latex, html, csv or json",
    )
    table.add_argument(
        "--baseline",
        metavar="RUN",
        help="mark runs significantly better (+) or worse (-) than RUN "
        "(default: letters, run x marked with the letters of the runs it "
        "beats)",
    )
    opt.add_alpha(table)
    table.add_argument(
        "--interval",
        choices=("none", "ci", "se"),
        default="none",
        help="show a confidence interval (Student's t) or the standard error",
    )
    opt.add_confidence(table, " of --interval ci", old=("--level",))
    table.add_argument(
        "--effect",
        action="store_true",
        help="add Cohen's d_z (paired) of each run against the baseline (or the first run)",
    )
    table.add_argument(
        "--names",
        choices=("letters", "runs"),
        default="letters",
        help="label runs a, b, c, ... or by their names",
    )
    table.add_argument(
        "--collection",
        metavar="NAME",
        help="collection named in the caption (default: the qrels file name)",
    )
    output_options.add_digits(table, default=3, type=integer(0, 12))


def run(args) -> int:
    import pandas as pd

    from irgauge.errors import InputError
    from irgauge.stats.pairs import TESTS as KNOWN, compare_pairs
    from irgauge._checks import resolve_seed

    if args.table:
        return run_table(args)
    given = [flag for dest, default, flag in args.table_only if getattr(args, dest) != default]
    if given:
        raise InputError(
            f"{', '.join(given)}: options of the comparison table; give --table too "
            "(the pairwise rows do not use them)"
        )
    tests = _checks.items(TESTS if args.tests is None else args.tests, "--tests", "tests")
    unknown = [t for t in tests if t not in KNOWN]
    if unknown:
        raise InputError(
            f"--tests: unknown test(s) {', '.join(unknown)}; choose from {', '.join(KNOWN)}"
        )
    from irgauge.io.words import listed

    matrices = common.load_matrices(args)
    seed = resolve_seed(args.seed)
    tables, parameters = [], {}
    for name, matrix in matrices.items():
        pairs = None
        if args.pair:
            missing = [s for s in args.pair if s not in matrix.systems]
            if missing:
                raise InputError(
                    f"--pair: no scores for {', '.join(missing)} (measure {name}; the systems "
                    f"are {listed(matrix.systems)})",
                    matrix.source,
                )
            if args.pair[0] == args.pair[1]:
                raise InputError(f"--pair: {args.pair[0]} is compared with itself")
            pairs = [(matrix.systems.index(args.pair[0]), matrix.systems.index(args.pair[1]))]
        result = compare_pairs(
            matrix.values,
            matrix.systems,
            tests,
            samples=args.samples,
            permutations=args.permutations,
            seed=seed,
            correction=args.correction,
            pairs=pairs,
            progress=common.progress_bar(f"bootstrap {name}", args),
        )
        tables.append(result.table.assign(measure=name))
        parameters = result.parameters
    table = pd.concat(tables, ignore_index=True)
    table = table[["measure"] + [c for c in table.columns if c != "measure"]]
    first = next(iter(matrices.values()))
    meta = {
        "method": "compare",
        **parameters,
        "measures": list(matrices),
        "effect_size": "Cohen's d_z (paired): mean(a - b) / sd(a - b), sd with n - 1",
        **common.selection_metadata(args),
        "systems": first.systems,
        "topics": first.topics,
    }
    common.emit(table, meta, args)
    return 0


def run_table(args) -> int:
    """``--table``: the comparison table (:func:`irgauge.stats.comparison.compare_table`)."""
    import sys

    from irgauge.stats.comparison import compare_table
    from irgauge.errors import InputError

    tests = _checks.items("t" if args.tests is None else args.tests, "--tests", "tests")
    if len(tests) != 1:
        raise InputError(f"--table marks significance by one test; got --tests {args.tests}")
    if args.pair:
        raise InputError("--pair and --table do not go together (use --baseline)")
    if args.format != "table":
        raise InputError(
            f"--format {args.format} is the format of the pairwise rows; the comparison "
            "table takes its format as --table's value (--table csv, --table json, ...)"
        )
    matrices = common.load_matrices(args)
    collection = args.collection or common.source_name(args) or None
    table = compare_table(
        matrices,
        baseline=args.baseline,
        test=tests[0],
        correction=args.correction,
        alpha=args.alpha,
        interval=args.interval,
        confidence=args.confidence,
        effect=args.effect,
        samples=args.samples,
        permutations=args.permutations,
        seed=args.seed,
        names=args.names,
        collection=collection,
    )
    ansi = args.table == "table" and not args.output and sys.stdout.isatty()
    text = without_header(table.render(args.table, args.digits, ansi=ansi), args)
    common.write_output(text, args)
    return 0
