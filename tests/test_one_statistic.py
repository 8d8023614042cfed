"""One statistic, one function: Kendall's tau, tau_AP, kappa, the t statistic and the
percentile interval are each computed in one home module. A scan of the source fails on a
second implementation: a function named for the statistic outside its home that does not
call into the home, or code with the statistic's shape (a paired sign of x[i] - x[j], a
division by a standard error sqrt(v / n) or s / sqrt(n), a percentile of samples) outside
it. The studies once had their own Kendall tau without the 1e-12 tie rule."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import irgauge

SRC = Path(irgauge.__file__).parent

# statistic -> (its home, the function names that claim it)
NAMED = {
    "Kendall's tau": ("meta/kendall.py", re.compile(r"kendall|^_?taus?(_[ab])?$")),
    "tau_AP": ("meta/correlation.py", re.compile(r"tau_?ap")),
    "kappa": ("meta/agreement.py", re.compile(r"kappa")),
}
T_HOME = PERCENTILE_HOME = "stats/resampling.py"
# names that hold a statistic's name but draw it (no statistic is computed there)
NOT_STATISTICS = {
    ("report/agreement_figures.py", "kappa_histogram"),
    ("report/figures.py", "tau_heatmap"),
}
PERCENTILES = {"percentile", "nanpercentile", "quantile", "nanquantile"}


def _modules():
    for path in sorted(SRC.rglob("*.py")):
        yield path.relative_to(SRC).as_posix(), ast.parse(path.read_text(), str(path))


def _called(node) -> set:
    """Names of the functions ``node`` calls (``f(...)`` and ``module.f(...)``)."""
    names = set()
    for call in ast.walk(node):
        if isinstance(call, ast.Call):
            func = call.func
            names.add(func.attr if isinstance(func, ast.Attribute) else getattr(func, "id", ""))
    return names


def _defined(tree) -> set:
    return {
        n.name for n in ast.walk(tree) if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))
    }


def _is_sqrt(node) -> bool:
    return (
        isinstance(node, ast.Call)
        and _called(node.func)
        | {getattr(node.func, "attr", getattr(node.func, "id", ""))} & {"sqrt"}
        != set()
    )


def _standard_error(node) -> bool:
    """sqrt(v / n) or s / sqrt(n)."""
    if _is_sqrt(node) and node.args and isinstance(node.args[0], ast.BinOp):
        return isinstance(node.args[0].op, ast.Div)
    return isinstance(node, ast.BinOp) and isinstance(node.op, ast.Div) and _is_sqrt(node.right)


def _pair_sign(node) -> bool:
    """sign(x[i] - x[j]): the sign of a pair of systems, Kendall's tau's building block."""
    if not (isinstance(node, ast.Call) and getattr(node.func, "attr", None) == "sign"):
        return False
    arg = node.args[0] if node.args else None
    return (
        isinstance(arg, ast.BinOp)
        and isinstance(arg.op, ast.Sub)
        and isinstance(arg.left, ast.Subscript)
        and isinstance(arg.right, ast.Subscript)
    )


def second_implementations(modules):
    """'module:line: what' for each statistic computed outside its home."""
    modules = dict(modules)
    homes = {home: _defined(modules[home]) for home, _ in NAMED.values()}
    found = []
    for name, tree in modules.items():
        for node in ast.walk(tree):
            where = f"{name}:{getattr(node, 'lineno', 0)}"
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                for statistic, (home, pattern) in NAMED.items():
                    if name == home or (name, node.name) in NOT_STATISTICS:
                        continue
                    if pattern.search(node.name) and not _called(node) & homes[home]:
                        found.append(f"{where}: {node.name} computes {statistic} ({home})")
            elif name != NAMED["Kendall's tau"][0] and _pair_sign(node):
                found.append(f"{where}: pair signs of Kendall's tau (meta/kendall.py)")
            elif (
                name != T_HOME
                and isinstance(node, ast.BinOp)
                and isinstance(node.op, ast.Div)
                and _standard_error(node.right)
            ):
                found.append(f"{where}: a t statistic ({T_HOME})")
            elif (
                name != PERCENTILE_HOME
                and isinstance(node, ast.Call)
                and getattr(node.func, "attr", None) in PERCENTILES
            ):
                found.append(f"{where}: a percentile interval ({PERCENTILE_HOME})")
    return found


def test_each_statistic_has_one_implementation():
    assert second_implementations(_modules()) == []


def test_the_scan_finds_each_kind_of_second_implementation():
    """The copies the scan exists for, in the shapes they were found in."""
    copies = {
        "studies/_topics.py": """
import numpy as np
def kendall_tau(x, y):
    sx, sy = np.sign(x[i] - x[j]), np.sign(y[i] - y[j])
    return (sx * sy).sum(axis=0)
""",
        "meta/system_agreement.py": """
def tau_ap_rows(x, y):
    return 2.0 / (n - 1) * total - 1
def pair_pvalues(z, weights):
    t = mean / np.sqrt(var / n)
""",
        "stats/pairs.py": "t = z.mean(axis=1) / (z.std(axis=1, ddof=1) / np.sqrt(n))\n",
        "studies/topic_set_design.py": "low = np.nanpercentile(samples, 2.5, axis=0)\n",
        "qa/scoring.py": "def cohen_kappa(a, b):\n    return 0.0\n",
    }
    homes = [(h, m) for h, m in _modules() if h in {home for home, _ in NAMED.values()}]
    found = second_implementations(homes + [(n, ast.parse(t)) for n, t in copies.items()])
    assert [f.split(": ", 1)[0] for f in found] == [
        "studies/_topics.py:3",
        "studies/_topics.py:4",
        "studies/_topics.py:4",
        "meta/system_agreement.py:2",
        "meta/system_agreement.py:5",
        "stats/pairs.py:1",
        "studies/topic_set_design.py:1",
        "qa/scoring.py:1",
    ], found
