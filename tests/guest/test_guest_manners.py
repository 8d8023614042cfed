"""A library is a guest: every public entry point, Python function or command run in-process
by ``irgauge.cli.main``, leaves the process-wide state (process_state.FIELDS: environment,
umask, directory, signal handlers, streams, warnings, logging, numpy's and Python's global
random states, numpy's error and print settings, gc, threads, matplotlib, locale, open files,
thread pools, resource limits) as it found it, whether it succeeds or fails on bad input.

The tables of calls are in guest_cases.py; a public callable or command missing from them
fails test_every_public_callable_is_driven / test_every_command_is_driven."""

from __future__ import annotations

import importlib
import inspect
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import pytest

import irgauge
from irgauge.cli import build_parser, main

from guest_cases import CLI_CASES, CLI_NOT_DRIVEN, NOT_DRIVEN, PYTHON_CASES
from guest_inputs import make_inputs
from process_state import differences, load_dependencies, snapshot

REPO = Path(__file__).resolve().parents[2]
PACKAGE = REPO / "src" / "irgauge"
API_DOCS = REPO / "docs" / "api"


def _placeholder_figures():
    """``style.save`` writing a small real figure's bytes for each format: the studies draw
    their figures (in irgauge's rc_context, on Figure objects) but skip the rendering,
    the slowest part of a study on small data; the rendering itself runs in the cases
    with ``render=True`` (discpower and swap figures, the report)."""
    from irgauge.report import style

    fig, ax = style.new_figure()
    ax.plot([0, 1], [0, 1])
    made = {}
    with tempfile.TemporaryDirectory() as tmp:
        for path in style.save(fig, tmp, "placeholder"):
            made[Path(path).suffix[1:]] = Path(path).read_bytes()

    def save(fig, directory, stem, formats=style.FORMATS):
        directory = Path(directory)
        directory.mkdir(parents=True, exist_ok=True)
        for ext in formats:
            (directory / f"{stem}.{ext}").write_bytes(made[ext])
        return [str(directory / f"{stem}.{ext}") for ext in formats]

    return save


@pytest.fixture(scope="module")
def quick_save():
    return _placeholder_figures()


@pytest.fixture(scope="module")
def inputs(tmp_path_factory, quick_save):
    """The small inputs (guest_inputs.py); pyplot is loaded as a user's program may have it,
    so that its list of open figures is watched too."""
    load_dependencies()
    import matplotlib

    if "matplotlib.pyplot" not in sys.modules:
        matplotlib.use("Agg")
    import matplotlib.pyplot  # noqa: F401

    from irgauge.report import style

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(style, "save", quick_save)
        return make_inputs(tmp_path_factory.mktemp("guest"))


def _changes(before, after, what: str) -> str:
    return f"{what} changed the process's state:\n  " + "\n  ".join(differences(before, after))


def _resolve(name: str):
    """The object of a public name, given as the docs give it (``irgauge.stats.holm``) or
    relative to irgauge (``evaluate``)."""
    name = name if name.startswith("irgauge.") else f"irgauge.{name}"
    module, _, attribute = name.rpartition(".")
    try:
        return getattr(importlib.import_module(module), attribute)
    except ModuleNotFoundError:
        return getattr(_resolve(module), attribute)


@pytest.mark.parametrize(
    "case",
    [pytest.param(c, marks=[pytest.mark.slow] if c.slow else [], id=c.id) for c in PYTHON_CASES],
)
def test_python_entry_point_is_a_guest(case, inputs, tmp_path, monkeypatch, quick_save):
    if not case.render:
        from irgauge.report import style

        monkeypatch.setattr(style, "save", quick_save)
    before = snapshot()
    raised = None
    try:
        case.call(inputs, tmp_path)
    except Exception as err:  # noqa: BLE001 - compared with case.fails below
        raised = err
    after = snapshot()
    assert not differences(before, after), _changes(before, after, case.id)
    if case.fails is None:
        assert raised is None, f"{case.id}: {raised!r}"
    else:
        expected = _resolve(case.fails) if case.fails.startswith("irgauge") else OSError
        assert isinstance(raised, expected), f"{case.id}: expected {case.fails}, got {raised!r}"


# the study commands run each study again, through the one wrapper every study command
# shares: the quick subset runs one of them (the quickest), and each study's Python entry
# point; the full suite runs every one
QUICK_STUDY = "study predictive"


def _cli_cases():
    for case in CLI_CASES:
        slow = case.command.startswith("study ") and case.command != QUICK_STUDY
        yield pytest.param(case, marks=[pytest.mark.slow] if slow else [], id=case.id)


@pytest.mark.parametrize("case", list(_cli_cases()))
def test_command_in_process_is_a_guest(case, inputs, tmp_path, monkeypatch, capsys, quick_save):
    if not case.render:
        from irgauge.report import style

        monkeypatch.setattr(style, "save", quick_save)
    args = case.args(inputs, tmp_path)
    before = snapshot()
    try:
        code = main(args)
    except SystemExit as exit_:  # argparse's refusals
        code = exit_.code
    after = snapshot()
    err = capsys.readouterr().err
    assert not differences(before, after), _changes(before, after, f"irgauge {' '.join(args)}")
    assert code == case.code, err


def _documented_names():
    """Every ``::: name`` of the API pages; a module stands for its ``__all__``."""
    for page in sorted(API_DOCS.glob("*.md")):
        for name in re.findall(r"^::: (\S+)", page.read_text(), re.MULTILINE):
            target = _resolve(name) if name.count(".") else irgauge
            if inspect.ismodule(target):
                yield from (f"{name}.{n}" for n in target.__all__)
            else:
                yield name


