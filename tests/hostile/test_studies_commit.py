"""Several studies and the report commit as one: ``irgauge study ... --report``, ``study``
on several collections and ``irgauge demo`` stage every folder (each study's, the
collection summary, the derived QA data) and the report page, the later steps reading what
the earlier ones staged, and rename them only once all are complete. A full disk or a stop
signal at the last step leaves no new file or folder and the previous outputs as they
were; a complete run records and links no temporary name."""

from __future__ import annotations

import errno
import json
import os
import signal
from pathlib import Path
from unittest import mock

import pytest

import irgauge.studies
from irgauge.errors import OutputError
from irgauge.io import staging
from irgauge.report import html
from tests.conftest import console_stop_handlers, quick_study_figures
from tests.hostile.test_outputs_commit import run_cli, state

DEMO_STUDIES = ("qa", "topicset")  # the qa study reads the QA data the demo derives


def command(kind: str, d: Path, out: Path) -> list:
    """The command line of ``kind``, writing to ``out``."""
    col = f"{d / 'col' / 'qrels.txt'}:{d / 'col' / 'runs'}"
    return (
        {
            "study": ["study", "topicset", "--scores", d / "scores.tsv", "--topic-resamples", "5"],
            "collections": [
                *("study", "topicset", "-m", "AP", "--topic-resamples", "5"),
                *("--collection", f"a={col}", "--collection", f"b={col}"),
            ],
            "demo": ["demo", "--B", "10", "--trials", "10", "-P", "10", "--topic-resamples", "2"],
        }[kind]
        + ["--out", out, "--quiet"]
        + (["--report"] if kind != "demo" else [])
    )


# what an earlier run left: a folder of each kind the command replaces (with the manifest
# that makes it irgauge's, which a folder replaced whole must hold), the page, and a file
# of the user's, which no command writes
OLD = {
    "study": ["topicset/manifest.json", "report.html"],
    "collections": [
        "a/topicset/manifest.json",
        "topicset-comparison/manifest.json",
        "topicset-comparison/x.txt",
        "report.html",
    ],
    "demo": [
        "qa-data/gold.tsv",
        "collection/manifest.json",
        "qa/manifest.json",
        "qa/x.txt",
        "report.html",
    ],
}


def old_outputs(kind: str, out: Path) -> None:
    for name in OLD[kind] + ["mine.txt"]:
        (out / name).parent.mkdir(parents=True, exist_ok=True)
        text = f"old {name}\n"
        if name.endswith("/manifest.json"):
            text = json.dumps({"study": name.split("/")[-2], "old": True}) + "\n"
        (out / name).write_text(text)


def run(kind: str, d: Path, out: Path):
    with quick_study_figures(), mock.patch.object(irgauge.studies, "PAPERS", DEMO_STUDIES):
        return run_cli(*command(kind, d, out))


KINDS = ["study", "collections", "demo"]


def _full(path):
    raise OutputError(path, os.strerror(errno.ENOSPC))


def last_page(monkeypatch, out: Path, fail) -> None:
    """``fail(path)`` as the report page ``out/report.html`` is written (the collections'
    own pages, written before it, are written)."""
    original = html.write_text

    def write(path, text):
        if Path(path).parent == out:  # staged beside its target
            fail(path)
        return original(path, text)

    monkeypatch.setattr(html, "write_text", write)


# over an earlier run's outputs, and into a new folder (the collections' nested ones too)
# the demo's own commit is tested whole below (from Python): its kind here, a second or
# more each, runs in the full suite
QUICK_KINDS = [pytest.param(k, marks=[pytest.mark.slow]) if k == "demo" else k for k in KINDS]


@pytest.mark.parametrize(
    "kind, with_old",
    [pytest.param(k, True, marks=[pytest.mark.slow]) if k == "demo" else (k, True) for k in KINDS]
    + [("collections", False)],
)
def test_a_full_disk_at_the_report_leaves_nothing_new(
    inputs, tmp_path, monkeypatch, kind, with_old
):
    """The report page is written last, after every study is complete: the studies were
    renamed into place one by one before, and stayed when the page failed."""
    out = tmp_path / "out"
    if with_old:
        old_outputs(kind, out)
    before = state(tmp_path)
    last_page(monkeypatch, out, lambda path: _full(path))
    code, _, err = run(kind, inputs, out)
    assert code == 1 and "No space left on device" in err and ".tmp" not in err, err
    assert f"cannot write {out / 'report.html'}" in err, err
    assert state(tmp_path) == before


@pytest.mark.parametrize("kind", QUICK_KINDS)
def test_a_stop_signal_at_the_report_leaves_nothing_new(inputs, tmp_path, monkeypatch, kind):
    out = tmp_path / "out"
    old_outputs(kind, out)
    before = state(tmp_path)
    last_page(monkeypatch, out, lambda path: signal.raise_signal(signal.SIGTERM))
    with console_stop_handlers():
        code, _, err = run(kind, inputs, out)
    assert code == 128 + signal.SIGTERM and err.splitlines()[-1] == "irgauge: stopped by SIGTERM"
    assert state(tmp_path) == before


def test_a_failing_study_of_the_demo_leaves_the_earlier_ones_unwritten(inputs, tmp_path):
    """The second study fails after the first (and the derived QA data) are complete."""
    out = tmp_path / "out"
    old_outputs("demo", out)
    before = state(tmp_path)

    def fails(*args, **kwargs):
        raise OutputError(out / "topicset", os.strerror(errno.EIO))

    with mock.patch("irgauge.studies.topic_set_design.run_topicset", fails):
        code, _, err = run("demo", inputs, out)
    assert code == 1 and "Input/output error" in err, err
    assert state(tmp_path) == before


