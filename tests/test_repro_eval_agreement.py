"""irgauge.reproducibility against repro_eval 0.5.0 (Breuer et al.'s own package), on a
real TREC run (trec_eval's test run, topics 301-303) and on generated runs with ties.

repro_eval is run its own way end to end: its run reader and tie breaking, its scores
(ir_measures over pytrec_eval), its statistics. Where the definitions agree the numbers
agree: RBO_min, RMSE, nRMSE, ARP, ER, Delta RI and the reproduction's paired t-test.
Where they differ, a test below names the cause:

* KTU: repro_eval sorts the union of the two lists by docno and correlates the docno
  positions of the two lists rank by rank, so two disjoint lists score +1 and the value
  depends on how the documents are named; irgauge ranks the union by each list (a
  document missing from a list tied below it, Breuer et al.'s definition). The two agree
  where both lists hold the same documents and the original lists them in docno order.
* RBO: repro_eval's value is RBO_min (the overlap seen, none beyond the lists' ends);
  irgauge's RBO is Webber et al.'s extrapolation, with RBO_min and RBO_max as bounds.
* p-values of a replication: repro_eval uses Student's unpaired t-test (equal
  variances); irgauge Welch's, as the two collections' topic samples differ.
"""

from __future__ import annotations

import copy
from pathlib import Path

import numpy as np
import pytest


repro_eval = pytest.importorskip("repro_eval")
from repro_eval.measure import document_order as ro  # noqa: E402
from repro_eval.measure import effectiveness as rf  # noqa: E402
from repro_eval.measure import overall_effects as rx  # noqa: E402
from repro_eval.measure import statistics as rs  # noqa: E402
from repro_eval import util as ru  # noqa: E402

import irgauge  # noqa: E402
from irgauge.cli import main  # noqa: E402

TREC = Path(__file__).resolve().parents[1].parent / "shared" / "data" / "trec_eval_tests"
MEASURES = ["AP", "P@10"]
ROLES = ("baseline", "advanced")


def write_run(path: Path, rows, tag: str) -> Path:
    """A TREC run sorted by score descending, tied documents in ascending docno order (not
    trec_eval's): both tools must reorder the ties."""
    rows = sorted(rows, key=lambda r: (r[0], -r[2], r[1]))
    path.write_text("".join(f"{t} Q0 {d} {i} {s:.6f} {tag}\n" for i, (t, d, s) in enumerate(rows)))
    return path


def read_rows(path: Path):
    return [(t, d, float(s)) for t, _, d, _, s, _ in (line.split() for line in open(path))]


def noisy(rows, seed: int, spread: float, decimals: int):
    """The run's documents with noise on their scores, rounded to make ties."""
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, spread, len(rows))
    return [(t, d, round(s + e, decimals)) for (t, d, s), e in zip(rows, noise)]


@pytest.fixture(scope="module")
def real(tmp_path_factory):
    """trec_eval's test run (real TREC runs of topics 301-303) as the original baseline,
    and three noisy, tied copies as the original advanced and the repeated pair."""
    folder = tmp_path_factory.mktemp("real")
    rows = read_rows(TREC / "results.test")
    runs = [write_run(folder / "orig_b.run", rows, "orig_b")]
    for k, name in enumerate(("orig_a", "rep_b", "rep_a")):
        runs.append(write_run(folder / f"{name}.run", noisy(rows, k, 0.3 + 0.2 * k, 1), name))
    return TREC / "qrels.test", runs


@pytest.fixture(scope="module")
def generated(tmp_path_factory):
    """A generated collection of 25 topics whose runs all hold ties (every run rounded)."""
    folder = tmp_path_factory.mktemp("generated")
    argv = ["simulate", "--out", str(folder / "c"), "--topics", "25", "--runs", "4"]
    argv += ["--depth", "60", "--tie-fraction", "1", "--tie-decimals", "1", "--seed", "3"]
    assert main(argv + ["--quiet"]) == 0
    runs = sorted((folder / "c" / "runs").glob("*.run"))
    names = ("orig_b", "orig_a", "rep_b", "rep_a")
    return folder / "c" / "qrels.txt", [
        write_run(folder / f"{n}.run", read_rows(r), n) for n, r in zip(names, runs)
    ]


def theirs(qrels, runs):
    """repro_eval's runs (its reader and tie breaking) and scores (its evaluation)."""
    import ir_measures

    loaded = [ru.break_ties(ru.load_run(str(r))) for r in runs]
    measures = [ir_measures.parse_measure(m) for m in MEASURES]
    judged = ru.load_qrels(str(qrels))
    return loaded, [ru.evaluate_run(measures, judged, copy.deepcopy(r)) for r in loaded]


def ours(qrels, runs, **options):
    result = irgauge.reproducibility(
        qrels, runs[:2], runs[2:], MEASURES, samples=50, seed=1, **options
    )
    table = result.table
    return {
        (row.run, row.measure, row.statistic, row.cutoff): row.value
        for row in table.itertuples(index=False)
    }


