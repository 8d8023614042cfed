"""Estimates from sampled judgments (issue 34): statAP, statP@k, statR and infAP read from
prels, checked against hand computations, against the full-judgment values in simulation
(unbiasedness), and against AP, P@k and R where every inclusion probability is 1."""

from __future__ import annotations

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
    # its delta-method variance: c(d) R^ = w (prec + B - statAP), B(a) = 4/3 (c below
    # it, weight 4 at rank 3), B(c) = 0; e (not retrieved): -statAP w
    c_a = 2 * (1 + 4 / 3 - stat_ap)
    c_c = 4 * (1 + 0 - stat_ap)
    c_e = -stat_ap * 2
    var_ap = ((1 - 0.5) * c_a**2 + (1 - 0.25) * c_c**2 + (1 - 0.5) * c_e**2) / r_hat**2
    # infAP: c's expected precision 1/3 + (2 judged above)/3 * (2 + eps)/(2 + 1 + 2 eps),
    # the fraction relevant above with a weighing 2 and b 1
    eps = 1e-5
    inf_ap = (2 * 1.0 + 4 * (1 / 3 + 2 / 3 * (2 + eps) / (3 + 2 * eps))) / r_hat
    expected = {
        "statAP": stat_ap,
        "statAP(var=true)": var_ap,
        "statP@2": (2 + 0) / 2,
        "statP@4": (2 + 4) / 4,  # an estimate of precision may exceed 1
        "statP(var=true)@4": ((1 - 0.5) / 0.5**2 + (1 - 0.25) / 0.25**2) / 4**2,
        "statR": r_hat,
        "statR(var=true)": var_r,
        "infAP": inf_ap,
    }
    got = _values(tmp_path, list(expected))
    for name, value in expected.items():
        assert got[name] == pytest.approx(value, rel=1e-12), name


def test_the_cli_names_the_prels_and_their_reading(tmp_path, capsys):
    (tmp_path / "p").write_text(PRELS)
    (tmp_path / "run").write_text(RUN)
    argv = ["eval", "--prels", str(tmp_path / "p"), str(tmp_path / "run")]
    assert main([*argv, "-m", "statAP", "-m", "statP@2", "-m", "statR", "--format", "tsv"]) == 0
    out = capsys.readouterr().out
    assert "# prels: the qrels are prels" in out
    assert "r\tstatAP\tall\t0.75\n" in out and "r\tstatR\tall\t8.0\n" in out


def test_the_million_query_layout_sets_its_method_column_aside(tmp_path):
    four = read_prels(_write(tmp_path / "four", PRELS))
    five = read_prels(_write(tmp_path / "five", "1 a 1 1 0.5\n1 b 0 0 1\n1 c 1 1 0.25\n"))
    assert five.levels.tolist() == [1, 0, 1] and five.inclusion.tolist() == [0.5, 1.0, 0.25]
    assert four.inclusion.tolist() == [0.5, 1.0, 0.25, 0.5]


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
        assert np.array_equal(estimated[stat].values, full[measure].values), stat
    for var in _variances():
        assert not estimated[var].values.any(), var  # nothing is left to chance


def _variances():
    return ["statAP(var=true)", "statP(var=true)@5", "statR(var=true)"]


# --- unbiasedness in simulation --------------------------------------------------------

TOPICS, DOCS, DEPTH, RUNS, SAMPLES = 3, 60, 40, 3, 400


def _collection(rng):
    """Full judgments (topic, docno -> level), runs that rank relevant documents higher,
    each document's inclusion probability (1 at the top of the runs, lower further down,
    as statAP's sampling favours the top ranks) and whether it is in the depth pool."""
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
    return levels, runs, inclusion, best_rank <= DEPTH


def _poisson_sample(rng, inclusion):
    """Each document sampled on its own with its probability (independent draws)."""
    return rng.random((SAMPLES,) + inclusion.shape) < inclusion


def _pseudo_topic(s, t):
    return f"{s}.{t}"


