"""Topic set size design (Sakai 2016) against independent implementations: the residual
variance against statsmodels' two-way ANOVA, the t-test and ANOVA designs against
statsmodels' power classes (smallest n found by scanning every n), the CI design against a
brute-force loop over scipy.stats.t; then the inverse, bad input and the command."""

import json

import numpy as np
import pytest
from scipy import stats

from irgauge import InputError
from irgauge.cli import main
from irgauge.meta import min_detectable_diff, residual_variance, topic_set_size
from irgauge.meta.topicset import topics_needed
from irgauge.scores import ScoreMatrix, read_scores
from tests.conftest import slow_after

from meta_paths import ADHOC8, URBANO

SIM = URBANO / "sigir2018-simulation"
MATRICES = {  # name -> path of a real score matrix (systems as columns)
    "adhoc8_ap": ADHOC8 / "adhoc8_ap.csv",
    "adhoc8_p10": ADHOC8 / "adhoc8_p10.csv",
    "web2012_ndcg20": SIM / "web2012_ndcg20.csv",
    "robust2003": URBANO / "irj2015-reliability" / "robust2003.csv",
}
N_SCAN = np.arange(2, 12001)  # every n the brute-force scans try


@pytest.fixture(scope="module")
def real():
    if not ADHOC8.is_dir():
        pytest.skip("shared Urbano score matrices not available")
    return {name: read_scores(path, name=name)[name] for name, path in MATRICES.items()}


def first_n(ok) -> int:
    """The first n of N_SCAN where ``ok`` (an array over N_SCAN) holds."""
    hits = np.flatnonzero(ok)
    assert hits.size, "the scan range is too short"
    return int(N_SCAN[hits[0]])


# ------------------------------------------------------------------ variance


@pytest.mark.parametrize("name", slow_after(sorted(MATRICES, key=lambda m: m != "web2012_ndcg20")))
def test_residual_variance_is_statsmodels_two_way_residual_mean_square(real, name):
    import pandas as pd
    import statsmodels.formula.api as smf
    from statsmodels.stats.anova import anova_lm

    matrix = real[name]
    m, n = matrix.values.shape
    frame = pd.DataFrame(
        {
            "score": matrix.values.ravel(),
            "system": np.repeat(np.arange(m), n).astype(str),
            "topic": np.tile(np.arange(n), m).astype(str),
        }
    )
    table = anova_lm(smf.ols("score ~ C(system) + C(topic)", data=frame).fit())
    expected = table.loc["Residual", "mean_sq"]
    assert table.loc["Residual", "df"] == (m - 1) * (n - 1)
    assert residual_variance(matrix) == pytest.approx(expected, rel=1e-9)
    assert residual_variance(matrix.values) == residual_variance(matrix)


# ------------------------------------------------------------------ designs

GRID = [(d, a, b) for d in (0.02, 0.05, 0.1, 0.2) for a in (0.01, 0.05) for b in (0.1, 0.2)]


@pytest.mark.parametrize("name", slow_after(["adhoc8_ap", "adhoc8_p10", "web2012_ndcg20"]))
def test_ttest_design_is_the_first_n_where_statsmodels_power_reaches_1_minus_beta(real, name):
    """TTestPower's effect size is D / sigma_t with sigma_t^2 = 2 V_E; nobs = n topics."""
    from statsmodels.stats.power import TTestPower

    variance = residual_variance(real[name])
    sigma = np.sqrt(2 * variance)
    for d, alpha, beta in GRID:
        power = TTestPower().power(d / sigma, nobs=N_SCAN, alpha=alpha, alternative="two-sided")
        expected = first_n(power >= 1 - beta)
        assert topics_needed(variance, "ttest", d, alpha=alpha, beta=beta) == expected, (d, alpha)
    # vectorised over D: the same numbers
    diffs = np.array([d for d, _, _ in GRID[::4]])
    assert list(topics_needed(variance, "ttest", diffs)) == [
        topics_needed(variance, "ttest", d) for d in diffs
    ]


