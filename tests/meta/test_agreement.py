"""Assessor agreement (irgauge.agreement, irgauge agree) against independent implementations:
scikit-learn's cohen_kappa_score, the krippendorff package, scipy's kendalltau and
ttest_rel, and a direct implementation of Yilmaz et al.'s tau_AP."""

from __future__ import annotations

import json

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from irgauge import agreement
from irgauge.cli import main
from irgauge.errors import InputError
from irgauge.meta import system_agreement as sa
from irgauge.meta.agreement_labels import pair_statistics
from irgauge.meta.agreement_units import join_qrels

from meta_paths import DATA
from tests.conftest import examples

GENERATED = DATA / "ntcireval_generated"
QRELS = GENERATED / "qrels.trec"
RUNS = sorted(str(p) for p in (GENERATED / "runs").glob("run*.trec"))

pytestmark = pytest.mark.skipif(not QRELS.is_file(), reason="shared data not available")


def perturbed(path, seed, share, drop=0.1, negative=False):
    """The shared qrels with a seeded random relabelling of ``share`` of the judgments (and
    ``drop`` of them left out); ``negative``: new labels may be -1 (judged nonrelevant)."""
    rng = np.random.default_rng(seed)
    lines = []
    for line in QRELS.read_text().splitlines():
        topic, _, docno, grade = line.split()
        if rng.random() < drop:
            continue
        if rng.random() < share:
            grade = str(rng.integers(-1 if negative else 0, 4))
        lines.append(f"{topic} 0 {docno} {grade}")
    path.write_text("\n".join(lines) + "\n")
    return str(path)


@pytest.fixture(scope="module")
def qrels(tmp_path_factory):
    folder = tmp_path_factory.mktemp("agree")
    return [
        perturbed(folder / "a.qrels", 1, 0.3),
        perturbed(folder / "b.qrels", 2, 0.3, negative=True),
        perturbed(folder / "c.qrels", 3, 0.5),
    ]


@pytest.fixture(scope="module")
def result(qrels):
    return agreement(qrels, RUNS, samples=300, seed=7)


def value(result, a, b, statistic, measure="-"):
    t = result.table
    row = t[(t.a == a) & (t.b == b) & (t.statistic == statistic) & (t.measure == measure)]
    assert len(row) == 1
    return row.iloc[0]


def grades(paths):
    """{(topic, docno): grade} of each file, read here with plain Python."""
    found = []
    for path in paths:
        with open(path) as f:
            found.append({(p[0], p[2]): int(p[3]) for p in (line.split() for line in f)})
    return found


def test_kappas_match_scikit_learn(qrels, result):
    from sklearn.metrics import cohen_kappa_score

    a, b = grades(qrels[:2])
    shared = sorted(set(a) & set(b))
    ga = np.array([a[k] for k in shared])
    gb = np.array([b[k] for k in shared])
    assert (gb < 0).any()  # negative grades are clipped for the weighted statistics
    ca, cb = np.maximum(ga, 0), np.maximum(gb, 0)
    labels = list(range(0, 4))
    expected = {
        "pairs": len(shared),
        "only_a": len(set(a) - set(b)),
        "only_b": len(set(b) - set(a)),
        "cohen_kappa": cohen_kappa_score(ga >= 1, gb >= 1),
        "weighted_kappa_linear": cohen_kappa_score(ca, cb, weights="linear", labels=labels),
        "weighted_kappa_quadratic": cohen_kappa_score(ca, cb, weights="quadratic", labels=labels),
        "mean_grade_difference": np.mean(cb - ca),
        "a_relevant_b_not": np.mean(gb[ga >= 1] < 1),
        "b_relevant_a_not": np.mean(ga[gb >= 1] < 1),
    }
    for statistic, wanted in expected.items():
        assert value(result, "a.qrels", "b.qrels", statistic).value == pytest.approx(
            wanted, abs=1e-9
        ), statistic
    # binary kappa at another level
    high = agreement(qrels[:2], rel_level=2, samples=10, seed=1)
    assert value(high, "a.qrels", "b.qrels", "cohen_kappa").value == pytest.approx(
        cohen_kappa_score(ga >= 2, gb >= 2), abs=1e-9
    )


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_alpha_matches_krippendorff(qrels, result, level):
    import krippendorff

    found = grades(qrels)
    units = sorted(set().union(*found))
    data = np.array([[max(g.get(u, np.nan), 0) for u in units] for g in found], dtype=float)
    statistic = f"krippendorff_alpha_{level}"
    pair = krippendorff.alpha(reliability_data=data[:2], level_of_measurement=level)
    every = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert value(result, "a.qrels", "b.qrels", statistic).value == pytest.approx(pair, abs=1e-6)
    assert value(result, "all", "all", statistic).value == pytest.approx(every, abs=1e-6)


