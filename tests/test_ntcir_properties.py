"""Properties of the NTCIREVAL families (hypothesis): ideal output = 1 for every normalised
measure, bounds, and judged-only is a no-op when every retrieved document is judged."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irgauge import evaluate
from tests.conftest import examples

NORMALISED = [
    "nERR@5",
    "nERR",
    "nEBR@5",
    "nEBR",
    "niRBU@5",
    "niRBU",
    "nRBP@5",
    "nRBP",
    "Q-measure",
    "P-plus",
    "nDCG(dcg=jk,b=2)",
]
BOUNDED = NORMALISED + [
    "ERR(stop=exp)@5",
    "ERR",
    "EBR",
    "iRBU",
    "NCUrb(utility=P)",
    "NCUrb(utility=BR)@5",
    "NCUrb(utility=IE)",
    "NCUgu(utility=BR)",
    "RBP(graded=true)",
]
GAINS = st.sampled_from([(1, 2, 3), (1, 4, 9), (0.5, 1, 1.5)])
levels = st.lists(st.integers(0, 3), min_size=1, max_size=25)


def values(qrels, docs, measures, **kwargs):
    run = {"t": {d: float(len(docs) - i) for i, d in enumerate(docs)}}
    result = evaluate({"t": qrels}, {"r": run}, measures, **kwargs)
    return result.per_topic.set_index("measure")["value"]


@settings(max_examples=examples(40), deadline=None)
@given(levels, GAINS)
def test_ideal_output_scores_one(judged, gains):
    qrels = {f"d{i}": lvl for i, lvl in enumerate(judged)}
    if not any(judged):
        return
    ideal = sorted(qrels, key=lambda d: -qrels[d])  # all judged documents, best first
    got = values(qrels, ideal, NORMALISED, gains=list(gains))
    assert np.allclose(got.to_numpy(), 1.0, atol=1e-12), got[~np.isclose(got, 1.0)]


@settings(max_examples=examples(40), deadline=None)
@given(levels, st.lists(st.integers(0, 40), max_size=30, unique=True), GAINS)
def test_bounds_and_judged_only_on_complete_judgments(judged, picks, gains):
    qrels = {f"d{i}": lvl for i, lvl in enumerate(judged)}
    docs = [f"d{i}" for i in picks]  # d{i} with i >= len(judged) are unjudged
    if not any(judged) or not docs:
        return
    got = values(qrels, docs, BOUNDED, gains=list(gains))
    assert ((got >= -1e-12) & (got <= 1 + 1e-12)).all(), got
    judged_docs = [d for d in docs if d in qrels]
    if judged_docs:
        plain = values(qrels, judged_docs, BOUNDED, gains=list(gains))
        condensed = values(qrels, docs, BOUNDED, gains=list(gains), judged_only=True)
        assert np.allclose(plain.to_numpy(), condensed.to_numpy(), atol=1e-12)
