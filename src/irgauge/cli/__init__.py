"""Command-line interface: a thin layer over the Python API.

Each sub-command lives in a module ``cmd_<name>.py`` of this package that defines
``register(subparsers)``; the module adds its parser and sets ``func`` to the
function that runs it. Modules import the API they call inside that function: ``irgauge
--help`` registers every command, and with the imports at module top it would load pandas,
scipy and matplotlib for it (measured: 0.08 s wall and 20 MB with the imports inside
``run``, 1.8-2.3 s and 204 MB with every command's API loaded).
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import signal
import stat
import sys
from typing import List, Optional, Tuple

from irgauge import __version__
from irgauge.cli._process import apply_process_settings
from irgauge.errors import InputError, InputSizeError, MeasureError, OutputError
from irgauge.io import stops
from irgauge.io.stops import STOP_SIGNALS

EXIT_WRITE_FAILED = 1
EXIT_BAD_INPUT = 2
EXIT_INTERRUPTED = 130  # 128 + SIGINT, as shells report it (128 + the signal's number)
# 128 + SIGPIPE: an output written to standard output (-o -) whose reader left before the
# end, as a tool killed by SIGPIPE reports it; no file commits (see docs/conventions.md)
EXIT_PIPE_CLOSED = 128 + 13
_PIPE_CLOSED = "standard output was closed before its output was complete; nothing was written"
DEBUG_VARIABLE = "IRGAUGE_DEBUG"


class HelpFormatter(argparse.ArgumentDefaultsHelpFormatter):
    """Shows an option's default only when there is one to show (not None or False) and its
    help does not already say it. A flag (an option without a value, such as
    ``store_false``) has no default to show: its default is the state it turns off."""

    def _get_help_string(self, action):
        flag = action.nargs == 0
        if flag or action.default in (None, False) or "default" in (action.help or ""):
            return action.help
        return super()._get_help_string(action)


class _Once(argparse.Action):
    """An option that takes one value or sets one flag, refused when given twice: the
    second would silently replace the first. Its parser counts the options of a parse in
    ``given`` (None: the last one given wins). Built on argparse's public :class:`Action`
    and registered under the names of the store actions, whose classes are private."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(parser, "given", None)
        if self.option_strings and given is not None:
            if self.dest in given:
                parser.error(
                    f"argument {'/'.join(self.option_strings)}: given twice "
                    f"({given[self.dest]} and {option_string}); give it once"
                )
            given[self.dest] = option_string
        setattr(namespace, self.dest, self.stored(values))

    def stored(self, values):
        return values


class StoreOnce(_Once):
    """``action="store"`` (and no action), given once."""

    def __init__(self, option_strings, dest, nargs=None, const=None, **kwargs):
        if nargs == 0:
            raise ValueError("nargs of a store action must be != 0: use store_true or store_const")
        if const is not None and nargs != argparse.OPTIONAL:
            raise ValueError(f"nargs must be {argparse.OPTIONAL!r} to supply const")
        super().__init__(option_strings, dest, nargs=nargs, const=const, **kwargs)


class StoreConstOnce(_Once):
    """``action="store_const"``, given once: a flag that stores ``const``."""

    def __init__(self, option_strings, dest, const=None, default=None, **kwargs):
        super().__init__(option_strings, dest, nargs=0, const=const, default=default, **kwargs)

    def stored(self, values):
        return self.const


class StoreTrueOnce(StoreConstOnce):
    """``action="store_true"``, given once."""

    def __init__(self, option_strings, dest, default=False, **kwargs):
        super().__init__(option_strings, dest, const=True, default=default, **kwargs)


class StoreFalseOnce(StoreConstOnce):
    """``action="store_false"``, given once."""

    def __init__(self, option_strings, dest, default=True, **kwargs):
        super().__init__(option_strings, dest, const=False, default=default, **kwargs)


class AppendNamed(argparse.Action):
    """``action="append"``, recording the option that gave it (as the once-only actions
    do), so that an error of the Python parameter it feeds names the option the user typed
    (``--repeated``, not ``repeated``). Built on argparse's public :class:`Action`."""

    def __call__(self, parser, namespace, values, option_string=None):
        given = getattr(parser, "given", None)
        if self.option_strings and given is not None:
            given.setdefault(self.dest, option_string)
        items = list(getattr(namespace, self.dest, None) or [])  # never the default's list
        self.add(items, values)
        setattr(namespace, self.dest, items)

    def add(self, items: list, values) -> None:
        items.append(values)


