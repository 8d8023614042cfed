"""The results check on the studies that take runs (irgauge.reproducibility and
irgauge.reusability): small degenerate collections (tied scores, identical or disjoint runs,
a topic without a relevant document) give values that are finite or not finite with their
reason in the result's notes, or one InputError line. Never an unexplained NaN."""

from __future__ import annotations

import numpy as np
from fuzz_strategies import fuzz_settings
from hypothesis import given
from hypothesis import strategies as st
from test_fuzz_results import named_values, unexplained

import irgauge
from irgauge import InputError

DOCS = ["d1", "d2", "d3", "d4"]


@st.composite
def collections(draw):
    """(qrels, runs): 2 to 3 topics over four documents; each run a ranking of some of
    them with scores from {0, 1} (ties everywhere) or distinct."""
    topics = [str(t) for t in range(1, draw(st.integers(2, 3)) + 1)]
    levels = st.sampled_from([0, 0, 1, 2])
    qrels = {t: {d: draw(levels) for d in DOCS} for t in topics}
    scores = st.sampled_from([0.0, 1.0]) if draw(st.booleans()) else st.floats(0, 1)

    def run():
        return {
            t: {
                d: draw(scores)
                for d in draw(st.lists(st.sampled_from(DOCS), min_size=1, max_size=4, unique=True))
            }
            for t in topics
        }

    runs = [run() for _ in range(4)]
    if draw(st.booleans()):  # the repeated pair repeats the original exactly
        runs[2:] = runs[:2]
    return qrels, runs


def _one_line(error: InputError) -> None:
    assert "\n" not in str(error)


@fuzz_settings(12)
@given(found=collections(), pair=st.booleans())
def test_reproducibility_values_are_finite_or_explained(found, pair):
    qrels, runs = found
    original, repeated = (runs[:2], runs[2:]) if pair else (runs[0], runs[2])
    try:
        result = irgauge.reproducibility(qrels, original, repeated, samples=10, seed=1)
    except InputError as error:
        _one_line(error)
        return
    assert unexplained(result.result) == []


@fuzz_settings(12)
@given(found=collections(), depth=st.integers(1, 4))
def test_reusability_values_are_finite_or_explained(found, depth):
    qrels, runs = found
    named = {f"r{i}": r for i, r in enumerate(runs)}
    try:
        result = irgauge.reusability(
            qrels, named, depth, measures=["AP", "bpref"], seed=1, topic_resamples=5
        )
    except InputError as error:
        _one_line(error)
        return
    for frame in (result.runs, result.groups, result.left_out):
        for name, values in named_values(frame):
            if not np.isfinite(values).all():
                assert any(f" {name} value" in n for n in result.notes), (name, result.notes)
