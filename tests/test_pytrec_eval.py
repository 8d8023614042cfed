"""irgauge against pytrec_eval (trec_eval 9.0.x's code) on generated collections, per topic.

The collections (numpy, seeded) are built to hit the edge cases: heavy score ties (broken
by docno descending on both sides), topics missing from the run, runs shorter than R,
topics without relevant documents, unjudged documents, graded levels 0..3 and negative
levels, and run topics absent from the qrels.

Conventions, made explicit in every evaluate() call below:
- pytrec_eval reads scores as 32-bit floats, so scores are multiples of 1/8: exactly
  representable, and ties stay ties;
- it evaluates every topic present in both the qrels and the run, with or without
  relevant documents: irgauge gets ``empty_topics="zero"`` and scores the same topics
  (no ``complete``: a topic the run lacks is in neither output);
- a negative qrels level means "in the pool but unjudged" to trec_eval:
  ``negative="unjudged"``;
- pytrec_eval bundles trec_eval 9.0.x, whose iprec_at_recall and 11pt_avg turn x*R into
  a number of relevant documents as trunc(x*R + 0.9) (trec_eval 10 rounds): irgauge's
  ``rounding=v9``;
- gm_map and gm_bpref are aggregates; pytrec_eval's per-topic value of them is not a
  score of the topic, so they are left out here (the trec_eval suite checks them).
"""

from __future__ import annotations

import numpy as np
import pytest

from irgauge import evaluate

from trec_names import irgauge_measure

pytrec_eval = pytest.importorskip("pytrec_eval")

SEEDS = (1, 2, 3, 4, 5)
TOLERANCE = 1e-6
AGGREGATES_ONLY = {"gm_map", "gm_bpref"}
NOT_NUMBERS = {"relstring", "runid", "num_q"}


def pytrec_measure(name: str) -> str:
    """irgauge's measure for a pytrec_eval key, with trec_eval 9's conventions."""
    if name.startswith("iprec_at_recall_"):
        return f"IPrec(recall={name.rsplit('_', 1)[1]},rounding=v9)"
    if name == "11pt_avg":
        return "IPrec_avg(rounding=v9)"
    target = irgauge_measure(name)
    assert target is not None, f"pytrec_eval measure {name} has no irgauge mapping"
    return target


def collection(seed: int):
    """qrels {qid: {docno: level}} and run {qid: {docno: score}}."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(14):
        qid = f"q{t}"
        n_judged = int(rng.integers(1, 40))
        # some topics have no relevant document at all; levels -1 mean pooled-unjudged
        levels = rng.choice([-1, 0, 0, 0, 1, 2, 3] if t % 5 else [-1, 0, 0], size=n_judged)
        qrels[qid] = {f"d{t}_{i}": int(level) for i, level in enumerate(levels)}
        if t % 6 == 5:
            continue  # the run skips this topic
        pool = [f"d{t}_{i}" for i in range(n_judged)] + [
            f"u{t}_{i}" for i in range(int(rng.integers(0, 30)))
        ]  # unjudged
        # a few lists shorter than R, most of random length
        length = int(rng.integers(1, 4)) if t % 4 == 1 else int(rng.integers(1, len(pool) + 1))
        chosen = rng.choice(pool, size=min(length, len(pool)), replace=False)
        scores = rng.integers(0, 6, size=len(chosen)) / 8.0  # few distinct values: ties
        run[qid] = {str(d): float(s) for d, s in zip(chosen, scores)}
    run["extra"] = {"x1": 1.0}  # a run topic the qrels lack: scored by neither
    return qrels, run


def irgauge_per_topic(qrels, run, measures):
    result = evaluate(qrels, run, measures, order="score", empty_topics="zero", negative="unjudged")
    frame = result.per_topic
    return {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}


@pytest.mark.parametrize("seed", SEEDS)
def test_every_shared_measure_matches_pytrec_eval_per_topic(seed):
    qrels, run = collection(seed)
    names = sorted(pytrec_eval.supported_measures - NOT_NUMBERS)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(names)).evaluate(run)
    keys = sorted({k for values in theirs.values() for k in values} - AGGREGATES_ONLY)
    mapping = {k: pytrec_measure(k) for k in keys}
    ours = irgauge_per_topic(qrels, run, sorted(set(mapping.values())))

    assert set(theirs) == {t for (_, t) in ours}, "the two score different topics"
    assert any(max(v for d, v in qrels[t].items()) <= 0 for t in theirs), (
        "the generated data should hold an evaluated topic without relevant documents"
    )
    mismatches, compared = [], 0
    for topic, values in theirs.items():
        for key in keys:
            compared += 1
            mine = ours[(mapping[key], topic)]
            if abs(mine - values[key]) > TOLERANCE:
                mismatches.append(
                    f"{key} [{mapping[key]}] {topic}: irgauge {mine!r}, pytrec_eval {values[key]!r}"
                )
    assert compared > 1000
    assert not mismatches, f"{len(mismatches)} of {compared}:\n" + "\n".join(mismatches[:30])


def test_ties_are_broken_by_docno_descending_like_trec_eval():
    """All scores equal: trec_eval ranks z before a; P@1 tells which came first."""
    qrels = {"q": {"a": 1, "z": 0}}
    run = {"q": {"a": 0.5, "z": 0.5}}
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"P.1"}).evaluate(run)["q"]["P_1"]
    ours = irgauge_per_topic(qrels, run, ["P@1"])[("P@1", "q")]
    assert theirs == ours == 0.0


# pytrec_eval's "name.params" spellings -> the keys it returns -> irgauge measures
# (utility's negative coefficients do not survive pytrec_eval's parameter parsing)
PARAMETRISED = {
    "P.3,7": {"P_3": "P@3", "P_7": "P@7"},
    "ndcg_cut.3": {"ndcg_cut_3": "nDCG@3"},
    "Rprec_mult.0.35": {"Rprec_mult_0.35": "Rprec(mult=0.35)"},
    "set_F.0.5": {"set_F": "SetF(beta=0.5)"},
    "relative_P.4": {"relative_P_4": "RelP@4"},
}


@pytest.mark.parametrize("seed", SEEDS[:3])
def test_measure_parameters_match_pytrec_eval(seed):
    qrels, run = collection(seed)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, set(PARAMETRISED)).evaluate(run)
    mapping = {k: m for keys in PARAMETRISED.values() for k, m in keys.items()}
    ours = irgauge_per_topic(qrels, run, list(mapping.values()))
    compared = 0
    for topic, values in theirs.items():
        for key, measure in mapping.items():
            assert abs(ours[(measure, topic)] - values[key]) <= TOLERANCE, (key, topic)
            compared += 1
    assert compared == len(theirs) * len(mapping)