@pytest.mark.parametrize("name", ["adhoc8_ap", "robust2003"])
@pytest.mark.parametrize("systems", slow_after([2, 5, 10]))
def test_anova_design_is_the_first_n_where_statsmodels_ftest_power_reaches_1_minus_beta(
    real, name, systems
):
    """FTestAnovaPower.power(f, nobs, alpha, k_groups) takes Cohen's f and the total number
    of observations nobs = M n; it uses df = (M - 1, nobs - M) = (M - 1, M (n - 1)) and
    noncentrality f^2 nobs. Sakai's lambda = n D^2 / (2 V_E) equals f^2 M n when
    f^2 = D^2 / (2 M V_E), i.e. f = D / sqrt(2 M V_E)."""
    from statsmodels.stats.power import FTestAnovaPower

    variance = residual_variance(real[name])
    for d, alpha, beta in GRID:
        f = d / np.sqrt(2 * systems * variance)
        power = FTestAnovaPower().power(f, nobs=systems * N_SCAN, alpha=alpha, k_groups=systems)
        expected = first_n(power >= 1 - beta)
        got = topics_needed(variance, "anova", d, alpha=alpha, beta=beta, anova_systems=systems)
        assert got == expected, (d, alpha, beta)


@pytest.mark.parametrize("name", ["adhoc8_ap", "web2012_ndcg20"])
def test_ci_design_against_a_brute_force_loop(real, name):
    variance = residual_variance(real[name])
    sigma = np.sqrt(2 * variance)
    for width in (0.02, 0.05, 0.1, 0.3):
        for alpha in (0.01, 0.05):
            n = 2
            while 2 * stats.t.ppf(1 - alpha / 2, n - 1) * sigma / np.sqrt(n) > width:
                n += 1
            assert topics_needed(variance, "ci", ci_width=width, alpha=alpha) == n


# ------------------------------------------------------------------ the inverse


@pytest.mark.parametrize("name", ["adhoc8_ap", "robust2003"])
def test_min_detectable_diff_is_the_threshold_of_the_design(real, name):
    from statsmodels.stats.power import TTestPower

    matrix = real[name]
    variance, n = residual_variance(matrix), matrix.n_topics
    for design, systems in (("ttest", 2), ("anova", 2), ("anova", 10)):
        for alpha, beta in ((0.05, 0.2), (0.01, 0.1)):
            d = min_detectable_diff(variance, n, design, alpha, beta, systems)
            assert (
                topics_needed(variance, design, d, alpha=alpha, beta=beta, anova_systems=systems)
                <= n
            )
            smaller = d * (1 - 1e-6)
            assert (
                topics_needed(
                    variance, design, smaller, alpha=alpha, beta=beta, anova_systems=systems
                )
                > n
            )
    effect = TTestPower().solve_power(nobs=n, alpha=0.05, power=0.8, alternative="two-sided")
    d = min_detectable_diff(variance, n)
    sigma = np.sqrt(2 * variance)
    assert d == pytest.approx(effect * sigma, rel=1e-4)  # solve_power: brentq's tolerance
    # statsmodels' power (scipy's noncentral t) is exact to about 1e-15 here: the threshold
    # lies between d (1 - 1e-9) and d (1 + 1e-9)
    effects = np.array([d * (1 + 1e-9), d * (1 - 1e-9)]) / sigma
    power = TTestPower().power(effects, nobs=n, alpha=0.05)
    assert power[0] >= 0.8 > power[1]


def test_topic_set_size_table_matches_the_functions(real):
    matrix = real["adhoc8_ap"]
    result = topic_set_size({"ap": matrix}, 0.05, ci_width=0.1, anova_systems=5)
    table = result.table
    assert list(table.columns) == ["design", "measure", "statistic", "value"]
    value = {(r.design, r.statistic): r.value for r in table.itertuples()}
    variance = residual_variance(matrix)
    assert value[("all", "variance")] == variance
    assert value[("ttest", "n_topics")] == topics_needed(variance, "ttest", 0.05)
    assert value[("anova", "n_topics")] == topics_needed(variance, "anova", 0.05, anova_systems=5)
    assert value[("ci", "n_topics")] == topics_needed(variance, "ci", ci_width=0.1)
    assert value[("anova", "min_detectable_diff")] == min_detectable_diff(
        variance, 50, "anova", anova_systems=5
    )
    sigma = np.sqrt(2 * variance)
    # scipy's two-sided 95% t quantile on 50 - 1 degrees of freedom
    assert value[("ci", "ci_width")] == pytest.approx(
        2 * stats.t.ppf(0.975, 49) * sigma / np.sqrt(50), rel=1e-12
    )
    assert isinstance(value[("ttest", "n_topics")], int)
    p = result.parameters
    assert (p["alpha"], p["beta"], p["anova_systems"], p["min_diff"]) == (0.05, 0.2, 5, 0.05)
    assert result.topics == matrix.topics and result.systems == matrix.systems
    # a wide DataFrame (topics x systems) and measure selection
    wide = table_frame(matrix)
    again = topic_set_size(wide, 0.05, ci_width=0.1, anova_systems=5, measure="ap")
    assert again.table.equals(table)