class MeasureList(AppendNamed):
    """``-m/--measure`` (``_options.add_measures``, action ``"measures"``): repeatable, each
    value a list of measures, a measure given twice refused naming it, across values too
    (``-m AP,AP``, ``-m AP -m AP``): each names a column or rows of the result, and some
    commands kept one silently where others wrote it twice. The trec_eval drop-in declares
    a plain ``-m``, which takes repeats as trec_eval does."""

    def __call__(self, parser, namespace, values, option_string=None):
        from irgauge.measures.parse import given_twice, split_list

        twice = given_twice(split_list([*(getattr(namespace, self.dest, None) or []), values]))
        if twice:  # one line, as a measure refused later is (not argparse's usage lines)
            raise InputError(f"{option_string}: {twice}")
        super().__call__(parser, namespace, values, option_string)


class ExtendNamed(AppendNamed):
    """``action="extend"``, recording the option that gave it."""

    def add(self, items: list, values) -> None:
        items.extend(values)


class Parser(argparse.ArgumentParser):
    """irgauge's parsers (sub-commands are made of the same class): an option that takes
    one value or sets one flag is refused when given twice, and an unknown option is
    refused by the command it follows, with that command's usage line. Repeatable options
    (``action="append"``/``"extend"``) say so in their help. A command that must take the
    last of repeated options (the trec_eval drop-in, as trec_eval's getopt does) sets
    ``once = False``."""

    once = True

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        for name, action in (
            (None, StoreOnce),  # add_argument without action=
            ("store", StoreOnce),
            ("store_const", StoreConstOnce),
            ("store_true", StoreTrueOnce),
            ("store_false", StoreFalseOnce),
        ):
            self.register("action", name, action)
        for name, action in (
            ("append", AppendNamed),
            ("extend", ExtendNamed),
            ("measures", MeasureList),
        ):
            self.register("action", name, action)

    def parse_known_args(self, args=None, namespace=None):
        self.given = {} if self.once else None  # the options of this parse, by dest
        namespace, extras = super().parse_known_args(args, namespace)
        _note_old_spellings(self, self.given or {})
        # a sub-command's options reach the top namespace with its other values
        namespace.given_options = {**(self.given or {}), **getattr(namespace, "given_options", {})}
        # argparse hands a command's unknown options up to the top parser, whose usage line
        # says nothing of the command's options: each (sub-)command refuses its own
        if extras:
            self.error(f"unrecognized arguments: {' '.join(extras)}")
        return namespace, extras

    def error(self, message: str):
        """argparse's refusal, with a hint where the slip is a common one."""
        from irgauge.cli._hints import hint

        super().error(message + hint(self, message))


def _note_old_spellings(parser: argparse.ArgumentParser, given: dict) -> None:
    """A note for each option given by a deprecated spelling (``option_spellings.add_renamed``)."""
    from irgauge.cli.option_spellings import old_spelling_note

    for option in given.values():
        action = parser._option_string_actions.get(option)
        if action is not None:
            old_spelling_note(action, option)


def build_parser(argv: Optional[List[str]] = None) -> argparse.ArgumentParser:
    """The parser; when ``argv`` names a command, only that command's module is imported
    (start-up stays short), otherwise every command is registered for the help."""
    parser = Parser(
        prog="irgauge",
        description="Evaluate retrieval runs and the evaluation metrics themselves.",
    )
    parser.add_argument("--version", action="version", version=f"irgauge {__version__}")
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND")
    wanted = _command_module(argv[0]) if argv else None
    if wanted is not None:
        wanted.register(subparsers)
        return parser
    import pkgutil  # listing the commands' modules: only for the help (1 ms of start-up)

    names = sorted(m.name for m in pkgutil.iter_modules(__path__) if m.name.startswith("cmd_"))
    for name in names:
        importlib.import_module(f"{__name__}.{name}").register(subparsers)
    return parser