def trimmed(run, k):
    run = copy.deepcopy(run)
    ru.trim_run(run, k)
    return run


@pytest.mark.parametrize("data", ["real", "generated"])
def test_the_score_statistics_agree(data, request):
    qrels, runs = request.getfixturevalue(data)
    mine = ours(qrels, runs)
    _, (ob, oa, rb, ra) = theirs(qrels, runs)
    for role, o, r in (("baseline", ob, rb), ("advanced", oa, ra)):
        rmse, nrmse = rf.RMSE(o, r), rf.nRMSE(o, r)
        pvalues = rs.ttest(o, r, rpd=True)
        for m in MEASURES:
            if np.isnan(pvalues[m]):
                # repro_eval: scipy's NaN for identical scores (it sets 1 only when every
                # measure is NaN and all scores are equal); irgauge: p = 1 where the means
                # tie, as every test of irgauge
                assert [o[t][m] for t in o] == [r[t][m] for t in o]
                pvalues[m] = 1.0
            assert mine[(role, m, "RMSE", "")] == pytest.approx(rmse[m], abs=1e-9)
            assert mine[(role, m, "nRMSE", "")] == pytest.approx(nrmse[m], abs=1e-9)
            assert mine[(role, m, "ARP_original", "")] == pytest.approx(ru.arp_scores(o)[m])
            assert mine[(role, m, "ARP_repeated", "")] == pytest.approx(ru.arp_scores(r)[m])
            assert mine[(role, m, "p", "")] == pytest.approx(pvalues[m], rel=1e-7)
    er, dri = rx.ER(oa, ob, ra, rb), rx.DRI(oa, ob, ra, rb)
    for m in MEASURES:
        assert mine[("both", m, "ER", "")] == pytest.approx(er[m], rel=1e-9)
        assert mine[("both", m, "DeltaRI", "")] == pytest.approx(dri[m], abs=1e-9)


@pytest.mark.parametrize("data", ["real", "generated"])
def test_rbo_min_is_repro_evals_rbo(data, request):
    """repro_eval's RBO sums the overlap seen to a depth of 1000 and normalises by the
    weights summed: the RBO_min of the two lists cut at k (to 1e-9: p^1000 is 5e-23)."""
    qrels, runs = request.getfixturevalue(data)
    mine = ours(qrels, runs, cutoffs=[5, 20, 100], rbo_p=0.9)
    (ob, oa, rb, ra), _ = theirs(qrels, runs)
    for role, o, r in (("baseline", ob, rb), ("advanced", oa, ra)):
        for k in (5, 20, 100):
            found = ro.RBO(trimmed(o, k), trimmed(r, k), p=0.9, depth=1000, pbar=False,
                           per_topic=False)  # fmt: skip
            assert mine[(role, "", "RBO_min", k)] == pytest.approx(found, abs=1e-9)
            assert mine[(role, "", "RBO_min", k)] <= mine[(role, "", "RBO", k)] + 1e-12
            assert mine[(role, "", "RBO", k)] <= mine[(role, "", "RBO_max", k)] + 1e-12


def union_ktu(original, repeated, k):
    """KTU by its definition, independently: scipy's tau_b over the union of the top-k
    lists in repro_eval's document order, a missing document ranked |list| + 1."""
    from scipy.stats import kendalltau

    values = []
    for topic in original:
        a, b = list(original[topic])[:k], list(repeated[topic])[:k]
        union = list(dict.fromkeys(a + b))
        ra = [a.index(d) + 1 if d in a else len(a) + 1 for d in union]
        rb = [b.index(d) + 1 if d in b else len(b) + 1 for d in union]
        values.append(kendalltau(ra, rb).statistic)
    return float(np.mean(values))


@pytest.mark.parametrize("data", ["real", "generated"])
def test_ktu_follows_the_definition_in_repro_evals_document_order(data, request):
    qrels, runs = request.getfixturevalue(data)
    mine = ours(qrels, runs, cutoffs=[5, 20, 100])
    (ob, oa, rb, ra), _ = theirs(qrels, runs)
    for role, o, r in (("baseline", ob, rb), ("advanced", oa, ra)):
        for k in (5, 20, 100):
            assert mine[(role, "", "KTU", k)] == pytest.approx(union_ktu(o, r, k), abs=1e-12)


def same_documents(tmp_path, names):
    """Per topic, the real run's top 30 documents twice: the original ranks them in docno
    order, the repeated by the run's own scores (``names`` renames the documents)."""
    rows = read_rows(TREC / "results.test")
    original, repeated = [], []
    for topic in ("301", "302", "303"):
        # trec_eval's order of the real run; scores by rank, so that no renaming reorders ties
        top = sorted((r for r in rows if r[0] == topic), key=lambda r: (-r[2], r[1]))[:30]
        ordered = sorted(top, key=lambda r: names(r[1]))
        original += [(topic, names(d), 100.0 - i) for i, (_, d, _) in enumerate(ordered)]
        repeated += [(topic, names(d), 100.0 - i) for i, (_, d, _) in enumerate(top)]
    return (
        write_run(tmp_path / "o.run", original, "o"),
        write_run(tmp_path / "r.run", repeated, "r"),
    )