def table_frame(matrix):
    import pandas as pd

    return pd.DataFrame(matrix.values.T, index=matrix.topics, columns=matrix.systems)


# ------------------------------------------------------------------ one search, many designs

EVERY = [("ttest", a, b, 2) for a in (0.01, 0.05, 1e-6) for b in (0.1, 0.5)] + [
    ("anova", a, b, m) for m in (2, 3, 10) for a in (0.01, 0.05, 1e-6) for b in (0.1, 0.5)
]
SOME = [EVERY[1], EVERY[4], EVERY[6], EVERY[15], EVERY[23]]  # each df1, alpha and beta


# residual variances V_E given to the search (inputs, not expected values)
QUICK_VARIANCES, WIDE_VARIANCES = [0.0064, 3e-5], [0.2, 1e-300, 0.0144]


@pytest.mark.parametrize(
    "variances, designs",
    slow_after([(QUICK_VARIANCES, SOME), (WIDE_VARIANCES, EVERY)], 1),
)
def test_one_search_gives_every_design_and_variance_its_own_answer(variances, designs):
    """Each element of one topics_needed call over arrays keeps its own V_E, D, alpha,
    beta and degrees of freedom: its n is the one topics_needed gives for its design
    alone."""
    from irgauge.report.topicset_figures import difference_grid

    diffs = np.array([difference_grid(v, 0.05)[::6] for v in variances])
    design, alpha, beta, m = (np.array(values)[:, None, None] for values in zip(*designs))
    found = topics_needed(np.array(variances)[:, None], design, diffs, None, alpha, beta, m)
    assert found.shape == (len(designs),) + diffs.shape and found.dtype == np.int64
    for (design, alpha, beta, m), n in zip(designs, found):
        for row, variance in enumerate(variances):
            alone = topics_needed(variance, design, diffs[row], None, alpha, beta, m)
            assert np.array_equal(n[row], alone), (design, alpha, beta, m, variance)


def test_the_interval_and_the_tests_in_one_call():
    """ci elements take ci_width and alpha, the tests' elements min_diff, beta and M, in
    one call; each is the number of its own scalar call, an int as a scalar call gives."""
    variances = np.array([0.0064, 0.0144, 0.03])
    designs = np.array(["ttest", "ci", "anova", "ci"])[:, None]
    alphas = np.array([0.05, 0.01, 0.01, 0.05])[:, None]
    found = topics_needed(variances, designs, 0.05, 0.1, alphas, 0.2, 4)
    assert found.shape == (4, 3)
    for (design,), (alpha,), row in zip(designs, alphas, found):
        for variance, n in zip(variances, row):
            alone = topics_needed(float(variance), str(design), 0.05, 0.1, float(alpha), 0.2, 4)
            assert isinstance(alone, int) and n == alone, (design, alpha, variance)


def test_the_figure_draws_every_line_of_every_measure_from_one_search(monkeypatch, tmp_path):
    """The figure's lines (here 2 measures x 3) are one search, each line the numbers of
    one topics_needed call."""
    from irgauge.meta import topicset
    from irgauge.report import style, topicset_figures

    searches = []
    search = topicset._smallest_n
    monkeypatch.setattr(topicset, "_smallest_n", lambda *a: searches.append(a) or search(*a))
    drawn = []
    monkeypatch.setattr(style, "line", lambda ax, x, y, index, label, **o: drawn.append((x, y)))
    monkeypatch.setattr(style, "save", lambda fig, directory, stem: [])
    variances = {"AP": 0.0064, "nDCG": 0.0144}
    lines = [("ttest", 0.05, 0.2, 2), ("anova", 0.05, 0.2, 2), ("anova", 0.05, 0.2, 4)]
    topicset_figures.topic_set_curves(
        variances, 50, tmp_path, min_diff=0.05, alphas=(0.05,), betas=(0.2,), anova_systems=(2, 4)
    )
    assert len(searches) == 1 and len(drawn) == 2 * len(lines)
    wanted = [(v, line) for v in variances.values() for line in lines]
    for (variance, (design, alpha, beta, m)), (x, y) in zip(wanted, drawn):
        assert np.array_equal(x, topicset_figures.difference_grid(variance, 0.05))
        assert np.array_equal(y, topics_needed(variance, design, x, None, alpha, beta, m))


