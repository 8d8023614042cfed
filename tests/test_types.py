"""The typed public API: py.typed ships, type checkers see every public name the package
loads lazily, and every public function's signature is annotated, its inputs with the
names of irgauge.types rather than a bare Any. (mypy itself runs in CI: .ci/run.)"""

from __future__ import annotations

import ast
import inspect
import sys
from pathlib import Path

import pytest

import irgauge
import irgauge.types

ROOT = Path(__file__).resolve().parents[1]


def _type_checking_names() -> dict:
    """name -> module of the imports under ``if TYPE_CHECKING:`` in irgauge/__init__.py."""
    tree = ast.parse((ROOT / "src" / "irgauge" / "__init__.py").read_text())
    found = {}
    for node in tree.body:
        if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING":
            for imp in node.body:
                assert isinstance(imp, ast.ImportFrom)
                for alias in imp.names:
                    assert alias.asname == alias.name, f"{alias.name}: import it as itself"
                    found[alias.name] = imp.module
    return found


def test_type_checkers_see_every_public_name_as_loaded():
    """The lazy names are invisible to a type checker but for these imports: they must name
    the same objects as the names loaded at run time, and all of them."""
    import importlib

    seen = _type_checking_names()
    assert sorted(seen) == sorted(irgauge._LAZY)
    for name, module in seen.items():
        assert getattr(importlib.import_module(module), name) is getattr(irgauge, name), name


def test_py_typed_ships_with_the_package():
    tomllib = pytest.importorskip("tomllib" if sys.version_info >= (3, 11) else "tomli")
    assert (ROOT / "src" / "irgauge" / "py.typed").is_file()
    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    assert "py.typed" in config["tool"]["setuptools"]["package-data"]["irgauge"]


def _public_functions():
    for name in irgauge.__all__:
        value = getattr(irgauge, name, None)
        if inspect.isfunction(value):
            yield name, value


# parameters that take data in any of several forms: each has its name in irgauge.types
DATA_PARAMETERS = {"qrels", "qrels_list", "runs", "run", "matrices", "scores", "data", "gold"}


PUBLIC = list(_public_functions())


# ids by name: a function's repr holds its address, which differs between pytest-xdist's
# workers and fails the collection
@pytest.mark.parametrize("name, function", PUBLIC, ids=[name for name, _ in PUBLIC])
def test_public_signature_is_annotated(name, function):
    signature = inspect.signature(function)
    missing = [
        p.name
        for p in signature.parameters.values()
        if p.annotation is inspect.Parameter.empty
        or (p.annotation == "Any" and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD))
    ]
    if signature.return_annotation is inspect.Signature.empty:
        missing.append("return")
    assert missing == [], f"{name}: annotate {', '.join(missing)}"
    vague = [
        p.name
        for p in signature.parameters.values()
        if p.name in DATA_PARAMETERS
        and not any(known in str(p.annotation) for known in irgauge.types.__all__)
    ]
    assert vague == [], f"{name}: name the accepted forms (irgauge.types) of {vague}"


def test_the_input_types_are_listed():
    tree = ast.parse(Path(irgauge.types.__file__).read_text())
    names = [t.id for node in tree.body if isinstance(node, ast.Assign) for t in node.targets]
    names.remove("__all__")
    assert sorted(irgauge.types.__all__) == sorted(names)
    assert {"QrelsLike", "RunLike", "RunsLike", "ScoresLike"} <= set(irgauge.types.__all__)
