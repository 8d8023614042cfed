"""``irgauge trec_eval -R qrels_jg`` reads the run once for all judgment groups: each part
read is matched and scored under every group's judgments.

Source of the expected outcomes: the same evaluation with the run read again for each
group (each group's judgments scored by ``score_source`` alone, as the drop-in did before
it shared one reading), whose agreement with trec_eval 10.0 the binary comparisons of
test_trec_eval_drop_in check. The outcome compared is the output, or a stop's status,
output before it and message.
"""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from test_streaming import WHOLE
from test_trec_eval_drop_in import collections
from test_trec_eval_stops import collections_with_repeats, drop_in, outcome_in_parts

from irgauge.evaluation import run_scoring
from irgauge.evaluation.trec_eval import line_scoring as trec_eval_scoring
from irgauge.evaluation.run_scoring import score_source
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
from tests.conftest import examples

JG = "qrels_jg"
# (options, measures): trec_eval's -q, -c, -J, -M, -l 2, -n; runid and num_q alone
ARGUMENT_SETS = [
    (TrecEvalOptions(per_topic=True, complete=True, rel_format=JG), ["qrels_jg"]),
    (TrecEvalOptions(per_topic=True, rel_format=JG), ["qrels_jg"]),  # stops at a missing topic
    (
        TrecEvalOptions(per_topic=True, complete=True, judged_only=True, max_docs=4, rel_format=JG),
        ["qrels_jg"],
    ),
    (
        TrecEvalOptions(per_topic=True, complete=True, rel_level=2, rel_format=JG),
        ["P_avgjg.1,2", "map_avgjg"],
    ),
    (TrecEvalOptions(complete=True, max_docs=2, rel_format=JG), ["qrels_jg"]),
    (TrecEvalOptions(per_topic=True, complete=True, rel_format=JG), ["runid", "num_q"]),
    (TrecEvalOptions(per_topic=True, summary=False, rel_format=JG), ["P_avgjg.1"]),
]


@st.composite
def group_collections(draw):
    """qrels_jg and run texts of up to 4 groups, whose first group need not judge every
    topic (each topic's groups shifted by a drawn offset)."""
    qrels, run = draw(st.one_of(collections(groups=4), collections_with_repeats(groups=4)))
    shifted = []
    for line in qrels.splitlines():
        topic, group, doc, level = line.split()
        offset = draw(st.shared(st.integers(0, 3), key=f"offset {topic}"))
        shifted.append(f"{topic} {(int(group) + offset) % 4} {doc} {level}")
    return "\n".join(shifted) + "\n", run


def _read_per_group(source, name, plans, read_from=None):
    """The run read again for each group's plan."""
    return [score_source(source, name, plan, read_from) for plan in plans]


@settings(
    max_examples=examples(150),
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture],
)
@given(
    # documents retrieved twice too: where trec_eval stops is per group's topics
    data=group_collections(),
    scattered=st.booleans(),
    part=st.sampled_from([WHOLE, 1, 20, 60]),
    arguments=st.sampled_from(ARGUMENT_SETS),
    shuffle=st.randoms(use_true_random=False),
    look_ahead=st.booleans(),
)
def test_one_reading_gives_the_outcome_of_one_reading_per_group(
    monkeypatch, tmp_path, data, scattered, part, arguments, shuffle, look_ahead
):
    qrels, run = (text.splitlines() for text in data)
    if scattered:  # a topic's lines in several places of the file
        shuffle.shuffle(run)
    if not look_ahead:  # (a small file's first block shows it scattered before any part)
        # the scattering found as the parts come, as in a file larger than that block
        monkeypatch.setattr(run_scoring, "starts_scattered", lambda *args: False)
    options, words = arguments
    once = outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, part, words)
    with monkeypatch.context() as patched:
        patched.setattr(trec_eval_scoring, "score_source_jointly", _read_per_group)
        per_group = outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, part, words)
    assert once == per_group


