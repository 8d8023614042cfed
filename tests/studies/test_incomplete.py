"""Study incomplete (seed 002) on a small generated collection."""
import json

import numpy as np

from irgauge.studies.incomplete import run_incomplete

FAST = dict(B=100, seed=4, top_k=6, rates=(70, 30))
TEN = ["AP", "Q-measure", "nDCG", "bpref_R", "bpref_N", "rpref_N", "rpref_relative2", "AP'",
       "Q'", "nDCG'"]


def test_outputs_and_tables(collection, tmp_path, read_bytes):
    qrels, runs = collection
    result = run_incomplete(qrels, runs, tmp_path, **FAST)
    manifest = json.loads((tmp_path / "incomplete" / "manifest.json").read_text())
    assert manifest["seeds"]["reduction"] == 4 and manifest["seeds"]["seed"] == 4
    assert manifest["parameters"]["rates"] == [100, 70, 30]
    assert manifest["n_systems"] == 6 and len(manifest["inputs"]["runs_used"]) == 6
    tau = result.tables["kendall_tau"].set_index("measure")
    assert sorted(tau.index) == sorted(TEN)
    assert np.allclose(np.diag(tau.loc[TEN, TEN].to_numpy(dtype=float)), 1)
    by_rate = result.tables["tau_by_rate"].set_index("measure")
    assert list(by_rate.columns) == ["100%", "70%", "30%"]
    assert (by_rate["100%"] == 1).all()
    # Table 3 (own bootstrap) and the 100% column of the curves use the same samples
    dp = result.tables["discriminative_power"].set_index("measure")
    curve = result.tables["discriminative_power_by_rate"].set_index("measure")
    assert np.allclose(dp.loc[TEN, "share"], curve.loc[TEN, "100%"])
    figures = {e["name"] for e in manifest["figures"]}
    assert figures == {"tau_heatmap", "mean_by_rate", "tau_by_rate", "discpower_by_rate"}
    assert "in discriminative power" in result.summary[0]
    # same seed, same tables
    run_incomplete(qrels, runs, tmp_path / "again", **FAST)
    assert read_bytes(tmp_path / "incomplete", "tables/*") == \
        read_bytes(tmp_path / "again" / "incomplete", "tables/*")
