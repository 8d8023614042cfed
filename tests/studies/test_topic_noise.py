"""Conclusions that survive another draw of topics (issue 20): orderings are stated only
beyond topic sampling and Monte Carlo error together, censored values are never ranked,
and too small designs get a warning instead of orderings."""

import importlib.util
from pathlib import Path

import numpy as np
import pandas as pd
import pytest
from scipy import stats

from irgauge.scores import ScoreMatrix
from irgauge.studies import _noise, _repeat, _topics, matched_ties
from irgauge.studies.onerel import run_onerel
from tests.conftest import quick_study_figures
from tests.studies.conftest import write_trec

BENCH = Path(__file__).resolve().parents[2] / "bench" / "bench_seed_agreement.py"


@pytest.fixture(scope="module")
def agreement_bench():
    """The seed-agreement experiment of bench/bench_seed_agreement.py (run reduced here)."""
    spec = importlib.util.spec_from_file_location("bench_seed_agreement", BENCH)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.slow  # a study under several seeds
def test_stated_orderings_agree_across_seeds(agreement_bench):
    """17 systems x 100 topics, six seeds: no ordering reversed, >= 90% the same."""
    data = agreement_bench.matrices()
    results = [agreement_bench.stated(data, 1000 + s, 200, 3, 1000) for s in range(6)]
    sets = [set(r.stated) for r in results]
    reversed_, mean = agreement_bench.agreement(sets)
    assert not reversed_
    assert mean >= 0.9
    # the structure is found: the least noisy measure above the noisiest, every seed
    assert all(("A", "D") in s and ("B", "D") in s for s in sets)
    # B and E differ by about 0.005: not a finding
    assert not any(("B", "E") in s or ("E", "B") in s for s in sets)


def test_equal_measures_never_ordered_under_20_seeds(agreement_bench):
    data = agreement_bench.matrices(n_topics=40)
    for s in range(20):
        out = agreement_bench.stated(data, s, 60, 2, 40)
        copies = [(a, b) for a, b in out.stated if a.split()[0] == b.split()[0]]
        assert not copies, (s, out.text)


def _dp_matrices(rng, n_systems=30, n_topics=50):
    """A measure separating most pairs and one separating far fewer (noise 0.08 vs 0.35)."""
    effect = np.linspace(0.2, 0.6, n_systems)[:, None]
    systems = [f"s{i}" for i in range(n_systems)]
    topics = [f"t{j}" for j in range(n_topics)]
    return {
        name: ScoreMatrix(effect + rng.normal(0, sd, (n_systems, n_topics)), systems, topics, name)
        for name, sd in (("sharp", 0.08), ("blunt", 0.35))
    }


def test_large_differences_in_discriminative_power_are_stated():
    """On 30 systems a difference of 0.15 or more in the share of significant pairs is
    stated, whatever the seed."""
    for s in range(5):
        data = _dp_matrices(np.random.default_rng(s))
        seeds = _noise.repetition_seeds(s, 3)
        rows, _, _ = _repeat.discriminative_power(data, 200, 0.05, seeds)
        share, _ = _topics.discriminative_power(data, 0.05, _noise.topic_resamples(50, 100, s))
        stat = _repeat.statistic(rows, "share", "share", share)
        assert stat.value("sharp") - stat.value("blunt") >= 0.15
        assert _noise.ordering(stat).stated == [("sharp", "blunt")]


def test_the_95_percent_quantile_is_scipys():
    """The tests below check intervals as _noise.Z95 times a standard error: Z95 itself is
    checked here against scipy's two-sided 95% normal quantile."""
    assert _noise.Z95 == pytest.approx(stats.norm.ppf(1 - 0.05 / 2), rel=1e-15)


def test_topic_interval_formula():
    """d +/- 1.96 sqrt(var_topic + var_mc): var_topic the variance of exact resampled
    values, or the covariance of an experiment's two runs on each resample."""
    reps = {"a": np.array([0.5, 0.6, 0.7]), "b": np.array([0.4, 0.4, 0.4])}
    resampled = {"a": np.array([0.2, 0.9, 0.5, 0.6]), "b": np.array([0.3, 0.3, 0.2, 0.2])}
    c = _noise.compare(_noise.Statistic("x", reps, resampled), "a", "b")
    d = reps["a"] - reps["b"]
    e = resampled["a"] - resampled["b"]
    var = d.var(ddof=1) / 3 + e.var(ddof=1)
    assert np.isclose(c.d, 0.2) and np.isclose(c.high - c.d, _noise.Z95 * np.sqrt(var))
    runs = {"a": np.array([[0.2, 0.3], [0.9, 0.7], [0.5, 0.6], [0.6, 0.4]]), "b": np.zeros((4, 2))}
    c = _noise.compare(_noise.Statistic("x", reps, runs), "a", "b")
    e = runs["a"] - runs["b"]
    var = d.var(ddof=1) / 3 + np.cov(e[:, 0], e[:, 1])[0, 1]
    assert np.isclose(c.high - c.d, _noise.Z95 * np.sqrt(var))


