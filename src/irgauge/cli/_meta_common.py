"""Options and plumbing shared by the meta-evaluation commands (compare, discpower, swap,
stability, correlate, predictive): score inputs, system selection, seed, output format,
figures and a terminal-only progress bar."""

from __future__ import annotations

import argparse
import sys
from typing import List, Optional

from irgauge.errors import InputError
from irgauge.cli import HelpFormatter
from irgauge.cli import _options as opt
from irgauge.cli import answer_options
from irgauge.cli import output_options


def command(subparsers, name: str, help: str, description: str) -> argparse.ArgumentParser:
    """The parser of meta-evaluation command ``name``, its input options added (the
    command adds its own, then :func:`add_output_options`)."""
    p = subparsers.add_parser(
        name, help=help, description=description, formatter_class=HelpFormatter
    )
    add_input_options(p)
    return p


def add_input_options(p: argparse.ArgumentParser) -> None:
    p.add_argument(
        "scores",
        nargs="*",
        metavar="[NAME=]FILE",
        help="score files: irgauge per-topic TSV (run, measure, topic, value) or "
        "wide CSV/TSV (rows = topics, columns = systems; measure named NAME "
        "or after the file)",
    )
    opt.add_measures(
        p,
        "every measure of the score files; with --qrels, -m is needed",
        " to use, or with --qrels to compute",
        dest="measure",
    )
    p.add_argument(
        "--headerless-scores",
        dest="header",
        action="store_false",
        help="wide score files have no header line: columns are systems 1, 2, ... "
        "and rows topics 1, 2, ... (--no-header is about the output)",
    )
    opt.add_qrels_file(p, "the scores of --run under it, computed in-process (no score files)")
    opt.add_run_files(p, " to score under --qrels")
    opt.add_empty_topics(p, scored=" (with --qrels)")
    opt.add_selection(p.add_argument_group("system selection"))


def add_subset_options(p: argparse.ArgumentParser) -> None:
    """Random topic subsets: their size and the number of trials (swap, stability)."""
    opt.add_subset_size(p)
    opt.add_trials(p)


def add_output_options(p: argparse.ArgumentParser, seed: bool = True, figures: bool = True) -> None:
    """Seed, output format and file, figures (for commands that draw any), --no-header and
    --quiet."""
    if seed:
        opt.add_seed(p)
    output_options.add_format(p, ("table", "tsv", "json"))
    output_options.add_output(p)
    if figures:
        p.add_argument(
            "--figures", metavar="DIR", help="save the figure(s) here as PDF, SVG and PNG"
        )
    output_options.add_no_header(p)
    opt.add_quiet(p)


def _measures(args) -> Optional[List[str]]:
    if not args.measure:
        return None
    return opt.split_measures(args.measure)


def load_matrices(args, minimum_systems: int = 2):
    """``{measure: ScoreMatrix}`` from the command's inputs, aligned and selected."""
    from irgauge.scores import combine, read_scores, require_systems, select_systems
    from irgauge.scores.lookup import as_named, refuse_missing
    from irgauge.evaluation.engine import evaluate_systems
    from irgauge.evaluation.peers import peer_notes
    from irgauge.evaluation.conventions import STATED

    measures = _measures(args)
    note_inputs(
        args, [args.qrels] if args.qrels else [answer_options.named_file(s)[1] for s in args.scores]
    )
    if args.qrels or args.run:
        if not (args.qrels and args.run):
            raise InputError("--qrels and --run go together")
        if args.scores:
            raise InputError("give either score files or --qrels/--run, not both")
        if not measures:
            raise InputError("--qrels/--run need the measures to compute (-m)")
        empty = args.empty_topics or "skip"
        result = evaluate_systems(args.qrels, args.run, measures, empty_topics=empty)
        matrices = result.score_matrices()
        # where irgauge's default changed the scores from trec_eval's, the note says how
        # to get trec_eval's (emit prints it), as eval's does
        args.peer_notes = peer_notes(result.metadata, takes=("empty_topics",))
        # the header says what the scores were computed with, as eval's does (emit)
        args.conventions = {k: result.metadata[k] for k in STATED if k in result.metadata}
    else:
        if not args.scores:
            raise InputError("no input: give score files or --qrels and --run")
        if args.empty_topics:
            raise InputError("--empty-topics applies to scores computed with --qrels/--run")
        parts, held = [], {}
        for spec in args.scores:
            name, path = answer_options.named_file(spec)
            found = read_scores(path, name=name, header=getattr(args, "header", True))
            held.update(dict.fromkeys(found))
            if measures:  # keep only the requested measures, before topic sets are compared
                found = as_named(found, measures)
            parts.append(found)
        got = {m for part in parts for m in part}
        missing = [m for m in measures or () if m not in got]
        refuse_missing(missing, held, " in the score files")
        matrices = combine(parts)
        if measures:
            matrices = {m: matrices[m] for m in measures}
    # a filter that takes the systems away is refused naming its option (irgauge.cli)
    selected = select_systems(matrices, args.top_k, args.top_fraction, args.by, minimum_systems)
    require_systems(selected, minimum_systems)
    matrices = selected
    check_outputs(args)
    return matrices


