"""Every expected number in the tests names its source (issue 19, "Tests that can fail").

The rule, applied to every test module under tests/ except tests/fuzz (which asserts
properties, not numbers):

* An *expected number* is a number written in a test's checking code: a float literal, or
  a decimal printed with three or more decimal places inside a string literal (an expected
  line of output such as ``"all\\t0.6667"``; "12.5" or "100.5" are labels or inputs), that
  stands inside an ``assert`` statement, inside a call to ``approx``, ``isclose``,
  ``allclose`` or a ``numpy.testing.assert_*`` function, inside a decorator such as a
  ``pytest.mark.parametrize`` table, or in the value assigned to a name containing
  ``expect``. Tolerances (the ``abs``, ``rel``, ``atol``, ``rtol`` arguments) are not
  expected numbers.
* It is *non-trivial* when it has three or more significant digits (0.4167, 0.125, 1.96,
  "0.6667", 12.5); 0, 1, 0.5, 0.25 or 0.05 can be checked at a glance or echo a
  parameter. Integers are counts, sizes and exit codes, and are not checked. This module's
  own numbers are examples for the rule, not expected numbers, and are not scanned.
* A non-trivial expected number is *sourced* when a comment on a line of its statement or
  on one of the three lines above the statement, or the docstring of the enclosing test,
  names where it comes from: SPEC.md, a seed paper (paper, Sakai, Webber, Table, Figure),
  a conformance data set under the shared data (``CONFORMANCE`` in tests/conftest.py,
  trec_eval, NTCIREVAL), a peer library computed in the test, "by hand", or the arithmetic
  written out (an ``=`` and an operation between numbers, e.g. ``(1/1 + 2/3)/3 = 0.5556``).

A number whose only source would be "irgauge printed it once" cannot be sourced this way;
derive it (arithmetic in the code, a peer library) rather than add a comment.
"""

from __future__ import annotations

import ast
import io
import re
import tokenize
from pathlib import Path

from tests.conftest import CONFORMANCE

TESTS = Path(__file__).resolve().parent
SKIPPED = {"fuzz"}
TOLERANCES = {"abs", "rel", "atol", "rtol"}
CHECK_CALLS = re.compile(r"(^|\.)(approx|isclose|allclose|assert_\w+|parametrize)$")
LINES_ABOVE = 3
MIN_SIGNIFICANT = 3
SOURCES = (
    "spec",
    "paper",
    "sakai",
    "webber",
    "table",
    "figure",
    "trec_eval",
    "ntcireval",
    "by hand",
    "pytrec_eval",
    "ir_measures",
    "ranx",
    "scipy",
    "statsmodels",
    "scikit-learn",
    "sklearn",
    "krippendorff",
    "numpy",
    "mpmath",
    *(name.lower() for name in CONFORMANCE),
)
ARITHMETIC = re.compile(r"=.*\d\s*[-+*/]\s*[\d(]|\d\s*[-+*/]\s*[\d(].*=")
DECIMAL_IN_TEXT = re.compile(r"(?<![\w.])\d*\.\d{3,}(?![\w.])")


def significant_digits(text: str) -> int:
    """Significant digits of a decimal written as text: '0.0053' -> 2, '0.500' -> 1."""
    mantissa = text.lower().split("e")[0].lstrip("-+")
    return len(mantissa.replace(".", "").lstrip("0").rstrip("0"))


def comments_by_line(source: str) -> dict[int, str]:
    found: dict[int, str] = {}
    for token in tokenize.generate_tokens(io.StringIO(source).readline):
        if token.type == tokenize.COMMENT:
            found[token.start[0]] = token.string
    return found


def is_source(text: str) -> bool:
    lowered = text.lower()
    return any(word in lowered for word in SOURCES) or bool(ARITHMETIC.search(text))


