"""The commands that write several files into a folder that may hold others (``reduce``,
``incomplete``, ``simulate``) leave a ``manifest.json`` of other results alone: it records
how those results were made (a simulated collection's parameters and seed), and
``reduce --out`` into the collection's own folder replaced it without a word."""

from __future__ import annotations

import json

import pytest

from irgauge.collection.simulate import simulate_collection, write_collection


@pytest.fixture
def simulated(tmp_path):
    """A simulated collection's folder: qrels.txt, runs/ and its manifest.json."""
    folder = tmp_path / "coll"
    write_collection(simulate_collection(n_topics=4, n_runs=3, depth=10, seed=1), folder)
    return folder


def _refused_and_kept(outcome, manifest, before: bytes) -> None:
    code, _, err = outcome
    assert code == 1, err
    assert len(err.strip().splitlines()) == 1 and "holds the manifest of other results" in err
    assert manifest.read_bytes() == before


def test_reduce_into_a_collection_folder_keeps_its_manifest(cli, simulated):
    manifest = simulated / "manifest.json"
    before = manifest.read_bytes()
    _refused_and_kept(
        cli("reduce", simulated / "qrels.txt", "--out", simulated, "--rates", "50", "--seed", "1"),
        manifest,
        before,
    )
    assert not (simulated / "qrels.50.txt").exists()  # nothing moved in before the refusal


@pytest.mark.parametrize("content", ["not json", "[1]", '{"method": "by hand"}'])
def test_reduce_keeps_a_manifest_it_cannot_tell_for_its_own(cli, simulated, tmp_path, content):
    out = tmp_path / "out"
    out.mkdir()
    (out / "manifest.json").write_text(content)
    _refused_and_kept(
        cli("reduce", simulated / "qrels.txt", "--out", out, "--rates", "50", "--seed", "1"),
        out / "manifest.json",
        content.encode(),
    )


def test_incomplete_keeps_a_foreign_manifest_in_its_qrels_folder(cli, simulated, tmp_path):
    out = tmp_path / "out"
    (out / "qrels").mkdir(parents=True)
    foreign = out / "qrels" / "manifest.json"
    foreign.write_bytes((simulated / "manifest.json").read_bytes())
    runs = sorted((simulated / "runs").iterdir())
    code, _, err = cli(
        "incomplete", simulated / "qrels.txt", *runs, "--out", out, "--rates", "50", "-B", "20"
    )
    assert code == 1 and "holds the manifest of other results" in err, err
    assert foreign.read_bytes() == (simulated / "manifest.json").read_bytes()


def test_rerun_replaces_its_own_manifest_and_overwrite_replaces_any(cli, simulated, tmp_path):
    out = tmp_path / "out"
    for seed in ("1", "2"):  # a rerun of the same command replaces its own results
        code, _, err = cli(
            "reduce", simulated / "qrels.txt", "--out", out, "--rates", "50", "--seed", seed
        )
        assert code == 0, err
    assert json.loads((out / "manifest.json").read_text())["seed"] == 2
    code, _, err = cli("simulate", "--out", out, "--topics", "2", "--runs", "2", "--overwrite")
    assert code == 0, err  # asked for: the collection replaces the reduced qrels' manifest
    assert "generator" in json.loads((out / "manifest.json").read_text())


def test_simulate_into_another_commands_folder_names_what_is_there(cli, simulated, tmp_path):
    """A reduce folder holds a manifest.json and no collection: the refusal says what it
    found, where it said "already holds a collection"."""
    reduced = tmp_path / "reduced"
    code, _, err = cli("reduce", simulated / "qrels.txt", "--out", reduced, "--seed", "1")
    assert code == 0, err
    before = (reduced / "manifest.json").read_bytes()
    code, _, err = cli("simulate", "--out", reduced, "--topics", "2", "--runs", "2", "--quiet")
    assert code == 2 and len(err.strip().splitlines()) == 1, err
    assert f"{reduced} already holds manifest.json (overwrite with --overwrite" in err
    assert (reduced / "manifest.json").read_bytes() == before
