"""Study topicset (Sakai 2016, topic set size design): its numbers are topic_set_size's, the
bootstrap is seeded and paired, the summary orders measures only beyond the noise, and it
runs on several collections side by side."""

import json
import re

import numpy as np
import pandas as pd
import pytest

from irgauge.errors import InputError

from irgauge import topic_set_size
from irgauge.cli import main
from irgauge.evaluation import score_matrices
from irgauge.meta.topicset import residual_variance
from irgauge.scores import ScoreMatrix
from irgauge.studies import STUDIES, study_function
from irgauge.studies.collections import run_on_collections
from irgauge.studies.topic_set_design import bootstrap_variances, run_topicset

# each test runs a study, and reads its tables and summary, not its figures
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("undrawn_figures")]


def _matrices(spec, n_systems=12, n_topics=40, seed=0):
    """{name: ScoreMatrix}: system effects plus topic effects plus noise of each sd given."""
    rng = np.random.default_rng(seed)
    systems = [f"s{i}" for i in range(n_systems)]
    topics = [f"t{j}" for j in range(n_topics)]
    base = rng.normal(0.4, 0.05, (n_systems, 1)) + rng.normal(0, 0.1, (1, n_topics))
    noise = rng.normal(0, 1, (n_systems, n_topics))
    return {
        name: ScoreMatrix(
            base + sd * noise + shift * rng.normal(0, 1, noise.shape), systems, topics, name
        )
        for name, (sd, shift) in spec.items()
    }


def test_registered():
    assert "topicset" in STUDIES and study_function("topicset") is run_topicset


def test_on_a_generated_collection_equals_topic_set_size(collection, tmp_path):
    qrels, runs = collection
    result = run_topicset(
        qrels, runs, tmp_path, measures=["AP", "P@10"], seed=3, topic_resamples=300, min_diff=0.1
    )
    manifest = json.loads((tmp_path / "topicset" / "manifest.json").read_text())
    p = manifest["parameters"]
    assert (p["min_diff"], p["alpha"], p["beta"], p["anova_systems"]) == (0.1, 0.05, 0.2, 2)
    assert (
        p["ci_width"] == 0.1 and p["topic_resamples"] == 300 and manifest["seeds"]["bootstrap"] == 3
    )
    assert manifest["n_systems"] == 8 and manifest["n_topics"] == 24  # every system kept
    assert 'Sakai (2016), "Topic set size design"' in manifest["tables"][0]["caption"]
    assert {e["name"] for e in manifest["figures"]} == {"topic_set_size"}
    expected = topic_set_size(
        score_matrices(qrels, runs, ["AP", "P@10"], complete=True),
        0.1,
        ci_width=0.1,
    ).table
    table = result.tables["topic_set_size"].set_index("measure")
    for row in expected.itertuples(index=False):
        column = {
            ("all", "variance"): "variance",
            ("ttest", "n_topics"): "n_ttest",
            ("anova", "n_topics"): "n_anova",
            ("ci", "n_topics"): "n_ci",
            ("ttest", "min_detectable_diff"): "min_diff_ttest",
            ("anova", "min_detectable_diff"): "min_diff_anova",
            ("ci", "ci_width"): "ci_width_here",
        }[(row.design, row.statistic)]
        assert table.loc[row.measure, column] == pytest.approx(float(row.value), rel=1e-12)
    for column in ("n_ttest", "n_anova", "n_ci", "variance"):  # intervals hold the estimate
        assert (table[f"{column}_low"] <= table[column]).all()
        assert (table[column] <= table[f"{column}_high"]).all()
    assert "needs the fewest topics" in result.summary[1]


def test_bootstrap_variances_are_resampled_residual_variances():
    values = np.random.default_rng(1).random((2, 6, 9))
    found = bootstrap_variances(values, 4, seed=5)
    draws = np.random.default_rng(5).integers(0, 9, size=(4, 9))
    expected = [[residual_variance(values[k][:, d]) for k in range(2)] for d in draws]
    assert np.allclose(found, expected, rtol=1e-10)


