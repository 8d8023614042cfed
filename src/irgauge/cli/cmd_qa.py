"""``irgauge qa eval GOLD RUN...`` and ``irgauge qa label GOLD RUN``: QA evaluation with
answer equivalence classes (the first answer of a class counts; duplicates and answers not
in the gold data are incorrect)."""

from __future__ import annotations

import sys

from irgauge.cli import HelpFormatter
from irgauge.cli.cmd_eval import add_convention_options, convention_kwargs, write_result
from irgauge.cli import _options as opt
from irgauge.cli import answer_options
from irgauge.cli import output_options
from irgauge.cli._bars import bar


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "qa",
        help="evaluate question-answering runs with answer equivalence classes",
        description="Question answering: ranked answer lists scored against gold answer "
        "classes with any measure of `irgauge eval`.",
    )
    qa_sub = parser.add_subparsers(dest="qa_command", metavar="QA_COMMAND")
    parser.set_defaults(func=lambda args: (parser.print_help(), 2)[1])

    ev = qa_sub.add_parser(
        "eval",
        help="score QA runs",
        formatter_class=HelpFormatter,
        description="Score ranked answer lists against gold answer classes. Gold: NTCIREVAL "
        "'topic;answer;Lk;class' (.eqrels), 'answer Lk class' per-topic .erel, "
        "TSV 'topic<TAB>answer<TAB>level<TAB>class' or JSON. Runs: "
        "'topic;0;answer;rank;score;tag', 'topic Q0 answer rank score tag', one "
        "answer per line (topic = file stem), TSV 'topic<TAB>answer' or JSON "
        "{topic: [answers]}. Output formats as `irgauge eval`; --format tsv feeds "
        "every meta-evaluation command.",
    )
    _common(ev)
    ev.add_argument("runs", nargs="+", metavar="RUN", help="answer run files")
    opt.add_measures(
        ev,
        "RR NQcorrect1 NQcorrect5 Q-measure nDCG",
        ": any `irgauge eval` measure (RR, NQcorrect5, Q-measure, Q-measure(gains=1:1:1), "
        "nDCG@5, ...) or the list-question measures F-measure, instP, instR",
    )
    # the answer order is --answer-order, and unanswered questions score 0 unless skipped
    add_convention_options(ev, skip=("order", "complete"))
    ev.add_argument(
        "--skip-unanswered",
        dest="complete",
        action="store_false",
        help="leave questions a run did not answer out of its mean (default: they score 0)",
    )
    ev.set_defaults(complete=True)
    opt.add_per_topic(ev, "per-question")
    opt.add_quiet(ev)
    output_options.add_text_output(
        ev, ("table", "tsv", "json", "trec"), digits_detail=" in table and trec output"
    )
    ev.set_defaults(func=run_eval)

    lab = qa_sub.add_parser(
        "label",
        help="show how each answer was judged",
        description="One line per answer: topic, rank, answer, status "
        "(correct/incorrect/duplicate/unknown), class, level.",
    )
    _common(lab)
    lab.add_argument("run", metavar="RUN", help="answer run file")
    lab.set_defaults(func=run_label)


def _common(parser) -> None:
    parser.add_argument("gold", help="gold answer classes")
    answer_options.add_answer_inputs(parser, order=None)


def _answer_order(args) -> str:
    return args.answer_order or "file"


def run_eval(args) -> int:
    from irgauge.qa import qa_evaluate

    output_options.shown_digits(args)  # a refusal comes before the work
    options = convention_kwargs(args)
    options.pop("order")
    result = qa_evaluate(
        args.gold,
        args.runs,
        opt.split_measures(args.measures),
        normalise=args.normalise,
        gold_format=args.gold_format,
        run_format=args.run_format,
        answer_order=_answer_order(args),
        progress=bar("reading runs", args.quiet),
        **options,
    )
    write_result(result, args)
    return 0


def run_label(args) -> int:
    from irgauge.qa import label_answers, read_answers, read_gold

    gold = read_gold(args.gold, gold_format=args.gold_format, normalise=args.normalise)
    run = read_answers(args.run, run_format=args.run_format, answer_order=_answer_order(args))
    lines = ["topic\trank\tanswer\tstatus\tclass\tlevel"]
    for topic, rank, answer, status, class_id, level in label_answers(gold, run):
        lines.append(
            f"{topic}\t{rank}\t{answer}\t{status}\t{class_id or ''}\t"
            f"{'' if class_id is None else level}"
        )
    sys.stdout.write("\n".join(lines) + "\n")
    return 0