def test_topic_variance_is_not_swallowed_by_the_resamples_monte_carlo_error():
    """The experiments rerun on the resamples have few trials, so their Monte Carlo noise is
    as large as the topic variance. Estimated from the spread of 5 repetitions (scaled by
    the ratio of trials) and taken out, it often took the whole topic variance with it,
    leaving intervals of Monte Carlo error alone (a stability difference between P-plus and
    O-measure on the sample collection: +-0.002, where P-measure and O-measure had
    +-0.016). Two runs with independent seeds on each resample leave it intact: their
    covariance is the topic variance (here the runs' noise is twice it, as on the sample)."""
    rng = np.random.default_rng(5)
    topic_var, run_noise, rep_noise, reps = 1e-4, 2e-4, 1e-5, 5
    estimates, covered = [], 0
    for _ in range(300):
        topic = rng.normal(0, np.sqrt(topic_var), (100, 1))
        runs = topic + rng.normal(0, np.sqrt(run_noise), (100, 2))
        # the study's own difference: one draw of the topics, then its repetitions' noise
        d = rng.normal(0, np.sqrt(topic_var)) + rng.normal(0, np.sqrt(rep_noise), reps)
        stat = _noise.Statistic("x", {"a": d, "b": np.zeros(reps)}, {"a": runs, "b": 0 * runs})
        estimates.append(_noise.topic_variance(runs))
        covered += _noise.compare(stat, "a", "b").low <= 0 <= _noise.compare(stat, "a", "b").high
    assert abs(np.mean(estimates) / topic_var - 1) < 0.2
    assert np.mean(np.asarray(estimates) == 0) < 0.05
    assert covered >= 0.92 * 300


def test_experiments_on_the_resamples_run_twice_with_independent_seeds():
    """Swap, stability and phi on each topic resample: two runs (T x 2), not one."""
    rng = np.random.default_rng(3)
    systems, topics = [f"s{i}" for i in range(6)], [f"t{j}" for j in range(24)]
    data = {
        name: ScoreMatrix(
            np.linspace(0, 0.5, 6)[:, None] + rng.normal(0, 0.2, (6, 24)), systems, topics, name
        )
        for name in ("x", "y")
    }
    resamples = _noise.topic_resamples(24, 4, 9)
    share, _ = _topics.swap(data, 12, 10, resamples, 1, "strict", False)
    phi, _ = _topics.predictive(data, 10, resamples, 1, "b")
    curves = _topics.stability(data, 12, 10, resamples, 1)
    assert share["x"].shape == (4, 2) and phi[("x", "y")].shape == (4, 2)
    assert not np.allclose(phi[("x", "y")][:, 0], phi[("x", "y")][:, 1])
    assert sorted(set(curves["run"])) == [0, 1] and curves["repetition"].nunique() == 4
    pairs = matched_ties.stability_comparison(
        curves[curves["run"] == 0].drop(columns="run"), curves
    )
    assert np.isfinite(pairs[["low", "high"]].to_numpy()).all()


def test_one_repetition_claims_no_monte_carlo_error():
    stat = _noise.Statistic(
        "x",
        {"a": np.array([0.6]), "b": np.array([0.4])},
        {"a": np.array([0.60, 0.62, 0.58, 0.61]), "b": np.array([0.41, 0.40, 0.39, 0.40])},
    )
    assert stat.shown("a") == "0.600"  # no "±": no error claimed
    c = _noise.compare(stat, "a", "b")
    e = stat.resampled["a"] - stat.resampled["b"]
    assert np.isclose(c.high - c.d, _noise.Z95 * e.std(ddof=1))  # topic sampling alone
    assert _noise.ordering(stat).stated == [("a", "b")]
    assert "none is claimed" in _repeat.method_sentence(
        {"resamples": 4, "seed": 1, "trials_per_run": 20}, 1
    )