# three groups; topic 2 is judged by groups a and c only
QRELS_3 = [
    "1 a d1 1",
    "1 a d2 0",
    "1 b d1 0",
    "1 b d3 2",
    "1 c d2 1",
    "2 a d4 1",
    "2 c d5 1",
]
QRELS_1 = [line for line in QRELS_3 if line.split()[1] == "a"]
RUN = [f"{t} Q0 d{d} {r} {10 - r} tag" for t in (1, 2, 3) for r, d in enumerate((1, 2, 4, 5), 1)]
# topic 1's lines at both ends of the file
SCATTERED = RUN[1:] + RUN[:1]


def _readings(monkeypatch, tmp_path, qrels, run, part):
    """How often the run is read from its start: (in file order, regrouped by topic)."""
    counts = {"iter_run_parts": 0, "partitioned_parts": 0}
    for reader in counts:
        original = getattr(run_scoring, reader)

        def counted(*args, _original=original, _name=reader, **kwargs):
            counts[_name] += 1
            return _original(*args, **kwargs)

        monkeypatch.setattr(run_scoring, reader, counted)
    options = TrecEvalOptions(per_topic=True, complete=True, rel_format=JG)
    outcome = outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, part, ["qrels_jg"])
    assert isinstance(outcome, str), outcome  # evaluated, not stopped
    return counts["iter_run_parts"], counts["partitioned_parts"]


@pytest.mark.parametrize("part", [WHOLE, 1, 60])
@pytest.mark.parametrize("run", [RUN, SCATTERED], ids=["contiguous", "scattered"])
def test_three_groups_read_the_run_as_often_as_one(monkeypatch, tmp_path, run, part):
    one = _readings(monkeypatch, tmp_path, QRELS_1, run, part)
    three = _readings(monkeypatch, tmp_path, QRELS_3, run, part)
    assert three == one
    assert sum(one) >= 1


def test_a_document_twice_stops_at_its_topic_whichever_group_judges_it(capsys, tmp_path):
    # topic 3 is judged by group c alone, which numbers it otherwise than group a does;
    # trec_eval 10.0 (form_res_rels_jg.c) stops there, after topics 1 and 2: P_1 averaged
    # over the groups judging the topic, 1 under group a and 0 under b for topic 1 (d1
    # judged by a alone), 0 under a and 1 under c for topic 2 (d5 ranked first)
    qrels = ["1 a d1 1", "2 a d4 1", "1 b d3 2", "2 c d5 1", "3 c d1 1"]
    run = ["1 Q0 d1 1 3 r", "1 Q0 d3 2 2 r", "2 Q0 d5 1 3 r", "2 Q0 d4 2 2 r"]
    run += ["3 Q0 d2 1 3 r", "3 Q0 d1 2 2 r", "3 Q0 d2 3 1 r"]
    code, out, err = drop_in(capsys, tmp_path, qrels, run, "-q", "-R", JG, "-m", "P_avgjg.1")
    assert code == 4
    assert out == "P_avgjg_1             \t1\t0.5000\nP_avgjg_1             \t2\t0.5000\n"
    assert f"{tmp_path / 'r'}:7: document 'd2' is retrieved again for topic '3'" in err


@pytest.mark.parametrize("look_ahead", [True, False])
def test_a_run_found_scattered_late_is_regrouped_for_every_group(monkeypatch, tmp_path, look_ahead):
    # topic 1, judged by the second group alone, comes back after topic 2: the first
    # group does not see it come back, the second must (d1 is topic 1's first document
    # once its lines are together, so P_1 is 1 in each topic)
    qrels = ["1 1 d1 1", "2 0 d2 1"]
    run = ["1 Q0 d1 1 3 r", "2 Q0 d2 1 3 r", "1 Q0 d3 2 1 r"]
    if not look_ahead:  # as in a file larger than the block that shows it scattered
        monkeypatch.setattr(run_scoring, "starts_scattered", lambda *args: False)
    options = TrecEvalOptions(per_topic=True, rel_format=JG)
    got = outcome_in_parts(monkeypatch, tmp_path, qrels, run, options, 1, ["P_avgjg.1"])
    assert got == "".join(f"P_avgjg_1             \t{t}\t1.0000\n" for t in ("1", "2", "all"))