def _command_module(word: str):
    """The module of command ``word``, None when no command has that name."""
    if not word.isidentifier():
        return None
    name = f"{__name__}.cmd_{word}"
    try:
        return importlib.import_module(name)
    except ModuleNotFoundError as err:
        if err.name != name:  # a command's own import failing is a bug to show
            raise
        return None


Terminated = stops.Stopped  # SIGTERM or SIGHUP (and Ctrl-C) raised in the command


def main(argv: Optional[List[str]] = None) -> int:
    """Run one command. Bad input exits 2, a failed write 1, Ctrl-C 130 (SIGTERM 143,
    SIGHUP 129), each with one line on stderr; ``IRGAUGE_DEBUG=1`` re-raises instead, for
    a traceback in bug reports. The inputs the command opens are noted
    (:func:`irgauge.io.noted_inputs.input_scope`): no output may replace one of them. Called
    inside a user's program it leaves ``sys.stdout`` and its file as they are, even when
    writing to them failed (the console scripts then silence them: :func:`run_as_process`)."""
    return _main(argv)[0]


def run_as_process(argv: Optional[List[str]] = None) -> int:
    """:func:`main` for a process that is irgauge's own (the console scripts): when
    standard output failed (a closed pipe, ``> /dev/full``), it is pointed at os.devnull,
    so that the flush at exit of what could not be written does not fail again."""
    import warnings

    warnings.showwarning = _warning_note
    code, stdout_failed = _main(argv)
    if stdout_failed:
        _silence_stdout()
    return code


def _warning_note(message, category, filename, lineno, file=None, line=None) -> None:
    """A Python warning that reaches the console script (a measure plugin's, a library's)
    as one note: Python's format (a source path and line, then the line of code) is no
    line of irgauge's. In-process callers of :func:`main` keep their own warning handling
    (the fuzz harness records warnings as failures)."""
    text = one_line(" ".join(str(message).split()))
    print(f"irgauge: note: {category.__name__}: {text}", file=sys.stderr)


def _main(argv: Optional[List[str]]) -> Tuple[int, bool]:
    """(exit status, whether writing to standard output failed). A stop signal raises only
    within ``stops.running()`` (see :mod:`irgauge.io.stops`), inside the handlers below;
    whatever line it cut short, the outputs it left staged are removed here."""
    from irgauge.io.noted_inputs import input_scope
    from irgauge.io.output_scope import abandon, summary_stdout

    debug = os.environ.get(DEBUG_VARIABLE, "") not in ("", "0")
    status: List[int] = []  # the command's status, once it has returned
    staged: List = []  # the command's outputs (see output_scope.command_outputs)
    stdout: List = []  # standard output, guarded (output_scope.summary_stdout)
    try:
        with input_scope(), summary_stdout() as guarded, stops.running():
            stdout.append(guarded)
            code = _run(argv, status, staged)
        return code, _closed(stdout)
    except (InputError, MeasureError) as err:
        if debug:
            raise
        if _stopped_first(status, staged):  # a stop kept back while the error was handled
            return _stopped(stops.requested() or signal.SIGINT), _closed(stdout)
        print(f"irgauge: error: {one_line(str(err))}", file=sys.stderr)
        return EXIT_BAD_INPUT, _closed(stdout)
    except BrokenPipeError:  # an output written to standard output (-o -) is incomplete
        print(f"irgauge: {_PIPE_CLOSED}", file=sys.stderr)
        return EXIT_PIPE_CLOSED, True
    except OSError as err:  # OutputError, or standard output failing (``> /dev/full``)
        if debug:
            raise
        if _stopped_first(status, staged):
            return _stopped(stops.requested() or signal.SIGINT), _closed(stdout)
        print(f"irgauge: error: {one_line(_write_error(err))}", file=sys.stderr)
        failed = not isinstance(err, OutputError) and err.filename is None
        return EXIT_WRITE_FAILED, failed or _closed(stdout)
    except KeyboardInterrupt as err:
        if debug:
            raise
        if _finished(status, staged):  # too late to stop: the outputs are complete, in place
            return status[0], _closed(stdout)
        signum = getattr(err, "signum", None) or stops.requested() or signal.SIGINT
        return _stopped(signum), _closed(stdout)
    finally:
        abandon(staged)


