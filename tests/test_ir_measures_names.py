"""ir_measures' spellings, as ``str(measure)`` prints them, against ir_measures itself.

Every spelling irgauge accepts is computed by ir_measures (with its default providers:
pytrec_eval, gdeval, its judged provider) on generated collections with tied scores,
unjudged documents and graded levels 0..3, and compared per topic. No value is computed by
irgauge's own reading of ir_measures.
"""

from __future__ import annotations

import shutil

import numpy as np
import pytest

from irgauge import evaluate

ir_measures = pytest.importorskip("ir_measures")  # a test extra

SPELLINGS = [
    "AP",
    "AP(rel=2)",
    "AP@10",
    "AP(rel=2)@10",
    "P@5",
    "P(rel=2)@10",
    "P(judged_only=True)@10",
    "R@10",
    "R(rel=2)@20",
    "RR",
    "RR(rel=2)",
    "Rprec",
    "Rprec(rel=2)",
    "Bpref",
    "Bpref(rel=2)",
    "Success@10",
    "Success(rel=2)@5",
    "infAP",
    "infAP(rel=2)",
    "nDCG",
    "nDCG@10",
    "nDCG(judged_only=True)@10",
    "nDCG(dcg='exp-log2')@10",
    "nDCG(gains={1:2,2:3,3:7})@10",
    "nDCG(gains={3:10})",
    "nDCG(gains={2:3,3:7})@10",
    "ERR@10",
    "ERR@5",
    "IPrec@0.1",
    "IPrec@0.3",
    "IPrec@0.7",
    "IPrec(rel=2)@0.5",
    "Judged@10",
    "Judged@5",
    "SetP",
    "SetP(rel=2)",
    "SetP(relative=True)",
    "SetR",
    "SetF",
    "SetAP",
    "NumRet",
    "NumRet(rel=1)",
    "NumRet(rel=2)",
    "NumRel",
    "NumQ",
]


# computed by gdeval, which prints 5 decimals
GDEVAL = ("ERR@", "nDCG(dcg='exp-log2')")
# computed by providers that break score ties otherwise than trec_eval (ir_measures' judged
# and msmarco providers: docno ascending; cwl_eval for RBP(rel=k), p = 0.8 unless given):
# compared on distinct scores
DISTINCT_SCORES = [
    "Judged@10",
    "Judged@5",
    "Judged@100",
    "RR@10",
    "RR(rel=2)@5",
    "RBP(rel=1)",
    "RBP(rel=2)",
    "RBP(rel=1,p=0.9)",
]


HAVE_PERL = shutil.which("perl") is not None  # ir_measures runs gdeval with perl
try:
    import cwl  # noqa: F401  (cwl-eval: ir_measures' provider of RBP(rel=k))

    HAVE_CWL = True
except ImportError:
    HAVE_CWL = False


def tolerance(name: str) -> float:
    return 5e-6 + 1e-12 if name.startswith(GDEVAL) else 1e-9


def collection(seed: int, n_topics: int = 12):
    """qrels {qid: {doc: level}} and run {qid: {doc: score}} with ties and unjudged docs."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(n_topics):
        qid = str(101 + t)  # gdeval reads numeric topic ids only
        docs = [f"d{t}_{i:03d}" for i in range(60)]
        judged = rng.choice(60, size=int(rng.integers(15, 40)), replace=False)
        levels = rng.choice(4, size=len(judged), p=[0.5, 0.2, 0.2, 0.1])
        levels[0] = 3  # every topic has a relevant document at every level used
        qrels[qid] = {docs[i]: int(level) for i, level in zip(judged, levels)}
        retrieved = rng.choice(60, size=int(rng.integers(5, 45)), replace=False)
        scores = np.round(rng.normal(size=len(retrieved)), 1)  # one decimal: many ties
        run[qid] = {docs[i]: float(s) for i, s in zip(retrieved, scores)}
    return qrels, run


def theirs(names, qrels, run):
    """ir_measures' values, one measure per call: in one call its pytrec_eval provider may
    compute NumRet inside a judged_only invocation of another measure (set order decides)."""
    values = {}
    for name in names:
        measure = ir_measures.parse_measure(name)
        for metric in ir_measures.iter_calc([measure], qrels, run):
            values[(str(metric.measure), metric.query_id)] = metric.value
    return values


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_every_accepted_spelling_matches_ir_measures_per_topic(seed):
    qrels, run = collection(seed)
    names = [
        n for n in SPELLINGS if n not in DISTINCT_SCORES and (HAVE_PERL or not n.startswith(GDEVAL))
    ]
    expected = theirs(names, qrels, run)
    assert {str(ir_measures.parse_measure(n)) for n in names} == set(names)
    result = evaluate(qrels, {"run": run}, names, order="score")
    got = {
        (m, t): v
        for m, t, v in zip(
            result.per_topic["measure"], result.per_topic["topic"], result.per_topic["value"]
        )
    }
    mismatches = [
        f"{key}: irgauge {got.get(key)}, ir_measures {value}"
        for key, value in expected.items()
        if got.get(key) is None or abs(got[key] - value) > tolerance(key[0])
    ]
    assert len(expected) == len(names) * len(qrels)
    assert not mismatches, "\n".join(mismatches[:20])


def test_judged_rr_at_k_and_rbp_match_ir_measures_on_distinct_scores():
    """ir_measures' judged, msmarco and cwl_eval providers break score ties otherwise than
    its pytrec_eval provider and irgauge's score order (docno descending)."""
    qrels, run = collection(7)
    run = {q: {d: s + i * 1e-6 for i, (d, s) in enumerate(docs.items())} for q, docs in run.items()}
    names = [n for n in DISTINCT_SCORES if HAVE_CWL or not n.startswith("RBP")]
    expected = theirs(names, qrels, run)
    result = evaluate(qrels, {"run": run}, names, order="score")
    got = {
        (m, t): v
        for m, t, v in zip(
            result.per_topic["measure"], result.per_topic["topic"], result.per_topic["value"]
        )
    }
    assert len(expected) == len(names) * len(qrels)
    for key, value in expected.items():
        assert got[key] == pytest.approx(value, abs=1e-12), key


def test_measure_objects_are_accepted():
    """ir_measures Measure objects stand for their str() spelling."""
    qrels, run = collection(4)
    from ir_measures import AP, ERR, nDCG

    objects = [AP(rel=2), nDCG @ 10] + ([ERR @ 10] if HAVE_PERL else [])
    result = evaluate(qrels, {"run": run}, objects, order="score")
    assert list(result.table().columns) == [str(m) for m in objects]
    expected = ir_measures.calc_aggregate(objects, qrels, run)
    for m in objects:
        assert result.table().loc["run", str(m)] == pytest.approx(
            expected[m], abs=tolerance(str(m))
        )
