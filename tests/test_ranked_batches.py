"""Batches of ranked lists take memory of their own rows only, not of every qrels topic."""

from __future__ import annotations

import subprocess
import sys
import tracemalloc

import numpy as np

from irgauge.collection.judgments import Judgments
from irgauge.collection.rankings import build_batches, match_run
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
import numpy as np
from irgauge.collection.judgments import Judgments
from irgauge.collection.rankings import build_batches, match_run
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