def test_the_estimates_are_unbiased_in_simulation():
    """Over many seeded samples the mean estimate lies within 3 standard errors of the
    value under full judgments, in every (run, topic) cell, and the mean variance
    estimate of statR and statP@k matches their variance over the samples (statAP's
    comes close). Every sample is a set of pseudo-topics of one evaluation, so one call
    scores them all."""
    rng = np.random.default_rng(34)
    levels, runs, inclusion, pooled = _collection(rng)
    sampled = _poisson_sample(rng, inclusion)
    # infAP needs the pool: the documents of the pool left unsampled are listed at level
    # -1, read as pooled but unjudged (trec_eval's reading, --negative unjudged)
    s_idx, t_idx, d_idx = np.nonzero(sampled | pooled)
    prels = Qrels.from_arrays(
        np.array([_pseudo_topic(s, t).encode() for s, t in zip(s_idx, t_idx)]),
        np.array([f"d{d}".encode() for d in d_idx]),
        np.where(sampled[s_idx, t_idx, d_idx], levels[t_idx, d_idx], -1),
        inclusion=inclusion[t_idx, d_idx],
    )
    frames = {}
    for k, ranked in enumerate(runs):
        topics = [_pseudo_topic(s, t) for s in range(SAMPLES) for t in range(TOPICS)]
        frames[f"run{k}"] = pd.DataFrame(
            {
                "query_id": np.repeat(topics, DEPTH),
                "doc_id": [f"d{d}" for _ in range(SAMPLES) for row in ranked for d in row],
                "score": np.tile(-np.arange(DEPTH, dtype=float), SAMPLES * TOPICS),
            }
        )
    pairs = {"statAP": "AP", "statP@10": "P@10", "statR": "num_rel", "infAP": "AP"}
    variances = {"statP@10": "statP(var=true)@10", "statR": "statR(var=true)"}
    options = dict(empty_topics="zero", complete=True, negative="unjudged")
    measures = list(pairs) + list(variances.values()) + ["statAP(var=true)"]
    est = irgauge.evaluate(runs=frames, prels=prels, measures=measures, **options).score_matrices()
    qrels = Qrels.from_arrays(
        np.array([str(t).encode() for t in range(TOPICS) for _ in range(DOCS)]),
        np.array([f"d{d}".encode() for _ in range(TOPICS) for d in range(DOCS)]),
        levels.ravel(),
    )
    truth_frames = {
        name: frame.iloc[: TOPICS * DEPTH].assign(query_id=np.repeat(range(TOPICS), DEPTH))
        for name, frame in frames.items()
    }
    truth = irgauge.evaluate(qrels, truth_frames, sorted(set(pairs.values()))).score_matrices()
    where = {topic: j for j, topic in enumerate(est["statR"].topics)}
    order = [where[_pseudo_topic(s, t)] for s in range(SAMPLES) for t in range(TOPICS)]
    for stat, measure in pairs.items():
        values = est[stat].values[:, order].reshape(RUNS, SAMPLES, TOPICS)
        mean = values.mean(axis=1)
        error = values.std(axis=1, ddof=1) / np.sqrt(SAMPLES)
        exact = truth[measure].values
        if stat == "infAP":  # a ratio within every rank: close to AP, not unbiased
            assert np.abs(mean - exact).max() < 0.03, (mean, exact)
            continue
        assert (np.abs(mean - exact) <= 3 * error + 1e-12).all(), (stat, mean, exact, error)
    for stat, var in variances.items():
        values = est[stat].values[:, order].reshape(RUNS, SAMPLES, TOPICS)
        estimated = est[var].values[:, order].reshape(RUNS, SAMPLES, TOPICS).mean(axis=1)
        observed = values.var(axis=1, ddof=1)
        assert np.allclose(estimated, observed, rtol=0.25), (stat, estimated, observed)
    # statAP's delta-method variance is a first-order approximation: close, a little low
    values = est["statAP"].values[:, order].reshape(RUNS, SAMPLES, TOPICS)
    estimated = est["statAP(var=true)"].values[:, order].reshape(RUNS, SAMPLES, TOPICS)
    ratio = estimated.mean(axis=1) / values.var(axis=1, ddof=1)
    assert ((ratio > 0.6) & (ratio < 1.4)).all(), ratio
