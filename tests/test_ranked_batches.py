"""Batches of ranked lists take memory of their own rows only, not of every qrels topic."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import itertools
from dataclasses import replace

import numpy as np

from irgauge.collection.judgments import Judgments
from irgauge.collection.rankings import build_batches
from irgauge.collection.run_matching import match_run
from irgauge.io.qrels import read_qrels
from irgauge.io.runs import read_run


def test_a_batchs_ideal_gains_are_its_rows_not_the_whole_qrels():
    """A run over 3 of 20,000 qrels topics: the ideal gains of its batch were padded for
    every qrels topic first (20,000 x 50 x 8 bytes = 8 MB), then 3 rows taken; every batch
    of a big run paid that (about 0.1 GB per batch on 100,000 topics)."""
    qrels = {f"q{t}": {"d1": 1, "d2": 2} for t in range(20_000)}
    run = {f"q{t}": {f"d{k}": float(-k) for k in range(1, 51)} for t in range(3)}
    judgments = Judgments(read_qrels(qrels))
    matched = match_run(read_run(run), judgments, "score")
    topics = np.asarray(matched.row_topic)
    (_, _, ranked), *_ = list(build_batches([matched], [topics], judgments))
    judgments.ideal_gain  # built once per collection; not what is measured here
    tracemalloc.start()
    try:
        ideal = ranked.ideal_gain
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ideal.shape == (3, 50)
    assert ideal[:, :3].tolist() == [[2.0, 1.0, 0.0]] * 3  # the ideal list: gains 2, 1
    assert peak < 100_000


def test_building_batches_leaves_numpy_ma_unimported():
    """np.unique's first call imports numpy.ma (10-25 ms of a process's start); the
    batches find their runs without it, so a trec_eval-style process never loads it."""
    code = """
import sys
import itertools
from dataclasses import replace

import numpy as np
from irgauge.collection.judgments import Judgments
from irgauge.collection.rankings import build_batches
from irgauge.collection.run_matching import match_run
from irgauge.io.qrels import read_qrels
from irgauge.io.runs import read_run
judgments = Judgments(read_qrels({"q1": {"d1": 1}, "q2": {"d2": 1}}))
runs = [match_run(read_run({"q1": {"d1": 1.0}, "q2": {"d3": 2.0}}), judgments, "score")] * 2
topics = [np.asarray(m.row_topic) for m in runs]
assert "numpy.ma" not in sys.modules, "imported before the batches"
list(build_batches(runs, topics, judgments))
print("numpy.ma" in sys.modules)
"""
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "False"


def _every_measure():
    """Every registered family with its default parameters, on full and condensed lists,
    whole and cut at rank 150."""
    from irgauge.errors import MeasureError
    from irgauge.measures import families, parse_measure

    measures = []
    for family in families():
        for judged_only, cutoff in itertools.product((False, True), ("", "@150")):
            try:
                measure = parse_measure(family.name + cutoff)
            except MeasureError:  # a family that needs a parameter, or takes no cutoff
                continue
            measures.append(replace(measure, judged_only=judged_only or measure.judged_only))
    return measures


def test_a_topics_value_does_not_depend_on_the_batch_it_is_scored_in():
    """A topic scored alone (its own width) and in a batch padded to the longest list:
    the same bits. numpy's pairwise row sum groups the terms by the row's width, so
    bpref moved in the last bit with the size of the parts a run was read in."""
    import irgauge

    rng = np.random.default_rng(11)
    qrels, run = {}, {}
    for t, length in enumerate([1, 5, 9, 17, 100, 131, 260, 700]):
        docs = [f"d{k}" for k in range(length + 20)]
        qrels[f"q{t}"] = {d: int(rng.integers(0, 4)) for d in docs if rng.random() < 0.6}
        run[f"q{t}"] = {d: float(rng.integers(0, 50)) for d in docs[:length]}
    measures = _every_measure()
    assert len(measures) > 150
    alone = irgauge.evaluate(qrels, run, measures, empty_topics="zero", max_cells=1)
    together = irgauge.evaluate(qrels, run, measures, empty_topics="zero", max_cells=10**7)
    a, b = alone.per_topic_columns, together.per_topic_columns
    assert a["measure"].tolist() == b["measure"].tolist()
    moved = sorted(set(a["measure"][a["value"].view(np.int64) != b["value"].view(np.int64)]))
    assert moved == []
