"""Argument types and options shared by every command: numbers checked at the boundary,
measure lists split only outside parentheses, and the options several commands take (each
defined once here, so that a flag means the same everywhere: ``-q`` per-topic values,
``-k`` a topic subset size, ``-m`` measures, ``-o`` the output file, ``--quiet`` no
progress bars).

Each type is a callable for ``add_argument(type=...)``; argparse turns its
``ArgumentTypeError`` into ``irgauge COMMAND: error: argument -B: ...`` and exit 2.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Iterable, List, Optional, Sequence

from irgauge import _checks
from irgauge._checks import MAX_COUNT, MAX_LEVEL  # noqa: F401  (MAX_COUNT re-exported)
from irgauge.errors import InputError


def _argparse_type(check: Callable[[str], Any], name: str) -> Callable[[str], Any]:
    """An argparse type from a check of ``_checks``: the same words as the API's error."""

    def parse(text: str):
        try:
            return check(text)
        except InputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None

    parse.__name__ = name
    return parse


def integer(
    minimum: Optional[int] = None, maximum: Optional[int] = None, what: str = "a whole number"
) -> Callable[[str], int]:
    """An ``int`` in ``[minimum, maximum]`` (either bound may be open)."""
    return _argparse_type(
        lambda text: _checks.whole(text, None, minimum, maximum, what, text=True), "integer"
    )


memory_size = _argparse_type(_checks.memory_size, "memory_size")


def number(
    minimum: Optional[float] = None,
    maximum: Optional[float] = None,
    min_open: bool = False,
    max_open: bool = False,
    what: str = "a number",
) -> Callable[[str], float]:
    """A finite ``float`` in a range whose ends may be open (excluded)."""
    return _argparse_type(
        lambda text: _checks.real(
            text, None, minimum, maximum, min_open, max_open, what, text=True
        ),
        "number",
    )


def list_of(item: Callable[[str], Any]) -> Callable[[str], list]:
    """An argparse type for ``"a,b,c"`` (commas or spaces), each value checked by ``item``
    (another type of this module, so every value is bounded)."""

    def parse(text: str) -> list:
        try:
            parts = _checks.items(text, None)
        except InputError as err:
            raise argparse.ArgumentTypeError(str(err)) from None
        return [item(t) for t in parts]

    parse.__name__ = "list"
    return parse


def checked_text(check: Callable[[str], Any], name: str) -> Callable[[str], str]:
    """An argparse type for an option whose text its command reads later: ``check`` (the
    function the command hands the text to) runs at parse time, so that what it refuses
    is refused naming the option; the text itself is passed on, read as before."""
    parse = _argparse_type(check, name)

    def keep(text: str) -> str:
        parse(text)
        return text

    keep.__name__ = name
    return keep


def colon_list(item: Callable[[str], Any], name: str) -> Callable[[str], str]:
    """:func:`checked_text` for ``"a:b:c"``, each value checked by ``item`` (another type
    of this module)."""

    def keep(text: str) -> str:
        for part in text.split(":"):
            item(part)
        return text

    keep.__name__ = name
    return keep


def _gains(text: str) -> Any:
    from irgauge.collection.judgments import parse_gains  # (numpy: loaded when given)

    return parse_gains(text)


def _rates(text: str) -> Any:
    from irgauge.collection.reduce import parse_rates

    return parse_rates(text)


positive_int = integer(1, what="a whole number")
count = integer(1, MAX_COUNT, what="a whole number")
draws = _argparse_type(lambda text: _checks.draws(text, None, text=True), "draws")
seed = _argparse_type(lambda text: _checks.seed(text, None, text=True), "seed")
jobs = _argparse_type(lambda text: _checks.jobs(text, None, text=True), "jobs")
alpha = _argparse_type(lambda text: _checks.alpha(text, None, text=True), "alpha")
fraction = _argparse_type(lambda text: _checks.fraction(text, None, text=True), "fraction")
probability = _argparse_type(lambda text: _checks.probability(text, None, text=True), "probability")
confidence = _argparse_type(lambda text: _checks.confidence(text, None, text=True), "confidence")
digits = integer(0, 15, what="a number of decimals")
rel_level = integer(1, MAX_LEVEL, what="a relevance level")
nonnegative = number(0.0, 1e6, what="a non-negative number")
gains = checked_text(_gains, "gains")  # 1:2:3, a gain per relevance level
rates = checked_text(_rates, "rates")  # 90,70,50, percentages of judgments kept
depths = list_of(count)  # 10,100: pool depths


