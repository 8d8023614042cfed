"""``irgauge compare``: significance tests between two systems or all pairs of systems."""
from __future__ import annotations

from irgauge.cli import HelpFormatter
from irgauge.cli import _meta_common as common
from irgauge.cli._options import draws

TESTS = "bootstrap,t,sign,randomisation,tukey"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "compare", help="compare systems: paired bootstrap, t, sign, randomisation, Tukey HSD",
        description="Paired significance tests between two systems (--systems A B) or between "
                    "all pairs (default), with effect sizes and optional Holm or "
                    "Benjamini-Hochberg correction; topic-blocked randomised Tukey HSD "
                    "(SPEC 6).",
        formatter_class=HelpFormatter)
    common.add_input_options(p)
    p.add_argument("--systems", nargs=2, metavar=("A", "B"), help="compare only A with B")
    p.add_argument("--tests", default=TESTS, help="tests to run (comma-separated)")
    p.add_argument("-B", "--samples", type=draws, default=1000,
                   help="bootstrap samples and Tukey HSD trials")
    p.add_argument("--permutations", type=draws, default=10000,
                   help="random sign flips of the randomisation test")
    p.add_argument("--correction", choices=("none", "holm", "bh"), default="none",
                   help="multiple-comparison correction of the p-values")
    common.add_output_options(p)
    p.set_defaults(func=run)


def run(args) -> int:
    import pandas as pd

    from irgauge.errors import InputError
    from irgauge.stats.pairs import TESTS as KNOWN, compare_pairs
    from irgauge.stats.resampling import resolve_seed

    tests = [t.strip() for t in args.tests.split(",") if t.strip()]
    unknown = [t for t in tests if t not in KNOWN]
    if unknown:
        raise InputError(f"--tests: unknown test(s) {', '.join(unknown)}; choose from "
                         f"{', '.join(KNOWN)}")
    matrices = common.load_matrices(args)
    seed = resolve_seed(args.seed)
    tables, parameters = [], {}
    for name, matrix in matrices.items():
        pairs = None
        if args.systems:
            missing = [s for s in args.systems if s not in matrix.systems]
            if missing:
                raise InputError(f"--systems: no scores for {', '.join(missing)} "
                                 f"(measure {name})", matrix.source)
            pairs = [(matrix.systems.index(args.systems[0]),
                      matrix.systems.index(args.systems[1]))]
        result = compare_pairs(matrix.values, matrix.systems, tests, samples=args.samples,
                               permutations=args.permutations, seed=seed,
                               correction=args.correction, pairs=pairs,
                               progress=common.progress_bar(f"bootstrap {name}"))
        tables.append(result.table.assign(measure=name))
        parameters = result.parameters
    table = pd.concat(tables, ignore_index=True)
    table = table[["measure"] + [c for c in table.columns if c != "measure"]]
    first = next(iter(matrices.values()))
    meta = {"method": "compare", **parameters, "measures": list(matrices),
            **common.selection_metadata(args), "systems": first.systems, "topics": first.topics}
    common.emit(table, meta, args)
    return 0
