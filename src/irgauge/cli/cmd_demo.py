"""``irgauge demo [--out DIR]``: every study on the bundled sample collection, then the report.

The sample (``irgauge.collection.simulate.sample_paths()``) is a generated collection of 20
topics and
12 runs with graded, pooled qrels (see ``irgauge simulate --help``). The qa study runs on
QA-shaped data derived from it (``irgauge.studies.qa.qa_collection_from_adhoc``: relevant
documents as answers in equivalence classes of two, runs cut to 5 answers). Sample sizes
are modest (B = 500 bootstrap samples, 500 topic-subset trials, 500 halvings) so that the demo
finishes in seconds; every study's topics are resampled ``--topic-resamples`` times (the
studies' default, 1000), the topic set design's bootstrap among them.
"""

from __future__ import annotations

from typing import Any, Dict

from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import output_options
from irgauge.cli._options import TOPIC_RESAMPLES, add_quiet, add_topic_resamples
from irgauge.io.output_scope import one_commit

DEMO_B = 500
DEMO_TRIALS = 500
DEMO_HALVINGS = 500
DEMO_SEED = 20240607
DEMO_OUT = "irgauge-demo"


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "demo",
        help="run the studies on the bundled sample collection and write a report",
        description="Evaluate the bundled sample collection, run every study on it with "
        "modest sample sizes, and write one HTML report; the folder written and the "
        "report's path are printed first.",
        formatter_class=HelpFormatter,
    )
    output_options.add_out(
        p, DEMO_OUT, required=False, default_words=f"{DEMO_OUT}, in the current folder"
    )
    opt.add_seed(p, DEMO_SEED)
    opt.add_samples(p, DEMO_B, old=("--B",))
    opt.add_trials(p, DEMO_TRIALS, " of each swap / stability repetition (onerel, qa)")
    # predictive's halvings once came from --trials too: one spelling, two meanings
    opt.add_halvings(p, DEMO_HALVINGS, " (predictive)")
    add_topic_resamples(p)
    add_quiet(p)
    p.set_defaults(func=run)


@one_commit
def run_demo(
    out,
    seed: int = DEMO_SEED,
    samples: int = DEMO_B,
    trials: int = DEMO_TRIALS,
    progress=None,
    topic_resamples: int = TOPIC_RESAMPLES,
    halvings: int = DEMO_HALVINGS,
):
    """Run every study on the sample; returns (report path, [StudyResult]). ``progress``:
    an optional ``(done, total)`` callback, called as each step (the collection summary,
    each study, the report) ends. Every output (the collection summary, the derived QA
    data, each study's folder, the report) is staged, each step reading what the steps
    before staged, and all are renamed into place together once the report is complete: a
    demo that fails or is stopped leaves no new file or folder and the previous ones as
    they were (:mod:`irgauge.io.staging`)."""
    from pathlib import Path

    from irgauge.report.html import write_report
    from irgauge.collection.simulate import sample_paths
    from irgauge.studies import PAPERS, study_function
    from irgauge.studies.collection_record import collection_summary
    from irgauge.io.steps import step_counter

    qrels, runs = sample_paths()
    out = Path(out)
    step = step_counter(progress, len(PAPERS) + 2)
    collection_summary(qrels, runs, out)
    step()
    results = []
    for name in PAPERS:
        function = study_function(name)
        options: Dict[str, Any] = {"seed": seed, "topic_resamples": topic_resamples}
        if name in ("onerel", "incomplete"):
            options["samples"] = samples
        if name in ("onerel", "qa"):  # random topic subsets
            options["trials"] = trials
        if name == "predictive":
            options["halvings"] = halvings
        if name != "predictive":
            options.update(top_k=None, top_fraction=None)  # the sample has only 12 runs
        inputs = (qrels, runs)
        if name == "qa":  # QA-shaped data derived from the sample (no QA data is shipped)
            from irgauge.studies.qa import qa_collection_from_adhoc

            made = qa_collection_from_adhoc(qrels, runs, out / "qa-data")
            inputs = (made["gold"], made["runs"])
        results.append(function(*inputs, out, **options))
        step()
    report = write_report(out, title="irgauge demo: bundled sample collection")
    step()
    return report, results


def run(args) -> int:
    import sys
    import time

    from irgauge.cli.output_options import terminal_width
    from irgauge.cli._bars import bar
    from irgauge.studies._common import SUMMARY_WIDTH

    start = time.monotonic()
    progress = bar("demo: studies and report", args.quiet)
    report, results = run_demo(
        args.out,
        args.seed,
        args.samples,
        args.trials,
        progress,
        args.topic_resamples,
        args.halvings,
    )
    print(where_written(args))
    print(f"REPORT: {report.resolve()}")
    print(
        f"(open it in a browser; it is self-contained and works offline; "
        f"{time.monotonic() - start:.1f}s)"
    )
    width = terminal_width(SUMMARY_WIDTH)
    for result in results:
        print()
        print(f"{result.manifest['title']}  ->  {result.directory}")
        print("\n".join(result.summary_lines(width, indent="  ", notes=False)))
        for note in result.manifest.get("notes", []):  # skipped experiments, derived data
            print(f"irgauge: note ({result.name}): {note}", file=sys.stderr)
    return 0


def where_written(args) -> str:
    """The demo's first line: the folder it wrote, and whether the user chose it."""
    from pathlib import Path

    folder = Path(args.out).resolve()
    if "out" in args.given_options:
        return f"demo: wrote {folder}"
    return f"demo: wrote {folder} (the default, ./{DEMO_OUT}; --out DIR writes elsewhere)"
