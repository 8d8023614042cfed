"""Every meta function takes the scores as users hold them: {measure: ScoreMatrix}, a
ScoreMatrix, a tidy per-topic DataFrame, an EvalResult or a wide topics x systems DataFrame,
with the same result."""

from __future__ import annotations

import pandas as pd
import pytest

from meta_paths import DATA
from irgauge import evaluate
from irgauge.errors import InputError
from irgauge.meta import (
    discriminative_power,
    predictive_power,
    rank_correlations,
    stability,
    swap_rates,
)
from irgauge.scores.frames import as_score_matrices, as_score_matrix
from irgauge.scores import from_frame

GENERATED = DATA / "ntcireval_generated"
CALLS = {
    "discpower": lambda m: discriminative_power(m, samples=200, seed=3),
    "correlate": lambda m: rank_correlations(m),
    "stability": lambda m: stability(m, subset_size=3, trials=50, seed=3),
    "swap": lambda m: swap_rates(m, subset_size=3, trials=50, seed=3),
    "predictive": lambda m: predictive_power(m, halvings=50, seed=3, top_fraction=1),
}


@pytest.fixture(scope="module")
def result():
    if not GENERATED.is_dir():
        pytest.skip("shared data not available")
    runs = sorted(str(p) for p in (GENERATED / "runs").iterdir())
    return evaluate(str(GENERATED / "qrels.trec"), runs, ["AP", "nDCG@10", "P@10"])


@pytest.mark.parametrize("name", sorted(CALLS))
def test_same_result_from_every_form(result, name):
    call = CALLS[name]
    reference = call(from_frame(result.per_topic))
    for form in (result.per_topic, result, as_score_matrices(result)):
        got = call(form)
        pd.testing.assert_frame_equal(got.table, reference.table)
        assert got.systems == reference.systems and got.topics == reference.topics


def test_wide_frames_and_single_matrices(result):
    tidy = result.per_topic
    wide = {
        m: part.pivot(index="topic", columns="run", values="value")
        for m, part in tidy.groupby("measure", sort=False)
    }
    reference = rank_correlations(from_frame(tidy))
    pd.testing.assert_frame_equal(rank_correlations(wide).table, reference.table)
    one = discriminative_power(wide["AP"], samples=100, seed=1)  # a wide frame: one measure
    again = discriminative_power(as_score_matrix(result, "AP"), samples=100, seed=1)
    assert list(one.table["significant"]) == list(again.table["significant"])
    assert as_score_matrix(wide["AP"], "AP").measure == "AP"


@pytest.mark.parametrize(
    "bad,problem",
    [
        (42, "got int"),
        ({"AP": [1, 2]}, "must be a ScoreMatrix or a wide DataFrame"),
        ({}, "no score matrices"),
    ],
)
def test_bad_score_data(bad, problem):
    with pytest.raises(InputError, match=problem):
        rank_correlations(bad)


def test_as_score_matrix_needs_a_name_for_several(result):
    with pytest.raises(InputError, match="hold 3 measures"):
        as_score_matrix(result)
