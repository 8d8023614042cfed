"""Sakai's primed names: X' is X on the condensed list, for every measure.

The independent value: X on a run from which the unjudged documents were removed by hand
(plain Python on the lines of the file), compared with X' on the whole run. Also: a
parameter given twice is refused, and a primed name cannot be made to mean anything else.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from irgauge import MeasureError, evaluate
from irgauge.measures import REGISTRY, parse_measure


def collection(seed: int):
    """qrels and a run of 6 topics, a third of the retrieved documents unjudged."""
    rng = random.Random(seed)
    qrels, run = [], []
    for topic in range(1, 7):
        docs = [f"d{topic}_{i}" for i in range(40)]
        judged = rng.sample(docs, 26)
        for doc in judged:
            qrels.append((str(topic), doc, rng.choice([0, 0, 0, 1, 2, 3])))
        ranked = rng.sample(docs, 30)
        for rank, doc in enumerate(ranked, 1):
            run.append((str(topic), doc, 100.0 - rank))
    return qrels, run


def as_dicts(qrels, run, keep=None):
    q, r = {}, {}
    for topic, doc, level in qrels:
        q.setdefault(topic, {})[doc] = level
    for topic, doc, score in run:
        if keep is None or doc in keep.get(topic, ()):
            r.setdefault(topic, {})[doc] = score
    return q, r


def families():
    names = []
    for name, family in REGISTRY.items():
        try:
            parse_measure(f"{name}@10" if family.cutoff != "none" else name)
        except MeasureError:
            continue  # needs a parameter of its own
        names.append(name)
    return names


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("name", families())
def test_primed_name_is_the_measure_on_the_run_without_unjudged_documents(name, seed):
    qrels, run = collection(seed)
    q, whole = as_dicts(qrels, run)
    _, condensed = as_dicts(qrels, run, keep={t: set(d) for t, d in q.items()})
    cut = "@10" if REGISTRY[name].cutoff != "none" else ""
    ours = evaluate(q, {"r": whole}, [f"{name}'{cut}"], order="score").per_topic
    theirs = evaluate(q, {"r": condensed}, [f"{name}{cut}"], order="score").per_topic
    assert len(ours) == len(theirs) > 0
    assert np.allclose(ours.value.to_numpy(), theirs.value.to_numpy(), atol=1e-12, equal_nan=True)


def test_primed_name_is_not_the_plain_measure_when_documents_are_unjudged():
    qrels, run = collection(3)
    q, whole = as_dicts(qrels, run)
    result = evaluate(q, {"r": whole}, ["Q-measure'", "Q-measure", "nDCG'", "nDCG"])
    means = dict(zip(result.means.measure, result.means.value))
    assert means["Q-measure'"] != means["Q-measure"] and means["nDCG'"] != means["nDCG"]


@pytest.mark.parametrize(
    "text, words",
    [
        ("RBP(p=0.5,p=0.6)", "given twice"),
        ("nDCG(dcg=log2,b=2,dcg=jk)@10", "given twice"),
        ("Q-measure'(judged_only=false)", "contradicts"),
    ],
)
def test_refused(text, words):
    with pytest.raises(MeasureError, match=words):
        parse_measure(text)
