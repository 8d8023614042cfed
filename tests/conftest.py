"""Shared test helpers: paths to the conformance data beside the repository."""

from __future__ import annotations

import contextlib
import os
import signal
from pathlib import Path

import pytest
from hypothesis import settings

# The suite's outputs are thrown away: no fsync (a few milliseconds per file written, in
# every command it runs); tests/hostile/test_outputs_commit.py turns it on to check it.
os.environ.setdefault("IRGAUGE_FSYNC", "0")

# ranx, a peer the suite checks against, compiles its functions with numba on first use:
# about 90 s of CPU in a fresh environment (CI's), for collections of a few dozen lines.
# Interpreted, the same functions give the same numbers (ranx uses neither fastmath nor
# anything but prange, which runs as range) in 5 s. NUMBA_DISABLE_JIT=0 compiles them.
os.environ.setdefault("NUMBA_DISABLE_JIT", "1")

# No test may depend on the machine's load: Hypothesis's default deadline (200 ms an
# example) fails a property whose example is slow on a busy machine (DeadlineExceeded,
# then Flaky), so no property of the suite has one.
settings.register_profile("irgauge", deadline=None)
settings.load_profile("irgauge")

REPO = Path(__file__).resolve().parents[1]
SHARED_DATA = REPO.parent / "shared" / "data"
# the conformance data the tests read (../shared/data/README.md lists them)
CONFORMANCE = (
    "trec_eval_tests",
    "ntcireval_samples",
    "ntcireval_generated",
    "pyntcireval_tests",
    "ir_measures_tests",
    "ranx_tests",
    "rank_correlation_tests",
    "urbano-score-matrices",
)


# The quick subset (-m "not slow") runs a property test's examples divided by this share
# (tests.conftest.examples); the full suite runs them all. Set it to 1 to run all anyway.
EXAMPLES_SHARE = "IRGAUGE_EXAMPLES_SHARE"
QUICK_SHARE = 8


def pytest_configure(config):
    """Before the test modules are imported (their @settings read :func:`examples`)."""
    if "not slow" in (config.option.markexpr or ""):
        os.environ.setdefault(EXAMPLES_SHARE, str(QUICK_SHARE))