def test_seeded_and_deterministic(tmp_path, read_bytes):
    matrices = _matrices({"A": (0.1, 0.0), "B": (0.2, 0.0)})
    for name in ("a", "b"):
        run_topicset(out=tmp_path / name, matrices=matrices, seed=9, topic_resamples=200)
    first = read_bytes(tmp_path / "a" / "topicset", "tables/*")
    assert first == read_bytes(tmp_path / "b" / "topicset", "tables/*")


def test_summary_orders_only_beyond_the_noise(tmp_path):
    # B is A with a little more noise: their bootstrap intervals overlap; C is far noisier
    matrices = _matrices({"A": (0.10, 0.0), "B": (0.10, 0.012), "C": (0.30, 0.0)})
    result = run_topicset(out=tmp_path, matrices=matrices, seed=1, topic_resamples=400)
    table = result.tables["topic_set_size"].set_index("measure")
    a, b = table.loc["A"], table.loc["B"]
    assert a["n_ttest_low"] <= b["n_ttest_high"] and b["n_ttest_low"] <= a["n_ttest_high"]
    assert table.loc["C", "n_ttest_low"] > max(a["n_ttest_high"], b["n_ttest_high"])
    sentence = result.summary[0]
    first, second = sorted(["A", "B"], key=lambda m: table.loc[m, "n_ttest"])
    assert f" ~ {second} " in sentence and f"{first} and {second}" in sentence
    assert re.search(rf"{first} \d+ \[\d+, \d+\] ~ {second} \d+ \[\d+, \d+\] < C ", sentence)
    assert not re.search(rf"{first} \d+ \[\d+, \d+\] <", sentence)
    assert "not distinguishable from it here" in result.summary[1] and second in result.summary[1]
    paired = result.tables["paired_differences"]
    assert list(paired.columns) == [
        "measure_a",
        "measure_b",
        "difference",
        "low",
        "high",
        "excludes_0",
    ]
    assert paired.set_index(["measure_a", "measure_b"]).loc[("A", "C"), "excludes_0"]


def test_two_collections_side_by_side(collection, tmp_path):
    from irgauge.collection.simulate import simulate_collection, write_collection

    root = tmp_path / "second"
    sim = simulate_collection(n_topics=20, n_runs=6, depth=60, seed=4, pool_depth=15)
    files = write_collection(sim, root)["files"]
    second = (root / files["qrels"], [root / r for r in files["runs"]])
    results, comparison = run_on_collections(
        "topicset",
        {"one": collection, "two": second},
        tmp_path / "out",
        measures=["AP"],
        seed=2,
        topic_resamples=200,
    )
    wide = comparison.tables["topic_set_size_side_by_side"].set_index("measure")
    assert list(wide.columns) == ["one", "two"]
    for name in ("one", "two"):
        own = results[name].tables["topic_set_size"].set_index("measure")
        assert wide.loc["AP", name] == own.loc["AP", "n_ttest"]
    stacked = comparison.tables["topic_set_size"]
    assert list(stacked["collection"]) == ["one", "two"]


def test_cli_with_score_files(tmp_path, capsys):
    matrices = _matrices({"A": (0.1, 0.0), "B": (0.2, 0.0)}, n_topics=30)
    files = _score_files(matrices, tmp_path)
    argv = ["study", "topicset", "--scores", *files, "--out", str(tmp_path / "o")]
    argv += [
        "--seed",
        "4",
        "--topic-resamples",
        "100",
        "--min-diff",
        "0.08",
        "--ci-width",
        "0.2",
        "--quiet",
    ]
    assert main(argv) == 0
    assert "needs the fewest topics" in capsys.readouterr().out
    manifest = json.loads((tmp_path / "o" / "topicset" / "manifest.json").read_text())
    assert manifest["parameters"]["min_diff"] == 0.08 and manifest["parameters"]["ci_width"] == 0.2
    assert manifest["seeds"]["seed"] == 4 and "score_matrices" in manifest["inputs"]


