"""Leave-one-group-out rescoring and the reusability study, against a plain recomputation:
reduced qrels materialised group by group from a plain-Python pool, each scored by
irgauge.evaluate."""

from pathlib import Path

import numpy as np
import pandas as pd
import pytest

from irgauge.evaluation import evaluate
from irgauge.evaluation.leave_out import leave_out_scores
from irgauge.errors import InputError
from tests.studies.conftest import write_runs

from test_depth_pool import GENERATED, GENERATED_RUNS, REAL_RUNS, TREC, needs_data, plain_pool

MEASURES = ["AP", "AP'", "bpref", "infAP", "Q-measure'", "nDCG@10", "P@5"]


def plain_reduced(qrels, runs, depth, groups):
    """{group: the qrels lines it keeps}: a judged document is dropped for group g when
    every run that has it in its top ``depth`` belongs to g."""
    pool = plain_pool(runs, depth)
    lines = [line for line in Path(qrels).read_bytes().splitlines() if line.split()]
    kept = {}
    for g in dict.fromkeys(groups):
        mine = {k for k, name in enumerate(groups) if name == g}
        kept[g] = []
        for line in lines:
            topic, _, docno, _ = line.split()
            found = pool.get((topic.decode(), docno))
            if found is None or not found[1] <= mine:
                kept[g].append(line)
    return kept


def evaluated(qrels_path, runs, topics, measures):
    """measure -> runs x topics by irgauge.evaluate (a topic it leaves out, having no
    relevant document, scores 0)."""
    result = evaluate(str(qrels_path), [str(r) for r in runs], measures, complete=True)
    frame = result.per_topic
    out = {}
    names = list(dict.fromkeys(frame["run"]))
    for m in measures:
        part = frame[frame["measure"] == m].pivot(index="run", columns="topic", values="value")
        out[m] = part.reindex(index=names, columns=topics).fillna(0.0).to_numpy()
    return out


@needs_data
@pytest.mark.parametrize(
    "qrels, runs, groups, depth",
    [
        (GENERATED / "qrels.trec", GENERATED_RUNS, None, 10),
        (GENERATED / "qrels.trec", GENERATED_RUNS, ["a", "b", "a", "c", "b"], 25),
        (TREC / "qrels.test", REAL_RUNS, None, 50),
    ],
    ids=["generated-alone", "generated-groups", "trec"],
)
def test_leave_out_scores_match_evaluate_on_materialised_qrels(
    tmp_path, qrels, runs, groups, depth
):
    found = leave_out_scores(
        qrels,
        runs,
        depth,
        groups=None if groups is None else dict(zip([Path(r).stem for r in runs], groups)),
        measures=MEASURES,
        complete=True,  # results.trunc misses topic 302: scored 0 there, as evaluated below
    )
    labels = groups or [Path(r).stem for r in runs]
    if runs is REAL_RUNS:  # named after their files where their names collide
        labels = [Path(r).name for r in runs]
    assert found.groups == list(dict.fromkeys(labels))
    full = evaluated(qrels, runs, found.topics, MEASURES)
    for m in MEASURES:
        np.testing.assert_allclose(found.full[m], full[m], rtol=0, atol=1e-12)
    reduced = plain_reduced(qrels, runs, depth, labels)
    total = len([x for x in Path(qrels).read_bytes().splitlines() if x.split()])
    for k, g in enumerate(found.groups):
        path = tmp_path / f"reduced-{k}"
        path.write_bytes(b"\n".join(reduced[g]) + b"\n")
        assert found.dropped[k] == total - len(reduced[g])
        want = evaluated(path, runs, found.topics, MEASURES)
        for m in MEASURES:
            np.testing.assert_allclose(found.reduced[m][k], want[m], rtol=0, atol=1e-12)
        kept = found.reduced_qrels(g)
        assert kept.docnos.tolist() == [line.split()[2] for line in reduced[g]]
    assert found.dropped.sum() > 0  # the check has something to check


def test_leave_out_scores_match_a_per_group_evaluation_on_a_generated_collection(tmp_path):
    """The one-pass rescoring against the straightforward path: each group's reduced
    qrels written out and every run evaluated on them, group by group; graded levels,
    tied scores and groups of several runs."""
    from irgauge.collection.simulate import simulate_collection, write_collection

    sim = simulate_collection(n_topics=5, n_runs=6, depth=40, pool_depth=8, seed=34, rel_median=6.0)
    manifest = write_collection(sim, tmp_path / "c", overwrite=True)
    qrels = tmp_path / "c" / manifest["files"]["qrels"]
    runs = [tmp_path / "c" / r for r in manifest["files"]["runs"]]
    labels = ["a", "b", "a", "c", "b", "c"]
    measures = MEASURES + ["AP@5", "infAP(rel=2)"]
    found = leave_out_scores(
        qrels, runs, 6, groups=dict(zip([r.stem for r in runs], labels)), measures=measures
    )
    reduced = plain_reduced(qrels, runs, 6, labels)
    for k, g in enumerate(found.groups):
        path = tmp_path / f"reduced-{k}"
        path.write_bytes(b"\n".join(reduced[g]) + b"\n")
        want = evaluated(path, runs, found.topics, found.measures)
        for m in found.measures:
            np.testing.assert_array_equal(found.reduced[m][k], want[m], err_msg=f"{g} {m}")
    assert found.dropped.min() > 0  # every group's reduction drops something