@pytest.mark.parametrize("kind", QUICK_KINDS)
def test_complete_outputs_name_no_temporary_folder(inputs, tmp_path, kind):
    """The report reads the studies where they are staged, links them by their names once
    committed, and the qa study records the derived data by its final name."""
    out = tmp_path / "out"
    old_outputs(kind, out)
    code, _, err = run(kind, inputs, out)
    assert code == 0, err
    after = state(tmp_path)
    assert after["out/mine.txt"] == b"old mine.txt\n"
    hidden = [k for k in after if any(p.startswith(".") for p in Path(k).parts)]
    assert not hidden
    for name, content in after.items():
        assert content == "dir" or b".tmp" not in content, name
    assert after["out/report.html"] != b"old report.html\n"
    if kind == "demo":
        assert "out/qa/x.txt" not in after  # the study's folder is replaced whole
        page = after["out/report.html"].decode()
        assert 'href="qa/figures/' in page and 'href="topicset/figures/' in page
        recorded = (out / "qa" / "manifest.json").read_text()
        assert f'"gold": "{out / "qa-data" / "gold.tsv"}"' in recorded


def test_the_demo_from_python_commits_as_one(inputs, tmp_path, monkeypatch):
    """Outside a command (run_demo called from Python) the demo's outputs commit together
    as well."""
    from irgauge.cli.cmd_demo import run_demo

    out = tmp_path / "out"
    old_outputs("demo", out)
    before = state(tmp_path)
    last_page(monkeypatch, out, lambda path: _full(path))
    with quick_study_figures(), mock.patch.object(irgauge.studies, "PAPERS", DEMO_STUDIES):
        with pytest.raises(OutputError, match="No space left"):
            run_demo(out, samples=10, trials=10, topic_resamples=2)
    assert state(tmp_path) == before


# ------------------------------------------------------------------ reading back


def test_a_later_step_reads_what_an_earlier_one_staged(tmp_path):
    """current_path, current_entries and final_name within a command's outputs."""
    out = tmp_path / "out"
    (out / "kept").mkdir(parents=True)
    (out / "study").mkdir()
    (out / "study" / "old.txt").write_text("old")
    (out / "study" / "manifest.json").write_text('{"study": "study"}')  # irgauge's folder
    with (
        staging.Outputs() as outputs,
        mock.patch.object(staging.output_scope, "current", lambda: [outputs]),
    ):
        work = outputs.replacing(out / "study")
        (work / "new.txt").write_text("new")
        page = outputs.file(out / "page.html")
        assert staging.current_path(out / "study" / "new.txt") == work / "new.txt"
        assert not staging.current_path(out / "study" / "old.txt").exists()  # replaced whole
        assert staging.current_path(out / "kept") == out / "kept"
        assert staging.current_path(out / "page.html") == page
        found = staging.current_entries(out)
        assert found == {"kept": out / "kept", "page.html": page, "study": work}
        assert staging.final_name(str(work / "new.txt")) == str(out / "study" / "new.txt")
        assert staging.final_name(str(page)) == str(out / "page.html")
        assert (out / "study" / "old.txt").read_text() == "old"  # nothing renamed yet
    assert state(out) == {"kept": "dir", "study": "dir", "study/new.txt": b"new", "page.html": b""}


def test_a_discarded_stage_is_not_committed(tmp_path):
    """A step that fails inside a command that goes on leaves nothing half-written."""
    out = tmp_path / "out"
    with (
        staging.Outputs() as outputs,
        mock.patch.object(staging.output_scope, "current", lambda: [outputs]),
    ):
        with pytest.raises(RuntimeError):
            with staging.replaced_folder(out / "a") as work:
                (work / "part.txt").write_text("half")
                raise RuntimeError("the study failed")
        with staging.replaced_folder(out / "b") as work:
            (work / "done.txt").write_text("done")
    assert state(out) == {"b": "dir", "b/done.txt": b"done"}


@pytest.mark.parametrize("content", [None, "not json", '{"yours": 1}'])
def test_a_folder_of_other_files_is_not_replaced_whole(tmp_path, content):
    """A study replaces its folder whole: ``--out .`` over a folder of the user's named
    ``collection`` deleted the files in it. A folder that holds no irgauge manifest (none,
    one that is not JSON, or another tool's) is refused before anything is written, and
    kept; an empty one, or irgauge's own, is replaced."""
    out = tmp_path / "out"
    (out / "collection").mkdir(parents=True)
    (out / "collection" / "notes.txt").write_text("mine")
    if content is not None:
        (out / "collection" / "manifest.json").write_text(content)
    before = state(tmp_path)
    with pytest.raises(OutputError, match="is a folder of other files .* replace whole"):
        with staging.Outputs() as outputs:
            outputs.replacing(out / "collection")
    assert state(tmp_path) == before
    (out / "empty").mkdir()
    (out / "ours").mkdir()
    (out / "ours" / "manifest.json").write_text('{"kind": "collection"}')
    with staging.Outputs() as outputs:
        for name in ("empty", "ours"):
            (outputs.replacing(out / name) / "new.txt").write_text("new")
    assert state(out / "ours") == {"new.txt": b"new"} == state(out / "empty")