def test_censored_values_are_excluded_counted_and_never_ranked():
    stat = _noise.Statistic(
        "required difference",
        {"a": np.array([0.5, 0.5]), "b": np.array([0.9, np.nan]), "c": np.array([0.1, 0.1])},
    )
    out = _noise.ordering(stat)
    assert all("b" not in pair for pair in out.stated)
    assert "not ranked, required difference not reached: b (1 of 2 repetitions)" in out.text
    # the swap method: a measure with no signal never gets below the catch-all bin
    rng = np.random.default_rng(0)
    systems, topics = [f"s{i}" for i in range(6)], [f"t{j}" for j in range(30)]
    data = {
        "signal": ScoreMatrix(
            np.linspace(0, 1, 6)[:, None] + rng.normal(0, 0.05, (6, 30)), systems, topics, "x"
        ),
        "noise": ScoreMatrix(rng.integers(0, 2, (6, 30)).astype(float), systems, topics, "y"),
    }
    _, rows, _, spread = _repeat.swap(data, 10, 50, [1, 2, 3])
    noise = rows[rows["measure"] == "noise"]
    assert noise["required_difference"].isna().all() and noise["share_reaching"].isna().all()
    table = _repeat.swap_summary_table(spread, 3).set_index("measure")
    assert table.loc["noise", "not_reached"] == "3 of 3 (>= 0.20)"
    assert np.isnan(table.loc["noise", "required_difference"])
    assert table.loc["signal", "not_reached"] == ""
    stat = _repeat.statistic(rows, "share_reaching", "required difference")
    assert "noise (3 of 3 repetitions)" in _noise.ordering(stat).text


@pytest.mark.slow  # runs a study
def test_four_runs_get_a_warning_and_no_orderings(tmp_path):
    rng = np.random.default_rng(1)
    rows, runs = [], {f"r{k}": {} for k in range(4)}
    for t in range(1, 21):
        docs = [f"d{j}" for j in range(6)] + [f"n{j}" for j in range(14)]
        rows += [(t, d, 1 if d.startswith("d") else 0) for d in docs]
        for k in range(4):
            order = np.argsort(np.arange(len(docs)) + rng.normal(0, 2 + 4 * k, len(docs)))
            runs[f"r{k}"][t] = [docs[i] for i in order]
    qrels, paths = write_trec(tmp_path / "c", rows, runs)
    result = run_onerel(
        qrels,
        paths,
        tmp_path / "out",
        samples=50,
        trials=20,
        seed=1,
        top_k=None,
        repetitions=2,
        gains=(),
        topic_resamples=20,
    )
    text = "\n".join(s for s in result.summary if not s.startswith("Orderings:"))
    assert result.summary[0].startswith("WARNING: too small a design")
    assert "4 systems (6 pairs" in result.summary[0]
    assert " > " not in text and "more stable than" not in text
    assert "not ordered" in text and "not interpreted" in text


def test_matched_table_reads_every_curve_at_one_level():
    rows = []
    for rep in range(2):
        for f, (ta, ma), (tb, mb) in zip(
            (0.01, 0.05), ((0.05, 0.04), (0.2, 0.02)), ((0.1, 0.08), (0.3, 0.05))
        ):
            rows += [
                {
                    "measure": "A",
                    "repetition": rep,
                    "fuzziness": f,
                    "proportion_ties": ta,
                    "minority_rate": ma,
                },
                {
                    "measure": "B",
                    "repetition": rep,
                    "fuzziness": f,
                    "proportion_ties": tb,
                    "minority_rate": mb,
                },
            ]
    table = matched_ties.matched_table(pd.DataFrame(rows)).set_index("measure")
    assert np.allclose(table["proportion_ties"], 0.1)  # B's curve starts there
    assert np.isclose(table.loc["B", "minority_rate"], 0.08)
    assert np.isclose(table.loc["A", "minority_rate"], 0.04 + (0.02 - 0.04) * (0.05 / 0.15))