@needs_data
def test_unknown_runs_in_groups_are_refused_naming_the_file_and_line(tmp_path):
    groups = tmp_path / "groups.tsv"
    groups.write_text("run group\nrun1\tA\nnosuchrun\tB\n")
    with pytest.raises(InputError) as caught:
        leave_out_scores(GENERATED / "qrels.trec", GENERATED_RUNS, 10, groups=str(groups))
    assert str(caught.value).startswith(f"{groups}:3: groups name run 'nosuchrun'")
    assert caught.value.parameter == "groups"


@needs_data
def test_a_run_without_a_qrels_topic_is_refused_naming_it():
    with pytest.raises(InputError) as caught:
        leave_out_scores(TREC / "qrels.test", [REAL_RUNS[0], GENERATED_RUNS[0]], 10)
    assert str(caught.value).startswith(f"{GENERATED_RUNS[0]}: run run1 answers none")


def test_a_run_missing_a_qrels_topic_is_refused_unless_complete(tmp_path):
    """Refused at the run's file, naming the topics and -c/--complete; with complete=True
    the topic scores 0 for that run, as trec_eval -c."""
    qrels = tmp_path / "q.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 0\n2 0 d5 1\n3 0 d9 1\n")
    a, b = tmp_path / "a.txt", tmp_path / "b.txt"
    a.write_text("1 Q0 d1 1 3 a\n1 Q0 d2 2 2 a\n2 Q0 d5 1 1 a\n3 Q0 d9 1 1 a\n")
    b.write_text("1 Q0 d2 1 3 b\n1 Q0 d1 2 2 b\n")
    with pytest.raises(InputError) as caught:
        leave_out_scores(qrels, [a, b], 1)
    assert str(caught.value).startswith(
        f"{b}: its topics differ from the qrels': misses 2 topics of qrels {qrels} (2, 3): "
        "-c/--complete (complete=True) scores a missing topic 0"
    )
    found = leave_out_scores(qrels, [a, b], 1, complete=True)
    assert found.full["AP"][1].tolist() == [0.5, 0.0, 0.0]
    assert (found.reduced["AP"][:, 1, 1:] == 0).all()


def test_depth_below_one_is_refused():
    with pytest.raises(InputError) as caught:
        leave_out_scores(
            pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}),
            {"x": {"1": {"a": 1.0}}, "y": {"1": {"b": 1.0}}},
            0,
        )
    assert caught.value.parameter == "depth"


def plain_ranks(values):
    """Rank 1 best; equal values share the best rank."""
    return [1 + sum(other > v + 1e-12 for other in values) for v in values]


def plain_tau_ap(x, y):
    """Yilmaz et al.'s tau_AP of ranking y against x (no ties in y)."""
    order = sorted(range(len(y)), key=lambda i: -y[i])
    total = 0.0
    for p, i in enumerate(order[1:], start=1):
        above = order[:p]
        total += sum(x[j] > x[i] for j in above) / p
    return 2 * total / (len(y) - 1) - 1