def test_a_small_design_is_warned_of_and_not_ordered(tmp_path):
    # C is far noisier than A: ordered on 12 systems, not on 4 (6 pairs)
    spec = {"A": (0.10, 0.0), "C": (0.40, 0.0)}
    ordered = run_topicset(
        out=tmp_path / "big", matrices=_matrices(spec), seed=1, topic_resamples=200
    )
    assert "A " in ordered.summary[0] and " < C " in ordered.summary[0]
    small = run_topicset(
        out=tmp_path / "small", matrices=_matrices(spec, n_systems=4), seed=1, topic_resamples=200
    )
    assert small.summary[0].startswith("WARNING: too small a design to order measures: 4 systems")
    orderings = small.summary[1:]
    assert not any(" < " in line or " ~ " in line for line in orderings)
    assert "not ordered: 4 systems (6 pairs" in orderings[0]
    assert orderings[1].startswith("No measure is named as needing the fewest topics")


def test_a_measure_constant_over_systems_is_refused_by_name(tmp_path):
    matrices = _matrices({"A": (0.10, 0.0), "C": (0.40, 0.0)})
    like = matrices["A"]
    constant = np.tile(np.linspace(0.2, 0.8, len(like.topics)), (len(like.systems), 1))
    matrices["F"] = ScoreMatrix(constant, like.systems, like.topics, "F")
    with pytest.raises(InputError, match="measure F gives every system the same score"):
        run_topicset(out=tmp_path, matrices=matrices, seed=1, topic_resamples=200)


def test_the_ordering_states_every_pair_apart():
    """A ~ B ~ C with A's and C's intervals apart: the summary once said only the
    neighbours, each not distinguishable, and nothing of A and C."""
    from types import SimpleNamespace

    from irgauge.studies.topic_set_design import _ordering

    table = pd.DataFrame(
        {
            "measure": ["A", "B", "C"],
            "variance": [10.0, 14.0, 18.0],
            "variance_low": [8.0, 11.0, 16.0],
            "variance_high": [12.0, 17.0, 20.0],
        }
    )
    text = _ordering(SimpleNamespace(table=table, paired=None), "variance")
    assert text.startswith(
        "A 10 [8, 12] ~ B 14 [11, 17] ~ C 18 [16, 20]; apart within a group: A < C"
    )
    assert text.endswith("A and B; B and C")


def _score_files(matrices, folder):
    """``NAME=FILE`` of a score file (systems as columns) for each matrix."""
    files = []
    for name, m in matrices.items():
        path = folder / f"{name}.csv"
        rows = [",".join(f"{v:.6f}" for v in m.values[:, j]) for j in range(m.n_topics)]
        path.write_text(",".join(m.systems) + "\n" + "\n".join(rows) + "\n")
        files.append(f"{name}={path}")
    return files


def test_its_topic_resamples_are_spelled_as_every_study_spells_them(tmp_path):
    """The study spelled its bootstrap resamples of the topics --trials (trials=), which
    the other commands spell for topic-subset draws and the other studies' resamples
    --topic-resamples: it is --topic-resamples (topic_resamples=) now, recorded so in the
    manifest. In Python the old keyword still runs, with a FutureWarning; on the command
    line --trials is refused (tests/test_option_spellings.py), as one spelling with two
    meanings across the studies."""
    matrices = _matrices({"A": (0.1, 0.0), "B": (0.2, 0.0)}, n_topics=20)
    new = run_topicset(out=tmp_path / "new", matrices=matrices, seed=2, topic_resamples=50)
    assert new.manifest["parameters"]["topic_resamples"] == 50
    assert "trials" not in new.manifest["parameters"]
    with pytest.warns(FutureWarning, match=r"trials=\.\.\.\) is the old name of topic_resamples"):
        old = run_topicset(out=tmp_path / "old", matrices=matrices, seed=2, trials=50)
    pd.testing.assert_frame_equal(old.tables["topic_set_size"], new.tables["topic_set_size"])
    with pytest.raises(InputError, match="the old name of topic_resamples; give topic_resamples"):
        run_topicset(out=tmp_path / "both", matrices=matrices, trials=50, topic_resamples=50)
    argv = ["study", "topicset", "--scores", *_score_files(matrices, tmp_path), "--seed", "2"]
    assert main([*argv, "--out", str(tmp_path / "cli"), "--topic-resamples", "50", "--quiet"]) == 0
    manifest = json.loads((tmp_path / "cli" / "topicset" / "manifest.json").read_text())
    assert manifest["parameters"]["topic_resamples"] == 50
