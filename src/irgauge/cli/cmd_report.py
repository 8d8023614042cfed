"""``irgauge report OUTDIR``: one self-contained HTML page of every study in OUTDIR."""
from __future__ import annotations


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "report", help="write OUTDIR/report.html from the studies written to OUTDIR",
        description="Write one self-contained HTML file (figures embedded, no network "
                    "access needed) with the collection summary, the evaluation table and "
                    "every study's tables and figures found in OUTDIR.")
    p.add_argument("outdir", metavar="OUTDIR", help="folder written by irgauge study/demo")
    p.add_argument("-o", "--output", metavar="FILE", help="HTML file (default OUTDIR/report.html)")
    p.add_argument("--title", default=None, help="page title")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.report.html import write_report

    path = write_report(args.outdir, args.output, args.title)
    print(f"report: {path}")
    return 0
