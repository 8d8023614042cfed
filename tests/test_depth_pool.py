"""Depth-K pools (collection/depth_pool.py) against a plain-Python pool and trectools'."""

import json
from pathlib import Path

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.collection.depth_pool import depth_pool, depth_pools, parse_depths
from irgauge.collection.depth_reduce import reduce_to_depth
from irgauge.errors import InputError
from irgauge.evaluation import evaluate
from irgauge.io.records import Qrels, Run
from irgauge.studies.incomplete_result import incomplete_study

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
TREC = DATA / "trec_eval_tests"
GENERATED = DATA / "ntcireval_generated"
REAL_RUNS = [TREC / "results.test", TREC / "results.trunc", TREC / "results-302.test"]
GENERATED_RUNS = sorted((GENERATED / "runs").glob("run*.trec"))

needs_data = pytest.mark.skipif(not TREC.is_dir(), reason="conformance data not found")


def plain_rankings(path):
    """{topic: [docno, ...]} in trec_eval's order: score descending, docno descending."""
    lines = {}
    for line in Path(path).read_bytes().splitlines():
        fields = line.split()
        if fields:
            lines.setdefault(fields[0].decode(), []).append((float(fields[4]), fields[2]))
    return {t: [d for _, d in sorted(docs, reverse=True)] for t, docs in lines.items()}


def plain_pool(paths, depth):
    """{(topic, docno): (best rank, {run index})} from the rankings above."""
    pool = {}
    for k, path in enumerate(paths):
        for topic, docs in plain_rankings(path).items():
            for rank, docno in enumerate(docs[:depth], start=1):
                best, runs = pool.get((topic, docno), (rank, set()))
                pool[(topic, docno)] = (min(best, rank), runs | {k})
    return pool


def as_dict(pool):
    return {
        (t.decode(), d): (int(r), set(np.flatnonzero(pool.contributors[:, i]).tolist()))
        for i, (t, d, r) in enumerate(zip(pool.topics, pool.docnos, pool.best_rank))
    }


@needs_data
@pytest.mark.parametrize("runs", [REAL_RUNS, GENERATED_RUNS], ids=["trec", "generated"])
def test_pool_matches_a_plain_python_pool(runs):
    for depth, pool in zip([1, 7, 20, 100, 2000], depth_pools(runs, [1, 7, 20, 100, 2000])):
        assert as_dict(pool) == plain_pool(runs, depth), depth
        assert pool.depth == depth


@needs_data
def test_entries_are_in_judging_order():
    pool = depth_pool(REAL_RUNS, 50)
    for t in range(len(pool.topic_ids)):
        mine = np.flatnonzero(pool.topic == t)
        keys = [(int(r), d) for r, d in zip(pool.best_rank[mine], pool.docnos[mine])]
        assert keys == sorted(keys)
        assert pool.order[mine].tolist() == list(range(1, len(mine) + 1))
    assert np.all(np.diff(pool.topic) >= 0)
    assert pool.sizes().sum() == len(pool)


def test_ties_follow_trec_eval_score_then_docno_descending():
    # three documents tied at the top: trec_eval ranks them by docno descending in byte
    # order (b"d10" < b"d9"), so depth 2 pools d9 and d3 and leaves d10 out
    run = Run(
        "tied",
        np.array([b"1"] * 4),
        np.array([b"d10", b"d3", b"d9", b"d1"]),
        np.array([2.0, 2.0, 2.0, 5.0]),
    )
    pool = depth_pool([run], 3)
    assert pool.docnos.tolist() == [b"d1", b"d9", b"d3"]
    assert pool.best_rank.tolist() == [1, 2, 3]


def test_file_order_for_a_run_without_scores_or_when_asked():
    run = Run("r", np.array([b"1"] * 3), np.array([b"b", b"c", b"a"]), np.array([1.0, 3.0, 2.0]))
    assert depth_pool([run], 2, order="file").docnos.tolist() == [b"b", b"c"]
    assert depth_pool([run], 2).docnos.tolist() == [b"c", b"a"]


def test_contributors_and_best_rank_across_runs():
    a = Run("a", np.array([b"1", b"1", b"2"]), np.array([b"x", b"y", b"z"]), np.array([3.0, 2, 1]))
    b = Run("b", np.array([b"1", b"1"]), np.array([b"y", b"w"]), np.array([3.0, 2]))
    pool = depth_pool([a, b], 1)
    assert as_dict(pool) == {("1", b"x"): (1, {0}), ("1", b"y"): (1, {1}), ("2", b"z"): (1, {0})}
    pool = depth_pool([a, b], 2, topics=["1"])
    assert pool.topic_ids == ["1"]
    assert as_dict(pool) == {
        ("1", b"x"): (1, {0}),
        ("1", b"y"): (1, {0, 1}),
        ("1", b"w"): (2, {1}),
    }
    found = pool.locate(np.array([b"1", b"1", b"2", b"9"]), np.array([b"w", b"z", b"z", b"x"]))
    assert found.tolist() == [2, -1, -1, -1]


@needs_data
@pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside trectools
def test_pool_matches_trectools_where_no_tie_crosses_the_cutoff():
    trectools = pytest.importorskip("trectools")
    # trectools breaks score ties by docno ascending; the generated runs have no ties
    runs = [trectools.TrecRun(str(p)) for p in GENERATED_RUNS]
    for depth in (5, 30):
        theirs = trectools.TrecPoolMaker().make_pool(runs, strategy="topX", topX=depth).pool
        mine = depth_pool(GENERATED_RUNS, depth)
        got = {}
        for t, d in zip(mine.topics, mine.docnos):
            got.setdefault(t.decode(), set()).add(d.decode())
        assert got == {str(t): set(docs) for t, docs in theirs.items()}