def _closed(stdout: List) -> bool:
    """Whether the command found standard output's pipe closed (its writes dropped)."""
    return bool(stdout) and stdout[0].broken


def _finished(status: List[int], staged: List) -> bool:
    """Whether the command has returned and its outputs (if any) are in place."""
    from irgauge.io.output_scope import committed

    return bool(status) and (not staged or committed(staged))


def _stopped_first(status: List[int], staged: List) -> bool:
    """Whether a stop came while the command ran, before its outputs were in place."""
    return not _finished(status, staged) and stops.requested() is not None


def _stopped(signum: int) -> int:
    """Say that a stop signal ended the command; its exit status (128 + the signal)."""
    word = "interrupted" if signum == signal.SIGINT else f"stopped by {signal.Signals(signum).name}"
    print(f"irgauge: {word}", file=sys.stderr)
    return 128 + int(signum)


_CONTROL = {c: f"\\x{c:02x}" for c in [*range(9), *range(10, 32), 127, 0x85, 0x2028, 0x2029]}


def one_line(message: str) -> str:
    """The message on one line: control characters (a vertical tab or a CR in an id read
    from a file) and Unicode line separators are shown as escapes."""
    return message.translate(_CONTROL)


def _run(argv: Optional[List[str]], status: List[int], staged: List) -> int:
    """Run the command; ``status`` gets its exit status once it has returned. The outputs
    it stages (``output_file``, ``output_folder``) are committed together when it returns,
    removed if it fails or is stopped (a stop signal held during the commit is delivered
    after it: see :mod:`irgauge.io.staging`); ``staged`` holds them
    (:func:`irgauge.io.output_scope.command_outputs`)."""
    from irgauge.io.output_scope import command_outputs

    if argv is None:
        argv = sys.argv[1:]
    parser = build_parser(argv)
    args = parser.parse_args(argv)
    if not getattr(args, "func", None):
        parser.print_help()
        return EXIT_BAD_INPUT
    _refuse_stdin_twice(args)
    with command_outputs(staged), _engine(args):
        try:
            code = int(args.func(args) or 0)
            stops.checkpoint()  # one kept back while an error was handled (see stops)
            status.append(code)
        except InputSizeError as err:  # counted below the layer that read the files
            if err.path is None and getattr(args, "input_files", None):
                err.path = ", ".join(args.input_files)
            raise
        except InputError as err:  # a value the API refused names its option
            _name_option(err, getattr(args, "given_options", {}))
            raise
    sys.stdout.flush()  # a full disk is reported here, not in the flush at exit
    return code


def _name_option(err: InputError, given: dict) -> None:
    """An error refusing a Python parameter's value (``min_diff: ...``) names the option
    that gave it (``--min-diff: ...``): the user typed the option, not the parameter."""
    option = given.get(err.parameter) if err.parameter else None
    if option is None:
        return
    prefix = f"{err.parameter}: "
    problem = err.problem[len(prefix) :] if err.problem.startswith(prefix) else err.problem
    err.problem = f"{option}: {problem}"
    err.args = (str(err),)


@contextlib.contextmanager
def _engine(args: argparse.Namespace):
    """The engine of a command whose methods' steps may be tasks (``--engine``); a Dask
    cluster starts while the command reads its inputs. The output is the local output;
    the engine is named on stderr only, so that the outputs of both engines compare
    equal byte for byte."""
    if not getattr(args, "engine_steps", False):
        yield
        return
    from irgauge.evaluation.tasks import use_engine, use_jobs

    with use_engine(args.engine, args.scheduler, args.jobs), use_jobs(args.jobs):
        if args.engine == "dask":
            where = args.scheduler or "a local cluster"
            print(f"irgauge: note: engine dask: steps run as tasks on {where}", file=sys.stderr)
        yield


