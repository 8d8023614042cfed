"""Study incomplete (Sakai, "Alternatives to bpref") on a small generated collection."""
import json

import numpy as np

from irgauge.studies.incomplete import run_incomplete

FAST = dict(B=100, seed=4, top_k=6, rates=(70, 30), reductions=2)
NDCG = "nDCG (Järvelin–Kekäläinen, b=2)@1000"
TEN = ["AP", "Q-measure", NDCG, "bpref", "bpref_R", "bpref_N", "rpref_N", "rpref_relative2",
       "AP'", "Q'", "nDCG' (Järvelin–Kekäläinen, b=2)@1000"]


def test_outputs_and_tables(collection, tmp_path, read_bytes):
    qrels, runs = collection
    result = run_incomplete(qrels, runs, tmp_path, **FAST)
    manifest = json.loads((tmp_path / "incomplete" / "manifest.json").read_text())
    assert manifest["seeds"]["reductions"][0] == 4 and manifest["seeds"]["seed"] == 4
    assert len(set(manifest["seeds"]["reductions"])) == 2
    assert manifest["parameters"]["reductions"] == 2
    assert manifest["parameters"]["rates"] == [100, 70, 30]
    assert manifest["n_systems"] == 6 and len(manifest["inputs"]["runs_used"]) == 6
    tau = result.tables["kendall_tau"].set_index("measure")
    assert sorted(tau.index) == sorted(TEN)
    assert np.allclose(np.diag(tau.loc[TEN, TEN].to_numpy(dtype=float)), 1)
    by_rate = result.tables["tau_by_rate"].set_index("measure")
    assert list(by_rate.columns) == ["100%", "70%", "30%", "SE 70%", "SE 30%"]
    assert (by_rate["100%"] == 1).all()
    # Table 3 and the 100% column of the curves are the same numbers
    dp = result.tables["discriminative_power"].set_index("measure")
    curve = result.tables["discriminative_power_by_rate"].set_index("measure")
    assert np.allclose(dp.loc[TEN, "share"], curve.loc[TEN, "100%"])
    assert "SE 30%" in curve.columns
    table1 = result.tables["relevance_data"].iloc[0]
    assert table1["topics"] == 24 and table1["R <= N on every topic"] in ("yes", "no")
    figures = {e["name"] for e in manifest["figures"]}
    assert figures == {"tau_heatmap", "mean_by_rate", "tau_by_rate", "discpower_by_rate"}
    assert result.summary[0].startswith("Discriminative power")
    # bpref and bpref_R are the same number when R <= N on every topic: never ordered
    if table1["R <= N on every topic"] == "yes":
        assert "bpref and bpref_R" in result.summary[0] or \
            "bpref_R and bpref" in result.summary[0]
    # same seed, same tables
    run_incomplete(qrels, runs, tmp_path / "again", **FAST)
    assert read_bytes(tmp_path / "incomplete", "tables/*") == \
        read_bytes(tmp_path / "again" / "incomplete", "tables/*")
