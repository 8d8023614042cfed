"""Argument types and options shared by every command: numbers checked at the boundary,
measure lists split only outside parentheses, and the options several commands take (each
defined once here, so that a flag means the same everywhere: ``-q`` per-topic values,
``-k`` a topic subset size, ``-m`` measures, ``--quiet`` no progress bars). The options of
what a command writes are :mod:`irgauge.cli.output_options`, a topic set size design's
:mod:`irgauge.cli.topic_design_options`, QA inputs' :mod:`irgauge.cli.answer_options`; how
an option records its old spellings and stated words, :mod:`irgauge.cli.option_spellings`.

Each type is a callable for ``add_argument(type=...)``; argparse turns its
``ArgumentTypeError`` into ``irgauge COMMAND: error: argument -B: ...`` and exit 2.
"""

from __future__ import annotations

import argparse
from typing import Any, Callable, Iterable, List, Optional

from irgauge import _checks
from irgauge._checks import MAX_COUNT, MAX_LEVEL  # noqa: F401  (MAX_COUNT re-exported)
from irgauge.errors import InputError
from irgauge.cli.option_spellings import add_renamed, stated


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
counts = list_of(count)  # 5,10,20: topic subset sizes
resamples = integer(2, what="a whole number")  # a spread needs two resamples


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


# ------------------------------------------------ options several commands share


def add_measures(parser, default: str, detail: str = "", dest: str = "measures") -> None:
    """``-m/--measure``, repeatable, a measure given twice refused (``cli.MeasureList``);
    read it with :func:`split_measures`. ``default``: the command's measures without -m,
    in words; ``detail``: what the command does with them."""
    action = parser.add_argument(
        "-m",
        "--measure",
        action="measures",
        dest=dest,
        default=None,
        metavar="MEASURE",
        help=f"measures{detail}; repeatable, and one value may hold several separated by "
        f"commas or spaces outside parentheses (default: {default})",
    )
    stated(action, default=default, **({"detail": detail} if detail else {}))


def add_empty_topics(parser, default=None, scored: str = "") -> None:
    """``--empty-topics {skip,zero}``: what becomes of a qrels topic without relevant
    documents (``evaluate(empty_topics=...)``); trec_eval's reading is ``zero``, and the
    note of :func:`irgauge.evaluation.peers.peer_notes` names this option."""
    action = parser.add_argument(
        "--empty-topics",
        choices=("skip", "zero"),
        default=default,
        help=f"topics without relevant documents{scored}: left out of the mean "
        "(skip, the default) or scored and averaged (zero, trec_eval's reading)",
    )
    # None (the commands that pass it on only when given) and skip read alike
    stated(action, default="skip, the default", **({"scored": scored} if scored else {}))


def add_seed(parser, default: Optional[int] = None, of: str = "") -> None:
    """``--seed``: ``of`` what it seeds where that is not all of the command's draws; a
    fixed ``default`` (the demo, simulate) gives the same numbers on every run."""
    words = "a fresh one, recorded in the output" if default is None else str(default)
    action = parser.add_argument(
        "--seed", type=seed, default=default, help=f"random seed{of} (default: {words})"
    )
    stated(action, default=words, **({"of": of} if of else {}))


def add_depths(parser, runs: str = "the runs") -> None:
    """``--depth K[,K...]``: the pool depths of a depth reduction (Sakai and Kando 2008),
    one spelling for every command that reduces qrels to the depth-K pool of the runs
    (incomplete, study incomplete, reduce); ``dest`` depth; ``runs``: which runs."""
    action = parser.add_argument(
        "--depth",
        type=depths,
        default=None,
        metavar="K[,K...]",
        help=f"pool depths: keep the judgments in the depth-K pool of {runs}",
    )
    stated(action, runs=runs)


def add_rates(parser) -> None:
    """``--rates J,...``: the shares of judgments a reduction keeps at random (text, read
    by ``collection.reduce.parse_rates``; None: its default)."""
    parser.add_argument(
        "--rates",
        type=rates,
        default=None,
        metavar="J,...",
        help="percentages of the judgments kept, comma-separated, each in (0, 100] "
        "(default: 90,70,50,30,10)",
    )


def add_pool_depth(parser, default=None, required: bool = False, role: str = "") -> None:
    """``--depth K``, one depth: the documents of each run and topic that a command pools
    or writes (pool, the pooling and reusability studies, simulate); ``role``: what the
    command does with them."""
    words = "required" if required else f"default: {default or 'whole runs'}"
    action = parser.add_argument(
        "--depth",
        type=count,
        default=default,
        required=required,
        metavar="K",
        help=f"depth K, documents per run and topic: {role} ({words})",
    )
    stated(action, role=role, default=words)


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
    action = parser.add_argument(
        "-q",
        "--per-topic",
        action="store_true",
        help=f"print {what} values as well as the aggregates (trec_eval -q)",
    )
    stated(action, what=what)