def yilmaz_tau_ap(reference, estimate):
    """tau_AP of ``estimate`` against ``reference`` (no ties), straight from Yilmaz et al.
    (2008): 2/(n-1) * sum_{i=2..n} C(i)/(i-1) - 1, C(i) the items ranked above item i by the
    estimate that the reference also ranks above it."""
    order = sorted(range(len(estimate)), key=lambda k: -estimate[k])
    total = 0.0
    for i in range(1, len(order)):
        above = order[:i]
        total += sum(reference[j] > reference[order[i]] for j in above) / i
    return 2.0 / (len(order) - 1) * total - 1


def test_tau_ap_matches_yilmaz():
    rng = np.random.default_rng(5)
    x, y = rng.random((40, 9)), rng.random((40, 9))
    found = sa.tau_ap_rows(x, y)
    for r in range(len(x)):
        assert found[r] == pytest.approx(yilmaz_tau_ap(x[r], y[r]), abs=1e-12)


def test_rank_statistics_match_scipy_per_bootstrap_sample():
    from scipy.stats import kendalltau, ttest_rel

    rng = np.random.default_rng(9)
    xa = rng.random((6, 12))
    xb = xa + 0.3 * rng.random((6, 12))
    draws = rng.integers(0, 12, size=(25, 12))
    weights = np.stack([np.bincount(d, minlength=12) for d in draws]).astype(float)
    values = sa.system_statistics(xa, xb, weights)
    mean_a, p_a = sa.pair_pvalues(xa[[0]] - xa[[1]], weights, "t")
    for r, d in enumerate(draws):
        ma, mb = xa[:, d].mean(axis=1), xb[:, d].mean(axis=1)
        assert values["kendall_tau_b"][r] == pytest.approx(kendalltau(ma, mb)[0], abs=1e-9)
        assert values["tau_ap"][r] == pytest.approx(yilmaz_tau_ap(ma, mb), abs=1e-12)
        assert p_a[r, 0] == pytest.approx(ttest_rel(xa[0, d], xa[1, d]).pvalue, rel=1e-9)


def test_corrections_match_scipy_and_statistics():
    from scipy.stats import false_discovery_control

    rng = np.random.default_rng(2)
    p = rng.random((5, 15)) ** 3
    adjusted = sa.adjust_rows(p, "bh")
    for r in range(5):
        assert adjusted[r] == pytest.approx(false_discovery_control(p[r]), abs=1e-12)
    holm = sa.adjust_rows(p, "holm")
    for r in range(5):  # Holm (1979) step-down, written out
        order = np.argsort(p[r])
        expected = np.empty(15)
        running = 0.0
        for rank, k in enumerate(order):
            running = max(running, min(1.0, (15 - rank) * p[r, k]))
            expected[k] = running
        assert holm[r] == pytest.approx(expected, abs=1e-12)


def test_system_statistics_agree_with_scipy_and_compare_pairs(qrels, result):
    from scipy.stats import kendalltau

    systems = result.details["systems"]
    for measure in ("AP", "nDCG@10"):
        part = systems[(systems.a == "a.qrels") & (systems.b == "b.qrels")]
        part = part[part.measure == measure]
        tau = kendalltau(part.mean_a, part.mean_b)[0]
        assert value(result, "a.qrels", "b.qrels", "kendall_tau_b", measure).value == (
            pytest.approx(tau, abs=1e-9)
        )
        assert value(result, "a.qrels", "b.qrels", "tau_ap", measure).value == pytest.approx(
            yilmaz_tau_ap(part.mean_a.to_numpy(), part.mean_b.to_numpy()), abs=1e-12
        )
        change = np.abs(part.rank_a - part.rank_b).max()
        assert value(result, "a.qrels", "b.qrels", "max_rank_change", measure).value == change
        # the table's counts (vectorised t-tests) = the calls from compare_pairs' p-values
        sig = result.details["significance"]
        calls = sig[(sig.a == "a.qrels") & (sig.b == "b.qrels") & (sig.measure == measure)]
        for name in ("sig_both", "sig_a_only", "sig_b_only", "sig_reversed"):
            count = (calls.call == name).sum()
            assert value(result, "a.qrels", "b.qrels", name, measure).value == count


