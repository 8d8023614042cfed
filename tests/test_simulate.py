"""Tests of the synthetic collection generator and of the bundled sample it made."""

from __future__ import annotations

import json

import numpy as np
import pandas as pd
import pytest

from irgauge.cli import main
from irgauge.collection.simulate import (
    SAMPLE_DIR,
    read_manifest,
    sample_paths,
    simulate_collection,
    write_collection,
)

SMALL = dict(n_topics=12, n_runs=8, depth=60, seed=11, pool_depth=10)


@pytest.fixture(scope="module")
def small():
    return simulate_collection(**SMALL)


def _read_lines(path):
    with open(path, encoding="utf-8") as f:
        return [line.split() for line in f]


# --- the bundled sample ----------------------------------------------------------------


def test_sample_regenerates_byte_for_byte(tmp_path):
    manifest = read_manifest(SAMPLE_DIR)
    regenerated = write_collection(simulate_collection(**manifest["params"]), tmp_path)
    assert regenerated == manifest
    shipped = [manifest["files"]["qrels"], "manifest.json", *manifest["files"]["runs"]]
    for rel in shipped:
        assert (tmp_path / rel).read_bytes() == (SAMPLE_DIR / rel).read_bytes(), rel
    # nothing shipped that the manifest does not list
    assert sorted(p.name for p in (SAMPLE_DIR / "runs").iterdir()) == sorted(
        r.split("/")[-1] for r in manifest["files"]["runs"]
    )


def test_sample_paths_and_size():
    qrels, runs = sample_paths()
    assert qrels.is_file() and qrels.name == "qrels.txt"
    assert len(runs) == read_manifest(SAMPLE_DIR)["params"]["n_runs"]
    assert all(r.is_file() for r in runs)
    total = qrels.stat().st_size + sum(r.stat().st_size for r in runs)
    assert total < 1.5 * 1024 * 1024


def test_sample_files_are_trec_format():
    qrels, runs = sample_paths()
    for cols in _read_lines(qrels):
        assert len(cols) == 4 and cols[1] == "0" and cols[2].startswith(f"D{cols[0]}-")
        assert 0 <= int(cols[3]) <= 3
    for path in runs:
        lines = _read_lines(path)
        assert all(len(c) == 6 and c[1] == "Q0" and c[5] == path.stem for c in lines)
        # lines in rank order, ranks 1.. per topic, scores non-increasing
        by_topic = {}
        for c in lines:
            by_topic.setdefault(c[0], []).append((int(c[3]), float(c[4])))
        for rows in by_topic.values():
            ranks, scores = zip(*rows)
            assert list(ranks) == list(range(1, len(ranks) + 1))
            assert all(a >= b for a, b in zip(scores, scores[1:]))


# --- documented properties ---------------------------------------------------------------


def test_shapes_and_columns(small):
    assert list(small.qrels.columns) == ["topic", "docno", "level"]
    assert len(small.runs) == SMALL["n_runs"]
    for run in small.runs.values():
        assert list(run.columns) == ["topic", "docno", "rank", "score"]
        assert len(run) == SMALL["n_topics"] * SMALL["depth"]
        assert run.groupby("topic").size().eq(SMALL["depth"]).all()
        assert not run.duplicated(["topic", "docno"]).any()
        assert run["docno"].str.match(r"^D\d+-\d+$").all()
        assert (run["docno"].str.split("-").str[0].str[1:] == run["topic"]).all()
    assert not small.qrels.duplicated(["topic", "docno"]).any()


def test_levels_graded_with_fewer_high_grades(small):
    counts = small.qrels["level"].value_counts()
    assert set(counts.index) == {0, 1, 2, 3}
    assert counts[1] > counts[2] > counts[3] > 0


def test_every_topic_has_relevant_documents_and_counts_vary():
    c = simulate_collection(n_topics=60, n_runs=5, depth=200, seed=2, rel_median=15)
    relevant = c.qrels[c.qrels["level"] > 0].groupby("topic").size()
    assert len(relevant) == 60  # no topic without a judged relevant document here
    assert relevant.min() <= 5  # some topics with few
    assert relevant.max() >= 5 * relevant.min()  # and a wide spread


def test_judged_documents_come_from_the_pool(small):
    judged = set(zip(small.qrels["topic"], small.qrels["docno"]))
    pooled = set()
    for run in small.runs.values():
        top = run[run["rank"] <= SMALL["pool_depth"]]
        pooled |= set(zip(top["topic"], top["docno"]))
    assert judged == pooled


def test_unjudged_documents_below_the_pool_depth(small):
    judged = set(zip(small.qrels["topic"], small.qrels["docno"]))
    for run in small.runs.values():
        deep = run[run["rank"] > SMALL["pool_depth"]]
        unjudged = [k not in judged for k in zip(deep["topic"], deep["docno"])]
        assert any(unjudged)
        # and within the pool depth everything is judged
        top = run[run["rank"] <= SMALL["pool_depth"]]
        assert all(k in judged for k in zip(top["topic"], top["docno"]))


