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


def test_depth_below_one_is_refused():
    with pytest.raises(InputError) as caught:
        leave_out_scores(
            pd.DataFrame({"query_id": ["1"], "doc_id": ["a"], "relevance": [1]}),
            {"x": {"1": {"a": 1.0}}, "y": {"1": {"b": 1.0}}},
            0,
        )
    assert caught.value.parameter == "depth"
