"""One rule for the topics of a comparison of reduced qrels with the full ones
(evaluation/shared_topics.py): irgauge incomplete, study incomplete and their random and
depth reductions score every step on the full qrels' topics."""

import json

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.collection.depth_reduce import reduce_to_depth
from irgauge.errors import InputError
from irgauge.evaluation import evaluate
from irgauge.evaluation.shared_topics import relevant_by_topic, relevant_counts, shared_topics
from irgauge.io.qrels import read_qrels
from irgauge.studies.incomplete_result import incomplete_study
from tests.studies.conftest import write_runs

# topic 2's only relevant document is at rank 3 of both runs: the depth-1 pool keeps its
# judged nonrelevant document and loses the relevant one; topic 4 has no relevant
# document at all
QRELS = """1 0 a1 1
1 0 a2 0
1 0 b2 1
2 0 x1 0
2 0 x3 2
3 0 c1 1
3 0 c2 0
3 0 d1 1
4 0 a3 0
"""
RUNS = {
    "A": [
        ("1", ["a1", "a2", "a3"]),
        ("2", ["x1", "x2", "x3"]),
        ("3", ["c1", "c2", "c3"]),
        ("4", ["a3", "a1"]),
    ],
    "B": [
        ("1", ["b1", "b2", "a1"]),
        ("2", ["x1", "y2", "x3"]),
        ("3", ["d1", "c2", "c1"]),
        ("4", ["a1", "a3"]),
    ],
}


@pytest.fixture
def tiny(tmp_path):
    qrels = tmp_path / "qrels.txt"
    qrels.write_text(QRELS)
    return qrels, write_runs(
        tmp_path, {name: dict(topics) for name, topics in RUNS.items()}, "run{name}.txt"
    )


def plain_means(qrels, runs, depths, topics):
    """AP's mean over ``topics`` of each step's qrels, each evaluated on its own as
    trec_eval reads it (every topic scored, 0 without a relevant document)."""
    reduction = reduce_to_depth(str(qrels), [str(r) for r in runs], depths)
    means = {}
    for step in ["full", *depths]:
        q = reduction.qrels if step == "full" else reduction.qrels_at(step)
        found = evaluate(q, [str(r) for r in runs], ["AP"], empty_topics="zero", complete=True)
        table = found.per_topic.pivot(index="run", columns="topic", values="value")
        means[step] = float(table.reindex(columns=topics, fill_value=0.0).to_numpy().mean())
    return means


@pytest.mark.parametrize(
    "empty_topics, topics",
    [(None, ["1", "2", "3"]), ("skip", ["1", "2", "3"]), ("zero", ["1", "2", "3", "4"])],
)
def test_every_depth_is_scored_on_the_full_qrels_topics(tiny, empty_topics, topics):
    """The topics are decided once, on the full qrels (topic 4, without a relevant
    document, is left out by default); topic 2, which depth 1 leaves without a relevant
    document, scores 0 there, as the study scored it before."""
    qrels, runs = tiny
    chosen = {} if empty_topics is None else {"empty_topics": empty_topics}
    result = incomplete_study(qrels, runs, ["AP"], depths=[1, 3], samples=20, seed=1, **chosen)
    table = result.table.set_index(["measure", "depth"])
    want = plain_means(qrels, runs, [3, 1], topics)
    for step, mean in want.items():
        assert table.loc[("AP", step), "mean"] == pytest.approx(mean, abs=1e-12), step
    assert result.metadata["empty_topics"] == (empty_topics or "skip")
    assert result.metadata["topics_without_relevant"] == {
        "full qrels": 1,
        "depth 3": 1,
        "depth 1": 2,
    }
    assert result.metadata["n_topics"] == len(topics)
    notes = result.metadata["notes"]
    assert [n for n in notes if "(depth 1: 1): they score 0 there" in n]
    left_out = [n for n in notes if "1 qrels topic without relevant documents left out" in n]
    assert len(left_out) == (empty_topics != "zero")


def test_the_command_prints_the_rule_and_the_topics_lost(tiny, tmp_path, capsys):
    qrels, runs = tiny
    out = tmp_path / "table.json"
    args = ["incomplete", str(qrels), *map(str, runs), "--depth", "1,3", "-B", "20"]
    assert main([*args, "--seed", "1", "--format", "json", "-o", str(out)]) == 0
    err = capsys.readouterr().err
    assert "1 qrels topic without relevant documents left out" in err
    assert "--empty-topics zero" in err and "depth 1: 1" in err
    assert json.loads(out.read_text())["metadata"]["topics_without_relevant"]["depth 1"] == 2


def test_a_random_reduction_keeps_a_relevant_document_of_every_topic(tiny):
    qrels, runs = tiny
    result = incomplete_study(qrels, runs, ["AP"], rates=[50, 10], samples=20, seed=3)
    assert result.metadata["topics_without_relevant"] == {"full qrels": 1, "50%": 1, "10%": 1}
    assert not [n for n in result.metadata["notes"] if "score 0 there" in n]


def test_the_rule_itself():
    full = np.array([1, 1, 0, 1], bool)
    cut = {"cut": np.array([1, 0, 0, 1], bool)}
    skip = shared_topics(["a", "b", "c", "d"], full, cut)
    assert skip.topics == ["a", "b", "d"] and list(skip.kept) == [0, 1, 3]
    assert skip.lost == {"full qrels": ["c"], "cut": ["b", "c"]}
    zero = shared_topics(["a", "b", "c", "d"], full, cut, "zero")
    assert zero.topics == ["a", "b", "c", "d"]
    assert zero.record()["topics_without_relevant"] == {"full qrels": 1, "cut": 2}
    assert shared_topics(["a"], np.array([True]), {"cut": np.array([True])}).notes() == []
    with pytest.raises(InputError, match="no topic has a document at relevance level >= 2"):
        shared_topics(["a"], np.array([False]), {}, rel_level=2)
    with pytest.raises(InputError) as caught:
        shared_topics(["a"], full, cut, "average")
    assert caught.value.parameter == "empty_topics"


def test_relevant_counts_is_r_per_topic_and_the_rule_reads_r_above_zero(tmp_path):
    # one count serves the pooling study's "relevant found" (R) and the rule (R > 0)
    path = tmp_path / "qrels.txt"
    path.write_text(QRELS)
    q = read_qrels(path)
    codes, levels, n = q.topic_index.codes, q.levels, len(q.topic_ids)
    assert q.topic_ids == ["1", "2", "3", "4"]
    assert relevant_counts(codes, levels, n, 1).tolist() == [2, 1, 2, 0]
    assert relevant_counts(codes, levels, n, 2).tolist() == [0, 1, 0, 0]
    keep = (codes != 2) | (levels == 0)  # a reduced qrels: the rows it keeps
    assert relevant_counts(codes[keep], levels[keep], n, 1).tolist() == [2, 1, 0, 0]
    assert relevant_by_topic(codes, levels, n, 2).tolist() == [False, True, False, False]