def test_the_table_and_the_bootstrap_search_both_tests_at_once(monkeypatch):
    """topic_set_size's t-test, ANOVA and interval n of every measure are one search, as
    are the study's over every resample."""
    from irgauge.meta import topicset
    from irgauge.studies.topic_set_design import TopicsetOptions, bootstrap_sizes

    searches = []
    search = topicset._smallest_n
    monkeypatch.setattr(topicset, "_smallest_n", lambda *a: searches.append(a) or search(*a))
    matrices = {"a": _matrix(4, 12, seed=1), "b": _matrix(4, 12, seed=2)}
    table = topic_set_size(matrices, 0.3, anova_systems=3).table
    assert len(searches) == 1
    for name, matrix in matrices.items():
        variance = residual_variance(matrix)
        for design, m in (("ttest", 2), ("anova", 3)):
            row = table[(table.measure == name) & (table.design == design)]
            n = row[row.statistic == "n_topics"].value.item()
            assert n == topics_needed(variance, design, 0.3, anova_systems=m)
    searches.clear()
    values = np.stack([m.values for m in matrices.values()])
    options = TopicsetOptions(0.3, 0.05, 0.2, 3, 0.2, 20, 1, None, None, "AP", None, None)
    sizes = bootstrap_sizes(values, options, 20, 1)
    assert len(searches) == 1 and sizes["anova"].shape == (20, 2)


def test_one_search_refuses_what_topics_needed_refuses():
    with pytest.raises(InputError, match="^ci_width: "):
        topics_needed(0.01, ["ttest", "ci"], 0.05)
    with pytest.raises(InputError, match="1 - beta"):
        topics_needed(0.01, ["ttest", "anova"], 0.05, None, [0.05, 0.5], [0.2, 0.6], 3)
    with pytest.raises(InputError, match="^anova_systems: "):
        topics_needed(0.01, ["ttest", "anova"], 0.05, anova_systems=[2, 1])
    with pytest.raises(InputError, match="^min_diff: "):
        topics_needed(0.01, "ttest", [0.05, -1.0])
    with pytest.raises(InputError, match="^design: "):
        topics_needed(0.01, ["ttest", "ztest"], 0.05)
    # M is a t-test's own 2 (M = 1 is refused only where a design is the ANOVA), and a
    # power design's beta is not asked of an interval
    assert topics_needed(0.01, "ttest", 0.05, anova_systems=1) == topics_needed(0.01, "ttest", 0.05)
    assert topics_needed(0.01, "ci", ci_width=0.1, beta=2.0) == topics_needed(0.01, "ci", None, 0.1)


# ------------------------------------------------------------------ bad input


def _matrix(systems=3, topics=5, seed=0):
    values = np.random.default_rng(seed).random((systems, topics))
    return ScoreMatrix(
        values, [f"s{i}" for i in range(systems)], list(map(str, range(topics))), "x"
    )


@pytest.mark.parametrize(
    "kwargs, words",
    [
        ({"min_diff": 0}, "min_diff"),
        ({"min_diff": -0.1}, "min_diff"),
        ({"min_diff": float("nan")}, "min_diff"),
        ({"alpha": 0}, "alpha"),
        ({"alpha": 1}, "alpha"),
        ({"beta": 0}, "beta"),
        ({"beta": 1.0}, "beta"),
        ({"alpha": 0.5, "beta": 0.6}, "1 - beta"),
        ({"anova_systems": 1}, "anova_systems"),
        ({"anova_systems": 2.5}, "anova_systems"),
        ({"ci_width": 0}, "ci_width"),
        ({"ci_width": -1}, "ci_width"),
    ],
)
def test_bad_parameters_raise_input_error(kwargs, words):
    args = {"min_diff": 0.1, **kwargs}
    with pytest.raises(InputError, match=words):
        topic_set_size(_matrix(), **args)


def test_bad_matrices_raise_input_error():
    with pytest.raises(InputError, match="at least 2"):
        topic_set_size(_matrix(systems=1), 0.1)
    with pytest.raises(InputError, match="at least 2 topics"):
        topic_set_size(_matrix(topics=1), 0.1)
    with pytest.raises(InputError, match="at least 2 systems"):
        residual_variance(np.ones((1, 4)))
    with pytest.raises(InputError, match="at least 2 topics"):
        residual_variance(np.ones((4, 1)))
    additive = np.add.outer(np.arange(3.0), np.arange(4.0))  # no interaction: V_E = 0
    with pytest.raises(InputError, match="residual variance is 0"):
        topic_set_size(ScoreMatrix(additive, list("abc"), list("1234"), "x"), 0.1)
    with pytest.raises(InputError, match="no scores for measure"):
        topic_set_size({"x": _matrix()}, 0.1, measure="AP")
    with pytest.raises(InputError, match="design"):
        topics_needed(0.01, "ztest", 0.1)
    with pytest.raises(InputError, match="n_topics"):
        min_detectable_diff(0.01, 1)
    with pytest.raises(InputError, match="min_diff"):
        topics_needed(0.01, "ttest", "abc")
    with pytest.raises(InputError, match="more than 9007199254740992 topics"):
        topics_needed(0.01, "ttest", 1e-12)  # about 1e22 topics: beyond 2^53


