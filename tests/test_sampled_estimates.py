"""Estimates from sampled judgments (issue 34): statAP, statP@k, statR and infAP read from
prels, checked against hand computations, against the full-judgment values in simulation
(unbiasedness), and against AP, P@k and R where every inclusion probability is 1."""

from __future__ import annotations

import os

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import irgauge
from irgauge.cli import main
from irgauge.errors import InputError
from irgauge.io.prels import read_prels
from irgauge.io.records import Qrels
from tests.conftest import examples

RUN = "1 Q0 a 1 4 r\n1 Q0 b 2 3 r\n1 Q0 c 3 2 r\n1 Q0 d 4 1 r\n"
# a relevant (pi 1/2), b nonrelevant (pi 1), c relevant (pi 1/4), d not sampled;
# e relevant (pi 1/2) sampled but not retrieved
PRELS = "1 a 1 0.5\n1 b 0 1\n1 c 1 0.25\n1 e 1 0.5\n"


def _values(tmp_path, measures, prels=PRELS, run=RUN):
    (tmp_path / "prels").write_text(prels)
    (tmp_path / "run").write_text(run)
    result = irgauge.evaluate(
        runs=[str(tmp_path / "run")], prels=str(tmp_path / "prels"), measures=measures
    )
    return {m: result.score_matrices()[m].values[0, 0] for m in measures}


def test_the_estimates_of_a_hand_computed_sample(tmp_path):
    # weights w = 1/pi: a 2, b 1, c 4, e 2
    r_hat = 2 + 4 + 2  # relevant documents, estimated
    var_r = (1 - 0.5) / 0.5**2 + (1 - 0.25) / 0.25**2 + (1 - 0.5) / 0.5**2  # 2 + 12 + 2
    # statAP: a at rank 1: w 2, precision (1 + 0)/1; c at rank 3: w 4, precision (1 + 2)/3
    numerator = 2 * 1.0 + 4 * (1 + 2) / 3
    stat_ap = numerator / r_hat  # 0.75
    # its variance as the Million Query track's statAP_MQ_eval_v4.pl estimates it:
    # y = w (prec - statAP) for a ranked relevant document, -w statAP for e (not ranked)
    y_a, y_c, y_e = 2 * (1 - stat_ap), 4 * (1 - stat_ap), -2 * stat_ap  # they sum to 0
    s1 = (1 - 0.5) * y_a**2 + (1 - 0.25) * y_c**2 + (1 - 0.5) * y_e**2  # 2.0
    s2 = -(y_a**2 + y_c**2 + y_e**2)  # sum over pairs d != e of y_d y_e: -3.5
    s3 = (1 - 0.5) * 2**2 * (4 / 3) ** 2  # B(a) = w_c / 3 (c below a), B(c) = 0
    judged, ranked_judged = 4, 3  # a, b, c, e judged; a, b, c ranked
    # statAP_MQ_eval_v4.pl -q on these prels (method 1) prints varAP=0.135528673835125
    var_ap = (s1 - s2 / (judged - 1) + s3) / r_hat**2 * judged / (ranked_judged + 0.1)
    expected = {
        "statAP": stat_ap,
        "statAP(var=true)": var_ap,
        "statP@2": (2 + 0) / 2,
        "statP@4": (2 + 4) / 4,  # an estimate of precision may exceed 1
        "statP(var=true)@4": ((1 - 0.5) / 0.5**2 + (1 - 0.25) / 0.25**2) / 4**2,
        "statR": r_hat,
        "statR(var=true)": var_r,
    }
    got = _values(tmp_path, list(expected))
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12), name
    # the Million Query script's printed varAP: the formula worked by hand above gives it
    assert got["statAP(var=true)"] == pytest.approx(0.135528673835125, rel=1e-12)