def split_measures(items: Optional[Iterable[str]]) -> Optional[List[str]]:
    """Measure names from repeated ``-m`` values, each a comma- or space-separated list.

    Separators inside parentheses belong to parameters, so ``nDCG(dcg=jk,b=2)@1000,AP``
    is two measures (and NTCIREVAL's ``NCUrb,P`` one, trec_eval's ``P.5,10`` one). Every
    command reads ``-m`` through this function. Unbalanced parentheses are left for the
    measure parser to report. trec_eval's family names are trec_eval's families here:
    ``P`` is P_5 ... P_1000 (irgauge's set precision is ``set_P``), likewise ``recall``,
    ``relative_P``, ``success`` and ``unj`` (``trec_eval_words.cli_word``).
    """
    if items is None:
        return None
    from irgauge.measures.parse import split_list
    from irgauge.measures.trec_eval_words import cli_word

    return [cli_word(token) for token in split_list(items)]


def terminal_width(widest: int) -> int:
    """The columns to print in: the terminal's (``COLUMNS``, else standard output's
    terminal; ``widest`` in a pipe or a file), at most ``widest`` and at least 40."""
    import shutil

    return max(40, min(widest, shutil.get_terminal_size((widest, 24)).columns))


def add_no_header(parser) -> None:
    """``--no-header``: TSV and table output without the ``# key: value`` metadata lines."""
    parser.add_argument(
        "--no-header",
        action="store_true",
        help="leave out the '# key: value' metadata lines of tsv/table output "
        "(for tools that cannot skip comment lines; pandas can: "
        "read_csv(..., sep='\\t', comment='#'))",
    )


def shown_digits(args) -> int:
    """The decimals of ``--digits``; refused with a format that keeps full precision, where
    it would do nothing."""
    if args.digits is None:
        return DEFAULT_DIGITS
    if args.format in FULL_PRECISION:
        raise InputError(
            f"--digits {args.digits}: --format {args.format} keeps full precision; "
            "--digits is for the other formats"
        )
    return args.digits


def without_header(text: str, args) -> str:
    """``text`` without its leading ``#`` lines when ``--no-header`` was given."""
    if not getattr(args, "no_header", False) or getattr(args, "format", "") == "json":
        return text
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if not line.startswith("#")), len(lines))
    return "".join(lines[first:])


# ------------------------------------------------ options several commands share


def add_renamed(
    parser: Any,
    flags: Sequence[str],
    old: Sequence[str],
    retired: Sequence[str] = (),
    **kwargs: Any,
) -> Any:
    """``add_argument(*flags, ...)`` for an option once spelled ``old`` (a tuple): the old
    spellings are still accepted, said to be deprecated in the help, and a note names the
    spelling to use when one is given. One option has one spelling in every command
    (tests/test_option_spellings.py); an old one is kept only so that scripts still run.

    ``retired``: old spellings no longer accepted, because another command gives them
    another meaning (``study predictive --trials`` meant halvings, where the other studies'
    ``--trials`` counts topic-subset draws): a script that still gives one is refused, with
    a hint naming the spelling to use (``cli._hints``), rather than read in one meaning
    here and another there."""
    dest = kwargs.pop("dest", flags[-1].lstrip("-").replace("-", "_"))
    help = kwargs.pop("help", "")
    if old:  # an option without old spellings says nothing of them
        word = "spelling" if len(old) == 1 else "spellings"
        help = f"{help} ({', '.join(old)}: the old {word}, deprecated)"
    action = parser.add_argument(*flags, *old, dest=dest, help=help, **kwargs)
    action.old_spellings = tuple(old)
    action.retired_spellings = tuple(retired)
    return action