def test_every_public_callable_is_driven():
    """A new public function fails here until it has a case in guest_cases.py (or a reason
    in NOT_DRIVEN)."""
    names = [f"irgauge.{n}" for n in irgauge.__all__] + list(_documented_names())
    public = {id(_resolve(n)): n for n in names if callable(_resolve(n))}
    driven = {id(_resolve(n)) for case in PYTHON_CASES for n in case.uses}
    excused = {id(_resolve(n)) for n in NOT_DRIVEN}
    missing = sorted(name for key, name in public.items() if key not in driven | excused)
    assert not missing, f"public callables no guest case drives: {missing}"
    assert len(public) >= 80  # the docs' and __all__'s names were found


def _command_paths(parser, prefix=()):
    for action in parser._actions:
        if hasattr(action, "choices") and isinstance(action.choices, dict):
            for name, sub in action.choices.items():
                nested = list(_command_paths(sub, prefix + (name,)))
                yield from nested or [" ".join(prefix + (name,))]


def test_every_command_is_driven():
    commands = set(_command_paths(build_parser()))
    driven = {case.command for case in CLI_CASES} | set(CLI_NOT_DRIVEN)
    assert commands - driven == set(), f"commands no guest case drives: {commands - driven}"
    assert driven - commands == set(), f"guest cases of no command: {driven - commands}"


# Calls that change a process-wide setting, and the only modules allowed to make them (the
# console script's own settings, made before any command runs).
GLOBAL_SETTERS = {
    "mallopt(": {"cli/_process.py"},
    "keep_arrays_on_heap(": {"cli/_process.py"},
    "apply_process_settings(": {"cli/_process.py", "cli/__init__.py", "cli/cmd_trec_eval.py"},
    "install_signal_handlers(": {"cli/__init__.py", "cli/cmd_trec_eval.py"},
    # stops.py holds the stop signals while outputs are renamed or a lock is held, then
    # puts each handler back and delivers what came meanwhile (held_stop_signals)
    # (processes.py: in eval's forked worker processes only, never in the caller's)
    "signal.signal(": {"cli/__init__.py", "io/stops.py", "evaluation/processes.py"},
    # the console scripts' hold of Ctrl-C: in __init__ for python -m irgauge alone
    "import irgauge_console": {"__init__.py"},
    "from irgauge_console": {"__main__.py"},
    "np.seterr(": set(),
    "np.set_printoptions(": set(),
    "np.random.seed(": set(),
    "random.seed(": set(),
    "matplotlib.use(": set(),
    "matplotlib.pyplot": set(),
    "from matplotlib import pyplot": set(),
    "sys.setrecursionlimit(": set(),
    "gc.disable(": set(),
    "gc.set_threshold(": set(),
    "locale.setlocale(": set(),
    "os.chdir(": set(),
    "logging.basicConfig(": set(),
    "setrlimit(": set(),
    "os.putenv(": set(),
    "threadpool_limits(": set(),
}


def test_process_wide_settings_are_made_only_by_the_console_script():
    """A source check beside the snapshots for what they cannot see (glibc's allocator
    settings) or see only on the path a case takes. ``malloc_trim`` (io/heap.py) changes
    no setting: it hands free pages back."""
    found = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE).as_posix()
        text = path.read_text()
        for call, allowed in GLOBAL_SETTERS.items():
            if call in text and where not in allowed:
                found.append(f"{where}: {call}")
    assert not found, found
    heap = (PACKAGE / "io" / "heap.py").read_text()
    assert "mallopt(" not in heap and heap.count("malloc_trim(") == 1


FRESH_PROCESS = r"""
import contextlib, io, sys
sys.path.insert(0, {here!r})
from process_state import differences, load_dependencies, snapshot
load_dependencies(skip=("matplotlib", "ir_measures"))
assert "matplotlib" not in sys.modules
before = snapshot()
import irgauge
from irgauge.cli import main
qrels, runs = irgauge.sample_paths()
result = irgauge.evaluate(qrels, runs[:4], ["AP", "nDCG@10"])
result.per_topic.to_csv({scores!r}, sep="\t", index=False)
irgauge.discriminative_power(result, samples=20, seed=1)
irgauge.compare_table(result, seed=1, samples=20).render("latex")
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["discpower", {scores!r}, "-B", "20", "--seed", "1"]) == 0
after = snapshot()
print("evaluation:", "; ".join(differences(before, after)) or "unchanged")
print("matplotlib loaded:", "matplotlib" in sys.modules)
load_dependencies()
before = snapshot()
with contextlib.redirect_stdout(io.StringIO()):
    assert main(["discpower", {scores!r}, "-B", "20", "--seed", "1", "--figures", {figures!r}]) == 0
irgauge.write_report({report!r}, inputs=[{scores!r}])
after = snapshot()
print("figures:", "; ".join(differences(before, after)) or "unchanged")
print("pyplot loaded:", "matplotlib.pyplot" in sys.modules)
"""


@pytest.mark.slow  # a fresh interpreter importing numpy, pandas, scipy and irgauge
def test_a_fresh_process_keeps_its_state_and_loads_no_pyplot(tmp_path):
    """In a process that had loaded only numpy, pandas and scipy: irgauge's own first
    imports leave the state alone too, evaluation and statistics never load matplotlib,
    and figures never load pyplot."""
    script = FRESH_PROCESS.format(
        here=str(Path(__file__).parent),
        scores=str(tmp_path / "scores.tsv"),
        figures=str(tmp_path / "figures"),
        report=str(tmp_path / "report"),
    )
    env = {k: v for k, v in os.environ.items() if k != "MPLBACKEND"}
    done = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, env=env)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.splitlines() == [
        "evaluation: unchanged",
        "matplotlib loaded: False",
        "figures: unchanged",
        "pyplot loaded: False",
    ], done.stdout