@pytest.mark.parametrize("bad", [0, -3, "0", "x", "10,0", 2.5, "", True])
def test_depth_must_be_a_whole_number_at_least_one(bad):
    with pytest.raises(InputError) as caught:
        parse_depths(bad)
    assert caught.value.parameter == "depth"


def test_depths_are_sorted_and_unique():
    assert parse_depths("100,10,10") == [10, 100]
    assert parse_depths(5) == [5]
    assert parse_depths([20, 3]) == [3, 20]


def exit_status(args) -> int:
    """main's status, also where argparse stops it."""
    try:
        return main(args)
    except SystemExit as stop:
        return stop.code


def plain_reduced_lines(qrels, runs, depth):
    """The qrels file's lines whose (topic, docno) the plain pool holds, in file order."""
    pool = plain_pool(runs, depth)
    kept = []
    for line in Path(qrels).read_bytes().splitlines():
        fields = line.split()
        if fields and (fields[0].decode(), fields[2]) in pool:
            kept.append(line)
    return kept


@needs_data
@pytest.mark.parametrize(
    "qrels, runs",
    [(TREC / "qrels.test", REAL_RUNS), (GENERATED / "qrels.trec", GENERATED_RUNS)],
    ids=["trec", "generated"],
)
def test_reduce_by_depth_keeps_the_pooled_judgments_as_written(tmp_path, qrels, runs):
    out = tmp_path / "out"
    args = ["reduce", str(qrels), "--depth", "3,20,200", "--runs", *map(str, runs)]
    assert main(args + ["--out", str(out)]) == 0
    manifest = json.loads((out / "manifest.json").read_text())
    assert manifest["depths"] == [200, 20, 3]
    for depth in (3, 20, 200):
        name = manifest["files"][f"depth{depth}"]
        assert name == f"{qrels.stem}.depth{depth}{qrels.suffix}"
        written = (out / name).read_bytes().splitlines()
        assert written == plain_reduced_lines(qrels, runs, depth), depth
        assert manifest["judgments"][f"depth{depth}"] == len(written)


def test_depth_reduction_from_python_is_nested_and_keeps_every_level():
    q = Qrels.from_arrays(
        np.array([b"1"] * 4 + [b"2"]),
        np.array([b"x", b"y", b"w", b"v", b"z"]),
        np.array([2, 0, -1, 1, 1]),
    )
    a = Run("a", np.array([b"1", b"1", b"2"]), np.array([b"x", b"y", b"z"]), np.array([3.0, 2, 1]))
    b = Run("b", np.array([b"1", b"1"]), np.array([b"u", b"w"]), np.array([3.0, 2]))
    reduction = reduce_to_depth(q, [a, b], [2, 1])
    assert reduction.steps == [2, 1]
    kept = {d: set(reduction.qrels_at(d).docnos.tolist()) for d in (1, 2)}
    assert kept == {1: {b"x", b"z"}, 2: {b"x", b"y", b"w", b"z"}}


@needs_data
@pytest.mark.parametrize(
    "options, words",
    [
        (["--depth", "0", "--runs", "R"], "argument --depth"),
        (["--depth", "5,-1", "--runs", "R"], "argument --depth"),
        (["--depth", "5"], "--runs"),
        (["--runs", "R"], "--depth"),
        (["--depth", "5", "--runs", "OTHER"], "answers none of the 3 topics"),
    ],
)
def test_bad_depth_reductions_are_refused_in_one_line(tmp_path, capsys, options, words):
    runs = {"R": str(REAL_RUNS[0]), "OTHER": str(GENERATED_RUNS[0])}
    options = [runs.get(o, o) for o in options]
    assert (
        exit_status(["reduce", str(TREC / "qrels.test"), *options, "--out", str(tmp_path / "o")])
        == 2
    )
    err = capsys.readouterr().err.strip().splitlines()
    assert words in err[-1]
    assert not (tmp_path / "o").exists()


@needs_data
def test_incomplete_by_depth_scores_the_plain_reduced_qrels(tmp_path):
    qrels, runs = GENERATED / "qrels.trec", GENERATED_RUNS
    result = incomplete_study(qrels, runs, ["AP"], depths=[10, 3], samples=20, seed=1)
    table = result.table.set_index(["measure", "depth"])
    total = len(Path(qrels).read_text().splitlines())
    for depth in (10, 3):
        lines = plain_reduced_lines(qrels, runs, depth)
        reduced = tmp_path / f"q{depth}"
        reduced.write_bytes(b"\n".join(lines) + b"\n")
        found = evaluate(str(reduced), [str(r) for r in runs], ["AP"], complete=True)
        # every run answers every topic here, so the table's mean is the mean of the means
        want = found.per_topic.groupby("run")["value"].mean().mean()
        assert table.loc[("AP", depth), "mean"] == pytest.approx(want, abs=1e-12)
        assert table.loc[("AP", depth), "rate"] == pytest.approx(100 * len(lines) / total)
    assert table.loc[("AP", "full"), "rate"] == 100
    assert result.metadata["depths"] == [10, 3]