@needs_data
def test_study_tables_agree_with_evaluate_on_materialised_qrels(tmp_path):
    from scipy.stats import kendalltau

    from irgauge.cli import main

    qrels, runs, depth = GENERATED / "qrels.trec", GENERATED_RUNS, 10
    groups = tmp_path / "groups.tsv"
    groups.write_text("run\tgroup\nrun1\tA\nrun3\tA\nrun2\tB\n")  # run4, run5 alone
    labels = ["A", "B", "A", "run4", "run5"]
    measures = ["AP", "AP'", "bpref"]
    argv = ["study", "reusability", str(qrels), *map(str, runs), "--depth", str(depth)]
    argv += ["--groups", str(groups), "--out", str(tmp_path / "out"), "--quiet", "--seed", "3"]
    assert main(argv + ["-m", ",".join(measures), "--topic-resamples", "20"]) == 0
    tables = tmp_path / "out" / "reusability" / "tables"
    got_runs = pd.read_csv(tables / "runs.tsv", sep="\t", dtype={"group": str, "run": str})
    got_groups = pd.read_csv(tables / "groups.tsv", sep="\t", dtype={"group": str})
    assert list(got_runs.columns) == [
        "group", "run", "measure", "full", "reduced", "change", "rank_full", "rank_reduced"
    ]  # fmt: skip
    assert list(got_groups.columns) == [
        "group", "measure", "kendall_tau", "tau_ap", "max_rank_drop", "mean_change"
    ]  # fmt: skip
    topics = sorted({line.split()[0].decode() for line in qrels.read_bytes().splitlines()})
    names = [Path(r).stem for r in runs]
    full = {m: v.mean(axis=1) for m, v in evaluated(qrels, runs, topics, measures).items()}
    for k, (g, lines) in enumerate(plain_reduced(qrels, runs, depth, labels).items()):
        path = tmp_path / f"reduced-{k}"
        path.write_bytes(b"\n".join(lines) + b"\n")
        reduced = {m: v.mean(axis=1) for m, v in evaluated(path, runs, topics, measures).items()}
        mine = [i for i, label in enumerate(labels) if label == g]
        for m in measures:
            rows = got_runs[(got_runs["group"] == g) & (got_runs["measure"] == m)]
            assert rows["run"].tolist() == names
            np.testing.assert_allclose(rows["full"], full[m], rtol=0, atol=1e-9)
            np.testing.assert_allclose(rows["reduced"], reduced[m], rtol=0, atol=1e-9)
            np.testing.assert_allclose(rows["change"], reduced[m] - full[m], rtol=0, atol=1e-9)
            assert rows["rank_full"].tolist() == plain_ranks(list(full[m]))
            assert rows["rank_reduced"].tolist() == plain_ranks(list(reduced[m]))
            row = got_groups[(got_groups["group"] == g) & (got_groups["measure"] == m)].iloc[0]
            assert row["kendall_tau"] == pytest.approx(kendalltau(full[m], reduced[m])[0])
            assert row["tau_ap"] == pytest.approx(plain_tau_ap(full[m], reduced[m]))
            drops = [plain_ranks(list(reduced[m]))[i] - plain_ranks(list(full[m]))[i] for i in mine]
            assert row["max_rank_drop"] == max(0, max(drops))
            assert row["mean_change"] == pytest.approx(np.mean((reduced[m] - full[m])[mine]))


@needs_data
@pytest.mark.parametrize(
    "options, words",
    [
        (["--depth", "0"], "argument --depth"),
        (["--depth", "5", "--groups", "{bad}"], "groups name run 'ghost'"),
        (["--depth", "5", "--groups", "{bad}"], "groups.tsv:2:"),
    ],
)
def test_bad_study_input_is_one_line_naming_the_option_or_file(tmp_path, capsys, options, words):
    from irgauge.cli import main

    bad = tmp_path / "groups.tsv"
    bad.write_text("run1\tA\nghost\tB\n")
    options = [str(bad) if o == "{bad}" else o for o in options]
    argv = ["study", "reusability", str(GENERATED / "qrels.trec"), *map(str, GENERATED_RUNS)]
    try:
        code = main(argv + options + ["--out", str(tmp_path / "o"), "--quiet"])
    except SystemExit as stop:
        code = stop.code
    assert code == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert words in err[-1]
    assert not (tmp_path / "o" / "reusability").exists()


def test_summary_statistics_are_those_of_the_tables(tmp_path):
    from irgauge.collection.simulate import sample_paths
    from irgauge.studies.reusability import reusability, run_reusability

    qrels, runs = sample_paths()
    groups = {Path(r).stem: f"g{k % 4}" for k, r in enumerate(runs)}  # 4 groups of 3 runs
    found = reusability(qrels, runs, 10, groups, ["AP", "bpref"], seed=2, topic_resamples=30)
    assert found.problem is None  # 12 runs, 20 topics: the measures may be ordered
    table = found.runs
    for m in ("AP", "bpref"):
        taus = found.groups[found.groups["measure"] == m]["kendall_tau"]
        assert found.tau.value(m) == pytest.approx(taus.mean())
        mine = table[(table["measure"] == m) & (table["group"] == table["run"].map(groups))]
        per_group = mine["change"].abs().groupby(mine["group"]).mean()
        assert found.change.value(m) == pytest.approx(per_group.mean())
        assert found.tau.resampled[m].shape == (30,)
    assert any("mean Kendall's tau over the groups" in line for line in found.summary)
    written = run_reusability(
        qrels, runs, tmp_path, depth=10, groups=groups, measures=["AP"], seed=2,
        topic_resamples=5,
    )  # fmt: skip
    folder = tmp_path / "reusability"
    assert written.manifest["seeds"]["seed"] == 2
    assert written.manifest["parameters"]["depth"] == 10
    for name in ("tables/runs.tsv", "tables/groups.tsv", "figures/score_change.svg",
                 "figures/rank_full_reduced.svg", "summary.txt"):  # fmt: skip
        assert (folder / name).is_file(), name