def note_inputs(args, paths) -> None:
    """Record the command's input files: an error raised below the reading layer about too
    little data (:class:`irgauge.errors.InputSizeError`, say one topic) names no file, and
    the command line names these (``irgauge.cli``)."""
    args.input_files = [str(p) for p in paths if p]


def check_outputs(args) -> None:
    """Refuse ``-o`` and ``--figures`` targets that cannot be written (an input, a folder
    for a file, a file for a folder, a pipe) now, before the work and before anything is
    printed; the writers check again when they write."""
    from irgauge.io.atomic import check_file_target, check_folder_target

    if getattr(args, "output", None):
        check_file_target(args.output)
    if getattr(args, "figures", None):
        check_folder_target(args.figures)


def selection_metadata(args) -> dict:
    """The system-selection options as given (the method's own parameters are separate)."""
    chosen = {
        "select_top_k": args.top_k,
        "select_top_fraction": args.top_fraction,
        "select_by": args.by,
    }
    if getattr(args, "qrels", None) and args.measure:  # computed here: say what each name is
        from irgauge.measures import parse_measure

        chosen["measure_definitions"] = {m: parse_measure(m).full for m in _measures(args) or []}
    return chosen


def emit_result(result, frame, args) -> None:
    """:func:`emit` ``frame`` (a table of ``result``, a MetaResult) with the result's
    metadata and the system-selection options."""
    emit(frame, {**result.metadata(), **selection_metadata(args)}, args)


def emit(frame, metadata, args) -> None:
    """Render ``frame`` with ``metadata`` in the chosen format to --output or stdout."""
    from irgauge.meta.result import nonfinite_notes
    from irgauge.io.tables import render

    # the result's own notes (an undefined pair, say) first, then why values are not finite
    notes = list(metadata.get("notes", [])) + getattr(args, "peer_notes", [])
    notes += nonfinite_notes(frame)
    conventions = getattr(args, "conventions", {})
    if conventions:  # scores computed here (--qrels/--run): what they were computed with
        metadata = {**metadata, **conventions}
    if notes:
        metadata = {**metadata, "notes": notes}
    write_output(
        output_options.without_header(render(frame, args.format, metadata, people=True), args), args
    )
    # after the output: a write that fails says so in one line, without notes before it
    for note in notes:
        sys.stderr.write(f"irgauge: note: {note}\n")


def write_output(text: str, args) -> None:
    """``text`` to ``-o`` (staged: it is renamed into place with the command's other
    outputs, see :mod:`irgauge.io.staging`) or to standard output."""
    if args.output:
        from irgauge.io.atomic import write_text
        from irgauge.io.staging import output_file

        write_text(output_file(args.output), text)
    else:
        sys.stdout.write(text)


def figures_folder(args):
    """The folder to draw ``--figures`` in: staged, so that the figures and ``-o`` appear
    together once all are complete, or not at all; None without ``--figures``."""
    if not getattr(args, "figures", None):
        return None
    from irgauge.io.staging import output_folder

    return output_folder(args.figures)


def progress_bar(label: str, args):
    """A ``(done, total)`` callback drawing a bar on a terminal's stderr, or None (not a
    terminal, or --quiet); see :mod:`irgauge.cli._bars`."""
    from irgauge.cli._bars import bar

    return bar(label, getattr(args, "quiet", False))


def source_name(args) -> str:
    """How captions and titles name the input: the qrels file's name, or the score files'
    names (never a full path)."""
    from pathlib import Path

    if getattr(args, "qrels", None):
        return Path(args.qrels).name
    return ", ".join(Path(answer_options.named_file(s)[1]).name for s in args.scores or [])


def figure_title(args, result) -> str:
    """Figure title: the collection (:func:`source_name`) and the seed and sample sizes of
    ``result`` (a MetaResult)."""
    from irgauge.report.style import describe

    p = result.parameters
    return describe(
        source_name(args),
        seed=p.get("seed"),
        B=p.get("bootstrap_samples"),
        trials=p.get("trials"),
        c=p.get("subset_size"),
        halvings=p.get("halvings"),
        topics=len(result.topics),
        systems=len(result.systems),
    )