def test_the_header_says_what_each_estimator_estimates_and_how_near(tmp_path, capsys):
    # a name is a promise: statAP's "stat" must not read as "unbiased" (the ruling on
    # issue 34: the papers' ratio estimators, consistent, their bias measured below)
    measures = ["statAP", "statAP(var=true)", "statP@4", "statR", "infAP", "AP"]
    (tmp_path / "prels").write_text(PRELS)
    (tmp_path / "run").write_text(RUN)
    result = irgauge.evaluate(
        runs=[str(tmp_path / "run")], prels=str(tmp_path / "prels"), measures=measures
    )
    said = result.metadata["estimators"]
    assert list(said) == ["statAP", "statAP(var=true)", "statP@4", "statR", "infAP"]
    for ratio in ("statAP", "infAP"):
        assert said[ratio].startswith("AP, as ") and "not unbiased" in said[ratio]
    for horvitz_thompson in ("statP@4", "statR"):
        assert "Horvitz-Thompson: unbiased" in said[horvitz_thompson]
    assert said["statAP(var=true)"].startswith("statAP's variance")
    (tmp_path / "qrels").write_text("1 0 a 1\n1 0 b 0\n1 0 c 1\n1 0 e 1\n")
    on_qrels = irgauge.evaluate(str(tmp_path / "qrels"), [str(tmp_path / "run")], measures)
    assert "estimators" not in on_qrels.metadata
    argv = ["eval", "--prels", str(tmp_path / "prels"), str(tmp_path / "run"), "-m", "statAP"]
    assert main([*argv, "--format", "tsv"]) == 0
    assert f'# estimators: {{"statAP": "{said["statAP"]}"}}' in capsys.readouterr().out


def _sampled_families():
    """Every registered family (at its defaults, a cutoff of 4 where it takes one) whose
    values move with the inclusion probabilities alone: the same judgments read with
    every probability 1 and with some halved."""
    from irgauge.measures.base import REGISTRY
    from irgauge.errors import MeasureError
    from irgauge.measures import parse_measure

    names = []
    for name, family in REGISTRY.items():
        text = f"{name}@4" if family.cutoff != "none" else name
        try:
            parse_measure(text)
        except MeasureError:
            continue  # needs a parameter of its own
        names.append(text)
    run = pd.DataFrame(
        {"query_id": ["1"] * 4, "doc_id": list("abcd"), "score": [4.0, 3.0, 2.0, 1.0]}
    )

    def scores(inclusion):
        prels = Qrels.from_arrays(
            np.array([b"1"] * 4), np.array([b"a", b"b", b"c", b"e"]), np.array([1, 0, 1, 1]),
            inclusion=np.array(inclusion),
        )  # fmt: skip
        result = irgauge.evaluate(runs={"r": run}, prels=prels, measures=names)
        return {m: matrix.values[0, 0] for m, matrix in result.score_matrices().items()}

    whole, halved = scores([1.0, 1.0, 1.0, 1.0]), scores([0.5, 1.0, 0.25, 0.5])
    moved = [m for m in names if not np.isclose(whole[m], halved[m], equal_nan=True)]
    return names, moved


def test_every_measure_that_reads_the_probabilities_says_what_it_estimates():
    # the mechanism behind the header's estimators line: a family registered later that
    # weighs documents by 1/pi, and does not declare what it estimates, fails here
    from irgauge.measures import parse_measure

    names, moved = _sampled_families()
    assert {"statAP@4", "statP@4", "statR"} <= set(moved)  # the test can see a weighting
    for name in names:
        declared = parse_measure(name).estimator() is not None
        assert declared == (name in moved or name == "infAP"), name
    # (infAP reads strata, which one sample per stratum leaves unmoved here)


# xinfAP's sample: stratum A (probability 1) holds a (relevant) and b, both judged;
# stratum B (probability 1/2) holds c (relevant) and d, judged, and e and f, pooled but
# left unsampled (level -1). x is in no stratum.
XINF_PRELS = "1 a 1 1\n1 b 0 1\n1 c 1 0.5\n1 d 0 0.5\n1 e -1 0.5\n1 f -1 0.5\n"
XINF_RUN = "".join(f"1 Q0 {d} {r} {7 - r} r\n" for r, d in enumerate("aexcbd", 1))


