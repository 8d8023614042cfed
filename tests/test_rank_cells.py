"""AP and infAP add their terms at the relevant ranks alone (collection.rankings.cells,
measures.base.rank_sum_cells): number for number the full-matrix formulas, on lists with
unjudged, pooled-but-unjudged and padded ranks, whole and cut."""

import numpy as np
import pandas as pd
import pytest

from irgauge.collection.judgments import PADDING, POOLED, UNJUDGED, Judgments
from irgauge.collection.rankings import RankedLists
from irgauge.io.qrels import read_qrels
from irgauge.measures.parse import parse_measure
from irgauge.measures.base import found_over, rank_sum, ratio
from irgauge.measures.infap import EPSILON


def full_ap(ranked):
    """AP's full-matrix formula; without a cutoff over R unchecked, as trec_eval's map
    (an infinity where these lists, unlike any qrels, hold relevant documents past R)."""
    terms = np.where(ranked.isrel, ranked.count / ranked.ranks, 0.0)
    if ranked.cutoff is None:
        return found_over(rank_sum(terms), ranked.R)
    return ratio(rank_sum(terms), ranked.R)


def full_infap(ranked):
    def above(flags):
        return np.cumsum(flags, axis=1) - flags

    weight = ranked.weight
    rel = above(np.where(ranked.isrel, weight, 0.0))
    non = above(np.where(ranked.isrel, 0.0, weight))
    pooled = above(ranked.judged) + above(ranked.grades == POOLED)
    r = ranked.ranks
    expected = 1.0 / r + pooled / r * (rel + EPSILON) / (rel + non + 2 * EPSILON)
    expected[:, 0] = 1.0
    terms = np.where(ranked.isrel, expected * weight, 0.0)
    return ratio(rank_sum(terms), ranked.judgments.estimated_R[ranked.topic])


def lists(seed, rel_level):
    rng = np.random.default_rng(seed)
    n_topics, rows, width = 4, 30, 60
    qrels = pd.DataFrame(
        {
            "query_id": [str(t) for t in range(n_topics) for _ in range(3)],
            "doc_id": [f"d{k}" for k in range(3 * n_topics)],
            "relevance": rng.integers(-1, 4, 3 * n_topics),
        }
    )
    judgments = Judgments(read_qrels(qrels), rel_level=rel_level, negative="unjudged")
    grades = rng.choice([UNJUDGED, POOLED, 0, 1, 2, 3], (rows, width)).astype(np.int16)
    lengths = rng.integers(0, width + 1, rows)
    grades[np.arange(width) >= lengths[:, None]] = PADDING
    topic = rng.integers(0, n_topics, rows)
    return RankedLists(grades, lengths, topic, judgments)


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("rel_level", [0, 1, 2])
def test_relevant_ranks_alone_give_the_full_formulas_number_for_number(seed, rel_level):
    ranked = lists(seed, rel_level)
    for cut in [None, 1, 7, 60]:
        view = ranked.truncate(cut)
        assert np.array_equal(parse_measure("AP").compute(view), full_ap(view))
    assert np.array_equal(parse_measure("infAP").compute(ranked), full_infap(ranked))
    condensed = ranked.condensed
    assert np.array_equal(parse_measure("AP'").compute(ranked), full_ap(condensed))
    assert np.array_equal(
        parse_measure("infAP(judged_only=true)").compute(ranked), full_infap(condensed)
    )