def test_a_tau_that_is_not_finite_is_noted_with_its_reason():
    from irgauge.studies.reusability import reusability

    # both runs tie under the full qrels (AP 1 each): every tau against it is 0/0
    qrels = {"1": {"a": 1, "b": 1}}
    runs = {"x": {"1": {"a": 2.0, "b": 1.0}}, "y": {"1": {"b": 2.0, "a": 1.0}}}
    found = reusability(qrels, runs, 1, measures=["AP"], seed=1, topic_resamples=5)
    assert found.groups["kendall_tau"].isna().all()
    assert found.runs.set_index(["group", "run"])["reduced"].to_dict() == {
        ("x", "x"): 0.5,  # a dropped: its one relevant document, b, at rank 2
        ("x", "y"): 1.0,
        ("y", "x"): 1.0,
        ("y", "y"): 0.5,
    }
    assert any("kendall_tau value" in n and "not finite: a ranking ties" in n for n in found.notes)


def test_a_registered_measure_sees_and_names_the_real_topic_ids():
    # the leave-out scores virtual topics (group, topic): a registered measure reads the
    # topic ids, and its error names the topic, as in every other evaluation
    import irgauge
    from irgauge.errors import UserCodeError
    from irgauge.studies.reusability import reusability

    def undefined_on_t7(ranked):
        ids = np.asarray(ranked.judgments.topic_ids, dtype=object)[ranked.topic]
        return np.where(ids == "t7", np.nan, 0.5)

    qrels = {"t3": {"a": 1, "b": 1}, "t7": {"a": 1, "c": 1}}
    runs = {
        "x": {"t3": {"a": 2.0, "b": 1.0}, "t7": {"a": 2.0, "c": 1.0}},
        "y": {"t3": {"b": 2.0, "a": 1.0}, "t7": {"c": 2.0, "a": 1.0}},
    }
    irgauge.register_measure("UndefinedOnT7", undefined_on_t7)
    try:
        with pytest.raises(UserCodeError) as caught:
            reusability(qrels, runs, 1, measures=["UndefinedOnT7"], seed=1, topic_resamples=5)
    finally:
        irgauge.unregister_measure("UndefinedOnT7")
    assert "topic t7" in str(caught.value) and "topic 0" not in str(caught.value)


LOSING_QRELS = """1 0 d1 1
1 0 d2 0
1 0 d3 2
2 0 e1 0
2 0 e2 1
3 0 f1 0
4 0 g1 1
"""
LOSING_RUNS = {
    "a": {
        "1": ["d1", "d2", "d9"],
        "2": ["e2", "e9", "e1"],
        "3": ["f1", "f9"],
        "4": ["g9", "g8", "g1"],
    },
    "b": {"1": ["d3", "d1"], "2": ["e1", "e8", "e2"], "3": ["f8", "f1"], "4": ["g1", "g7"]},
    "c": {"1": ["d2", "d3"], "2": ["e1", "e7"], "3": ["f1"], "4": ["g6", "g5"]},
}


@pytest.mark.parametrize(
    "empty_topics, topics", [("skip", ["1", "2", "4"]), ("zero", ["1", "2", "3", "4"])]
)
def test_the_topics_scored_follow_the_empty_topics_rule(tmp_path, empty_topics, topics):
    """Leaving a out loses topic 2's only relevant document, leaving b out loses topic 4's
    only judgment, and topic 3 has no relevant document at all: every qrels is scored on
    the full qrels' topics with a relevant document by default, on every topic with
    "zero", 0 where no relevant document is left, each as irgauge.evaluate scores that
    group's qrels written out."""
    qrels = tmp_path / "q.txt"
    qrels.write_text(LOSING_QRELS)
    runs = write_runs(tmp_path, LOSING_RUNS, "{name}.txt")
    found = leave_out_scores(qrels, runs, 2, measures=MEASURES, empty_topics=empty_topics)
    assert found.topics == topics
    assert found.topic_rule.record()["topics_without_relevant"] == {
        "full qrels": 1,
        "group a": 2,
        "group b": 2,
        "group c": 1,
    }
    reduced = plain_reduced(qrels, runs, 2, ["a", "b", "c"])
    for k, g in enumerate(found.groups):
        path = tmp_path / f"reduced-{g}"
        path.write_bytes(b"\n".join(reduced[g]) + b"\n")
        result = evaluate(str(path), [str(r) for r in runs], MEASURES, empty_topics="zero")
        frame = result.per_topic
        for m in MEASURES:
            part = frame[frame["measure"] == m].pivot(index="run", columns="topic", values="value")
            want = part.reindex(index=["a", "b", "c"], columns=topics).fillna(0.0).to_numpy()
            np.testing.assert_allclose(found.reduced[m][k], want, rtol=0, atol=1e-12)
