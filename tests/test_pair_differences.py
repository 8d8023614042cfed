"""The resampling tests' pair differences are made a chunk at a time where each chunk is
tested (stats.resampling.PairDifferences through run_steps' sources): a local step makes
only its own chunk, a worker is sent the scores once, never the differences, and every
chunk is the same bits as the whole matrix cut."""

from __future__ import annotations

import pickle

import numpy as np
import pytest

import irgauge
from irgauge.errors import InputError
from irgauge.evaluation.tasks import run_steps, use_jobs
from irgauge.scores import ScoreMatrix
from irgauge.stats import bootstrap
from irgauge.stats.resampling import PairDifferences, finite_differences, pair_index
from tests.conftest import small_resampling_chunks


def _scores(systems=9, topics=12, seed=4):
    return np.random.default_rng(seed).random((systems, topics))


@pytest.mark.parametrize("given", [False, True])
def test_a_slice_is_the_whole_matrix_cut(given):
    values = _scores()
    i, j = pair_index(len(values))
    if given:  # some pairs, in an order of their own
        i, j = j[::-2], i[::-2]
    whole = values[i] - values[j]
    made = PairDifferences(values, (i, j) if given else None)
    assert made.shape == whole.shape and len(made) == len(whole)
    for part in (slice(0, 5), slice(5, 17), slice(17, None)):
        assert np.array_equal(made[part], whole[part])
    sent = pickle.loads(pickle.dumps(made))
    assert np.array_equal(sent.whole(), whole)


def test_it_is_sent_as_the_scores_alone():
    values = _scores(systems=60, topics=30)
    made = PairDifferences(values, made=values[[0, 1]] - values[[2, 3]])
    # pickled: the scores; not the 1,770 pairs' differences, nor their indices
    assert len(pickle.dumps(made)) < values.nbytes + 1000
    assert pickle.loads(pickle.dumps(made)).made is None


def test_every_pair_given_is_sent_as_no_pairs():
    """compare names its pairs; when they are every pair in pair_index's order they are
    sent as the default is, the scores alone, and a worker lists them again."""
    values = _scores(systems=60, topics=30)
    i, j = pair_index(len(values))
    given = PairDifferences(values, (i, j))
    assert len(pickle.dumps(given)) < values.nbytes + 1000
    assert np.array_equal(pickle.loads(pickle.dumps(given)).whole(), values[i] - values[j])
    # other pairs, or the same pairs in another order, travel with their indices
    for other in ((i[:-1], j[:-1]), (i[::-1], j[::-1])):
        sent = pickle.loads(pickle.dumps(PairDifferences(values, other)))
        assert np.array_equal(sent.whole(), values[other[0]] - values[other[1]])


@pytest.mark.parametrize("jobs", [1, 3])
def test_a_step_gets_its_part_of_its_source_made_where_it_runs(jobs):
    values = _scores()
    made = []

    class Counted(PairDifferences):
        def __getitem__(self, part):
            made.append(part)
            return super().__getitem__(part)

    sources = [Counted(values), values[:4]]
    items = [(0, slice(0, 10)), (1, slice(1, 3)), (0, slice(10, 36))]
    with use_jobs(jobs):
        got = run_steps(np.sum, items, (1,), sources=sources)
    whole = values[pair_index(9)[0]] - values[pair_index(9)[1]]
    assert np.array_equal(got[0], whole[:10].sum(axis=1))
    assert np.array_equal(got[1], values[1:3].sum(axis=1))
    assert sorted(made, key=lambda p: p.start) == [slice(0, 10), slice(10, 36)]


def test_discpower_never_makes_every_pairs_differences_at_once(monkeypatch):
    """Each chunk of pairs is made by the step that tests it: on 30 systems (435 pairs)
    in chunks of 2,000 cells, no part holds more than a chunk's pairs."""
    parts = []
    real = PairDifferences.__getitem__
    monkeypatch.setattr(
        PairDifferences, "__getitem__", lambda self, part: parts.append(part) or real(self, part)
    )
    small_resampling_chunks(monkeypatch, bootstrap)
    values = _scores(systems=30, topics=12)
    names, topics = [f"s{k}" for k in range(30)], [str(t) for t in range(12)]
    result = irgauge.discriminative_power(
        {"AP": ScoreMatrix(values, names, topics, "AP")}, samples=200, seed=3
    )
    i, j = pair_index(30)
    pairs = result.details["pairs"]
    assert np.array_equal(np.asarray(pairs["difference"]), (values[i] - values[j]).mean(axis=1))
    assert len(parts) > 1 and all(p.stop - p.start <= 10 for p in parts)


def test_non_finite_differences_are_named_as_an_arrays_are():
    huge = 1e308  # input: finite scores whose differences overflow
    values = np.array([[huge, 0.0], [-huge, 0.5]])
    with pytest.raises(InputError) as whole, np.errstate(over="ignore"):
        finite_differences(values[[0]] - values[[1]])
    with pytest.raises(InputError) as made:
        finite_differences(PairDifferences(values))
    assert str(made.value) == str(whole.value)
    scaled = values / huge  # input: their range finite
    assert finite_differences(PairDifferences(scaled)).shape == (1, 2)