def add_subset_size(parser, detail: str = "") -> None:
    """``-k/--subset-size``: topics per random subset (``-c`` is trec_eval's --complete)."""
    action = parser.add_argument(
        "-k",
        "--subset-size",
        type=count,
        default=None,
        metavar="K",
        help=f"topics per subset{detail} (default: half the topics)",
    )
    if detail:
        stated(action, detail=detail)


def add_subset_sizes(parser, default: str, detail: str = "", old=()) -> None:
    """``-k/--subset-size K,K,...`` (also ``--subset-sizes``), dest ``subset_sizes``: the
    several sizes of a method that draws a curve (predictive); ``old``: its deprecated
    spellings."""
    action = add_renamed(
        parser,
        ("-k", "--subset-size", "--subset-sizes"),
        tuple(old),
        dest="subset_sizes",
        type=counts,
        default=None,
        metavar="K,K,...",
        help=f"topic subset sizes k{detail}, comma-separated (default: {default})",
    )
    stated(action, default=default, **({"detail": detail} if detail else {}))


def add_selection(group, top_k=None, top_fraction=None, by=None) -> None:
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
    words = by or "the first measure"
    action = group.add_argument(
        "--by",
        metavar="M",
        default=by,
        help=f"measure that ranks the systems for --top-k and --top-fraction (default: {words})",
    )
    stated(action, default=words)


