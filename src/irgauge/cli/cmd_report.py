"""``irgauge report OUT [INPUT ...]``: one HTML page of evaluation results, comparison tables
and studies, with a table of contents, relative links and a print layout."""

from __future__ import annotations

from irgauge.cli import output_options


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report",
        help="write OUT/report.html from evaluations, comparison tables and studies",
        description="Write one HTML page (figures embedded, each downloadable as SVG/PDF; no "
        "network access needed) with a table of contents and: the collection "
        "summary and every study found in OUT, plus each INPUT given: evaluation "
        "outputs (irgauge eval --format tsv/json/trec, or trec_eval's; with "
        "per-topic rows a comparison of the runs: the comparison table given of "
        "those scores, else irgauge's own paired t-test with Holm's correction), comparison "
        "tables (irgauge compare --table json; two of the same scores say how they "
        "differ), assessor agreement (irgauge agree; figures from its JSON), topic "
        "set size designs (irgauge topics), folders of --figures, other irgauge results "
        "(--format json/tsv) and study folders (figures the report draws go to "
        "report-figures/ beside it). Links and paths are relative to the page; it prints on A4 or "
        "letter without splitting tables or figures.",
    )
    p.add_argument(
        "outdir",
        metavar="OUT",
        help="folder of the report (studies written there by irgauge study/demo "
        "are included; created when INPUTs are given)",
    )
    p.add_argument(
        "inputs",
        nargs="*",
        metavar="INPUT",
        help="evaluation outputs, comparison tables, agree/topics outputs, results or "
        "study folders",
    )
    output_options.add_output(p, "the HTML page", "OUT/report.html")
    p.add_argument("--title", default=None, help="page title")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.report.html import write_report

    path = write_report(args.outdir, args.output, args.title, inputs=args.inputs)
    print(f"report: {path}")
    return 0
