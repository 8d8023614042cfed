"""The per-topic values of an evaluation, kept in memory up to a share of the budget and
in a temporary file beyond it (irgauge.evaluation.topic_values): the same rows, the same
means and the same output bytes either way, and no temporary file outlives them."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation import engine
from irgauge.evaluation.rendering import EVAL_FORMATS, render_evaluation
from irgauge.evaluation.topic_values import RunValues, ValueSpill
from irgauge.measures import parse_measures

from test_streaming import MEASURES, _big_shuffled_run, _write, collections, stopped_while_writing
from tests.conftest import examples

STORE_MEASURES = parse_measures(["AP", "num_ret", "P@5"])  # a mean and a sum


@st.composite
def scored_parts(draw):
    """A run's rows (distinct qrels topics, in any order) with values, cut into parts."""
    topics = draw(st.permutations(range(draw(st.integers(0, 40)))))
    values = draw(
        st.lists(
            st.floats(-1e3, 1e3) | st.just(float("nan")),
            min_size=3 * len(topics),
            max_size=3 * len(topics),
        )
    )
    cuts = sorted(draw(st.lists(st.integers(0, len(topics)), max_size=5)))
    bounds = [0, *cuts, len(topics)]
    matrix = np.asarray(values, dtype=np.float64).reshape(3, len(topics))
    rows = np.asarray(topics, dtype=np.int64)
    return [(rows[a:b], matrix[:, a:b]) for a, b in zip(bounds, bounds[1:])]


@settings(max_examples=examples(80), deadline=None)
@given(scored_parts(), st.sampled_from([0, 100, 1 << 30]), st.sampled_from(["mean", "gmean"]))
def test_a_spilled_store_holds_what_a_store_in_memory_holds(parts, limit, aggregate):
    spill = ValueSpill(limit)
    kept, reference = RunValues(3, spill), RunValues(3)
    for rows, matrix in parts:
        kept.add(rows, matrix)
        reference.add(rows, matrix)
    kept.finish(STORE_MEASURES, aggregate)
    reference.finish(STORE_MEASURES, aggregate)
    assert np.all(np.diff(kept.topic_rows) > 0)
    assert np.array_equal(kept.topic_rows, reference.topic_rows)
    assert np.array_equal(kept.matrix(), reference.matrix(), equal_nan=True)
    assert np.array_equal(kept.column(1, 2, 7), reference.column(1, 2, 7), equal_nan=True)
    assert np.array_equal(kept.means, reference.means, equal_nan=True)
    whole = np.concatenate([m for _, m in parts], axis=1) if parts else np.zeros((3, 0))
    order = np.argsort(np.concatenate([r for r, _ in parts]) if parts else [])
    assert np.array_equal(reference.matrix(), whole[:, order], equal_nan=True)
    rows_spilled = sum(len(r) for r, _ in parts) * 4 * 8 > limit
    assert (spill.folder is not None) == (rows_spilled and limit < 1 << 30)
    folder = spill.folder
    del kept, spill
    if folder is not None and os.path.exists(folder):
        gc.collect()  # only then: a full collection costs seconds in a worker's large heap
    assert folder is None or not os.path.exists(folder)


def _spill_everything(monkeypatch) -> None:
    monkeypatch.setattr(engine, "values_in_memory", lambda budget: 0)


@settings(
    max_examples=examples(40),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(data=collections(), complete=st.booleans(), per_topic=st.booleans())
def test_every_output_is_the_same_when_the_values_spill(
    tmp_path, monkeypatch, data, complete, per_topic
):
    qrels_lines, run_lines = data
    qrels = _write(tmp_path / "qrels", qrels_lines)
    run = _write(tmp_path / "run", run_lines)
    options = dict(complete=complete, empty_topics="zero" if complete else "skip")
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    with monkeypatch.context() as patched:
        kept = irgauge.evaluate(qrels, [run, run], MEASURES, **options)
        _spill_everything(patched)
        spilled = irgauge.evaluate(qrels, [run, run], MEASURES, **options)
    assert spilled.topic_values.stores[0].spilled or not len(spilled.topic_values)
    for fmt in EVAL_FORMATS:
        assert render_evaluation(spilled, fmt, per_topic) == render_evaluation(kept, fmt, per_topic)
    assert spilled.to_frame().equals(kept.to_frame())
    del spilled
    if list(tmp_path.glob("irgauge-*")):
        gc.collect()  # only then: a full collection costs seconds in a worker's large heap
    assert not list(tmp_path.glob("irgauge-*"))


def test_no_spill_outlives_a_failed_evaluation(tmp_path, monkeypatch):
    qrels, run = _big_shuffled_run(tmp_path, topics=50, docs=5)
    bad = _write(tmp_path / "bad", ["1 Q0 d1 0 1 r", "2 Q0 d2 0"])
    monkeypatch.setenv("TMPDIR", str(tmp_path))
    _spill_everything(monkeypatch)
    with pytest.raises(InputError, match="bad:2:") as caught:
        irgauge.evaluate(qrels, [run, bad], ["AP"], jobs=1)
    assert caught.value is not None  # the error, and with it its frames, still held
    assert not list(tmp_path.glob("irgauge-values-*"))


def _cli(*args, env):
    return subprocess.run(
        [sys.executable, "-m", "irgauge", *args],
        capture_output=True,
        env={**os.environ, **env},
        check=False,
    )


def test_the_command_line_spills_within_a_small_budget(tmp_path):
    """--memory 1M holds 128K of values: 3,000 topics x 12 measures x 2 runs spill, and
    the output is the one of a budget that holds them all."""
    qrels, run = _big_shuffled_run(tmp_path, topics=3000, docs=4)
    spill = tmp_path / "spill"
    spill.mkdir()
    outputs = []
    for budget in ("1M", "1G"):
        done = _cli("eval", qrels, run, run, "-q", "--format", "trec", "--memory", budget,
                    env={"TMPDIR": str(spill)})  # fmt: skip
        assert done.returncode == 0, done.stderr
        outputs.append(done.stdout)
    assert outputs[0] == outputs[1]
    assert outputs[0].count(b"\n") > 2 * 3000 * 12
    assert list(spill.iterdir()) == []


def test_no_spill_outlives_a_stop_signal(tmp_path):
    import signal

    qrels, run = _big_shuffled_run(tmp_path, topics=3000, docs=3)
    argv = ["eval", qrels, run, run, "--memory", "1M", "--quiet", "--jobs", "1"]
    # the first values spilled: their file written, the evaluation not done
    after = "irgauge.evaluation.topic_values:RunValues._append"
    stopped_while_writing(argv, tmp_path / "spill", signal.SIGTERM, "irgauge-values-*/*", after)
    assert Path(run).exists()