def test_judged_per_topic_target():
    c = simulate_collection(n_topics=10, n_runs=6, depth=300, seed=4, judged_per_topic=275)
    assert c.qrels.groupby("topic").size().eq(275).all()
    # the judged set is the documents with the best ranks: rank 1 of every run is judged
    judged = set(zip(c.qrels["topic"], c.qrels["docno"]))
    for run in c.runs.values():
        first = run[run["rank"] == 1]
        assert all(k in judged for k in zip(first["topic"], first["docno"]))


def test_ties_only_in_tied_runs(small):
    assert len(small.tied_runs) == round(0.25 * SMALL["n_runs"])
    for name, run in small.runs.items():
        has_ties = run.duplicated(["topic", "score"]).any()
        assert has_ties == (name in small.tied_runs), name


def test_run_quality_is_graded():
    """Runs differ in effectiveness: precision at 10 spreads widely over the runs."""
    c = simulate_collection(n_topics=30, n_runs=10, depth=100, seed=5, pool_depth=20)
    rel = c.qrels[c.qrels["level"] > 0]
    rel_keys = set(zip(rel["topic"], rel["docno"]))
    p10 = []
    for run in c.runs.values():
        top = run[run["rank"] <= 10]
        p10.append(np.mean([k in rel_keys for k in zip(top["topic"], top["docno"])]))
    assert max(p10) - min(p10) > 0.3


def test_same_seed_same_collection(small):
    again = simulate_collection(**SMALL)
    pd.testing.assert_frame_equal(small.qrels, again.qrels)
    assert small.runs.keys() == again.runs.keys()
    for name in small.runs:
        pd.testing.assert_frame_equal(small.runs[name], again.runs[name])


def test_different_seeds_differ(small):
    other = simulate_collection(**{**SMALL, "seed": SMALL["seed"] + 1})
    assert not small.qrels.equals(other.qrels)
    assert not small.runs["run1"].equals(other.runs["run1"])


def test_bad_parameters():
    with pytest.raises(ValueError):
        simulate_collection(n_topics=2, n_runs=2, depth=100, docs_per_topic=50)
    with pytest.raises(ValueError):
        simulate_collection(n_topics=0)


# --- writing and the CLI -----------------------------------------------------------------


def test_written_files_match_the_frames(small, tmp_path):
    write_collection(small, tmp_path)
    qrels = _read_lines(tmp_path / "qrels.txt")
    assert [(q[0], q[2], int(q[3])) for q in qrels] == list(
        small.qrels.itertuples(index=False, name=None)
    )
    run = small.runs["run1"]
    lines = _read_lines(tmp_path / "runs" / "run1.run")
    assert [(c[0], c[2], int(c[3])) for c in lines] == list(
        run[["topic", "docno", "rank"]].itertuples(index=False, name=None)
    )
    assert np.allclose([float(c[4]) for c in lines], run["score"])
    with pytest.raises(FileExistsError):
        write_collection(small, tmp_path)


def test_cli_simulate_writes_manifest(tmp_path, capsys):
    out = tmp_path / "coll"
    argv = [
        "simulate",
        "--out",
        str(out),
        "--topics",
        "4",
        "--runs",
        "3",
        "--depth",
        "30",
        "--pool-depth",
        "5",
        "--seed",
        "9",
    ]
    assert main(argv) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["params"]["seed"] == 9 and manifest["params"]["pool_depth"] == 5
    # the CLI's defaults are the function's defaults
    expected = simulate_collection(n_topics=4, n_runs=3, depth=30, seed=9, pool_depth=5).params
    assert manifest["params"] == json.loads(json.dumps(expected))
    assert sorted(p.name for p in (out / "runs").iterdir()) == ["run1.run", "run2.run", "run3.run"]
    assert main(argv) == 2  # refuses to overwrite
    assert "--overwrite" in capsys.readouterr().err
    # the manifest's parameters regenerate the same files
    again = tmp_path / "again"
    write_collection(simulate_collection(**manifest["params"]), again)
    assert (again / "qrels.txt").read_bytes() == (out / "qrels.txt").read_bytes()
    assert (again / "runs/run2.run").read_bytes() == (out / "runs/run2.run").read_bytes()


def test_sizes_beyond_the_machine_are_refused_with_the_estimate(capsys):
    from irgauge.cli import main

    code = main(["simulate", "--out", "never", "--runs", "100000", "--topics", "100000"])
    err = capsys.readouterr().err
    assert code == 2 and "GiB of memory" in err and "available" in err
    assert err.count("\n") == 1