def test_ktu_agrees_where_the_lists_hold_the_same_documents_in_docno_order(tmp_path):
    o, r = same_documents(tmp_path, lambda d: d)
    mine = irgauge.reproducibility(TREC / "qrels.test", o, r, ["P@10"], samples=20, seed=1,
                                   cutoffs=[30])  # fmt: skip
    ktu = mine.table.query("statistic == 'KTU'")["value"].iloc[0]
    (lo, lr), _ = theirs(TREC / "qrels.test", [o, r])
    assert ktu == pytest.approx(ro.KTU(lo, lr, trim_thresh=30), abs=1e-12)


def test_ktu_differs_where_repro_eval_correlates_docno_positions(tmp_path):
    """The cause of the difference: renaming the documents (shuffling their docno order)
    changes repro_eval's KTU, not irgauge's; and two disjoint lists, which share no
    document, score +1 in repro_eval where irgauge gives -2k / (3k - 1)."""
    o, r = same_documents(tmp_path, lambda d: d)
    (lo, lr), _ = theirs(TREC / "qrels.test", [o, r])
    folder = tmp_path / "renamed"
    folder.mkdir()
    docnos = sorted({d for _, d, _ in read_rows(o)})
    shuffled = np.random.default_rng(5).permutation(len(docnos))
    flip = {d: f"D{int(n):03d}" for d, n in zip(docnos, shuffled)}
    renamed = []
    for path in (o, r):
        rows = [(t, flip[d], s) for t, d, s in read_rows(path)]
        renamed.append(write_run(folder / path.name, rows, path.stem))
    (no, nr), _ = theirs(TREC / "qrels.test", renamed)
    assert ro.KTU(no, nr, trim_thresh=30) != pytest.approx(ro.KTU(lo, lr, trim_thresh=30))
    values = []
    for pair in ([o, r], renamed):
        table = irgauge.reproducibility(TREC / "qrels.test", pair[0], pair[1], ["P@10"],
                                        samples=20, seed=1, cutoffs=[30]).table  # fmt: skip
        values.append(table.query("statistic == 'KTU'")["value"].iloc[0])
    assert values[0] == pytest.approx(values[1], abs=1e-12)
    k = 10
    topics = ("301", "302")
    first = [(t, f"a{t}{i:02d}", 50.0 - i) for t in topics for i in range(k)]
    second = [(t, f"b{t}{i:02d}", 50.0 - i) for t in topics for i in range(k)]
    disjoint_o = write_run(tmp_path / "do.run", first, "o")
    disjoint_r = write_run(tmp_path / "dr.run", second, "r")
    (do, dr), _ = theirs(TREC / "qrels.test", [disjoint_o, disjoint_r])
    assert ro.KTU(do, dr, trim_thresh=k) == 1.0
    qrels = tmp_path / "one.qrels"
    qrels.write_text("".join(f"{t} 0 a{t}00 1\n{t} 0 b{t}01 1\n" for t in topics))
    table = irgauge.reproducibility(qrels, disjoint_o, disjoint_r, ["P@10"], samples=20,
                                    seed=1, cutoffs=[k]).table  # fmt: skip
    assert table.query("statistic == 'KTU'")["value"].iloc[0] == pytest.approx(-2 * k / (3 * k - 1))


def test_a_replications_p_values_are_welchs_where_repro_evals_are_students(real, generated):
    """Replication: the original pair on the real run's collection, the repeated pair on
    the generated one (3 and 25 topics). ER, Delta RI and ARP agree; the p-values differ
    by the test: repro_eval's is scipy's Student t-test, irgauge's Welch's."""
    from scipy.stats import ttest_ind

    (qrels_o, runs_o), (qrels_r, runs_r) = real, generated
    result = irgauge.reproducibility(qrels_o, runs_o[:2], runs_r[2:], MEASURES,
                                     repeated_qrels=qrels_r, samples=50, seed=1)  # fmt: skip
    mine = {(r.run, r.measure, r.statistic): r.value for r in result.table.itertuples()}
    _, (ob, oa) = theirs(qrels_o, runs_o[:2])
    _, (rb, ra) = theirs(qrels_r, runs_r[2:])
    er, dri = rx.ER(oa, ob, ra, rb), rx.DRI(oa, ob, ra, rb)
    for m in MEASURES:
        assert mine[("both", m, "ER")] == pytest.approx(er[m], rel=1e-9)
        assert mine[("both", m, "DeltaRI")] == pytest.approx(dri[m], abs=1e-9)
        for role, o, r in (("baseline", ob, rb), ("advanced", oa, ra)):
            x = [o[t][m] for t in o]
            y = [r[t][m] for t in r]
            student = rs.ttest(o, r, rpd=False)[m]
            assert student == pytest.approx(ttest_ind(x, y).pvalue)
            assert mine[(role, m, "p")] == pytest.approx(ttest_ind(x, y, equal_var=False).pvalue)
            assert mine[(role, m, "p")] != pytest.approx(student)