def test_cli_topic_resamples_and_derived_qa(collection, tmp_path, capsys):
    """--topic-resamples reaches the manifest; qa takes ad hoc qrels and runs only with
    --derive-qa, and labels the result a weak stand-in."""
    import json

    from irgauge.cli import main

    qrels, runs = collection
    args = ["study", "qa", str(qrels), *map(str, runs), "--out", str(tmp_path), "--seed", "3"]
    args += ["--trials", "40", "--repetitions", "2", "--topic-resamples", "7", "--quiet"]
    assert main(args) == 2
    assert "--derive-qa" in capsys.readouterr().err
    with quick_study_figures():  # the captions are read, not the drawings
        assert main(args + ["--derive-qa"]) == 0
    manifest = json.loads((tmp_path / "qa" / "manifest.json").read_text())
    assert manifest["parameters"]["topic_sampling"]["resamples"] == 7
    assert manifest["derived"] is True
    assert "weak stand-in" in manifest["title"]
    assert any("weak stand-in" in line for line in manifest["summary"])
    assert all("weak stand-in" in f["caption"] for f in manifest["figures"])
    assert (tmp_path / "qa-derived-data" / "derived.json").is_file()


def test_stability_sentences_give_d_as_the_first_named_minus_the_second():
    """A pair stored as (a, b) but named b first reads d = b - a (the sign once followed
    the stored order, contradicting the two rates the sentence prints)."""
    from irgauge.studies.matched_ties import STABILITY_PAIR_COLUMNS, stability_sentences

    row = dict(a="X", b="Y", ties_level=0.01, mr_a=0.0707, mr_b=0.0654, se_a=0.0005)
    row.update(se_b=0.0007, ties_a=0.01, ties_b=0.01, d=0.0053, low=-0.006, high=0.0165)
    near = pd.DataFrame([row], columns=STABILITY_PAIR_COLUMNS)
    (line,) = stability_sentences(near, ["Y", "X"])
    first = line.split(" ")[0]
    d = float(line.split("d = ")[1].split(",")[0])
    rates = [float(r.split(" ")[0]) for r in line.split("minority rate ")[1].split(" vs ")]
    assert first in ("X", "Y") and np.sign(d) == np.sign(rates[0] - rates[1])
    far = near.assign(low=0.001, high=0.0105)  # apart: X (higher rate) is less stable
    (line,) = stability_sentences(far, ["X", "Y"])
    assert line.startswith("Y is more stable than X") and "d = -0.0053" in line


def test_a_too_small_design_still_names_its_censored_measures():
    """Under a design warning a measure whose required difference is not reached was
    dropped from the sentence without a word (on 4 runs: RR missing from the swap
    sentence; on 8 topics, with every measure censored, the sentence was empty)."""
    stat = _noise.Statistic(
        "required difference",
        {"a": np.array([0.5, 0.6]), "b": np.array([np.nan, 0.4]), "c": np.array([0.3, 0.2])},
    )
    text = _noise.ordering(stat, None, "4 systems").text
    assert text.startswith("a 0.550 ± 0.050, c 0.250 ± 0.050 (not ordered: 4 systems)")
    assert "not reached: b (1 of 2 repetitions)" in text
    stat = _noise.Statistic("required difference", {"a": np.array([np.nan, np.nan])})
    text = _noise.ordering(stat, None, "8 topics").text
    assert text == (
        "not ordered: 8 topics; not ranked, required difference not reached: a (2 of 2 repetitions)"
    )


def test_a_too_small_design_gives_no_stability_verdict():
    """With a design warning the pairs are read without a verdict: neither "more stable"
    nor "not distinguishable here" (said of a pair whose interval excludes 0) and no
    ranking ("most stable first")."""
    from irgauge.studies.matched_ties import STABILITY_PAIR_COLUMNS, stability_sentences

    row = dict(a="X", b="Y", ties_level=0.01, mr_a=0.09, mr_b=0.05, se_a=0.001, se_b=0.001)
    row.update(ties_a=0.01, ties_b=0.01, d=0.04, low=0.02, high=0.06)
    pairs = pd.DataFrame([row], columns=STABILITY_PAIR_COLUMNS)
    lines = stability_sentences(pairs, ["X", "Y"], "4 systems")
    assert lines[0] == "not ordered (4 systems)"
    assert lines[1].startswith("X and Y: minority rate 0.0900 ± 0.0010 vs 0.0500")
    assert "d = +0.0400" in lines[1]
    sentence = _repeat.stability_sentence(pairs, pd.DataFrame(), ["X", "Y"], "c = 5", "4 s")
    assert "most stable first" not in sentence


