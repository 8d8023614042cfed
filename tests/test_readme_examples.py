"""Every README example runs as written.

The README's fenced code blocks are run in document order in one empty working folder, as a
reader would type them: ```python blocks with this interpreter, ```sh / ```console / bare
blocks of ``irgauge ...`` commands through bash (so that ``tour/runs/*.run`` expands), with the
``irgauge`` console script of this environment (``python -m irgauge`` when it has none). Each
must exit with status 0. Only the two set-up commands (``pip install ...``) are skipped, by
name. The guide itself is built by CI with ``mkdocs build --strict``; here only its API page
and its wording are checked.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import List, NamedTuple

import pytest

REPO = Path(__file__).resolve().parents[1]
README = REPO / "README.md"
DOCS = REPO / "docs"

# The brief's two set-up commands: shown in the README, never run by the tests.
SETUP_COMMANDS = (
    "pip install . && irgauge demo",
    'pip install -e ".[test]" && python -m pytest',
)
SHELL_LANGUAGES = {"", "sh", "shell", "bash", "console"}
FENCE = re.compile(r"^```([\w-]*)[^\n]*\n(.*?)^```[ \t]*$", re.MULTILINE | re.DOTALL)
TIMEOUT = 600  # seconds per block; the tour takes seconds


class Block(NamedTuple):
    language: str
    code: str
    line: int  # line of the opening fence in README.md


def readme_blocks(text: str) -> List[Block]:
    return [
        Block(m.group(1).lower(), m.group(2), text.count("\n", 0, m.start()) + 1)
        for m in FENCE.finditer(text)
    ]


def shell_commands(block: Block) -> List[str]:
    """The commands of a shell block: every non-blank line (``console``: the ``$ `` lines)."""
    lines = [line.rstrip() for line in block.code.splitlines()]
    if block.language == "console":
        return [line[2:] for line in lines if line.startswith("$ ")]
    return [line for line in lines if line.strip() and not line.lstrip().startswith("#")]


def is_setup(block: Block) -> bool:
    return block.language in SHELL_LANGUAGES and block.code.strip() in SETUP_COMMANDS


def _run(args, cwd: Path, block: Block, env) -> None:
    try:
        done = subprocess.run(
            args, cwd=cwd, env=env, capture_output=True, text=True, timeout=TIMEOUT
        )
    except subprocess.TimeoutExpired:  # pragma: no cover - reported as a failure
        pytest.fail(f"README.md:{block.line}: the example did not finish in {TIMEOUT} s")
    if done.returncode != 0:
        pytest.fail(
            f"README.md:{block.line}: the {block.language or 'shell'} example exited "
            f"{done.returncode}\n--- code\n{block.code}--- stdout (tail)\n"
            f"{done.stdout[-3000:]}\n--- stderr (tail)\n{done.stderr[-3000:]}"
        )


def _environment():
    env = dict(os.environ)
    env["MPLBACKEND"] = "Agg"  # figures without a display, as on a server
    bindir = str(Path(sys.executable).parent)
    env["PATH"] = bindir + os.pathsep + env.get("PATH", "")
    return env, shutil.which("irgauge", path=bindir) is not None


@pytest.fixture(scope="module")
def blocks() -> List[Block]:
    return readme_blocks(README.read_text(encoding="utf-8"))


def test_readme_shows_the_two_setup_commands(blocks):
    shown = [b.code.strip() for b in blocks if is_setup(b)]
    assert shown == list(SETUP_COMMANDS)


def test_every_readme_block_is_runnable_python_or_irgauge_commands(blocks):
    assert any(b.language == "python" for b in blocks)
    for block in blocks:
        if is_setup(block) or block.language == "python":
            continue
        assert block.language in SHELL_LANGUAGES, (block.line, block.language)
        commands = shell_commands(block)
        assert commands, f"README.md:{block.line}: an empty example"
        for command in commands:
            assert command.startswith("irgauge "), f"README.md:{block.line}: {command}"


@pytest.mark.slow
def test_readme_examples_run_as_written(blocks, tmp_path):
    if shutil.which("bash") is None:
        pytest.skip("bash is needed to run the README's shell examples")
    env, has_script = _environment()
    # without a console script in this environment, `irgauge` is `python -m irgauge`
    prelude = "" if has_script else f'irgauge() {{ "{sys.executable}" -m irgauge "$@"; }}\n'
    ran = 0
    for block in blocks:
        if is_setup(block):
            continue
        if block.language == "python":
            _run([sys.executable, "-c", block.code], tmp_path, block, env)
        else:
            script = prelude + "\n".join(shell_commands(block)) + "\n"
            _run(["bash", "-e", "-u", "-c", script], tmp_path, block, env)
        ran += 1
    assert ran >= 5
    # the tour's files are there, where the README says
    assert (tmp_path / "tour" / "qrels.txt").is_file()
    assert (tmp_path / "study" / "report.html").is_file()


# --- the guide's wording and API page ------------------------------------------------------

INTERNAL = re.compile(r"\bSPEC\b|\bseeds? 0\d\d\b|\bseed-0\d\d\b|\bsignificant_pairs\b")


def _texts():
    yield README
    yield from sorted(DOCS.rglob("*.md"))


def test_readme_and_guide_cite_papers_not_internal_files():
    bad = [
        f"{path.relative_to(REPO)}: {m.group(0)}"
        for path in _texts()
        for m in INTERNAL.finditer(path.read_text(encoding="utf-8"))
    ]
    assert not bad, bad


def test_readme_leaves_process_internals_to_the_guide():
    text = README.read_text(encoding="utf-8").lower()
    for word in ("malloc", "arena", "huge page", "hugepage", "blas", "openblas"):
        assert word not in text, word


def test_api_reference_lists_every_public_name():
    import irgauge

    page = (DOCS / "api" / "irgauge.md").read_text(encoding="utf-8")
    missing = [
        name
        for name in irgauge.__all__
        if name != "__version__" and f'heading: "irgauge.{name}"' not in page
    ]
    assert not missing, missing
