"""Study predictive (Webber et al. 2008) on a small generated collection and on score matrices."""

import pytest
import json

import numpy as np

from irgauge.evaluation import score_matrices
from irgauge.studies.predictive import run_predictive, subset_sizes

pytestmark = pytest.mark.slow  # each test runs a study


def test_outputs_and_filter(collection, tmp_path):
    qrels, runs = collection
    result = run_predictive(qrels, runs, tmp_path, seed=3, halvings=200)
    manifest = json.loads((tmp_path / "predictive" / "manifest.json").read_text())
    assert manifest["seeds"]["seed"] == 3 and manifest["parameters"]["halvings"] == 200
    assert manifest["n_systems"] == 6  # top 75% of 8 systems by AP
    assert manifest["parameters"]["subset_sizes"] == [5, 10, 12]
    phi = result.tables["phi"].set_index("predictor")
    assert list(phi.index) == ["P@10", "RR", "RBP (p=0.95)", "AP", "nDCG (log2)"]
    values = phi.to_numpy(dtype=float)
    assert np.all(values <= 1) and np.all(values > -1)
    by_k = result.tables["phi_by_k"]
    assert list(by_k["k"]) == [5, 10, 12]
    assert "nDCG (log2) -> P@10" in by_k.columns
    assert result.summary[0].startswith("Self-predictivity")
    assert {e["name"] for e in manifest["figures"]} == {"phi_vs_k", "phi_heatmap"}
    # the band is labelled in the figure itself, not only in its caption
    svg = (tmp_path / "predictive" / "figures" / "phi_vs_k.svg").read_text()
    assert "band: 95% interval of phi" in svg


def test_score_matrices_input_and_determinism(collection, tmp_path, read_bytes):
    qrels, runs = collection
    matrices = score_matrices(qrels, runs, ["AP", "P@10"])
    run_predictive(out=tmp_path / "a", matrices=matrices, seed=5, halvings=100, top_k=5)
    run_predictive(out=tmp_path / "b", matrices=matrices, seed=5, halvings=100, top_k=5)
    a = read_bytes(tmp_path / "a" / "predictive", "tables/*")
    assert a == read_bytes(tmp_path / "b" / "predictive", "tables/*")
    manifest = json.loads((tmp_path / "a" / "predictive" / "manifest.json").read_text())
    assert manifest["n_systems"] == 5 and "score_matrices" in manifest["inputs"]


def test_subset_sizes():
    assert subset_sizes(50) == [5, 10, 15, 20, 25]
    assert subset_sizes(7) == [3]


def test_a_too_small_design_states_no_better_predictor():
    """On 9 topics (a design warning) "AP predicts B better than B itself" was still stated;
    now the two values and the interval, not ordered."""
    from irgauge.scores import ScoreMatrix
    from irgauge.studies.predictive import (
        PredictiveOptions,
        compute_predictive,
        describe_predictive,
    )

    rng = np.random.default_rng(2)
    systems, topics = [f"s{i}" for i in range(12)], [f"t{j}" for j in range(9)]
    effect = np.linspace(0, 1, 12)[:, None]
    matrices = {
        name: ScoreMatrix(effect + rng.normal(0, sd, (12, 9)), systems, topics, name)
        for name, sd in (("AP", 0.01), ("B", 1.0))
    }
    options = PredictiveOptions(None, 1.0, "AP", 3, 300, None, "b", None, 60)
    lines = describe_predictive(compute_predictive(None, None, matrices, options))
    assert lines[0].startswith("WARNING: too small a design")
    assert not any("better than" in line for line in lines)
    assert any(line.startswith("AP -> B vs B -> B: ") and "(not ordered)" in line for line in lines)
