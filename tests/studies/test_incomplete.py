"""Study incomplete (Sakai, "Alternatives to bpref") on a small generated collection."""

import json

import numpy as np
import pytest

from irgauge.studies.incomplete import run_incomplete

pytestmark = pytest.mark.slow  # each test runs a study

FAST = dict(samples=100, seed=4, top_k=6, rates=(70, 30), reductions=2)
NDCG = "nDCG (Järvelin–Kekäläinen, b=2)@1000"
TEN = [
    "AP",
    "Q-measure",
    NDCG,
    "bpref",
    "bpref_R",
    "bpref_N",
    "rpref_N",
    "rpref_relative2",
    "AP'",
    "Q'",
    "nDCG' (Järvelin–Kekäläinen, b=2)@1000",
]


@pytest.fixture(scope="module")
def incomplete_fast(collection, tmp_path_factory, recorded_study):
    """One run of the study with FAST, shared by the tests that read different parts of
    it: (result, output folder, {bar label: [(done, total)]})."""
    qrels, runs = collection
    return recorded_study(
        run_incomplete, qrels, runs, tmp_path_factory.mktemp("incomplete_fast"), **FAST
    )


def test_outputs_and_tables(collection, incomplete_fast, tmp_path, read_bytes):
    qrels, runs = collection
    result, out, _ = incomplete_fast
    manifest = json.loads((out / "incomplete" / "manifest.json").read_text())
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
    svg = (out / "incomplete" / "figures" / "tau_by_rate.svg").read_text()
    assert "band: 95% interval of the mean" in svg  # in the figure, not only the caption
    # the summary cites how its orderings are decided, as every study's does
    assert result.summary[-1].startswith("Orderings: A > B is stated only when")
    assert result.summary[0].startswith("Discriminative power")
    # bpref and bpref_R are the same number when R <= N on every topic: never ordered
    if table1["R <= N on every topic"] == "yes":
        assert "bpref and bpref_R" in result.summary[0] or "bpref_R and bpref" in result.summary[0]
    # same seed, same tables (and the progress bars change nothing)
    run_incomplete(qrels, runs, tmp_path / "again", **FAST)
    assert read_bytes(out / "incomplete", "tables/*") == read_bytes(
        tmp_path / "again" / "incomplete", "tables/*"
    )


@pytest.mark.usefixtures("undrawn_figures")
def test_required_difference_is_the_mean_over_the_bootstrap_runs(collection, tmp_path):
    """Table 3's required difference and its SE are the mean and the Monte Carlo SE of the
    per-run values, recomputed here from the recorded seeds and measure definitions."""
    from irgauge.meta import discriminative_power
    from irgauge.evaluation import score_matrices

    qrels, runs = collection
    options = {**FAST, "reductions": 3}
    result = run_incomplete(qrels, runs, tmp_path, **options)
    manifest = result.manifest
    seeds = manifest["seeds"]["discriminative_power"]
    assert seeds == manifest["seeds"]["reductions"] and len(seeds) == 3
    strings = manifest["parameters"]["measures"]  # label -> measure string
    used = manifest["inputs"]["runs_used"]
    per_run = {}
    for label, string in strings.items():
        (matrix,) = score_matrices(qrels, used, [string], complete=True, rel_level=1).values()
        per_run[label] = [
            float(
                discriminative_power(
                    {label: matrix}, samples=options["samples"], alphas=(0.05,), seed=s
                )
                .table["required_difference"]
                .iloc[0]
            )
            for s in seeds
        ]
    table = result.tables["discriminative_power"].set_index("measure")
    assert "required_difference_se" in table.columns
    values = np.array([per_run[m] for m in table.index])  # measures x runs
    assert np.allclose(table["required_difference"], values.mean(axis=1))
    assert np.allclose(
        table["required_difference_se"], values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
    )
    assert (table["required_difference_se"] > 0).any()  # the runs do differ
    caption = next(t["caption"] for t in manifest["tables"] if t["name"] == "discriminative_power")
    assert "of the first" not in caption and "3 bootstrap runs" in caption


def _between(ordering: str, a: str, b: str) -> str:
    """The text of an ordering sentence between the entries of a and b."""
    head = ordering.split("; not distinguishable here")[0]
    i, j = sorted((head.index(f" {a} ("), head.index(f" {b} (")))
    return head[i : j + 1]


@pytest.mark.usefixtures("undrawn_figures")
def test_equal_measures_have_required_differences_within_noise(tmp_path):
    """Every retrieved document is judged, so AP and AP' (and Q and Q') are the same measure
    under two labels on the full relevance data; with R <= N on every topic so are bpref and
    bpref_R. The summary must not order them by required difference."""
    from tests.studies.conftest import write_trec

    rng = np.random.default_rng(3)
    rows, runs = [], {f"r{k}": {} for k in range(6)}
    for t in range(1, 16):
        docs = [f"d{j}" for j in range(8)] + [f"n{j}" for j in range(16)]
        rows += [(t, d, 1 if d.startswith("d") else 0) for d in docs]
        for k in range(6):
            order = np.argsort(np.arange(len(docs)) + rng.normal(0, 3 + 2 * k, len(docs)))
            runs[f"r{k}"][t] = [docs[i] for i in order]
    qrels, paths = write_trec(tmp_path / "c", rows, runs)
    result = run_incomplete(
        qrels, paths, tmp_path / "out", samples=60, seed=5, top_k=None, rates=(50,), reductions=3
    )
    table = result.tables["discriminative_power"].set_index("measure")
    line = next(s for s in result.summary if s.startswith("Required difference"))
    assert "not distinguishable here" in line
    for a, b in (("AP", "AP'"), ("Q-measure", "Q'"), ("bpref", "bpref_R")):
        assert table.loc[a, "required_difference"] == table.loc[b, "required_difference"]
        gap = _between(" " + line.split(": ", 1)[1], a, b)
        assert " < " not in gap, gap


