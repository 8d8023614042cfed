"""The package's shape, measured from its source: every import (function-level ones
included) runs down the pipeline, no import cycle, few loose top-level modules, no module
name at two places, no module longer than one sitting's reading and no function longer than
a screen."""

from __future__ import annotations

import ast
from collections import defaultdict
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "src" / "irgauge"

# The pipeline, bottom first: a module may import from its own layer and the layers below.
LAYERS = [
    ("irgauge", "irgauge.errors", "irgauge._checks", "irgauge.citations", "irgauge.types"),
    ("irgauge.io",),
    ("irgauge.collection",),
    ("irgauge.measures",),
    ("irgauge.scores",),
    ("irgauge.evaluation",),
    ("irgauge.stats",),
    ("irgauge.meta",),
    ("irgauge.qa",),
    ("irgauge.report",),
    ("irgauge.studies",),
    ("irgauge.interop",),
    ("irgauge.cli", "irgauge.__main__"),
]
MAX_TOP_LEVEL_MODULES = 6
# the public facade names the classes of every layer for type checkers, under `if
# TYPE_CHECKING:`, which never runs: those imports make no dependency
TYPE_ONLY = {"irgauge", "irgauge.types"}
MAX_FUNCTION_LINES = 80
MAX_MODULE_LINES = 600
# a study under studies/ may share the name of the method it studies
SHARED_NAMES_ALLOWED = {"__init__", "predictive", "incomplete"}


def module_name(path: Path) -> str:
    parts = list(path.relative_to(PACKAGE.parent).with_suffix("").parts)
    if parts[-1] == "__init__":
        parts.pop()
    return ".".join(parts)


def modules() -> dict:
    return {module_name(p): p for p in sorted(PACKAGE.rglob("*.py"))}


def imported(tree: ast.AST, known: set) -> set:
    """irgauge modules a module imports anywhere in its body (``from P import sub`` counts
    as importing the submodule P.sub)."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            found.update(a.name for a in node.names if a.name.split(".")[0] == "irgauge")
        elif (
            isinstance(node, ast.ImportFrom)
            and node.level == 0
            and node.module
            and node.module.split(".")[0] == "irgauge"
        ):
            for alias in node.names:
                sub = f"{node.module}.{alias.name}"
                found.add(sub if sub in known else node.module)
    return found


def without_type_only(tree: ast.Module) -> ast.Module:
    """``tree`` less its top-level ``if TYPE_CHECKING:`` blocks."""
    tree.body = [
        node
        for node in tree.body
        if not (isinstance(node, ast.If) and ast.unparse(node.test).endswith("TYPE_CHECKING"))
    ]
    return tree


def import_graph() -> dict:
    found = modules()
    known = set(found)
    graph = {}
    for name, path in found.items():
        tree = ast.parse(path.read_text())
        if name in TYPE_ONLY:
            tree = without_type_only(tree)
        graph[name] = {m for m in imported(tree, known) if m in known} - {name}
    return graph


def layer_of(module: str) -> int:
    best, depth = None, -1
    for index, prefixes in enumerate(LAYERS):
        for prefix in prefixes:
            if (
                (module == prefix or module.startswith(prefix + "."))
                and (prefix != "irgauge" or module == "irgauge")
                and len(prefix) > depth
            ):
                best, depth = index, len(prefix)
    assert best is not None, f"{module} belongs to no layer: add it to LAYERS"
    return best


def cycles(graph: dict) -> list:
    """Strongly connected components of more than one module (Tarjan)."""
    index, low, stack, on_stack, out = {}, {}, [], set(), []
    counter = [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on_stack.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on_stack:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on_stack.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_the_graph_is_read():
    graph = import_graph()
    assert "irgauge.io.qrels" in graph["irgauge.evaluation.engine"]
    assert len(graph) > 80


def test_no_import_cycle():
    assert cycles(import_graph()) == []


def test_the_cycle_finder_finds_a_cycle():
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]


def test_every_import_runs_down_the_pipeline():
    upward = sorted(
        f"{a} -> {b}"
        for a, targets in import_graph().items()
        for b in targets
        if layer_of(b) > layer_of(a)
    )
    assert upward == []


def test_few_loose_top_level_modules():
    loose = sorted(p.name for p in PACKAGE.glob("*.py"))
    assert len(loose) <= MAX_TOP_LEVEL_MODULES, loose


def test_the_package_holds_modules_and_its_declared_data_only():
    """Nothing but modules, py.typed and data/ (pyproject's package-data) lives in the
    package: a draft or scratch file left beside a module is read by no one, and is
    either shipped or silently not (five drafts of the report's modules were committed
    so)."""
    stray = [
        str(path.relative_to(PACKAGE))
        for path in PACKAGE.rglob("*")
        if path.is_file()
        and "__pycache__" not in path.parts
        and path.suffix != ".py"
        and path.relative_to(PACKAGE).parts[0] != "data"
        and path.name != "py.typed"
    ]
    assert stray == []


def test_no_module_name_at_two_places():
    """One concept, one home: a private module (``_name``) counts under its name too."""
    places = defaultdict(list)
    for path in PACKAGE.rglob("*.py"):
        places[path.stem if path.stem.startswith("__") else path.stem.lstrip("_")].append(
            str(path.relative_to(PACKAGE))
        )
    shared = {
        name: where
        for name, where in places.items()
        if len(where) > 1 and name not in SHARED_NAMES_ALLOWED
    }
    assert shared == {}


def test_no_module_shares_the_name_of_a_function_it_exports():
    import irgauge

    clashes = [
        name for name in irgauge.__all__ if name in modules() or f"irgauge.{name}" in modules()
    ]
    assert clashes == []


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_function_over_a_screen(path):
    tree = ast.parse(path.read_text())
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.end_lineno - node.lineno + 1 > MAX_FUNCTION_LINES
    ]
    assert long == []


@pytest.mark.parametrize(
    "path", sorted(PACKAGE.rglob("*.py")), ids=lambda p: str(p.relative_to(PACKAGE))
)
def test_no_module_longer_than_one_sitting(path):
    """A module is read whole to change it safely: at 600 lines at most, one sitting (the
    largest modules held four concerns in 700 lines: run_parts read runs in file order,
    cut them into spans, partitioned them by topic and spilled tables to disk). A module
    that outgrows the limit is split by concern, each part named for what it holds."""
    lines = len(path.read_text().splitlines())
    assert lines <= MAX_MODULE_LINES, f"{lines} lines: split it by concern"