def add_engine(
    parser, tasks: str, steps: bool = True, aliases=(), runs_on: str = "run on N threads"
) -> None:
    """``--engine {local,dask}``, ``--scheduler ADDRESS`` and ``--jobs N`` (``aliases``:
    its old spellings, deprecated); ``tasks`` says what becomes a task. With ``steps`` the
    command runs within ``use_engine(engine, scheduler)`` and ``use_jobs(jobs)`` (its
    methods' steps become tasks, or run on threads; see :mod:`irgauge.cli`); ``irgauge
    eval`` passes them to ``evaluate`` itself."""
    engine = parser.add_argument(
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
    stated(engine, tasks=tasks)
    cores = add_renamed(
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
    stated(cores, tasks=tasks.rstrip(","), runs_on=runs_on)
    parser.set_defaults(engine_steps=steps)


# irgauge.studies._noise.TOPIC_RESAMPLES, not imported: that would bring pandas into the
# start-up of every command (tests/studies/test_topic_noise.py checks they are equal)
TOPIC_RESAMPLES = 1000


def add_topic_resamples(
    parser, retired=(), detail: str = "topic sampling, combined with the Monte Carlo error"
) -> None:
    """``--topic-resamples T``: the studies' topic bootstrap (study and demo); ``retired``:
    its refused old spellings (``study topicset --trials``, see :func:`add_renamed`),
    ``detail``: what the intervals hold."""
    action = add_renamed(
        parser,
        ("--topic-resamples",),
        (),
        tuple(retired),
        type=resamples,
        default=TOPIC_RESAMPLES,
        metavar="T",
        help="bootstrap resamples of the topics behind every ordering's 95%% interval "
        f"({detail}; at least 2)",
    )
    stated(action, detail=detail)


def add_order(parser, detail: str = "") -> None:
    """``--order {score,file}``: the document order of the runs read (``read_run(order=)``);
    ``detail``: where the command applies it."""
    action = parser.add_argument(
        "--order",
        choices=("score", "file"),
        default=None,
        help="document order: score = score descending, ties by docno descending "
        "(trec_eval); file = file order (NTCIREVAL) (default: score for TREC runs, file "
        f"for ranked lists){detail}",
    )
    if detail:
        stated(action, detail=detail)


def add_rel_level(parser, of: str = " of the binary measures", given_only: bool = False) -> None:
    """``-l/--rel-level L`` (trec_eval -l); ``of``: what it thresholds, ``given_only``: the
    parser's default is None (the command refuses it where it would do nothing), 1 applies."""
    action = parser.add_argument(
        "-l",
        "--rel-level",
        type=rel_level,
        default=None if given_only else 1,
        help=f"relevance threshold{of}: relevant means level >= this (trec_eval -l; default: 1)",
    )
    stated(action, default="default: 1", of=of)


def add_gains(parser) -> None:
    """``--gains 1:2:3``: one gain per relevance level (``evaluate(gains=)``)."""
    parser.add_argument(
        "--gains",
        type=gains,
        default=None,
        help="gain per relevance level 1:2:3:... (NTCIREVAL -g order); "
        "default gain = level (so NTCIR S:A:B = 3:2:1)",
    )


def add_samples(parser, default: int = 1000, detail: str = "", old=()) -> None:
    """``-B/--samples``: bootstrap samples; ``old``: deprecated spellings (``--B``)."""
    action = add_renamed(
        parser,
        ("-B", "--samples"),
        tuple(old),
        type=draws,
        default=default,
        help=f"bootstrap samples{detail} (default: {default})",
    )
    stated(action, default=str(default), **({"detail": detail} if detail else {}))


def add_alpha(parser, default: Any = 0.05, given_only: bool = False, several: bool = False) -> None:
    """``--alpha``: the significance level; ``several``: repeatable, one result per level
    (discpower), ``given_only``: the parser's default is None (the command refuses it
    where it would do nothing), ``default`` applies."""
    words = " and ".join(str(a) for a in default) if several else str(default)
    action = parser.add_argument(
        "--alpha",
        type=alpha,
        action="append" if several else None,
        default=None if (several or given_only) else default,
        help="significance level: a p-value below it is significant"
        + ("; repeatable, one result per level" if several else "")
        + f" (default: {words})",
    )
    stated(action, default=words)
    if several:
        stated(action, several="; repeatable, one result per level")


def add_confidence(parser, of: str, old=()) -> None:
    """``--confidence``: a confidence level; ``of``: what it is the level of."""
    action = add_renamed(
        parser,
        ("--confidence",),
        tuple(old),
        type=confidence,
        default=0.95,
        help=f"confidence level{of} (default: 0.95)",
    )
    stated(action, of=of)


def add_correction(parser, given_only: bool = False) -> None:
    """``--correction {none,holm,bh}`` of the p-values of the run pairs."""
    action = parser.add_argument(
        "--correction",
        choices=("none", "holm", "bh"),
        default=None if given_only else "none",
        help="multiple-comparison correction of the p-values over the run pairs: Holm or "
        "Benjamini-Hochberg (default: none)",
    )
    stated(action, default="default: none")  # None (given only) reads as none


def add_trials(parser, default: int = 1000, detail: str = "") -> None:
    """``--trials``: random topic-subset draws (swap, stability, the studies)."""
    action = parser.add_argument(
        "--trials", type=draws, default=default, help=f"topic-subset draws{detail} "
        f"(default: {default})"
    )  # fmt: skip
    stated(action, default=str(default), **({"detail": detail} if detail else {}))


def add_halvings(parser, default: int = 2000, detail: str = "", retired=()) -> None:
    """``-P/--halvings``: random halvings of the topic set (predictive power)."""
    action = add_renamed(
        parser,
        ("-P", "--halvings"),
        (),
        tuple(retired),
        type=draws,
        default=default,
        help=f"random halvings of the topic set{detail} (default: {default})",
    )
    stated(action, default=str(default), **({"detail": detail} if detail else {}))


def add_variant(parser) -> None:
    """``--variant {a,b}``: Kendall's tau-a or tau-b."""
    parser.add_argument(
        "--variant",
        choices=("a", "b"),
        default="b",
        help="Kendall's tau variant: a (tau-a) or b (tau-b, ties corrected) (default: b)",
    )


def add_replacement(parser, detail: str = "") -> None:
    """``--replacement``: the two topic subsets drawn with replacement."""
    action = parser.add_argument(
        "--replacement",
        action="store_true",
        help=f"draw the two topic subsets with replacement: they need not be disjoint{detail}",
    )
    if detail:
        stated(action, detail=detail)


def add_swap_mode(parser, old=()) -> None:
    """``--swap-mode {strict,original}``: what counts as a swap."""
    add_renamed(
        parser,
        ("--swap-mode",),
        tuple(old),
        choices=("strict", "original"),
        default="strict",
        help="strict: a zero difference on one side only is a swap; original: sign "
        "changes only (Voorhees & Buckley) (default: strict)",
    )


def add_qrels_file(parser, role: str) -> None:
    """``--qrels QRELS``: an option's qrels file; ``role``: what the command does with it."""
    action = parser.add_argument(
        "--qrels", metavar="QRELS", default=None, help=f"qrels file: {role}"
    )
    stated(action, role=role)


def add_run_files(parser, role: str, repeat: bool = False) -> None:
    """``--run RUN...``: the run files an option scores; ``repeat``: given more than once,
    the runs add up."""
    action = parser.add_argument(
        "--run",
        nargs="+",
        action="extend" if repeat else None,
        metavar="RUN",
        help=f"run files{role}",
    )
    stated(action, role=role)