def test_intervals_contain_the_estimate_and_are_reproducible(qrels, result):
    table = result.table
    finite = table.dropna(subset=["low", "high"])
    assert len(finite) > 0.9 * len(table)
    assert ((finite.low <= finite.value + 1e-12) & (finite.value <= finite.high + 1e-12)).all()
    again = agreement(qrels, RUNS, samples=300, seed=7)
    assert again.table.equals(table)
    assert result.parameters["seed"] == 7 and result.parameters["bootstrap_samples"] == 300
    other = agreement(qrels, RUNS, samples=300, seed=8)
    assert not other.table[["low", "high"]].equals(table[["low", "high"]])


def test_label_bootstrap_matches_resampled_topics(qrels):
    """The bootstrap samples are the seeded topic draws: recompute one interval by hand."""
    from sklearn.metrics import cohen_kappa_score

    from irgauge.stats.resampling import bootstrap_indices

    res = agreement(qrels[:2], samples=50, seed=4)
    a, b = grades(qrels[:2])
    topics = sorted({k[0] for k in a} & {k[0] for k in b}, key=int)
    shared = sorted(set(a) & set(b))
    kappas = []
    for draw in bootstrap_indices(len(topics), 50, 4):
        keys = [k for t in draw for k in shared if k[0] == topics[t]]
        kappas.append(cohen_kappa_score([a[k] >= 1 for k in keys], [b[k] >= 1 for k in keys]))
    row = value(res, "a.qrels", "b.qrels", "cohen_kappa")
    assert row.low == pytest.approx(np.percentile(kappas, 2.5), abs=1e-9)
    assert row.high == pytest.approx(np.percentile(kappas, 97.5), abs=1e-9)