def spelling(action) -> str:
    """The long spelling of ``action``'s option that is not an old one."""
    old = getattr(action, "old_spellings", ())
    return [s for s in action.option_strings if s not in old][-1]


def old_spelling_note(action, option: str) -> None:
    """Tell the user that ``option``, an old spelling of ``action``, is deprecated."""
    import sys

    if option in getattr(action, "old_spellings", ()):
        new = "/".join(s for s in action.option_strings if s not in action.old_spellings)
        print(
            f"irgauge: note: {option} is the old spelling of {new}, deprecated; "
            f"write {spelling(action)}",
            file=sys.stderr,
        )


def add_measures(parser, help: str, dest: str = "measures", metavar: str = "MEASURE") -> None:
    """``-m/--measure``, repeatable, a measure given twice refused (``cli.MeasureList``);
    read it with :func:`split_measures`."""
    parser.add_argument(
        "-m", "--measure", action="measures", dest=dest, default=None, metavar=metavar, help=help
    )


def add_empty_topics(parser, default=None, scored: str = "") -> None:
    """``--empty-topics {skip,zero}``: what becomes of a qrels topic without relevant
    documents (``evaluate(empty_topics=...)``); trec_eval's reading is ``zero``, and the
    note of :func:`irgauge.evaluation.peers.peer_notes` names this option."""
    parser.add_argument(
        "--empty-topics",
        choices=("skip", "zero"),
        default=default,
        help=f"topics without relevant documents{scored}: left out of the mean "
        "(skip, the default) or scored and averaged (zero, trec_eval's reading)",
    )


def add_seed(parser, help: str = "random seed (default: a fresh one, reported in the output)"):
    parser.add_argument("--seed", type=seed, default=None, help=help)


def add_depths(parser) -> None:
    """``--depth K[,K...]``: the pool depths of a depth reduction (Sakai and Kando 2008),
    one spelling for every command that reduces qrels to the depth-K pool of the runs
    (incomplete, study incomplete); ``dest`` depth."""
    parser.add_argument(
        "--depth",
        type=depths,
        default=None,
        metavar="K[,K...]",
        help="pool depths: keep the judgments in the depth-K pool of the runs",
    )


def add_complete(parser) -> None:
    """``-c/--complete`` (trec_eval -c): every command that scores runs topic by topic
    against qrels declares it here, with one meaning: where a run misses a qrels topic,
    the topic scores 0 for it (without, eval leaves it out of the run's mean and the
    commands that compare runs topic by topic refuse the run)."""
    parser.add_argument(
        "-c",
        "--complete",
        action="store_true",
        help="qrels topics a run did not answer score 0 and are averaged (trec_eval -c)",
    )


def add_quiet(parser) -> None:
    """``--quiet``: no progress bars (they are drawn on a terminal only anyway). It has no
    short flag: ``-q`` is trec_eval's per-topic output."""
    parser.add_argument("--quiet", action="store_true", help="no progress bars on stderr")


def add_per_topic(parser, what: str = "per-topic") -> None:
    """``-q/--per-topic``, trec_eval's ``-q``."""
    parser.add_argument(
        "-q",
        "--per-topic",
        action="store_true",
        help=f"print {what} values as well as the aggregates (trec_eval -q)",
    )


def add_subset_size(parser, type=count, default=None, help: str = "") -> None:
    """``-k/--subset-size``: topics per random subset (``-c`` is trec_eval's --complete)."""
    parser.add_argument(
        "-k",
        "--subset-size",
        type=type,
        default=default,
        metavar="K",
        help=help or "topics per subset (default: half the topics)",
    )


def add_selection(group, top_k=None, top_fraction=None, by=None, by_help: str = "") -> None:
    """``--top-k``, ``--top-fraction`` and ``--by``: which systems a method keeps."""
    group.add_argument(
        "--top-k", type=count, metavar="K", default=top_k, help="keep the K best systems"
    )
    group.add_argument(
        "--top-fraction",
        type=fraction,
        metavar="F",
        default=top_fraction,
        help="keep the best fraction F of the systems (0 < F <= 1)",
    )
    group.add_argument(
        "--by", metavar="M", default=by, help=by_help or "measure that ranks the systems"
    )