def test_incomplete_study_reports_progress_in_steps(collection):
    """One step per rate for the evaluation and one per measure's bootstrap test, from 0 to
    the total, never backwards, closing once."""
    from irgauge.studies.incomplete_result import incomplete_study

    qrels, runs = collection
    calls = []
    incomplete_study(
        qrels,
        runs[:4],
        ["AP", "bpref"],
        rates=(50,),
        seed=1,
        samples=20,
        progress=lambda done, total: calls.append((done, total)),
    )
    total = 2 * (1 + 3)  # rates 100 and 50 x (evaluation + AP, bpref, AP')
    assert calls[0] == (0, total) and calls[-1] == (total, total)
    assert {t for _, t in calls} == {total}
    assert [d for d, _ in calls] == sorted(d for d, _ in calls)
    assert sum(d == total for d, _ in calls) == 1


def test_study_progress_covers_every_long_step(incomplete_fast):
    """Each bar of the study moves forward and closes exactly once (one line per step)."""
    bars = incomplete_fast[2]
    assert {
        "reading and ranking the runs",
        "reduction 1/2",
        "reduction 2/2",
        "evaluation, full relevance data",
        "full relevance data, bootstrap 1/2",
        "full relevance data, bootstrap 2/2",
        "figures",
    } == set(bars)
    for label, calls in bars.items():
        done = [d for d, _ in calls]
        total = calls[-1][1]
        assert {t for _, t in calls} == {total}, label
        assert done == sorted(done) and done[-1] == total, label
        assert done.count(total) == 1, label


def test_reduced_data_intervals_carry_the_reductions_error_whole(collection):
    """On every topic resample the reduced-data statistics are the mean over the same
    reductions as the study's own value, so the resamples' spread holds none of the
    reductions' Monte Carlo error: the interval adds var_r / R in full (it was taken out of
    the topic variance first, as if the resamples carried it, narrowing the interval)."""
    from irgauge.studies._noise import Z95, compare
    from irgauge.studies.incomplete_numbers import IncompleteOptions, compute_incomplete

    qrels, runs = collection
    options = IncompleteOptions(**{**FAST, "reductions": 3}, topic_resamples=50)
    data = compute_incomplete(qrels, runs, options)
    checked = 0
    for stat in data.reduced.values():
        names = list(stat.reps)
        for a, b in zip(names, names[1:]):
            d = stat.reps[a] - stat.reps[b]
            e = stat.resampled[a] - stat.resampled[b]
            var = e.var(ddof=1) + d.var(ddof=1) / len(d)
            c = compare(stat, a, b)
            assert np.isclose(c.high - c.d, Z95 * np.sqrt(var)), (stat.label, a, b)
            checked += d.var() > 0
    assert checked


@pytest.mark.parametrize("empty_topics", [None, "zero"])
def test_depth_reductions_are_incomplete_depths_numbers(collection, tmp_path, empty_topics):
    """study incomplete --depth: each depth's column holds the means and taus of the
    depth-K pool's qrels as irgauge incomplete --depth computes them, under the same rule
    for the topics a depth leaves without a relevant document (depth 5 leaves one here),
    (the same reduction in every repetition: no spread), the smallest depth is the one the
    summary speaks of, and the manifest records the depths, the pooled runs and the
    topics each depth lost."""
    from irgauge.studies.incomplete_result import incomplete_study
    from irgauge.studies.incomplete_numbers import MEASURES, DISPLAY

    qrels, runs = collection
    chosen = {} if empty_topics is None else {"empty_topics": empty_topics}
    options = dict(samples=20, seed=4, top_k=None, reductions=2, topic_resamples=10)
    result = run_incomplete(qrels, runs, tmp_path, depths=[20, 5], eval_options=chosen, **options)
    plain = incomplete_study(qrels, runs, MEASURES, depths=[5, 20], samples=20, seed=4, **chosen)
    for value, stem in (("mean", "mean_by_rate"), ("tau", "tau_by_rate")):
        table = result.tables[stem].set_index("measure")
        assert list(table.columns) == ["full", "depth 20", "depth 5", "SE depth 20", "SE depth 5"]
        for row in plain.table.itertuples(index=False):
            column = "full" if row.depth == "full" else f"depth {row.depth}"
            assert table.loc[DISPLAY.get(row.measure, row.measure), column] == pytest.approx(
                getattr(row, value), abs=1e-12
            )
        assert (table[["SE depth 20", "SE depth 5"]].to_numpy(dtype=float) == 0).all()
    assert plain.metadata["topics_without_relevant"]["depth 5"] == 1
    manifest = json.loads((tmp_path / "incomplete" / "manifest.json").read_text())
    assert manifest["parameters"]["empty_topics"] == (empty_topics or "skip")
    assert manifest["parameters"]["topics_without_relevant"]["depth 5"] == 1
    assert manifest["n_topics"] == plain.metadata["n_topics"]
    assert [n for n in manifest["notes"] if "depth 5: 1" in n]
    manifest = json.loads((tmp_path / "incomplete" / "manifest.json").read_text())
    assert manifest["parameters"]["depths"] == [5, 20] and "rates" not in manifest["parameters"]
    assert len(manifest["parameters"]["pooled_runs"]) == len(runs)
    assert (
        "the depth-5 pool's relevance data" in (tmp_path / "incomplete" / "summary.txt").read_text()
    )
