"""``irgauge agree``: how well assessors (human or LLM) agree, on labels and on systems."""

from __future__ import annotations

import sys

from irgauge.cli import HelpFormatter
from irgauge.cli import _meta_common as common
from irgauge.cli import _options as opt


def register(subparsers) -> None:
    p = subparsers.add_parser(
        "agree",
        help="assessor agreement between qrels (kappa, alpha, system rankings)",
        description="Agreement of two or more qrels (e.g. human and LLM assessors) on the "
        "(topic, docno) pairs both judge: Cohen's kappa (binary at -l), weighted kappa "
        "(linear, quadratic), Krippendorff's alpha (ordinal, interval; over all qrels "
        "too), leniency; with --run, agreement of the systems' rankings (Kendall's tau_b, "
        "tau_AP) and significance calls under each qrels. Every statistic has a "
        "percentile bootstrap interval over topics. Output columns: a, b, measure, "
        "statistic, value, low, high.",
        formatter_class=HelpFormatter,
    )
    p.add_argument("qrels", nargs="*", metavar="QRELS", help="two or more qrels files")
    p.add_argument(
        "-g",
        "--judgment-groups",
        action="append",
        default=[],
        metavar="QRELS_JG",
        help="trec_eval's multi-judge qrels (qid jg docno rel): each judgment group is one "
        "qrels, named FILE[GROUP] (repeatable)",
    )
    opt.add_run_files(p, " to score under each qrels (repeat, or give several after it)", True)
    opt.add_measures(p, "AP and nDCG@10", " of the systems' agreement", dest="measure")
    opt.add_rel_level(p, " of the kappa, the leniency and the binary measures")
    opt.add_samples(p)
    opt.add_confidence(p, " of the bootstrap intervals")
    # the options of the systems' agreement default to None: given without --run, refused
    p.add_argument(
        "--test", choices=("t", "sign"), help="paired test of the system pairs (default: t)"
    )
    opt.add_alpha(p, given_only=True)
    opt.add_correction(p, given_only=True)
    opt.add_empty_topics(p, scored=" (with --run)")
    p.add_argument(
        "--mixed-scales",
        action="store_true",
        help="compare NTCIR letters (S/A/B read as 3/2/1) with numeric grades",
    )
    common.add_output_options(p)
    opt.add_engine(p, "chunks of the bootstrap samples of the systems' agreement (--run)")
    p.set_defaults(func=run)


def run(args) -> int:
    from irgauge.errors import InputSizeError
    from irgauge.meta.agree import agreement

    common.note_inputs(args, args.qrels + args.judgment_groups)
    sources, names = _qrels_and_names(args.qrels, args.judgment_groups)
    if len(sources) < 2:
        raise InputSizeError(f"agree needs at least 2 qrels; got {len(sources)}")
    _refuse_system_options_without_runs(args)
    result = agreement(
        sources,
        names=names,
        runs=args.run,
        measures=opt.split_measures(args.measure),  # -m '': refused, as eval refuses it
        rel_level=args.rel_level,
        samples=args.samples,
        seed=args.seed,
        **{
            k: getattr(args, k)
            for k in SYSTEM_OPTIONS
            if k != "measure" and getattr(args, k) is not None
        },
        confidence=args.confidence,
        mixed_scales=args.mixed_scales,
    )
    if args.format == "json":
        _emit_json(result, args)
    else:
        common.emit(result.columns(), result.metadata(), args)
    if args.figures:
        from irgauge.report.agreement_figures import agreement_figures
        from irgauge.report.style import describe

        p = result.parameters
        title = describe(" vs ".join(p["qrels"]), seed=p["seed"], B=p["bootstrap_samples"])
        agreement_figures(result, common.figures_folder(args), title=title)
    return 0


SYSTEM_OPTIONS = {
    "measure": "-m",
    "test": "--test",
    "alpha": "--alpha",
    "correction": "--correction",
    "empty_topics": "--empty-topics",
}


def _refuse_system_options_without_runs(args) -> None:
    """The options of the systems' agreement act on runs: without --run they are refused,
    not ignored."""
    from irgauge.errors import InputError

    if args.run:
        return
    given = [flag for dest, flag in SYSTEM_OPTIONS.items() if getattr(args, dest) is not None]
    if given:
        raise InputError(f"{', '.join(given)} compare systems: give the runs with --run")


def _qrels_and_names(files, group_files):
    """The qrels files, then each judgment group of each -g file (read here, as a Qrels),
    with their names: file names without directories, ``FILE[GROUP]`` for a group (not
    FILE:GROUP, which error messages would show as a file and line)."""
    from pathlib import Path

    from irgauge.io.qrels import read_judgment_groups
    from irgauge.meta.agreement_units import display_names

    sources = list(files)
    names = display_names(sources)[0] if sources else []
    for k, path in enumerate(group_files):
        groups = read_judgment_groups(path)
        sources += list(groups.values())
        file_name = Path(path).name
        if any(Path(other).name == file_name for other in group_files[:k]):
            file_name += f"#{k + 1}"  # a file given twice (or two of one name), as for QRELS
        names += [f"{file_name}[{label}]" for label in groups]
    return sources, names


def _emit_json(result, args) -> None:
    """The JSON output: metadata, results (the long table) and the details (confusion
    matrices, per-topic kappa, per-system ranks, per-pair significance calls)."""
    import json

    from irgauge.io.tables import render
    from irgauge.meta.result import nonfinite_notes

    metadata = result.metadata()
    notes = metadata.get("notes", []) + nonfinite_notes(result.columns())
    if notes:
        metadata["notes"] = notes
        for note in notes:
            sys.stderr.write(f"irgauge: note: {note}\n")
    document = json.loads(render(result.columns(), "json", metadata))
    document["details"] = {
        name: json.loads(frame.to_json(orient="records", double_precision=15))
        for name, frame in result.details.items()
    }
    common.write_output(json.dumps(document, indent=2, default=str) + "\n", args)
