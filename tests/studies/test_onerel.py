"""Study onerel (Sakai, AIRS 2006 and the P-measure poster) on a small generated collection."""

import json

import numpy as np
import pandas as pd
import pytest

import irgauge
from irgauge.studies.onerel import run_onerel

pytestmark = pytest.mark.slow  # each test runs a study

FAST = dict(samples=100, trials=60, seed=7, top_k=6, repetitions=2, topic_resamples=100)


@pytest.fixture(scope="module")
def onerel_fast(collection, tmp_path_factory, recorded_study):
    """One run of the study with FAST, shared by the tests that read different parts of
    it: (result, output folder, {bar label: [(done, total)]})."""
    qrels, runs = collection
    return recorded_study(run_onerel, qrels, runs, tmp_path_factory.mktemp("onerel_fast"), **FAST)


def test_outputs_manifest_and_summary(collection, onerel_fast):
    qrels, runs = collection
    result, out, _ = onerel_fast
    d = out / "onerel"
    manifest = json.loads((d / "manifest.json").read_text())
    assert manifest["seeds"]["seed"] == 7
    assert manifest["seeds"]["discriminative_power"][0] == 7
    assert manifest["parameters"]["B"] == 100 and manifest["parameters"]["trials"] == 60
    assert manifest["parameters"]["measures"]["P-measure 10:5:1"] == "P-measure(gains=1:5:10)"
    assert manifest["n_systems"] == 6 and manifest["n_topics"] == 24
    assert set(manifest["versions"]) >= {"irgauge", "numpy", "pandas", "python"}
    for entry in manifest["tables"]:
        for path in entry["files"].values():
            assert (d / path).stat().st_size > 0
    for entry in manifest["figures"]:
        assert set(entry["files"]) == {"pdf", "png", "svg"}
        assert (d / entry["files"]["png"]).read_bytes()[:4] == b"\x89PNG"
    names = {e["name"] for e in manifest["tables"]}
    assert names == {
        "collection_statistics",
        "discriminative_power",
        "gain_values",
        "swap",
        "stability",
        "stability_pairs",
        "stability_matched",
        "kendall_tau",
    }
    assert manifest["parameters"]["topic_sampling"]["resamples"] == FAST["topic_resamples"]
    assert manifest["parameters"]["topic_sampling"]["experiment_resamples"] == 100
    assert manifest["seeds"]["topic_resamples"] == manifest["parameters"]["topic_sampling"]["seed"]
    assert manifest["parameters"]["repetitions"] == 2
    assert len(manifest["seeds"]["repetitions"]) == 2
    assert manifest["seeds"]["repetitions"][0] == 7
    # the six systems are the top six by mean AP
    means = irgauge.evaluate(qrels, runs, ["AP"]).means.sort_values("value", ascending=False)
    assert set(manifest["systems"]) == set(means["run"][:6])
    first = result.summary[0]
    assert first.startswith("Discriminative power")
    assert "6 systems (the top 6 of 8 by AP)" in first
    for m in ("P-plus", "P-measure", "O-measure", "NWRR", "RR"):
        assert m in first


def test_tables_are_consistent(onerel_fast):
    result, out, _ = onerel_fast
    dp = result.tables["discriminative_power"]
    assert list(dp["share"]) == sorted(dp["share"], reverse=True)
    assert np.allclose(dp["significant"] / 15, dp["share"])
    assert dp["share"].between(0, 1).all() and (dp["share_se"] >= 0).all()
    gains = result.tables["gain_values"]
    assert list(gains["gains"]) == ["3:2:1", "10:5:1", "1:1:1", "0.3:0.2:0.1"]
    # 3:2:1 is the default gain: its row repeats Table 3's figures
    share = dict(zip(dp["measure"], dp["share"]))
    assert gains.loc[0, "P-measure"] == share["P-measure"]
    # its required difference too, with the same Monte Carlo SE
    dp_by = dp.set_index("measure")
    assert gains.loc[0, "P-measure diff"] == dp_by.loc["P-measure", "required_difference"]
    assert gains.loc[0, "P-measure diff SE"] == dp_by.loc["P-measure", "required_difference_se"]
    tau = result.tables["kendall_tau"].set_index("measure")
    assert np.allclose(np.diag(tau.to_numpy(dtype=float)), 1.0)
    csv = pd.read_csv(out / "onerel" / "tables" / "discriminative_power.csv")
    assert list(csv["measure"]) == list(dp["measure"])


@pytest.mark.usefixtures("undrawn_figures")  # tables only
def test_same_seed_same_tables(collection, onerel_fast, tmp_path, read_bytes):
    """A second run with the same seed (and no progress bars) writes the same tables."""
    qrels, runs = collection
    run_onerel(qrels, runs, tmp_path / "b", **FAST)
    a = read_bytes(onerel_fast[1] / "onerel", "tables/*")
    b = read_bytes(tmp_path / "b" / "onerel", "tables/*")
    assert a and a == b
    run_onerel(qrels, runs, tmp_path / "c", **{**FAST, "seed": 8})
    c = read_bytes(tmp_path / "c" / "onerel", "tables/*")
    assert c != a  # another seed draws other samples


def test_progress_bars_move_forward_and_close_once(onerel_fast):
    """The evaluation and each repetition of every experiment draw one bar over all
    measures: forward only, closing (done == total) exactly once."""
    bars = onerel_fast[2]
    assert {"evaluation", "bootstrap 1/2", "swap 2/2", "stability 1/2"} <= set(bars)
    for label, calls in bars.items():
        done, total = [d for d, _ in calls], calls[-1][1]
        assert {t for _, t in calls} == {total}, label
        assert done == sorted(done) and done.count(total) == 1, label