def examples(n: int) -> int:
    """A property test's max_examples: ``n`` in the full suite; in the quick subset
    ``max(10, n // share)``: the same properties, fewer examples of each."""
    share = int(os.environ.get(EXAMPLES_SHARE, "1") or 1)
    return n if share <= 1 else max(10, n // share)


def small_resampling_chunks(monkeypatch, *modules) -> None:
    """Chunks of 2,000 cells, each of blocks of 500, in the resampling steps of
    ``modules`` (each module that imports ``block_chunks``), so that a few systems make
    several chunks and several blocks."""
    from irgauge.stats import resampling

    monkeypatch.setattr(resampling, "BLOCK_CELLS", 500)
    for module in modules:
        if hasattr(module, "BLOCK_CELLS"):  # blocks of its own
            monkeypatch.setattr(module, "BLOCK_CELLS", 500)
        monkeypatch.setattr(
            module,
            "block_chunks",
            lambda rows, cells, max_cells=0, block_cells=None: resampling.block_chunks(
                rows, cells, 2000, block_cells
            ),
        )


def slow_after(cases, keep: int = 1) -> list:
    """@pytest.mark.parametrize values with all but the first ``keep`` marked slow: the
    quick subset runs a family's first cases, the full suite every one. A tuple is the
    values of several argument names."""
    cases = list(cases)
    return cases[:keep] + [
        pytest.param(*(c if isinstance(c, tuple) else (c,)), marks=pytest.mark.slow)
        for c in cases[keep:]
    ]


_PARAM = type(pytest.param())  # pytest.param's class, which pytest does not export


def slow_but_one_each(cases, group) -> list:
    """@pytest.mark.parametrize values with one case of each group quick and the others
    marked slow: the quick subset meets every group (a walker's every command) once, the
    full suite every case. The kept case turns with the group (the first group's first
    case, the second group's second, ...), so the quick subset meets cases of every kind
    rather than each group's first. ``group`` maps a case's values (a tuple) to its group."""
    plain = []
    for case in cases:  # a pytest.param keeps its id and marks
        if isinstance(case, _PARAM):
            plain.append((tuple(case.values), list(case.marks), case.id))
        else:
            plain.append((case if isinstance(case, tuple) else (case,), [], None))
    groups: dict = {}
    for at, (values, _, _) in enumerate(plain):
        groups.setdefault(group(values), []).append(at)
    kept = {members[turn % len(members)] for turn, members in enumerate(groups.values())}
    return [
        pytest.param(*values, marks=marks if at in kept else [*marks, pytest.mark.slow], id=id_)
        for at, (values, marks, id_) in enumerate(plain)
    ]


def pytest_sessionstart(session):
    """Under CI (CI=true) absent conformance data fails the run: the tests that read it
    would otherwise skip, and a run that checked nothing against trec_eval or NTCIREVAL
    would pass. On a developer's machine they skip, saying where the data was looked for."""
    # A suite started in the background by a non-interactive shell inherits Ctrl-C
    # ignored, one started under nohup SIGHUP, and so would every command it starts: the
    # tests that stop one with a signal need the dispositions a terminal gives (the
    # commands themselves leave an ignored signal ignored, as a guest should: a child left
    # immune to SIGHUP finished its paused write and exited 0, "assert 0 == 128 + SIGHUP").
    if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    for name in ("SIGTERM", "SIGHUP"):
        number = getattr(signal, name, None)
        if number is not None and signal.getsignal(number) == signal.SIG_IGN:
            signal.signal(number, signal.SIG_DFL)
    if os.environ.get("CI") != "true":
        return
    missing = [name for name in CONFORMANCE if not (SHARED_DATA / name).is_dir()]
    if missing:
        raise pytest.UsageError(
            f"CI=true and the conformance data is missing at {SHARED_DATA}: {', '.join(missing)}"
        )


@pytest.fixture
def shared_data() -> Path:
    if not SHARED_DATA.is_dir():
        pytest.skip(f"conformance data not found at {SHARED_DATA}")
    return SHARED_DATA


@contextlib.contextmanager
def console_stop_handlers():
    """The console script's stop-signal handlers (SIGINT, SIGTERM, SIGHUP) installed for a
    test in this process, and the test process's own restored afterwards."""
    from irgauge import cli

    saved = {s: signal.getsignal(s) for s in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)}
    for number in saved:
        signal.signal(number, signal.default_int_handler)  # not ignored: installed below
    cli.install_signal_handlers()
    try:
        yield
    finally:
        for number, handler in saved.items():
            signal.signal(number, handler)


@contextlib.contextmanager
def quick_study_figures():
    """The studies' figures written as a few bytes each, through the study's writer as a
    drawn one is (matplotlib takes seconds a figure): for tests of where outputs go, not
    of what the figures show."""
    from unittest import mock

    from irgauge.io.atomic import write_bytes
    from irgauge.studies import _common

    def figure(writer, stem, draw, data, caption, **options):
        write_bytes(writer.work / "figures" / f"{stem}.png", b"\x89PNG figure")
        files = {"png": f"figures/{stem}.png"}
        writer.figure_entries.append({"name": stem, "caption": caption, "files": files})

    with mock.patch.object(_common.StudyWriter, "figure", figure):
        yield


@pytest.fixture
def undrawn_figures():
    """quick_study_figures for one test: for a module whose tests read a study's tables
    and summary, not its figures (``pytest.mark.usefixtures("undrawn_figures")``)."""
    with quick_study_figures():
        yield


def pair_tests() -> dict:
    """name -> function: every public function of irgauge.stats and irgauge.meta taking two
    samples or rankings ``x`` and ``y`` (the tests, kendall_tau, tau_ap, ...), found, so
    that one added later is held by the tests that walk them (test_result_notes, the fuzz
    harness's results)."""
    import importlib
    import inspect

    found = {}
    for package in ("irgauge.stats", "irgauge.meta"):
        module = importlib.import_module(package)
        for name in module.__all__:
            function = getattr(module, name)
            if inspect.isfunction(function):
                if list(inspect.signature(function).parameters)[:2] == ["x", "y"]:
                    found[name] = function
    return found
