"""trec_eval 10's 11pt_avg over recall levels in any order (``IPrec_avg(walk=given)``, the
drop-in's and ``eval``'s ``-m 11pt_avg.x,y``), and the mean it gives for ascending levels.

Sources of the expected values:
- trec_eval 10.0's m_11pt_avg.c, transcribed below as ``trec_eval_11pt_avg`` from its
  description: cuts c = lround(x*R) for the levels as given; a pointer starts at the
  last level and passes over the levels whose cut exceeds the relevant retrieved; the
  ranking is read from its end, keeping the interpolated precision (the highest
  precision at this rank or below); at each relevant document, while the pointer's cut
  equals the number of relevant documents so far, that precision is added and the
  pointer moves to the level before; the levels left when the ranking is read take the
  last precision kept; the sum is divided by the number of levels;
- a trec_eval 10.0 binary where the machine has one (``TREC_EVAL=/path/to/trec_eval``),
  on generated collections and level lists (tests/test_trec_eval_drop_in.py).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_trec_eval_drop_in import (
    collections,
    compare_with_trec_eval,
    needs_trec_eval,
    slow_settings,
    trec_eval_binary,
)

from irgauge import evaluate
from irgauge.cli import main
from tests.conftest import examples

LEVELS = st.lists(
    st.sampled_from([0.0, 0.05, 0.1, 0.2, 0.25, 0.3, 0.5, 0.7, 0.75, 0.9, 1.0]),
    min_size=1,
    max_size=6,
)


def lround(value: float) -> int:
    """C's lround for a value >= 0: halves away from zero, with no float rounding."""
    whole = math.floor(value)
    return whole + (1 if value - whole >= 0.5 else 0)


def trec_eval_11pt_avg(relevant, R: int, levels) -> float:
    """m_11pt_avg.c's computation for one topic (see the module's text); ``relevant``:
    whether each retrieved document is relevant, in rank order."""
    cuts = [lround(level * R) for level in levels]
    num_ret, num_rel_ret = len(relevant), sum(relevant)
    current = len(cuts) - 1
    while current >= 0 and cuts[current] > num_rel_ret:
        current -= 1
    kept = num_rel_ret / num_ret
    so_far, total, rank = num_rel_ret, 0.0, num_ret
    while rank > 0 and so_far > 0:
        kept = max(kept, so_far / rank)
        if relevant[rank - 1]:
            while current >= 0 and so_far == cuts[current]:
                total += kept
                current -= 1
            so_far -= 1
        rank -= 1
    while current >= 0:
        total += kept
        current -= 1
    return total / len(cuts)


@st.composite
def rankings(draw):
    """Judgments {topic: {doc: level}} and a run {topic: {doc: score}}, scores distinct
    (the order is the scores'), each topic retrieving a document."""
    qrels, run = {}, {}
    for t in range(draw(st.integers(1, 4))):
        levels = draw(st.lists(st.integers(0, 2), min_size=1, max_size=12))
        qrels[f"t{t}"] = {f"d{i}": level for i, level in enumerate(levels)}
        pool = list(qrels[f"t{t}"]) + [f"u{i}" for i in range(4)]
        chosen = draw(st.lists(st.sampled_from(pool), min_size=1, max_size=len(pool), unique=True))
        run[f"t{t}"] = {doc: float(len(chosen) - i) for i, doc in enumerate(chosen)}
    return qrels, run


def values(qrels, run, measure: str):
    frame = evaluate(qrels, run, [measure], order="score", empty_topics="zero").per_topic
    return dict(zip(frame["topic"], frame["value"]))


def spec(levels, walk: str) -> str:
    return f"IPrec_avg(recalls={':'.join(repr(x) for x in levels)},walk={walk})"


@settings(max_examples=examples(60), deadline=None)
@given(rankings(), LEVELS)
def test_the_given_walk_is_trec_evals_computation(data, levels):
    qrels, run = data
    got = values(qrels, run, spec(levels, "given"))
    for topic, scores in run.items():
        ranked = sorted(scores, key=scores.get, reverse=True)
        relevant = [qrels[topic].get(doc, 0) >= 1 for doc in ranked]
        R = sum(level >= 1 for level in qrels[topic].values())
        assert got[topic] == trec_eval_11pt_avg(relevant, R, levels), (topic, levels)


@settings(max_examples=examples(40), deadline=None)
@given(rankings(), LEVELS, st.randoms(use_true_random=False))
def test_the_mean_takes_the_levels_in_any_order_and_is_the_mean_of_iprec(data, levels, rng):
    qrels, run = data
    ascending = sorted(levels)
    mean = values(qrels, run, spec(levels, "mean"))
    shuffled = list(levels)
    rng.shuffle(shuffled)
    assert values(qrels, run, spec(shuffled, "mean")) == mean
    assert values(qrels, run, spec(ascending, "given")) == mean  # bit for bit
    each = [values(qrels, run, f"IPrec(recall={x!r})") for x in levels]
    for topic, value in mean.items():
        assert np.isclose(value, np.mean([at[topic] for at in each]), rtol=0, atol=1e-12)


def test_levels_in_any_order_over_a_ranking_minus_j_empties(capsys, tmp_path):
    # -J leaves topic 2 no document: m_11pt_avg.c's first precision is 0/0, which every
    # level then takes (trec_eval 10.0 prints "-nan", for the mean too)
    (tmp_path / "q").write_text("1 0 d0 2\n1 0 d1 1\n2 0 d0 1\n")
    (tmp_path / "r").write_text("1 Q0 d0 1 1 t\n2 Q0 d5 1 1 t\n")
    argv = ["trec_eval", "-q", "-J", "-m", "11pt_avg.0.5,0.2", str(tmp_path / "q")]
    assert main([*argv, str(tmp_path / "r")]) == 0
    out = capsys.readouterr().out.splitlines()
    assert [line.split("\t")[1:] for line in out] == [
        ["1", "1.0000"],
        ["2", "  -nan"],
        ["all", "  -nan"],
    ]


@needs_trec_eval
@pytest.mark.parametrize("options", [["-q", "-c"], ["-q", "-J", "-M3"]], ids=" ".join)
@slow_settings
@given(data=collections(), levels=LEVELS)
def test_11pt_avg_over_levels_in_any_order_as_trec_eval(tmp_path_factory, options, data, levels):
    words = "11pt_avg." + ",".join(repr(x) for x in levels)
    argv = [*options, "-m", words, "-m", "iprec_at_recall"]
    compare_with_trec_eval(trec_eval_binary(), tmp_path_factory.mktemp("walk"), *data, argv)
