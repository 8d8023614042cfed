"""Property tests (hypothesis) of the measures on random small collections."""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from irgauge import evaluate
from tests.conftest import examples

# measures whose every per-topic value lies in [0, 1] (not WRR: 1/(r1 - 1/pen) exceeds 1)
NORMALISED = [
    "AP",
    "AP@5",
    "nDCG",
    "nDCG@5",
    "nDCG(dcg=jk,b=2)@10",
    "nDCG(dcg=exp-log2)",
    "P@5",
    "R@5",
    "RR",
    "Rprec",
    "Rprec(mult=2)",
    "Hit@3",
    "bpref",
    "bpref_R",
    "bpref_N",
    "bpref_relative",
    "bpref_relative2",
    "rpref_relative2",
    "Q-measure",
    "R-measure",
    "O-measure",
    "P-measure",
    "P-plus",
    "NWRR",
    "nCG@5",
    "RBP",
    "RBP(graded=true)",
    "rbp",
    "RBP_resid",
    "rbp_resid",
    "IPrec(recall=0.3)",
    "IPrec_avg",
    "SetF",
    "SetAP",
    "RelP",
    "RelP@5",
    "infAP",
    "binG",
    "G",
    "ndcg_rel",
    "Rndcg",
    "Unjudged@5",
    "Q-measure(judged_only=true)",
    "nDCG(judged_only=true)",
]
SETTINGS = settings(max_examples=examples(40), deadline=None)


@st.composite
def collections(draw, judged_only_runs: bool = False):
    """qrels {qid: {doc: level}} and a run {qid: {doc: score}} with ties and unjudged docs."""
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        levels = draw(st.lists(st.integers(0, 3), min_size=1, max_size=12))
        qrels[f"t{t}"] = {f"d{i}": lv for i, lv in enumerate(levels)}
        pool = list(qrels[f"t{t}"]) + (
            [] if judged_only_runs else [f"u{i}" for i in range(draw(st.integers(0, 6)))]
        )
        chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
        run[f"t{t}"] = {d: draw(st.integers(0, 4)) / 4.0 for d in chosen}
    return qrels, run


def per_topic(qrels, run, measures, **options):
    result = evaluate(qrels, run, measures, order="score", empty_topics="zero", **options)
    frame = result.per_topic
    return {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}


@SETTINGS
@given(collections())
def test_normalised_measures_lie_in_unit_interval(data):
    values = per_topic(*data, NORMALISED)
    bad = {k: v for k, v in values.items() if not -1e-12 <= v <= 1 + 1e-12}
    assert not bad


def ideal_run(qrels):
    """Relevant documents by level (highest first), then the nonrelevant ones."""
    run = {}
    for qid, docs in qrels.items():
        ordered = sorted(docs, key=lambda d: -docs[d])
        run[qid] = {d: float(len(ordered) - i) for i, d in enumerate(ordered)}
    return run


@SETTINGS
@given(collections())
def test_an_ideal_ranking_scores_one(data):
    qrels, _ = data
    measures = ["AP", "nDCG", "Q-measure", "P-plus", "rpref_relative2", "Rprec", "nDCG@3"]
    values = per_topic(qrels, ideal_run(qrels), measures)
    for qid, docs in qrels.items():
        if max(docs.values()) == 0:
            continue  # no relevant document: every measure is 0 by definition
        for m in measures:
            assert abs(values[(m, qid)] - 1.0) < 1e-12, (m, qid)


@SETTINGS
@given(collections())
def test_q_measure_with_beta_zero_is_ap(data):
    values = per_topic(
        *data,
        ["AP", "Q-measure(beta=0)", "AP(judged_only=true)", "Q-measure(beta=0,judged_only=true)"],
    )
    for (m, t), v in values.items():
        if m == "AP":
            assert abs(values[("Q-measure(beta=0)", t)] - v) < 1e-12
        if m == "AP(judged_only=true)":
            assert abs(values[("Q-measure(beta=0,judged_only=true)", t)] - v) < 1e-12


@SETTINGS
@given(collections(judged_only_runs=True))
def test_judged_only_is_a_no_op_when_every_retrieved_document_is_judged(data):
    plain = per_topic(*data, NORMALISED)
    condensed = per_topic(*data, NORMALISED, judged_only=True)
    assert plain.keys() == condensed.keys()
    for key, value in plain.items():
        assert abs(condensed[key] - value) < 1e-12, key


def write_trec(qrels, run, directory: Path, rng: random.Random):
    """The collection as TREC files, lines (and so topics) in a shuffled order."""
    qlines = [f"{q} 0 {d} {lv}" for q, docs in qrels.items() for d, lv in docs.items()]
    rlines = [f"{q} Q0 {d} 0 {s} r" for q, docs in run.items() for d, s in docs.items()]
    rng.shuffle(qlines)
    rng.shuffle(rlines)
    (directory / "qrels").write_text("\n".join(qlines) + "\n")
    (directory / "run").write_text("\n".join(rlines) + "\n")
    return directory / "qrels", directory / "run"


@SETTINGS
@given(collections(), st.integers(0, 2**16))
def test_score_order_ignores_the_order_of_file_lines_and_topics(data, seed):
    measures = ["AP", "nDCG@5", "P@3", "RR", "bpref", "Q-measure", "infAP", "Rndcg"]
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        for k in range(2):
            directory = Path(tmp) / str(k)
            directory.mkdir()
            qrels, run = write_trec(*data, directory, random.Random(seed + k))
            frame = evaluate(qrels, run, measures, order="score").to_frame()
            results.append(frame.sort_values(["measure", "topic"]).reset_index(drop=True))
    assert results[0].equals(results[1])


@SETTINGS
@given(collections(), st.sampled_from([0.5, 2.0, 10.0]))
def test_ndcg_is_invariant_to_scaling_the_gains(data, factor):
    base = per_topic(*data, ["nDCG", "nDCG@5", "nDCG(dcg=jk,b=2)@10"], gains="1:2:3")
    scaled = per_topic(
        *data,
        ["nDCG", "nDCG@5", "nDCG(dcg=jk,b=2)@10"],
        gains=":".join(str(factor * g) for g in (1, 2, 3)),
    )
    for key, value in base.items():
        assert abs(scaled[key] - value) < 1e-12, key


@SETTINGS
@given(collections(), st.integers(1, 8))
def test_precision_times_k_counts_relevant_retrieved(data, k):
    values = per_topic(*data, [f"P@{k}", f"num_rel_ret@{k}"])
    for (m, t), v in values.items():
        if m == f"P@{k}":
            assert np.isclose(v * k, values[(f"num_rel_ret@{k}", t)])