def test_infap_of_a_stratified_sample_is_sample_evals_xinfap(tmp_path):
    """Worked from Yilmaz, Kanoulas and Aslam's (2008) formula as sample_eval.pl computes
    it. R^ = sum_h r_h N_h/n_h = 1 * 2/2 + 1 * 4/2 = 3. a at rank 1 counts 1. Above c
    (rank 4) lie a (stratum A: 1 listed, 1 judged, 1 relevant), e (stratum B: 1 listed,
    none judged) and x (not listed), so
      E[prec(4)] = (1 + 1 (1 + 1e-5)/(1 + 3e-5) + 1 (0 + 1e-5)/(0 + 3e-5)) / 4,
    the stratum with nothing judged above counting 1/3; c stands for N_B/n_B = 2
    documents of its stratum. sample_eval.pl, given these judgments as its qrels
    (``1 0 a 0 1``, ..., ``1 0 e 1 -1``: stratum in the fourth column), prints
    ``infAP 1 0.7222`` and ``inum_rel 1 3.0000``."""
    share_above = (1 + 1e-5) / (1 + 3e-5) + 1e-5 / 3e-5
    expected = (1 * 1.0 + 2 * (1 + share_above) / 4) / 3
    (tmp_path / "prels").write_text(XINF_PRELS)
    (tmp_path / "run").write_text(XINF_RUN)
    result = irgauge.evaluate(
        runs=[str(tmp_path / "run")],
        prels=str(tmp_path / "prels"),
        measures=["infAP"],
        negative="unjudged",
    )
    got = result.score_matrices()["infAP"].values[0, 0]
    assert got == pytest.approx(expected, rel=1e-12)
    assert round(got, 4) == 0.7222


def test_xinfap_reads_strata_by_probability_and_the_pool_from_its_unsampled_lines():
    """Leaving out the pool's unsampled documents changes the estimate: they are the
    N_h of their stratum, above the ranks and in R^."""
    listed = Qrels.from_arrays(
        np.array([b"1"] * 6),
        np.array([d.encode() for d in "abcdef"]),
        np.array([1, 0, 1, 0, -1, -1]),
        inclusion=np.array([1, 1, 0.5, 0.5, 0.5, 0.5]),
    )
    run = pd.DataFrame(
        {"query_id": ["1"] * 6, "doc_id": list("aexcbd"), "score": np.arange(6.0, 0, -1)}
    )

    def value(prels):
        result = irgauge.evaluate(
            runs={"r": run}, prels=prels, measures=["infAP"], negative="unjudged"
        )
        return result.score_matrices()["infAP"].values[0, 0]

    judged_only = Qrels.from_arrays(
        listed.topics[:4], listed.docnos[:4], listed.levels[:4], inclusion=listed.inclusion[:4]
    )
    # without e and f, B is judged whole: R^ = 2 and above c only a counts
    share_above = (1 + 1e-5) / (1 + 3e-5)
    assert value(judged_only) == pytest.approx((1 + (1 + share_above) / 4) / 2, rel=1e-12)
    assert value(listed) == pytest.approx((1 + 2 * (1 + share_above + 1 / 3) / 4) / 3, rel=1e-6)


def test_the_cli_names_the_prels_and_their_reading(tmp_path, capsys):
    (tmp_path / "p").write_text(PRELS)
    (tmp_path / "run").write_text(RUN)
    argv = ["eval", "--prels", str(tmp_path / "p"), str(tmp_path / "run")]
    assert main([*argv, "-m", "statAP", "-m", "statP@2", "-m", "statR", "--format", "tsv"]) == 0
    out = capsys.readouterr().out
    assert "# prels: the qrels are prels" in out
    assert "r\tstatAP\tall\t0.75\n" in out and "r\tstatR\tall\t8.0\n" in out


def test_the_million_query_layout_reads_its_method_column_as_statap_mq_eval(tmp_path):
    """statAP_MQ_eval counts a document MTC picked (method 0, or 2: MTC and statAP) as
    judged for sure, whatever probability its line gives; statAP's own picks (1, 4)
    keep theirs."""
    four = read_prels(_write(tmp_path / "four", PRELS))
    five = read_prels(
        _write(tmp_path / "five", "1 a 1 1 0.5\n1 b 0 0 0.3\n1 c 1 2 0.25\n1 d 1 4 0.2\n")
    )
    assert five.levels.tolist() == [1, 0, 1, 1]
    assert five.inclusion.tolist() == [0.5, 1.0, 1.0, 0.2]
    assert four.inclusion.tolist() == [0.5, 1.0, 0.25, 0.5]


