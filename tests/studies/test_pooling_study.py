"""Study pooling: its numbers against a plain computation (the pool's judgments written
as qrels, the runs evaluated on them, Kendall's tau from scipy), its intervals, and the
summary's orderings."""

import json

import numpy as np
import pytest
from scipy import stats

import irgauge
from irgauge.cli import main
from irgauge.collection.simulate import simulate_collection, write_collection
from irgauge.studies import study_function
from irgauge.studies.pooling import run_pooling


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("pooling")
    sim = simulate_collection(n_topics=12, n_runs=6, depth=40, seed=3)
    manifest = write_collection(sim, folder / "c")
    qrels = folder / "c" / manifest["files"]["qrels"]
    runs = [folder / "c" / r for r in manifest["files"]["runs"]]
    return folder, qrels, runs


def plain(qrels, runs, strategy, budget, seed, folder):
    """Share of relevant found, tau and RMSE of AP means, by writing the pool's judgments
    as qrels and evaluating on them."""
    judged = {}
    for line in qrels.read_text().splitlines():
        t, _, d, v = line.split()
        judged[(t, d)] = int(v)
    chosen = irgauge.pool(runs, strategy, budget=budget, qrels=qrels, seed=seed).frame()
    lines = [f"{t} 0 {d} {judged.get((t, d), 0)}" for t, d in zip(chosen.topic, chosen.docno)]
    reduced = folder / f"{strategy}-{budget}.qrels"
    reduced.write_text("\n".join(lines) + "\n")
    full = irgauge.evaluate(qrels, runs, ["AP"]).score_matrices()["AP"]
    made = irgauge.evaluate(reduced, runs, ["AP"], empty_topics="zero").score_matrices()["AP"]
    columns = [made.topics.index(t) for t in full.topics]
    a, b = full.values.mean(axis=1), made.values[:, columns].mean(axis=1)
    relevant = {t: sum(v >= 1 for (q, _), v in judged.items() if q == t) for t in full.topics}
    found = {
        t: sum(judged.get((t, d), 0) >= 1 for d in g.docno) for t, g in chosen.groupby("topic")
    }
    share = np.mean([found.get(t, 0) / relevant[t] for t in full.topics])
    return share, stats.kendalltau(a, b)[0], np.sqrt(((a - b) ** 2).mean())


@pytest.fixture(scope="module")
def result(collection):
    folder, qrels, runs = collection
    return run_pooling(
        qrels, runs, folder / "out", budgets=[5, 15], seed=4, topic_resamples=50,
        strategies=["mtf", "sample"], measures=["AP"],
    )  # fmt: skip


def test_numbers_match_a_plain_computation(collection, result):
    folder, qrels, runs = collection
    found = result.tables["found"].set_index("pool")
    rankings = result.tables["rankings"]
    rankings = rankings[rankings["measure"] == "AP"].set_index(["strategy", "budget"])
    manifest = json.loads((folder / "out" / "pooling" / "manifest.json").read_text())
    assert manifest["parameters"]["empty_topics"] == "skip"
    # a pool found no relevant document of a topic: it scores 0 there, the topics the same
    assert max(manifest["parameters"]["topics_without_relevant"].values()) > 0
    assert [n for n in manifest["notes"] if "score 0 there" in n]
    for strategy in ("mtf", "sample"):
        for budget in (5, 15):
            seed = 4 if strategy == "sample" else None
            share, tau, rmse = plain(qrels, runs, strategy, budget, seed, folder)
            assert found.loc[f"{strategy} N={budget}", "found_share"] == pytest.approx(share)
            row = rankings.loc[(strategy, budget)]
            assert row["kendall_tau"] == pytest.approx(tau)
            assert row["rmse"] == pytest.approx(rmse)
            assert np.isfinite(row["kendall_tau_ci"]) and row["rmse_ci"] > 0
    # the sample read by statAP: its judgments written as prels and evaluated as eval does
    chosen = irgauge.pool(runs, "sample", budget=15, qrels=qrels, seed=4).frame()
    judged = {tuple(x.split()[::2]): x.split()[3] for x in qrels.read_text().splitlines()}
    prels = folder / "sample.prels"
    prels.write_text("".join(
        f"{t} {d} {judged.get((t, d), 0)} {p!r}\n"
        for t, d, p in zip(chosen.topic, chosen.docno, chosen.inclusion)
    ))  # fmt: skip
    full = irgauge.evaluate(qrels, runs, ["AP"]).score_matrices()["AP"]
    est = irgauge.evaluate(None, runs, ["statAP"], prels=str(prels), empty_topics="zero")
    est = est.score_matrices()["statAP"]
    a = full.values.mean(axis=1)
    b = est.values[:, [est.topics.index(t) for t in full.topics]].mean(axis=1)
    row = result.tables["rankings"].set_index(["strategy", "budget", "measure"])
    assert row.loc[("sample", 15, "statAP"), "rmse"] == pytest.approx(
        np.sqrt(((a - b) ** 2).mean())
    )
    assert manifest["seeds"]["sample"] == 4
    assert manifest["parameters"]["budgets"] == [5, 15]


def test_infap_is_read_from_a_sample_of_its_own_design(collection, result, capsys):
    """The study's infAP is what pool --design infap --format prels, then eval --prels
    --negative unjudged, give: a uniform sample of the pool, the unsampled listed."""
    folder, qrels, runs = collection
    prels = folder / "infap.prels"
    argv = ["pool", *map(str, runs), "--strategy", "sample", "--design", "infap"]
    argv += ["--budget", "15", "--seed", "4", "--qrels", str(qrels), "--format", "prels"]
    assert main([*argv, "-o", str(prels)]) == 0
    listed = prels.read_text().splitlines()
    assert any(line.split()[2] == "-1" for line in listed)
    full = irgauge.evaluate(qrels, runs, ["AP"]).score_matrices()["AP"]
    est = irgauge.evaluate(
        None, runs, ["infAP"], prels=str(prels), empty_topics="zero", negative="unjudged"
    ).score_matrices()["infAP"]
    a = full.values.mean(axis=1)
    b = est.values[:, [est.topics.index(t) for t in full.topics]].mean(axis=1)
    row = result.tables["rankings"].set_index(["strategy", "budget", "measure"])
    assert row.loc[("sample", 15, "infAP"), "rmse"] == pytest.approx(np.sqrt(((a - b) ** 2).mean()))
    assert row.loc[("sample", 15, "infAP"), "kendall_tau"] == pytest.approx(
        stats.kendalltau(a, b)[0]
    )
    capsys.readouterr()


def test_the_summary_orders_strategies_only_beyond_the_noise(result):
    assert study_function("pooling") is run_pooling
    found = [line for line in result.summary if line.startswith("Relevant documents found")]
    assert len(found) == 2
    # 12 topics and 6 systems: a design the orderings may speak of
    assert all(" > " in line or "not distinguishable" in line for line in found)
    assert any("Kendall's tau of AP" in line for line in result.summary)


def test_a_budget_above_a_pool_is_refused(collection):
    folder, qrels, runs = collection
    with pytest.raises(irgauge.InputError, match="budget"):
        run_pooling(qrels, runs, folder / "x", budgets=[10**6], seed=1, topic_resamples=5)