@pytest.mark.slow  # runs a study on two collections
def test_cli_derived_qa_on_several_collections(collection, tmp_path, capsys):
    """--derive-qa works with --collection too (each collection's QA-shaped data derived
    under its own folder; it read the qrels as gold answers and failed on their document
    ids), every output of the comparison says so, and ad hoc qrels without it are refused
    with the pointer to the option."""
    import json

    from irgauge.cli import main

    qrels, runs = collection
    spec = f"c1={qrels}:{runs[0].parent}"
    args = ["study", "qa", "--collection", spec, "--out", str(tmp_path), "--seed", "3"]
    args += ["--trials", "30", "--repetitions", "2", "--topic-resamples", "4", "--quiet"]
    assert main(args) == 2
    assert "--derive-qa" in capsys.readouterr().err
    assert main(args + ["--derive-qa"]) == 0
    assert (tmp_path / "c1" / "qa-derived-data" / "derived.json").is_file()
    manifest = json.loads((tmp_path / "qa-comparison" / "manifest.json").read_text())
    assert all("weak stand-in" in t["caption"] for t in manifest["tables"])


def test_one_tau_for_every_pair_is_said_once():
    """Four runs ranked alike by every measure read "ranges from 1.00 (P-plus vs P-measure)
    to 1.00 (P-plus vs P-measure)"."""
    from irgauge.studies.onerel import _tau_sentence

    names = ["P-plus", "P-measure", "RR"]
    square = pd.DataFrame(1.0, index=names, columns=names)
    draws = {(a, b): np.ones(5) for a in names for b in names if a != b}
    text = _tau_sentence(square, names, draws, "4 systems")
    assert text == (
        "Kendall's tau between their rankings is 1.00 for every pair (not interpreted: 4 systems)."
    )


def test_the_command_line_default_is_the_studies_default():
    from irgauge.cli import _options
    from irgauge.studies import _noise

    assert _options.TOPIC_RESAMPLES == _noise.TOPIC_RESAMPLES


def _stability_pairs(apart):
    """A stability table over four measures, every pair within the noise but ``apart``
    (pairs (more stable, less stable) whose interval excludes 0)."""
    from irgauge.studies.matched_ties import STABILITY_PAIR_COLUMNS

    rate = {"P-plus": 0.050, "O-measure": 0.061, "RR": 0.052, "NWRR": 0.060}
    rows = []
    for k, a in enumerate(rate):
        for b in list(rate)[k + 1 :]:
            d = rate[a] - rate[b]
            split = (a, b) in apart or (b, a) in apart
            low, high = (d - 0.0005, d + 0.0005) if split else (d - 0.05, d + 0.05)
            rows.append(
                dict(a=a, b=b, ties_level=0.02, mr_a=rate[a], mr_b=rate[b], se_a=0.001)
                | dict(se_b=0.001, ties_a=0.02, ties_b=0.02, d=d, low=low, high=high)
            )
    return pd.DataFrame(rows, columns=STABILITY_PAIR_COLUMNS)


def test_the_stability_line_states_every_pair_its_table_shows_apart():
    """On TREC Robust 2003 the line named only neighbours in its ranking, each "not
    distinguishable", while its table showed P-plus more stable than O-measure and RR more
    stable than NWRR: every pair whose interval excludes 0 is stated, as in the
    discriminative-power line, from one reading of the pairwise table."""
    from irgauge.studies.matched_ties import stability_sentences

    apart = [("P-plus", "O-measure"), ("RR", "NWRR")]
    lines = stability_sentences(_stability_pairs(apart), ["P-plus", "O-measure", "RR", "NWRR"])
    said = [line.split(":")[0] for line in lines]
    for more, less in apart:
        assert f"{more} is more stable than {less}" in said
    assert sum("more stable" in s for s in said) == len(apart)
    for line in lines:  # no pair apart is called indistinguishable
        if "not distinguishable" in line:
            low, high = line.split("interval [")[1].rstrip(")]").split(", ")
            assert float(low) <= 0 <= float(high)


def test_the_ordering_states_a_pair_apart_within_a_group():
    """A ~ B ~ C where A is apart from C: the chain cannot say it, so the sentence does
    (it listed A and B, B and C as not distinguishable, and nothing of A and C)."""
    stat = _noise.from_means("share", {"A": (0.50, 0.01), "B": (0.48, 0.01), "C": (0.46, 0.01)})
    out = _noise.ordering(stat)
    assert out.text.startswith("A (0.500 ± 0.010) ~ B (0.480 ± 0.010) ~ C (0.460 ± 0.010)")
    assert "apart within a group: A > C (d = +0.040" in out.text
    assert out.stated == [("A", "C")]
    assert "not distinguishable here: A and B (d = +0.020" in out.text
