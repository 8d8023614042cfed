"""The quick subset, ``pytest -m "not slow"``, still reaches every module of the package:
each is imported, directly or through the modules it imports, by a test module that has a
test not marked slow (read from the sources, as tests/test_architecture.py reads the
package's imports)."""

from __future__ import annotations

import ast
from pathlib import Path

from test_architecture import PACKAGE, import_graph, imported, modules

TESTS = Path(__file__).resolve().parent


def _marked_slow(node: ast.AST) -> bool:
    return "slow" in {n.attr for n in ast.walk(node) if isinstance(n, ast.Attribute)}


def is_quick(tree: ast.Module) -> bool:
    """Whether a test module has a test that ``-m "not slow"`` keeps."""
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == "pytestmark" for t in node.targets
        ):
            if _marked_slow(node.value):
                return False
    tests = [
        node
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))
        and node.name.startswith("test")
    ]
    return any(not any(_marked_slow(d) for d in t.decorator_list) for t in tests)


def dynamic_imports() -> dict:
    """The imports made by name at run time, which no import statement shows: the package's
    lazy names, the commands the CLI registers, the studies run by name."""
    import irgauge
    from irgauge.collection import pooling
    from irgauge.studies import MODULES, STUDIES

    known = modules()
    return {
        "irgauge": set(irgauge._LAZY.values()),
        "irgauge.cli": {m for m in known if m.startswith("irgauge.cli.cmd_")},
        "irgauge.studies": {f"irgauge.studies.{MODULES.get(s, s)}" for s in STUDIES},
        pooling.__name__: {f"{pooling.__name__}.{m}" for m in pooling.STRATEGIES.values()},
    }


def runs_as_main(tree: ast.Module) -> set:
    """``python -m irgauge`` in a command line the test runs: irgauge.__main__."""
    for node in ast.walk(tree):
        if isinstance(node, (ast.List, ast.Tuple)):
            words = [e.value if isinstance(e, ast.Constant) else None for e in node.elts]
            if any(a == "-m" and b == "irgauge" for a, b in zip(words, words[1:])):
                return {"irgauge.__main__"}
    return set()


def reached_by_quick_tests() -> set:
    known = set(modules())
    graph = import_graph()
    for module, targets in dynamic_imports().items():
        graph[module] = graph[module] | targets
    helpers = {p.stem: p for p in TESTS.rglob("*.py") if not p.name.startswith("test_")}
    start = set()
    for path in sorted(TESTS.rglob("*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        quick = path.name == "conftest.py" or (path.name.startswith("test_") and is_quick(tree))
        if not quick:
            continue
        start |= (imported(tree, known) | runs_as_main(tree)) & known
        for node in ast.walk(tree):  # helper modules of the tests (hostile_data, ...)
            if isinstance(node, ast.ImportFrom) and node.module in helpers:
                helper = ast.parse(helpers[node.module].read_text(encoding="utf-8"))
                start |= imported(helper, known) & known
    reached, todo = set(), list(start)
    while todo:
        module = todo.pop()
        if module not in reached:
            reached.add(module)
            todo.extend(graph.get(module, ()))
            parent = module.rpartition(".")[0]  # importing a.b.c runs a and a.b first
            if parent:
                todo.append(parent)
    return reached


def test_every_module_is_reached_by_a_quick_test():
    missing = sorted(set(modules()) - reached_by_quick_tests())
    assert missing == [], f"reached by slow tests only (or none): {missing}"


def test_a_module_of_slow_tests_is_not_quick():
    slow = ast.parse("import pytest\npytestmark = pytest.mark.slow\ndef test_a(): pass\n")
    decorated = ast.parse("@pytest.mark.slow\ndef test_a(): pass\ndef test_b(): pass\n")
    both = ast.parse("@pytest.mark.slow\ndef test_a(): pass\n")
    assert not is_quick(slow) and is_quick(decorated) and not is_quick(both)
    assert PACKAGE.name == "irgauge"