def test_cli_formats_and_figures(qrels, tmp_path, capsys):
    base = ["agree", *qrels[:2], "--run", *RUNS[:3], "--run", *RUNS[3:], "-B", "50"]
    assert main(base + ["--seed", "3", "--format", "tsv"]) == 0
    out = capsys.readouterr().out
    assert "# seed: 3" in out
    header = next(line for line in out.splitlines() if not line.startswith("#"))
    assert header.split("\t") == ["a", "b", "measure", "statistic", "value", "low", "high"]
    assert "a.qrels\tb.qrels\tAP\ttau_ap\t" in out
    assert main(base + ["--seed", "3", "--format", "tsv", "--no-header"]) == 0
    assert capsys.readouterr().out.startswith("a\tb\tmeasure")
    assert main(base + ["--seed", "3"]) == 0
    assert "weighted_kappa_quadratic" in capsys.readouterr().out
    figures = tmp_path / "fig"
    assert main(base + ["--seed", "3", "--format", "json", "--figures", str(figures)]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["metadata"]["seed"] == 3
    assert {"confusion", "topic_kappa", "systems", "significance"} <= set(doc["details"])
    for stem in ("agree_confusion", "agree_means", "agree_topic_kappa"):
        for ext in ("pdf", "svg", "png"):
            assert (figures / f"{stem}.{ext}").stat().st_size > 0


def test_bad_input(qrels, tmp_path, capsys):
    assert main(["agree", qrels[0]]) == 2
    assert "at least 2 qrels" in capsys.readouterr().err
    other = tmp_path / "other.qrels"
    other.write_text("999 0 x 1\n998 0 y 0\n")
    with pytest.raises(InputError, match="other.qrels share 0 topic"):
        agreement([qrels[0], str(other)], samples=10, seed=1)
    disjoint = tmp_path / "disjoint.qrels"
    disjoint.write_text("101 0 nowhere 1\n102 0 nowhere 0\n")
    with pytest.raises(InputError, match="no \\(topic, docno\\) pair"):
        agreement([qrels[0], str(disjoint)], samples=10, seed=1)
    letters = tmp_path / "letters.qrels"
    letters.write_text("101 101-d017 S\n102 102-d001 A\n")
    assert main(["agree", qrels[0], str(letters)]) == 2
    assert "letters.qrels" in capsys.readouterr().err
    with pytest.raises(InputError, match="at least 2 runs"):
        agreement(qrels[:2], RUNS[:1], samples=10, seed=1)
    with pytest.raises(InputError, match="choose the test"):
        agreement(qrels[:2], RUNS, test="bootstrap", samples=10, seed=1)


def test_equal_file_names_are_told_apart(qrels, tmp_path):
    copy = tmp_path / "x" / "a.qrels"
    copy.parent.mkdir()
    copy.write_text(open(qrels[0]).read())
    res = agreement([qrels[0], str(copy)], samples=10, seed=1)
    assert res.table.a.iloc[0] != res.table.b.iloc[0]
    assert "qrels_notes" in res.parameters
    assert value(res, res.table.a.iloc[0], res.table.b.iloc[0], "cohen_kappa").value == 1


@st.composite
def judged(draw):
    n = draw(st.integers(6, 30))
    a = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    b = draw(st.lists(st.integers(-1, 3), min_size=n, max_size=n))
    return a, b


def as_qrels(grades):
    """Two topics, documents d0..dn split between them."""
    half = len(grades) // 2
    return {
        str(t): {f"d{k}": g for k, g in enumerate(grades) if (k < half) == (t == 1)} for t in (1, 2)
    }


@settings(max_examples=examples(40), deadline=None)
@given(judged())
def test_properties(pair):
    a, b = pair
    units = join_qrels([as_qrels(a), as_qrels(b), as_qrels(a)], names=["a", "b", "a2"])
    rows, _, note = pair_statistics(units, 0, 2, 1, 5, 1, 0.95)
    assert note is None
    stats = {r["statistic"]: r["value"] for r in rows}
    binary = np.array(a) >= 1
    if 0 < binary.sum() < len(a):  # kappa is 0/0 when every pair is in one class
        assert stats["cohen_kappa"] == pytest.approx(1.0)
    if len(set(max(g, 0) for g in a)) > 1:
        assert stats["krippendorff_alpha_ordinal"] == pytest.approx(1.0)
        assert stats["weighted_kappa_quadratic"] == pytest.approx(1.0)
    ab = {r["statistic"]: r["value"] for r in pair_statistics(units, 0, 1, 1, 5, 1, 0.95)[0]}
    ba = {r["statistic"]: r["value"] for r in pair_statistics(units, 1, 0, 1, 5, 1, 0.95)[0]}
    for name in ("cohen_kappa", "weighted_kappa_linear", "krippendorff_alpha_interval"):
        assert ab[name] == pytest.approx(ba[name], nan_ok=True)
    assert ab["mean_grade_difference"] == pytest.approx(-ba["mean_grade_difference"])
    assert ab["a_relevant_b_not"] == pytest.approx(ba["b_relevant_a_not"], nan_ok=True)


def test_a_pair_sharing_too_little_is_noted_not_fatal(tmp_path, capsys):
    """Nine qrels, two of which share one topic and one of which shares no judged pair with
    another: the other pairs and alpha over all nine are computed as with the pairs left
    out, the thin pairs keep what is defined with NaN intervals, and a note names each."""
    rng = np.random.default_rng(5)
    paths = []
    for k in range(9):
        topics = {0: ["1", "7"], 1: ["1", "8"]}.get(k, ["1", "2", "3", "4"])
        docs = ["x"] if k == 8 else [f"d{d}" for d in range(8)]
        lines = [
            f"{t} 0 {d}{'-only' * (k == 8 and t != '1')} {rng.integers(0, 3)}"
            for t in topics
            for d in docs
        ]
        paths.append(tmp_path / f"q{k}.qrels")
        paths[-1].write_text("\n".join(lines) + "\n")
    res = agreement([str(p) for p in paths], samples=20, seed=1)
    notes = res.parameters["notes"]
    assert "qrels q0.qrels and q1.qrels share 1 topic: intervals NaN" in notes[0]
    row = value(res, "q0.qrels", "q1.qrels", "weighted_kappa_linear")
    assert np.isfinite(row.value) and np.isnan(row.low) and np.isnan(row.high)
    # a pair without a judged pair in common: NaN statistics, named
    assert any("q2.qrels and q8.qrels" in n and "no (topic, docno) pair" in n for n in notes)
    assert np.isnan(value(res, "q2.qrels", "q8.qrels", "cohen_kappa").value)
    # a well-shared pair is as it would be alone
    alone = agreement([str(paths[2]), str(paths[3])], samples=20, seed=1)
    assert value(res, "q2.qrels", "q3.qrels", "cohen_kappa").equals(
        value(alone, "q2.qrels", "q3.qrels", "cohen_kappa")
    )
    assert np.isfinite(value(res, "all", "all", "krippendorff_alpha_ordinal").value)
    assert "q0.qrels and q1.qrels share 1 topic" in repr(res)
    for fmt in ("table", "tsv", "json"):
        assert main(["agree", *map(str, paths), "-B", "20", "--format", fmt]) == 0
        out, err = capsys.readouterr()
        assert "q0.qrels and q1.qrels share 1 topic" in out
        assert "irgauge: note: qrels q0.qrels and q1.qrels share 1 topic" in err
    with pytest.raises(InputError, match="q0.qrels and q8.qrels share 1 topic"):
        agreement([str(paths[0]), str(paths[8])], samples=20, seed=1)


def test_systems_under_a_pair_sharing_one_topic(tmp_path):
    """Ranks are compared on one topic; a paired test needs two, so its calls are NaN, not
    'none significant'."""
    a, b = tmp_path / "a.qrels", tmp_path / "b.qrels"
    # the top documents of runs 1 to 3: each run has its own first-ranked document
    docs = ["101-d228", "101-d148", "101-d146"]
    a.write_text("".join(f"101 0 {d} {int(k == 0)}\n" for k, d in enumerate(docs)))
    b.write_text("".join(f"101 0 {d} {int(k == 1)}\n" for k, d in enumerate(docs)))
    res = agreement([str(a), str(b)], RUNS[:3], samples=20, seed=1)
    assert any("(AP) share 1 topic" in n for n in res.parameters["notes"])
    assert np.isfinite(value(res, "a.qrels", "b.qrels", "kendall_tau_b", "AP").value)
    assert np.isnan(value(res, "a.qrels", "b.qrels", "sig_both", "AP").value)
    assert np.isnan(value(res, "a.qrels", "b.qrels", "kendall_tau_b", "AP").low)


def test_a_block_compares_its_systems_once_a_side(monkeypatch):
    # tau_AP, the ranks and the top system each made their own systems x systems
    # differences for every weighting (ten of 11 MB each at 300 systems, a block of 15)
    made = []
    real = sa._compared
    monkeypatch.setattr(sa, "_compared", lambda v: made.append(v.shape) or real(v))
    rng = np.random.default_rng(9)
    xa = rng.integers(0, 4, size=(7, 12)) / 4  # ties
    xb = xa + rng.integers(0, 2, size=(7, 12)) / 4
    weights = np.stack([np.bincount(d, minlength=12) for d in rng.integers(0, 12, (5, 12))])
    found = sa.system_statistics(xa, xb, weights.astype(float))
    assert made == [(5, 7), (5, 7)]  # one block of 5 weightings, under A and under B
    for r, w in enumerate(weights):
        ma, mb = xa @ w / 12, xb @ w / 12
        ranks = [1 + ((v[None, :] - v[:, None]) > sa.TIE_TOLERANCE).sum(1) for v in (ma, mb)]
        ties = [(np.abs(v[None, :] - v[:, None]) <= sa.TIE_TOLERANCE).sum(1) for v in (ma, mb)]
        average = [k + (t - 1) / 2 for k, t in zip(ranks, ties)]
        assert found["max_rank_change"][r] == np.abs(average[0] - average[1]).max()
        assert found["top_same"][r] == ((ranks[0] == 1) & (ranks[1] == 1)).any()