def _refuse_stdin_twice(args: argparse.Namespace) -> None:
    """Standard input, and any other stream (a named pipe, a process substitution), can be
    read once: one given for two arguments is refused before anything is read (the readers
    refuse a second read of ``-`` too; a second open of a pipe would find it empty, or wait
    for a writer that never comes)."""
    named: dict = {}  # the stream -> (the path first given for it, the arguments naming it)
    # a command whose positional changes meaning with an option (eval's QRELS is a RUN
    # under --prels) says what each argument is (set_defaults(input_name=...))
    input_name = getattr(args, "input_name", None) or (lambda _, dest: dest.upper())
    for dest, value in vars(args).items():
        if dest in _OUTPUT_DESTS:
            continue
        for item in value if isinstance(value, (list, tuple)) else [value]:
            key = _stream_key(item) if isinstance(item, str) else None
            if key is not None:
                named.setdefault(key, (item, []))[1].append(input_name(args, dest))
    for key, (path, dests) in named.items():
        if len(dests) < 2:
            continue
        if key == _STDIN:
            raise InputError(
                "standard input ('-') is given as two inputs "
                f"({', '.join(dests)}); it can be read only once (give all but one as files)"
            )
        raise InputError(
            f"a stream (a named pipe or a process substitution) is given as two inputs "
            f"({', '.join(dests)}); it can be read only once (give all but one as files)",
            path,
        )


_STDIN = ("-",)
_OUTPUT_DESTS = {"output", "out", "figures"}  # written, not read: output checks own them


def _stream_key(value: str):
    """What ``value`` reads if it is a stream: standard input, or a named pipe or socket by
    its (device, inode); None for a regular file, a folder, or text that names no file."""
    if value == "-":
        return _STDIN
    try:
        info = os.stat(value)
    except (OSError, ValueError):
        return None
    if stat.S_ISFIFO(info.st_mode) or stat.S_ISSOCK(info.st_mode):
        try:  # /dev/stdin, or /dev/fd/0, is standard input by another name
            if os.path.samestat(info, os.fstat(0)):
                return _STDIN
        except OSError:
            pass
        return (info.st_dev, info.st_ino)
    return None


def _write_error(err: OSError) -> str:
    if isinstance(err, OutputError) or err.filename is not None:
        return str(err)
    return f"cannot write standard output: {err.strerror or err}"


def _silence_stdout() -> None:
    """Point standard output at os.devnull, so that the flush at exit (of what could not
    be written) does not fail again."""
    with contextlib.suppress(OSError, ValueError, AttributeError):
        fd = sys.stdout.fileno()
        null = os.open(os.devnull, os.O_WRONLY)
        os.dup2(null, fd)
        os.close(null)
    with contextlib.suppress(OSError):
        sys.stdout = open(os.devnull, "w")


def _stop(signum, frame) -> None:
    """Signal handler of the console script: the first stop signal goes to
    :func:`irgauge.io.stops.request`, which raises it where the command can clean up, or
    keeps it until it can (see that module); later ones are ignored while its cleanup
    runs."""
    ignore_stop_signals()
    stops.request(signum)


def install_signal_handlers() -> None:
    """SIGINT, SIGTERM and SIGHUP raise (KeyboardInterrupt, :class:`Terminated`), so that
    temporary files and folders are removed. Only the console script calls this: a
    library does not change its host's signal handlers. A stop that the handler replaced
    here held back (the console scripts' first one, ``irgauge_console.EarlyStops``,
    keeps those that came while Python imported the command line in ``came``) is passed
    on: the command stops as it starts."""
    stops.reset()
    held: List[int] = []
    for name in STOP_SIGNALS:
        number = getattr(signal, name, None)
        if number is None:  # pragma: no cover - no SIGHUP on Windows
            continue
        previous = signal.getsignal(number)
        if previous == signal.SIG_IGN:
            continue  # nohup: stay immune
        signal.signal(number, _stop)
        held += getattr(previous, "came", [])  # read after the swap: none is lost between
    if held:
        _stop(held[0], None)


def console_main() -> int:
    """The ``irgauge`` console script: the process is irgauge's own, so its settings
    (numpy's BLAS threads and huge pages, glibc's heap, the stop signals) are made first,
    before any command module loads numpy; then :func:`main`."""
    apply_process_settings()
    install_signal_handlers()
    return run_as_process()


def ignore_stop_signals() -> None:
    """Ignore stop signals from now on, while the first one's cleanup runs."""
    for name in STOP_SIGNALS:
        with contextlib.suppress(AttributeError, ValueError, OSError):
            signal.signal(getattr(signal, name), signal.SIG_IGN)


if __name__ == "__main__":  # pragma: no cover
    sys.exit(console_main())