def test_million_query_lines_the_script_skips_are_skipped(tmp_path):
    """statAP_MQ_eval skips a line at level -999 or below (not sampled) and one whose
    probability is NA, before its method counts: neither is a judgment, and a topic of
    such lines alone is not judged."""
    kept = "1 a 1 1 0.5\n1 c 1 2 0.25\n1 d 0 4 0.2\n"
    first = "1 b -999 1 0.3\n1 e 1 0 NA\n"
    last = "1 f 0 1 NA\n1 g -1000 1 NA\n2 x -999 1 0.5\n"
    plain = read_prels(_write(tmp_path / "plain", kept))
    mixed = read_prels(_write(tmp_path / "mixed", first + kept + last))
    assert mixed.docnos.tolist() == plain.docnos.tolist() == [b"a", b"c", b"d"]
    assert mixed.inclusion.tolist() == plain.inclusion.tolist() == [0.5, 1.0, 0.2]
    assert mixed.line_numbers.tolist() == [3, 4, 5]  # errors still name the file's lines
    assert mixed.topic_ids == ["1"]
    run = {"1": {d: 5 - i for i, d in enumerate("abcdefg")}}
    measures = ["statAP", "statAP(var=true)", "statR"]
    values = [
        irgauge.evaluate(runs={"r": run}, prels=p, measures=measures).means["value"].tolist()
        for p in (plain, mixed)
    ]
    assert values[0] == values[1] and len(values[0]) == 3


def test_the_four_column_layout_skips_nothing(tmp_path):
    """sample_eval.pl reads every negative level as pooled and unsampled, -999 too; NA
    is no probability there."""
    text = "1 a 1 0.5\n1 b -999 0.5\n1 c 0 0.5\n"
    prels = read_prels(_write(tmp_path / "p", text))
    assert prels.levels.tolist() == [1, -999, 0]
    same = read_prels(_write(tmp_path / "q", text.replace("-999", "-1")))
    run = {"1": {"a": 3, "b": 2, "c": 1}}
    value = [
        irgauge.evaluate(runs={"r": run}, prels=p, measures=["infAP"], negative="unjudged")
        .means["value"]
        .tolist()
        for p in (prels, same)
    ]
    assert value[0] == value[1] and len(value[0]) == 1
    with pytest.raises(InputError, match=r":2: inclusion probability 'NA' is not a finite"):
        read_prels(_write(tmp_path / "na", "1 a 1 0.5\n1 b 0 NA\n"))


def _write(path, text):
    path.write_text(text)
    return str(path)


@pytest.mark.parametrize(
    "text, problem",
    [
        ("1 a 1 0.5\n1 b 0 0\n", ":2: inclusion probability 0.0 is outside (0, 1]"),
        ("1 a 1 0.5\n1 b 0 1.5\n", ":2: inclusion probability 1.5 is outside (0, 1]"),
        ("1 a 1 -0.5\n", ":1: inclusion probability -0.5 is outside (0, 1]"),
        ("1 a 1 0.5\n1 b 0 nan\n", ":2: inclusion probability 'nan' is not a finite number"),
        ("1 a 1 0.5\n1 b 0\n", ":2: expected 4 columns"),
        ("1 a 1\n", ":1: "),
        ("1 a x 0.5\n", ":1: relevance level 'x'"),
        ("1 a 1 MTC 0.5\n", ":1: method 'MTC' is not a finite number"),
        ("1 a 1 0.5\n1 a 1 0.25\n", ":2: document 'a' of topic '1' is listed again with"),
    ],
)
def test_bad_prels_are_refused_at_their_line(tmp_path, text, problem):
    path = _write(tmp_path / "p", text)
    with pytest.raises(InputError) as err:
        read_prels(path)
    assert str(err.value).startswith(path + problem)


def test_bad_prels_stop_the_command_with_one_line(tmp_path, capsys):
    prels = _write(tmp_path / "p", "1 a 1 0.5\n1 b 0 2\n")
    run = _write(tmp_path / "run", RUN)
    assert main(["eval", "--prels", prels, run, "-m", "statAP"]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"irgauge: error: {prels}:2: inclusion probability 2.0 is outside (0, 1]"]