def add_engine(
    parser, tasks: str, steps: bool = True, aliases=(), runs_on: str = "run on N threads"
) -> None:
    """``--engine {local,dask}``, ``--scheduler ADDRESS`` and ``--jobs N`` (``aliases``:
    its old spellings, deprecated); ``tasks`` says what becomes a task. With ``steps`` the
    command runs within ``use_engine(engine, scheduler)`` and ``use_jobs(jobs)`` (its
    methods' steps become tasks, or run on threads; see :mod:`irgauge.cli`); ``irgauge
    eval`` passes them to ``evaluate`` itself."""
    parser.add_argument(
        "--engine",
        choices=("local", "dask"),
        default="local",
        help=f"local: this process; dask: {tasks} become tasks on a Dask cluster, with the "
        'same output (pip install "irgauge[dask]")',
    )
    parser.add_argument(
        "--scheduler",
        default=None,
        metavar="ADDRESS",
        help="the Dask scheduler to use with --engine dask (tcp://host:8786); default: a "
        "LocalCluster of one worker process per CPU",
    )
    add_renamed(
        parser,
        ("--jobs",),
        tuple(aliases),
        dest="jobs",
        type=jobs,
        default=None,
        metavar="N",
        help=f"cores to use on this machine: {tasks.rstrip(',')} {runs_on} (with "
        "--engine dask, a LocalCluster of N workers); 1: one core, the same output "
        "(default: $IRGAUGE_THREADS, else the CPUs this process may use)",
    )
    parser.set_defaults(engine_steps=steps)


FULL_PRECISION = ("tsv", "json")  # formats that keep every digit: --digits is refused
DEFAULT_DIGITS = 4


def add_text_output(
    parser, formats, format_help: str = "output format", digits_help: str = "decimals shown"
) -> None:
    """``--format`` (the first of ``formats`` by default), ``--digits`` (read it with
    :func:`shown_digits`), ``-o/--output`` and ``--no-header``."""
    parser.add_argument("--format", choices=formats, default=formats[0], help=format_help)
    parser.add_argument(
        "--digits", type=digits, default=None, help=f"{digits_help} (default: {DEFAULT_DIGITS})"
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to this file, not stdout")
    add_no_header(parser)


# irgauge.studies._noise.TOPIC_RESAMPLES, not imported: that would bring pandas into the
# start-up of every command (tests/studies/test_topic_noise.py checks they are equal)
TOPIC_RESAMPLES = 1000


def add_topic_resamples(
    parser, retired=(), detail: str = "topic sampling, combined with the Monte Carlo error"
) -> None:
    """``--topic-resamples T``: the studies' topic bootstrap (study and demo); ``retired``:
    its refused old spellings (``study topicset --trials``, see :func:`add_renamed`),
    ``detail``: what the intervals hold."""
    add_renamed(
        parser,
        ("--topic-resamples",),
        (),
        tuple(retired),
        type=integer(2, what="a whole number"),  # a spread needs two resamples
        default=TOPIC_RESAMPLES,
        metavar="T",
        help="bootstrap resamples of the topics behind every ordering's 95%% interval "
        f"({detail}; at least 2)",
    )


def named_file(spec: str) -> tuple:
    """``(name, path)`` of a ``[NAME=]FILE`` argument. A file whose own name holds ``=`` is
    read as that file (so is any argument whose part before ``=`` holds a ``/``: a name has
    none); when both readings name existing files the argument is refused as ambiguous
    rather than guessed, and an empty name or file is refused too."""
    import os

    if "=" not in spec:
        return None, spec
    name, path = spec.split("=", 1)
    literal = os.path.exists(spec)
    if "/" in name or os.sep in name:
        return None, spec
    if literal and name and os.path.exists(path):
        raise InputError(
            f"{spec!r} names both the file {spec} and the file {path} as {name}; "
            f"write ./{spec} for the first, {name}=./{path} for the second"
        )
    if literal:
        return None, spec
    if not name or not path:
        raise InputError(f"{spec!r}: expected [NAME=]FILE, a name before '=' and a file after")
    return name, path
