"""irgauge against pyNTCIREVAL (PyPI ``pyNTCIREVAL``, a Python port of NTCIREVAL) per topic.

Seeded collections: graded levels 0..3 (some topics top out below 3, so the max gain comes
from the gain list, as in NTCIREVAL), unjudged documents, lists shorter than R, empty lists,
and file order (pyNTCIREVAL takes the list as given). Topics without relevant documents are
left out (NTCIREVAL prints nothing for them). Normal and condensed (judged-only) lists.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest

from irgauge import evaluate

metrics = pytest.importorskip("pyNTCIREVAL.metrics")

CUTOFFS = (1, 5, 10, 1000)
BETA, RBP_P, GAMMA = 1.0, 0.95, 0.95


def reference_metrics(xrelnum, gains):
    """irgauge measure string -> configured pyNTCIREVAL metric (NTCIREVAL defaults)."""
    m = {
        "RR": metrics.RR(),
        "O-measure": metrics.OMeasure(xrelnum, gains, BETA),
        "P-measure": metrics.PMeasure(xrelnum, gains, BETA),
        "P-plus": metrics.PPlusMeasure(xrelnum, gains, BETA),
        "AP": metrics.AP(xrelnum, gains),
        "Q-measure": metrics.QMeasure(xrelnum, gains, BETA),
        "RBP(graded=true)": metrics.RBP(xrelnum, gains, RBP_P),
        "ERR": metrics.ERR(xrelnum, gains),
        "NCUrb(utility=P)": metrics.NCUrbP(xrelnum, gains, GAMMA),
        "NCUrb(utility=BR)": metrics.NCUrbBR(xrelnum, gains, GAMMA, BETA),
        "NCUgu(utility=P)": metrics.NCUguP(xrelnum, gains, gains),
        "NCUgu(utility=BR)": metrics.NCUguBR(xrelnum, gains, gains, BETA),
    }
    for k in CUTOFFS:
        m.update(
            {
                f"AP(norm=min)@{k}": metrics.AP(xrelnum, gains, cutoff=k),
                f"Q@{k}": metrics.QMeasure(xrelnum, gains, BETA, cutoff=k),
                f"nDCG(dcg=jk,b=2)@{k}": metrics.nDCG(xrelnum, gains, 2.0, k),
                f"MSnDCG@{k}": metrics.MSnDCG(xrelnum, gains, k),
                f"nERR@{k}": metrics.nERR(xrelnum, gains, k),
                f"Hit@{k}": metrics.Hit(k),
                f"P@{k}": metrics.Precision(k),
            }
        )
    return m


def make_collection(seed: int, n_topics: int = 25, n_runs: int = 3):
    """Graded qrels and runs in file order (as ranked lists): {topic: {doc: level}},
    {run: {topic: [docs]}}."""
    rng = np.random.default_rng(seed)
    qrels, runs = {}, {f"r{i}": {} for i in range(n_runs)}
    for t in range(n_topics):
        top = rng.integers(1, 4)  # highest level used in this topic
        n_judged = int(rng.integers(3, 40))
        levels = rng.choice(np.arange(top + 1), size=n_judged, p=None)
        if t % 7 == 3:
            levels[:] = 0  # a topic without relevant documents (left out)
        topic = f"t{t:02d}"
        qrels[topic] = {f"d{t}_{i}": int(v) for i, v in enumerate(levels)}
        pool = [f"d{t}_{i}" for i in range(n_judged + 20)]  # 20 unjudged documents
        for run in runs.values():
            length = int(rng.choice([0, 1, 2, 5, 15, 40, 60]))
            run[topic] = list(rng.permutation(pool)[: min(length, len(pool))])
    return qrels, runs


def as_frame(ranked_lists: dict) -> pd.DataFrame:
    rows = [(t, d, -float(i)) for t, docs in ranked_lists.items() for i, d in enumerate(docs)]
    return pd.DataFrame(rows, columns=["qid", "docno", "score"])


def reference(qrels, runs, gains, condensed):
    """{(run, measure, topic): value} from pyNTCIREVAL."""
    out = {}
    for topic, judged in qrels.items():
        xrelnum = [sum(1 for v in judged.values() if v == level) for level in range(len(gains) + 1)]
        if sum(xrelnum[1:]) == 0:
            continue
        configured = reference_metrics(xrelnum, list(gains))
        for name, docs in runs.items():
            labelled = [(d, judged.get(d)) for d in docs[topic]]
            if condensed:
                labelled = [(d, lvl) for d, lvl in labelled if lvl is not None]
            for label, metric in configured.items():
                # pyNTCIREVAL fails on an empty list; NTCIREVAL scores it 0
                out[name, label, topic] = metric.compute(labelled) if labelled else 0.0
    return out


@pytest.mark.parametrize("seed,gains", [(1, (1, 2, 3)), (2, (1, 4, 9)), (3, (0.5, 2, 2.5))])
@pytest.mark.parametrize("condensed", [False, True], ids=["normal", "condensed"])
def test_agrees_with_pyntcireval_per_topic(seed, gains, condensed):
    qrels, runs = make_collection(seed)
    expected = reference(qrels, runs, gains, condensed)
    measures = sorted({m for _, m, _ in expected})
    result = evaluate(
        qrels,
        {name: as_frame(lists) for name, lists in runs.items()},
        measures,
        gains=list(gains),
        order="file",
        judged_only=condensed,
        complete=True,
    )  # an empty list (a topic absent from the frame) scores 0
    got = result.per_topic.set_index(["run", "measure", "topic"])["value"]
    keys = list(expected)
    assert len(got) == len(keys)
    diff = np.abs(got.loc[keys].to_numpy() - np.array([expected[k] for k in keys]))
    worst = keys[int(np.argmax(diff))]
    assert diff.max() <= 1e-9, (worst, got[worst], expected[worst])
    # the collection exercises what it should
    assert any(len(lists[t]) == 0 for lists in runs.values() for t in lists)
    assert (got.loc[[k for k in keys if k[1] == "RR"]] == 0).any()