@pytest.mark.parametrize(
    "argv, missing",
    [([], "QRELS, RUN"), (["{prels}"], "RUN"), (["--prels", "{prels}"], "RUN")],
)
def test_eval_without_runs_names_what_is_missing(tmp_path, capsys, argv, missing):
    prels = _write(tmp_path / "p", PRELS)
    assert main(["eval", *(prels if word == "{prels}" else word for word in argv)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [f"irgauge: error: the following arguments are required: {missing}"]


def test_qrels_and_prels_together_or_neither_are_refused(tmp_path):
    run = _write(tmp_path / "run", RUN)
    prels = _write(tmp_path / "p", PRELS)
    with pytest.raises(InputError, match="not both"):
        irgauge.evaluate(prels, [run], prels=prels)
    with pytest.raises(InputError, match="no qrels given"):
        irgauge.evaluate(runs=[run])
    with pytest.raises(InputError, match="give none"):
        irgauge.evaluate(runs=[run], prels=Qrels.from_arrays([b"1"], [b"a"], [1]))


# --- inclusion probability 1 everywhere: the estimates are the measures -----------------

_judgments = st.lists(
    st.tuples(st.integers(0, 2), st.integers(0, 11), st.integers(0, 2)),
    min_size=1,
    max_size=25,
    unique_by=lambda t: t[:2],
)
_runs = st.lists(
    st.lists(st.tuples(st.integers(0, 2), st.integers(0, 11), st.integers(0, 30)), max_size=30),
    min_size=1,
    max_size=3,
)


@settings(max_examples=examples(25), deadline=None)
@given(_judgments, _runs)
def test_with_every_probability_1_the_estimates_are_the_measures(judged, runs):
    topics = np.array([str(t).encode() for t, _, _ in judged])
    docnos = np.array([f"d{d}".encode() for _, d, _ in judged])
    levels = np.array([level for _, _, level in judged])
    qrels = Qrels.from_arrays(topics, docnos, levels)
    prels = Qrels.from_arrays(topics, docnos, levels, inclusion=np.ones(len(judged)))
    frames = {}
    for i, lines in enumerate(runs):
        seen = {(t, d): s for t, d, s in lines}  # one score per retrieved document
        frames[f"run{i}"] = pd.DataFrame(
            {
                "query_id": [str(t) for t, _ in seen] or ["0"],
                "doc_id": [f"d{d}" for _, d in seen] or ["d99"],
                "score": list(seen.values()) or [0.0],
            }
        )
    pairs = {
        "statAP": "AP",
        "statP@5": "P@5",
        "statP": "P",
        "statR": "num_rel",
        "statAP@3": "AP@3",
        "infAP": "infAP",
    }
    options = dict(empty_topics="zero", complete=True)
    estimated = irgauge.evaluate(
        runs=frames, prels=prels, measures=list(pairs) + _variances(), **options
    ).score_matrices()
    full = irgauge.evaluate(qrels, frames, list(pairs.values()), **options).score_matrices()
    for stat, measure in pairs.items():
        if stat == "infAP":  # sample_eval.pl smooths by 3e-5 where trec_eval does by 2e-5
            assert np.allclose(estimated[stat].values, full[measure].values, atol=1e-4)
            continue
        assert np.array_equal(estimated[stat].values, full[measure].values), stat
    for var in _variances():
        assert not estimated[var].values.any(), var  # nothing is left to chance


def _variances():
    # statAP's Million Query variance is not 0 where every pi is 1 (its module says why)
    return ["statP(var=true)@5", "statR(var=true)"]


# --- unbiasedness in simulation --------------------------------------------------------

# 400 seeded samples here; IRGAUGE_FUZZ_EXAMPLES=N draws N of them (4000: about 10 s),
# where a bias hidden under 400 samples' standard errors shows
SAMPLES = max(400, int(os.environ.get("IRGAUGE_FUZZ_EXAMPLES", "0") or 0))
TOPICS, DOCS, DEPTH, RUNS = 3, 60, 40, 3
# statAP = S^ / R^, each Horvitz-Thompson and unbiased, their ratio not: its bias shrinks
# as the sample per topic grows (O(1/n)). Measured on this collection over 4000 samples
# (about 25 of the 60 documents of a topic sampled): -0.0064 to +0.0032 per cell against
# a standard error of 0.0009; with the probabilities doubled (37 sampled), -0.0003 to
# +0.0007. The bound on statAP's bias, from that measure (docs/pooling.md):
STATAP_BIAS = 0.01


def _bound(cells: int, familywise: float = 0.01) -> float:
    """The z within which every one of ``cells`` unbiased means lies but with probability
    ``familywise`` (Bonferroni): 3 standard errors per cell would miss somewhere in one
    seed of 14 over 27 cells, this bound (3.5 for 27) in one of 100."""
    from scipy.stats import norm

    return float(norm.ppf(1 - familywise / (2 * cells)))


def _collection(rng):
    """Full judgments (topic, docno -> level), runs that rank relevant documents higher,
    each document's inclusion probability (1 at the top of the runs, lower further down,
    as statAP's sampling favours the top ranks) and the best rank any run gives it
    (DEPTH + 1: none retrieves it)."""
    levels = (rng.random((TOPICS, DOCS)) < 0.3).astype(int) * rng.integers(1, 3, (TOPICS, DOCS))
    runs = []
    best_rank = np.full((TOPICS, DOCS), DEPTH + 1)
    for _ in range(RUNS):
        scores = rng.random((TOPICS, DOCS)) + 0.6 * (levels > 0)
        ranked = np.argsort(-scores, axis=1)[:, :DEPTH]
        runs.append(ranked)
        ranks = np.arange(1, DEPTH + 1)
        for t in range(TOPICS):
            best_rank[t, ranked[t]] = np.minimum(best_rank[t, ranked[t]], ranks)
    inclusion = np.clip(5.0 / best_rank, 0.15, 1.0)
    return levels, runs, inclusion, best_rank


def _poisson_sample(rng, inclusion):
    """Each document sampled on its own with its probability (independent draws)."""
    return rng.random((SAMPLES,) + inclusion.shape) < inclusion


def _pseudo_topic(s, t):
    return f"{s}.{t}"


def _estimates(levels, runs, sampled, listed, inclusion, measures):
    """Every measure of every run on every sample, as (run, sample, topic) arrays, and
    the full-judgment values of ``truth`` measures as (run, topic) arrays. Every sample
    is a set of pseudo-topics of one evaluation, so one call scores them all. The prels
    list each sample's judged documents and, at level -1 (read as pooled but unjudged,
    trec_eval's reading), the ``listed`` documents left unsampled."""
    n_samples = len(sampled)
    s_idx, t_idx, d_idx = np.nonzero(sampled | listed)
    prels = Qrels.from_arrays(
        np.array([_pseudo_topic(s, t).encode() for s, t in zip(s_idx, t_idx)]),
        np.array([f"d{d}".encode() for d in d_idx]),
        np.where(sampled[s_idx, t_idx, d_idx], levels[t_idx, d_idx], -1),
        inclusion=inclusion[t_idx, d_idx],
    )
    topics = [_pseudo_topic(s, t) for s in range(n_samples) for t in range(TOPICS)]
    frames = {
        f"run{k}": pd.DataFrame(
            {
                "query_id": np.repeat(topics, DEPTH),
                "doc_id": [f"d{d}" for _ in range(n_samples) for row in ranked for d in row],
                "score": np.tile(-np.arange(DEPTH, dtype=float), n_samples * TOPICS),
            }
        )
        for k, ranked in enumerate(runs)
    }
    options = dict(empty_topics="zero", complete=True, negative="unjudged")
    est = irgauge.evaluate(runs=frames, prels=prels, measures=measures, **options)
    est = est.score_matrices()
    where = {topic: j for j, topic in enumerate(est[measures[0]].topics)}
    order = [where[topic] for topic in topics]
    return {m: est[m].values[:, order].reshape(RUNS, n_samples, TOPICS) for m in measures}


def _full(levels, runs, measures):
    """Each measure under the full judgments, (run, topic)."""
    qrels = Qrels.from_arrays(
        np.array([str(t).encode() for t in range(TOPICS) for _ in range(DOCS)]),
        np.array([f"d{d}".encode() for _ in range(TOPICS) for d in range(DOCS)]),
        levels.ravel(),
    )
    frames = {
        f"run{k}": pd.DataFrame(
            {
                "query_id": np.repeat(range(TOPICS), DEPTH),
                "doc_id": [f"d{d}" for row in ranked for d in row],
                "score": np.tile(-np.arange(DEPTH, dtype=float), TOPICS),
            }
        )
        for k, ranked in enumerate(runs)
    }
    full = irgauge.evaluate(qrels, frames, measures).score_matrices()
    return {m: full[m].values for m in measures}


def _within(values, exact, z, bias=0.0):
    """Whether every (run, topic) mean over the samples (axis 1) lies within ``bias`` +
    ``z`` standard errors of the mean of ``exact``."""
    mean = values.mean(axis=1)
    error = values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
    return (np.abs(mean - exact) <= bias + z * error + 1e-12).all(), (mean, exact, error)


def test_the_estimates_are_unbiased_in_simulation():
    """Over many seeded samples the mean of each Horvitz-Thompson estimate lies within
    its standard error (times Bonferroni's z over the cells, about 3.5) of the value
    under full judgments, in every (run, topic) cell: statP@10, statR, and statAP's
    numerator statAP x R^, which estimates AP x R. statAP itself, their ratio, lies within
    its measured bias bound beyond that; and the mean variance estimate of statR and
    statP@k matches their variance over the samples (statAP's comes close)."""
    rng = np.random.default_rng(34)
    levels, runs, inclusion, _ = _collection(rng)
    sampled = _poisson_sample(rng, inclusion)
    variances = {"statP@10": "statP(var=true)@10", "statR": "statR(var=true)"}
    measures = ["statAP", "statP@10", "statR", *variances.values(), "statAP(var=true)"]
    est = _estimates(levels, runs, sampled, np.zeros_like(sampled), inclusion, measures)
    truth = _full(levels, runs, ["AP", "P@10", "num_rel"])
    unbiased = {
        "statP@10": (est["statP@10"], truth["P@10"]),
        "statR": (est["statR"], truth["num_rel"]),
        "statAP x R^": (est["statAP"] * est["statR"], truth["AP"] * truth["num_rel"]),
    }
    z = _bound(len(unbiased) * RUNS * TOPICS)
    for stat, (values, exact) in unbiased.items():
        holds, found = _within(values, exact, z)
        assert holds, (stat, found)
    holds, found = _within(est["statAP"], truth["AP"], z, STATAP_BIAS)
    assert holds, ("statAP", found)
    for stat, var in variances.items():
        estimated = est[var].mean(axis=1)
        observed = est[stat].var(axis=1, ddof=1)
        assert np.allclose(estimated, observed, rtol=0.25), (stat, estimated, observed)
    # statAP's (the Million Query track's formula): its mean over the samples against
    # the variance of the estimates, within 15% on average over the cells and [0.7, 1.4]
    # in each (the delta method it replaced came to 0.81 on average, 0.76 at least)
    ratio = est["statAP(var=true)"].mean(axis=1) / est["statAP"].var(axis=1, ddof=1)
    assert ((ratio > 0.7) & (ratio < 1.4)).all(), ratio
    assert abs(ratio.mean() - 1) < 0.15, ratio


# xinfAP's design (Yilmaz, Kanoulas and Aslam 2008): strata by the best rank any run
# gives a document, each sampled uniformly without replacement at its own rate; the
# documents no run retrieves form the last stratum, so R is estimated over every document
INF_STRATA = ((5, 1.0), (15, 0.5), (DEPTH, 0.25), (DEPTH + 1, 0.2))  # (deepest best rank, rate)


def _stratified_sample(rng, best_rank, n_samples):
    """n_h = round(rate N_h) (at least 1) of each stratum's N_h documents, drawn without
    replacement; returns the samples and each document's probability n_h / N_h."""
    sampled = np.zeros((n_samples,) + best_rank.shape, dtype=bool)
    inclusion = np.zeros(best_rank.shape)
    low = 0
    for t in range(TOPICS):
        low = 0
        for deepest, rate in INF_STRATA:
            members = np.flatnonzero((best_rank[t] > low) & (best_rank[t] <= deepest))
            low = deepest
            if not len(members):
                continue
            n = max(1, round(rate * len(members)))
            inclusion[t, members] = n / len(members)
            keys = rng.random((n_samples, len(members)))
            chosen = members[np.argsort(keys, axis=1)[:, :n]]
            sampled[np.arange(n_samples)[:, None], t, chosen] = True
    return sampled, inclusion


def test_xinfap_is_close_to_ap_under_its_stratified_design():
    """Over many seeded stratified samples, xinfAP's mean lies within 0.02 of AP under
    full judgments in every (run, topic) cell, and its R^ (= statR: each probability is
    n_h / N_h) within 3 standard errors of R.

    xinfAP is not unbiased, and 0.02 is a bound on its bias, derived from measuring it
    (docs/pooling.md), not a confidence bound: the standard error of each mean is about
    0.002 here. Over 2000 samples of this collection its bias is -0.011 to -0.004 per
    cell (standard error 0.001). Two causes: it is a ratio of two estimates, and where a
    stratum has no judged document above a rank, sample_eval.pl counts a third of that
    stratum's documents there as relevant ((0 + 1e-5) / (0 + 3e-5)), where these runs put
    mostly relevant documents. Without that smoothing (counting none) the bias grows, to
    -0.019 to -0.011; as the sample per topic grows it shrinks (every rate x1.5: -0.004 to
    -0.001; x2, where every stratum holding a relevant document is judged whole: 0
    without smoothing, at most +0.001 with it; bench/bench_estimator_bias.py). irgauge
    keeps the reference's smoothing, so that its xinfAP is sample_eval.pl's, number for
    number."""
    rng = np.random.default_rng(34)
    levels, runs, _, best_rank = _collection(rng)
    sampled, inclusion = _stratified_sample(rng, best_rank, SAMPLES)
    listed = np.ones_like(sampled)  # every document is in some stratum
    est = _estimates(levels, runs, sampled, listed, inclusion, ["infAP", "statR"])
    truth = _full(levels, runs, ["AP", "num_rel"])
    mean = est["infAP"].mean(axis=1)
    assert (np.abs(mean - truth["AP"]) <= 0.02).all(), (mean, truth["AP"])
    r_hat = est["statR"][0]  # the same for every run
    error = r_hat.std(axis=0, ddof=1) / np.sqrt(SAMPLES)
    assert (np.abs(r_hat.mean(axis=0) - truth["num_rel"][0]) <= 3 * error).all()


ESTIMATES = ["statR(var=true)", "statAP(var=true)", "statP(var=true)@10", "statAP", "statR"]


@pytest.mark.parametrize("pi", ["1e-300", "1e-160", "5e-324", "1e-75"])
def test_a_probability_whose_estimates_overflow_is_refused_at_its_line(tmp_path, capsys, pi):
    # the variances weigh a document by 1/pi^2 (statAP's by up to 1/pi^4): refused where
    # they overflow, not printed as inf or nan
    prels = _write(tmp_path / "p", f"1 b 0 1\n1 a 1 {pi}\n")
    run = _write(tmp_path / "run", RUN)
    assert main(["eval", "--prels", prels, run, "-m", ",".join(ESTIMATES)]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and err[0].startswith(f"irgauge: error: {prels}:2: inclusion probab")


def test_at_the_smallest_probability_read_every_estimate_is_finite(tmp_path):
    from irgauge.io.prels import MIN_INCLUSION

    pi = repr(MIN_INCLUSION)
    text = f"1 a 1 {pi}\n1 b 0 1\n1 c 1 {pi}\n1 e 1 {pi}\n"
    prels, run = _write(tmp_path / "p", text), _write(tmp_path / "run", RUN)
    with np.errstate(all="raise"):  # no overflow on the way, either
        result = irgauge.evaluate(runs=[run], prels=prels, measures=ESTIMATES)
    assert np.isfinite(result.means["value"]).all() and "notes" not in result.metadata


def test_a_value_that_is_not_finite_is_recorded_with_its_reason(tmp_path, capsys, monkeypatch):
    # the results check at eval's boundary: a measure that gives inf on a topic (here
    # statR, made to) is never printed as a score without a note in the output
    from irgauge.measures.base import REGISTRY

    import dataclasses

    def infinite(ranked, var=False):
        return np.full(len(ranked.topic), np.inf)

    monkeypatch.setitem(REGISTRY, "statR", dataclasses.replace(REGISTRY["statR"], func=infinite))
    prels = _write(tmp_path / "p", PRELS)
    run = _write(tmp_path / "run", RUN)
    assert main(["eval", "--prels", prels, run, "-m", "statR", "--format", "tsv"]) == 0
    out, err = capsys.readouterr()
    assert "1 statR value is not finite: the measure is undefined" in out
    assert "irgauge: note: run r: 1 statR value is not finite" in err
    assert "mean 1 statR value is not finite: its per-topic values" in err


@pytest.mark.parametrize(
    "argv, named",
    [
        (["--prels", "-", "-"], "(RUN, PRELS)"),
        (["--prels", "-", "{run}", "-"], "(RUN, PRELS)"),
        (["-", "-"], "(QRELS, RUN)"),
    ],
)
def test_standard_input_given_twice_names_the_arguments_as_the_usage_does(
    tmp_path, capsys, argv, named
):
    # with --prels the first positional is a run, not QRELS
    run = _write(tmp_path / "run", RUN)
    assert main(["eval", *[run if a == "{run}" else a for a in argv]]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err == [
        f"irgauge: error: standard input ('-') is given as two inputs {named}; it can be "
        "read only once (give all but one as files)"
    ]
