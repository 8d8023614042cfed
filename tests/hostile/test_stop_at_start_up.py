"""Ctrl-C while a console script starts, before irgauge's stop handlers are in place (while
Python imports the command line, numpy, ...), stops the command as it would later: exit
130, ``irgauge: interrupted``, no traceback, nothing on standard output.

Each console script of pyproject.toml is started as pip writes it (``from MODULE import
FUNCTION; sys.exit(FUNCTION())``), after a few lines that make the moment exact: a trace
function sends the process SIGINT as the module named in an environment variable starts
to run. The console scripts' own module (irgauge_console) cannot be such a module: the
moment before its first statement is Python's start-up, which no package reaches."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import slow_after

ROOT = Path(__file__).resolve().parents[2]
AT = "IRGAUGE_TEST_SIGINT_AT"  # the module at whose start SIGINT comes

# the test's lines, then pip's console script: SIGINT as module AT starts to run, with
# Ctrl-C's default handling (a job a shell started in the background ignores SIGINT)
SCRIPT = """\
import _signal, os, sys
_signal.signal(_signal.SIGINT, _signal.default_int_handler)

def at_start(frame, event, arg):
    if event == "call" and frame.f_code.co_name == "<module>":
        if frame.f_globals.get("__name__") == os.environ[{at!r}]:
            sys.settrace(None)
            os.kill(os.getpid(), _signal.SIGINT)

sys.settrace(at_start)
from {module} import {function}
sys.exit({function}())
"""


def console_scripts() -> dict:
    """pyproject.toml's [project.scripts]: name -> (module, function)."""
    text = (ROOT / "pyproject.toml").read_text()
    section = text.split("[project.scripts]", 1)[1].split("\n[", 1)[0]
    found = re.findall(r'^([\w-]+)\s*=\s*"([\w.]+):(\w+)"', section, re.M)
    return {name: (module, function) for name, module, function in found}


# the modules each script starts before its handlers are installed (and some after:
# one imported by the command that runs)
STARTING = ["irgauge", "irgauge.cli", "irgauge.io.stops", "irgauge.cli._process"]
CASES = [
    ("irgauge-trec_eval", m)
    for m in [*STARTING, "irgauge.cli.cmd_trec_eval", "irgauge.evaluation.trec_eval.output"]
] + [("irgauge", m) for m in [*STARTING, "irgauge.cli.cmd_eval"]]


@pytest.mark.parametrize("script, module", CASES, ids=["@".join(c) for c in CASES])
def test_ctrl_c_as_a_console_script_starts(tmp_path, script, module):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    entry, function = console_scripts()[script]
    path = tmp_path / "script.py"
    path.write_text(SCRIPT.format(at=AT, module=entry, function=function))
    argv = ["q", "r"] if script == "irgauge-trec_eval" else ["eval", "q", "r"]
    env = {**os.environ, AT: module, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run(
        [sys.executable, str(path), *argv], cwd=tmp_path, env=env, capture_output=True, text=True
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "irgauge: interrupted\n")


def test_every_console_script_starts_in_irgauge_console():
    assert {module for module, _ in console_scripts().values()} == {"irgauge_console"}


# python -m irgauge: Python imports the package, and runs its __init__, before __main__.py;
# the hold must already be in place there. sitecustomize (run at Python's start-up, before
# runpy) sets the trace, so that the command is Python's own -m. SIGINT as the package's
# first module starts comes before its first statement: Python's start-up, as above.
SITECUSTOMIZE = SCRIPT.split("from {module}")[0]
# (runpy runs irgauge/__main__.py as __main__)
PYTHON_M = ["typing", "__main__", "irgauge.cli", "irgauge.io.stops", "irgauge.cli.cmd_eval"]


@pytest.mark.parametrize("module", slow_after(PYTHON_M, 2))
def test_ctrl_c_as_python_m_irgauge_starts(tmp_path, module):
    (tmp_path / "q").write_text("1 0 a 1\n")
    (tmp_path / "r").write_text("1 Q0 a 1 1 t\n")
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(SITECUSTOMIZE.format(at=AT))
    env = {**os.environ, AT: module, "PYTHONPATH": f"{site}{os.pathsep}{ROOT / 'src'}"}
    done = subprocess.run(
        [sys.executable, "-m", "irgauge", "eval", "q", "r"],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
    )
    assert (done.returncode, done.stdout, done.stderr) == (130, "", "irgauge: interrupted\n")


LIBRARY = """\
import signal, sys
before = signal.getsignal(signal.SIGINT)
import irgauge  # the package, imported by a program of its own run by python -m
after = signal.getsignal(signal.SIGINT)
sys.exit(0 if after is before else f"SIGINT handler {{before!r}} became {{after!r}}")
"""


@pytest.mark.parametrize("how", ["-m", "-c"])
def test_a_library_host_keeps_its_sigint_handler(tmp_path, how):
    """Importing irgauge from a package that python -m runs, or from python -c, leaves
    the host's SIGINT handler as it was: only python -m irgauge holds Ctrl-C back."""
    host = tmp_path / "host"
    host.mkdir()
    (host / "__init__.py").write_text(LIBRARY.format())
    (host / "__main__.py").write_text("")
    argv = ["-m", "host"] if how == "-m" else ["-c", LIBRARY.format()]
    env = {**os.environ, "PYTHONPATH": str(ROOT / "src")}
    done = subprocess.run([sys.executable, *argv], cwd=tmp_path, env=env, capture_output=True)
    assert done.returncode == 0, done.stderr