# ------------------------------------------------------------------ command line


@pytest.fixture(scope="module")
def files():
    if not ADHOC8.is_dir():
        pytest.skip("shared data not available")
    return [f"{m}={ADHOC8 / f'adhoc8_{m}.csv'}" for m in ("ap", "p10")]


def test_cli_tsv_json_and_table_agree_with_the_api(capsys, files, real):
    argv = ["topics", *files, "-m", "ap,p10", "--min-diff", "0.05", "--ci-width", "0.1"]
    assert main(argv + ["--format", "tsv", "--systems", "10", "--beta", "0.1"]) == 0
    lines = capsys.readouterr().out.splitlines()
    assert "# method: topic_set_size" in lines and "# anova_systems: 10" in lines
    body = [line.split("\t") for line in lines if not line.startswith("#")]
    assert body[0] == ["design", "measure", "statistic", "value"]
    api = topic_set_size(
        {"ap": real["adhoc8_ap"], "p10": real["adhoc8_p10"]},
        0.05,
        beta=0.1,
        anova_systems=10,
        ci_width=0.1,
    ).columns()
    assert [row[:3] for row in body[1:]] == [
        list(t) for t in zip(api["design"], api["measure"], api["statistic"])
    ]
    assert [float(row[3]) for row in body[1:]] == [float(v) for v in api["value"]]
    assert main(argv + ["--format", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["metadata"]["n_topics"] == 50 and out["metadata"]["alpha"] == 0.05
    n = [r["value"] for r in out["results"] if r["statistic"] == "n_topics"]
    assert n and all(isinstance(v, int) for v in n)
    assert main(argv + ["--no-header"]) == 0
    text = capsys.readouterr().out
    assert text.split()[:4] == ["design", "measure", "statistic", "value"]
    assert "min_detectable_diff" in text


@pytest.mark.slow  # seconds a figure; the report tests' quick fixture draws it too
def test_cli_writes_the_figure(capsys, files, tmp_path):
    argv = ["topics", files[0], "--min-diff", "0.05", "--top-k", "30", "--figures", str(tmp_path)]
    assert main(argv + ["-o", str(tmp_path / "out.tsv"), "--format", "tsv"]) == 0
    assert (tmp_path / "out.tsv").read_text().startswith("# method: topic_set_size")
    for ext in ("pdf", "svg", "png"):
        assert (tmp_path / f"topic_set_size.{ext}").stat().st_size > 1000


@pytest.mark.parametrize(
    "extra",
    [
        ["--min-diff", "0"],
        ["--min-diff", "-1"],
        ["--min-diff", "0.1", "--alpha", "1"],
        ["--min-diff", "0.1", "--beta", "0"],
        ["--min-diff", "0.1", "--systems", "1"],
        ["--min-diff", "0.1", "--ci-width", "0"],
        ["--min-diff", "0.1", "--top-k", "1"],
        ["--min-diff", "0.1", "--alpha", "0.9"],
        [],
    ],
)
def test_cli_bad_input_exits_2(capsys, files, extra):
    with pytest.raises(SystemExit) as stop:
        code = main(["topics", files[0], *extra])
        raise SystemExit(code)
    assert stop.value.code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert err and "error" in err[-1]


def test_arrays_that_do_not_broadcast_are_refused_naming_them():
    """Arrays of the arguments whose shapes do not broadcast are refused as bad input
    (an InputError naming the arguments' shapes), not numpy's ValueError."""
    with pytest.raises(InputError, match=r"do not broadcast.*variance \(2,\).*min_diff \(3,\)"):
        topics_needed(np.array([0.01, 0.02]), "ttest", np.array([0.05, 0.1, 0.2]))
    with pytest.raises(InputError, match=r"design \(2,\).*ci_width \(3,\)"):
        topics_needed(0.01, np.array(["ci", "ci"]), None, np.array([0.1, 0.2, 0.3]))