def checked_regions(tree: ast.AST):
    """(statement, expression) pairs whose numbers are expected numbers."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Assert):
            yield node, node.test
        elif isinstance(node, ast.Assign) and any(
            "expect" in ast.unparse(t).lower() for t in node.targets
        ):
            yield node, node.value
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            for decorator in node.decorator_list:
                yield decorator, decorator
        if isinstance(node, ast.stmt) and not isinstance(node, ast.Assert):
            for call in _direct_calls(node):
                if CHECK_CALLS.search(ast.unparse(call.func)):
                    yield node, call


def _direct_calls(statement: ast.stmt):
    """Calls in a simple statement (an Expr or an assignment), not in nested statements."""
    if isinstance(statement, (ast.Expr, ast.Assign, ast.AugAssign, ast.Return)):
        yield from (n for n in ast.walk(statement) if isinstance(n, ast.Call))


def numbers_in(expression: ast.AST):
    """(line, written number) for each number of ``expression`` outside tolerances."""
    tolerance_nodes = {
        id(inner)
        for kw in ast.walk(expression)
        if isinstance(kw, ast.keyword) and kw.arg in TOLERANCES
        for inner in ast.walk(kw.value)
    }
    for node in ast.walk(expression):
        if id(node) in tolerance_nodes or not isinstance(node, ast.Constant):
            continue
        if type(node.value) is float:
            yield node.lineno, repr(node.value)
        elif isinstance(node.value, str):
            for match in DECIMAL_IN_TEXT.finditer(node.value):
                yield node.lineno, match.group()


def enclosing_docstrings(tree: ast.AST) -> dict[int, str]:
    """Line -> docstring of the function that holds the line."""
    found: dict[int, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            doc = ast.get_docstring(node) or ""
            for line in range(node.lineno, (node.end_lineno or node.lineno) + 1):
                found[line] = doc
    return found


def unsourced_numbers(source: str, name: str = "<test>") -> list[str]:
    tree = ast.parse(source)
    comments = comments_by_line(source)
    docstrings = enclosing_docstrings(tree)
    problems = []
    for statement, expression in checked_regions(tree):
        first, last = statement.lineno, statement.end_lineno or statement.lineno
        near = " ".join(comments.get(n, "") for n in range(first - LINES_ABOVE, last + 1))
        for line, number in numbers_in(expression):
            if significant_digits(number) < MIN_SIGNIFICANT:
                continue
            if not (is_source(near) or is_source(docstrings.get(line, ""))):
                problems.append(f"{name}:{line}: {number} names no source")
    return sorted(set(problems))


def test_every_non_trivial_expected_number_names_its_source():
    problems = []
    for path in sorted(TESTS.rglob("*.py")):
        if SKIPPED & set(path.relative_to(TESTS).parts) or path == Path(__file__).resolve():
            continue
        name = str(path.relative_to(TESTS.parent))
        problems += unsourced_numbers(path.read_text(encoding="utf-8"), name)
    assert not problems, "\n".join(problems)


def test_the_rule_flags_a_bare_snapshot_and_accepts_a_named_source():
    bare = "def test_ap():\n    assert ap() == pytest.approx(0.4167)\n"
    assert unsourced_numbers(bare) == ["<test>:2: 0.4167 names no source"]
    printed = 'def test_out():\n    assert out == "all\\t0.6667\\n"\n'
    assert unsourced_numbers(printed) == ["<test>:2: 0.6667 names no source"]
    assert unsourced_numbers('def test_label():\n    assert d["12.5"] == 5\n') == []
    table = "@pytest.mark.parametrize('v', [0.123])\ndef test_v(v):\n    pass\n"
    assert unsourced_numbers(table) == ["<test>:1: 0.123 names no source"]
    expected = "def test_x():\n    expected = [0.375]\n    assert f() == expected\n"
    assert unsourced_numbers(expected) == ["<test>:2: 0.375 names no source"]
    for comment in (
        "# SPEC.md section 3, system Z",
        "# res_test_compute_label_j.txt of pyntcireval_tests",
        "# (1/1 + 2/3)/4 = 0.4167",
        "# by hand: 5/12",
    ):
        sourced = f"def test_ap():\n    {comment}\n    assert ap() == pytest.approx(0.4167)\n"
        assert unsourced_numbers(sourced) == [], comment
    documented = 'def test_ap():\n    """AP = (1 + 2/3)/4 = 5/12."""\n    assert ap() == 0.4167\n'
    assert unsourced_numbers(documented) == []


def test_tolerances_and_trivial_numbers_are_not_expected_numbers():
    source = "def test_x():\n    assert x == pytest.approx(0.5, abs=5e-05, rel=0.0001)\n"
    assert unsourced_numbers(source) == []
    assert [significant_digits(t) for t in ("0.0053", "0.500", "12.5", "1.96", "0.6667")] == [
        2,
        1,
        3,
        3,
        4,
    ]
