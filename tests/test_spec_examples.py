"""SPEC.md §3 worked examples and §4 bpref/rpref formulas on hand-worked cases, exactly.

Collections are tiny dicts through the public API (``irgauge.evaluate``), and once through
``irgauge eval``. Gains S:A:B = 3:2:1 (gain = level, the NTCIR default) and penalties
S:A:B = 2:3:4 (the default; ``pen`` lists them for levels 1:2:3, i.e. 4:3:2).
"""

from __future__ import annotations

import io
from fractions import Fraction as F

import pandas as pd
import pytest

from irgauge import evaluate
from irgauge.cli import main

S, A, B = 3, 2, 1
# T3 has one S, one A and one B document (cg_I = 3, 5, 6, 6, ...) and judged nonrelevant ones
T3 = {"s": S, "a": A, "b": B, "n1": 0, "n2": 0, "n3": 0}
SAKAI = ["O-measure", "P-measure", "P-plus", "NWRR", "NWRR(pen=4:3:2)", "Q-measure", "RR"]


def ranked(*docs: str) -> dict:
    """A run topic whose scores put ``docs`` in the given order."""
    return {d: float(len(docs) - i) for i, d in enumerate(docs)}


def scores(qrels: dict, runs: dict, measures=SAKAI, **kwargs) -> dict:
    """{(run, measure): value} for a single-topic collection."""
    result = evaluate(qrels, runs, measures, **kwargs)
    return {
        (r, m): v
        for r, m, v in result.per_topic[["run", "measure", "value"]].itertuples(index=False)
    }


@pytest.fixture(scope="module")
def t3():
    runs = {
        "X": {"T3": ranked("b", "n1", "n2")},
        "Y": {"T3": ranked("n1", "s")},
        "Z": {"T3": ranked("b", "s")},
        "inverse": {"T3": ranked("b", "a", "s")},
        "ideal": {"T3": ranked("s", "a", "b")},
        "ideal_short": {"T3": ranked("s", "a")},
    }
    return scores({"T3": T3}, runs)


def exact(value: float, fraction: F) -> bool:
    return value == pytest.approx(float(fraction), abs=1e-15)


def test_system_x_b_document_first(t3):
    for m in ("O-measure", "P-measure", "P-plus"):
        assert exact(t3["X", m], F(1, 2))
    assert exact(t3["X", "NWRR"], F(1, 2) / F(3, 4))  # 0.667
    assert t3["X", "NWRR"] == t3["X", "NWRR(pen=4:3:2)"]  # the defaults are 2:3:4 for S:A:B


def test_system_y_s_document_at_rank_2(t3):
    for m in ("O-measure", "P-measure", "P-plus"):
        assert exact(t3["Y", m], F(4, 7))
    assert exact(t3["Y", "NWRR"], F(1, 2) / F(3, 2))  # 0.333
    assert t3["X", "NWRR"] > t3["Y", "NWRR"]


def test_system_z_b_then_s(t3):
    assert exact(t3["Z", "O-measure"], F(1, 2))
    assert exact(t3["Z", "P-measure"], F(6, 7))
    assert exact(t3["Z", "P-plus"], (F(2, 4) + F(6, 7)) / 2)  # 0.679
    assert exact(t3["Z", "NWRR"], F(2, 3))


def test_inverse_of_the_ideal_output(t3):
    assert exact(t3["inverse", "P-measure"], F(1))
    assert exact(t3["inverse", "P-plus"], (F(2, 4) + F(5, 7) + 1) / 3)  # 0.738


def test_q_is_one_exactly_for_an_ideal_output_at_least_r_long(t3):
    assert t3["ideal", "Q-measure"] == 1.0
    assert t3["ideal_short", "Q-measure"] < 1.0  # ideal order but shorter than R
    for run in ("X", "Y", "Z", "inverse"):
        assert t3[run, "Q-measure"] < 1.0


@pytest.mark.parametrize("n_s,expected_o", [(1, F(2, 3)), (3, F(1, 3)), (4, F(1, 3))])
def test_first_relevant_is_s_at_rank_3(n_s, expected_o):
    """O = (3+1)/(cg_I(3)+3): cg_I(3) = 3 with one S document only, 9 with three or more."""
    qrels = {"t": {**{f"s{i}": S for i in range(n_s)}, "n1": 0, "n2": 0}}
    values = scores(qrels, {"r": {"t": ranked("n1", "n2", "s0")}})
    assert exact(values["r", "NWRR"], F(1, 5))  # (1-1/2)/(3-1/2) = 0.2
    assert exact(values["r", "O-measure"], expected_o)


def test_nwrr_at_rank_3_on_any_topic_whose_highest_level_is_s():
    values = scores({"T3": T3}, {"r": {"T3": ranked("n1", "n2", "s", "a")}})
    assert exact(values["r", "NWRR"], F(1, 5))


def test_worked_examples_through_the_cli(tmp_path, capsys):
    (tmp_path / "qrels").write_text("".join(f"T3 {d} L{lvl}\n" for d, lvl in T3.items()))
    (tmp_path / "Z.res").write_text("T3 b\nT3 s\n")
    assert (
        main(
            [
                "eval",
                str(tmp_path / "qrels"),
                str(tmp_path / "Z.res"),
                "-q",
                "--format",
                "tsv",
                "--gains",
                "1:2:3",
                "-m",
                "O-measure P-measure P-plus NWRR",
            ]
        )
        == 0
    )
    out = pd.read_csv(
        io.StringIO(capsys.readouterr().out), sep="\t", comment="#", dtype={"topic": str}
    )
    values = out[out["topic"] == "T3"].set_index("measure")["value"]
    assert values["O-measure"] == pytest.approx(0.5, abs=1e-12)
    assert values["P-measure"] == pytest.approx(6 / 7, abs=1e-12)
    assert values["P-plus"] == pytest.approx((2 / 4 + 6 / 7) / 2, abs=1e-12)
    assert values["NWRR"] == pytest.approx(2 / 3, abs=1e-12)


def test_beta_zero_q_is_ap():
    values = scores(
        {"T3": T3}, {"r": {"T3": ranked("n1", "b", "u", "s", "n2")}}, ["Q-measure(beta=0)", "AP"]
    )
    assert values["r", "Q-measure(beta=0)"] == pytest.approx(values["r", "AP"], abs=1e-15)
    assert exact(values["r", "AP"], (F(1, 2) + F(2, 4)) / 3)


# -- §4: the bpref family on condensed lists ---------------------------------------------
BPREF = [
    "bpref",
    "bpref_R",
    "bpref_N",
    "old_bpref",
    "bpref_relative",
    "bpref_relative2",
    "AP(judged_only=true)",
]
# R = 3 relevant, N = 5 judged nonrelevant, u* unjudged
T4 = {"r1": 1, "r2": 2, "r3": 1, "n1": 0, "n2": 0, "n3": 0, "n4": 0, "n5": 0}


def test_bpref_family_hand_worked():
    """Run u1 n1 r1 n2 u2 r2 n3 -> condensed n1 r1 n2 r2 n3: r1 at rank 2 under 1 nonrelevant,
    r2 at rank 4 under 2; r3 not retrieved."""
    values = scores(
        {"t": T4}, {"r": {"t": ranked("u1", "n1", "r1", "n2", "u2", "r2", "n3")}}, BPREF
    )
    v = {m: values["r", m] for m in BPREF}
    assert exact(v["bpref"], F(1, 3) * ((1 - F(1, 3)) + (1 - F(2, 3))))  # min(R, N) = 3
    assert exact(v["bpref_R"], v["bpref"])  # R <= N
    assert exact(v["bpref_N"], F(1, 3) * ((1 - F(1, 5)) + (1 - F(2, 5))))
    assert exact(v["old_bpref"], v["bpref"])  # 3 nonrelevant retrieved: min(R, 3) = min(R, N)
    assert exact(v["bpref_relative"], F(1, 3) * (0 + (1 - F(2, 3))))
    assert exact(v["bpref_relative2"], F(1, 3) * ((1 - F(1, 2)) + (1 - F(2, 4))))
    assert exact(v["bpref_relative2"], v["AP(judged_only=true)"])  # = AP'


def test_old_bpref_divides_by_nonrelevant_retrieved():
    values = scores({"t": T4}, {"r": {"t": ranked("n1", "r1", "r2")}}, BPREF)
    # min(R, N_ret) = 1: each relevant document under one nonrelevant one scores 0
    assert exact(values["r", "old_bpref"], F(0))
    assert exact(values["r", "bpref"], F(1, 3) * 2 * (1 - F(1, 3)))


def test_bpref_n_is_bpref_when_r_at_least_n():
    qrels = {"t": {"r1": 1, "r2": 1, "r3": 1, "n1": 0, "n2": 0}}
    values = scores(qrels, {"r": {"t": ranked("n1", "r1", "n2", "r2", "r3")}}, BPREF)
    assert exact(values["r", "bpref"], values["r", "bpref_N"])
    assert exact(values["r", "bpref_N"], F(1, 3) * ((1 - F(1, 2)) + 2 * (1 - F(2, 2))))


@pytest.mark.parametrize("R", [1, 2, 5])
def test_bpref_relative_ideal_output_scores_r_minus_1_over_r(R):
    qrels = {"t": {**{f"r{i}": 1 for i in range(R)}, "n1": 0}}
    values = scores(qrels, {"r": {"t": ranked(*[f"r{i}" for i in range(R)], "n1")}}, BPREF)
    assert exact(values["r", "bpref_relative"], F(R - 1, R))
    assert exact(values["r", "bpref_relative2"], F(1))


@pytest.mark.parametrize("docs", [("r1",), ("n1", "r1"), ("u", "n1", "r1", "n2")])
def test_bpref_relative_single_relevant_at_rank_1_or_2_scores_0(docs):
    values = scores({"t": {"r1": 2, "n1": 0, "n2": 0}}, {"r": {"t": ranked(*docs)}}, BPREF)
    assert values["r", "bpref_relative"] == 0.0


RPREF = ["rpref_N", "rpref_relative", "rpref_relative2"]


def test_rpref_hand_worked():
    """Condensed list a n s b (gains 2 0 3 1; u unjudged dropped): pen(a) = 0,
    pen(s) = (3-2)/3 + (3-0)/3 = 4/3, pen(b) = (1-0)/1 = 1; cg_I(R) = 6;
    Nbar = sum over judged of (1 - g/3) = 0 + 1/3 + 2/3 + 1 = 2."""
    qrels = {"t": {"s": S, "a": A, "b": B, "n": 0}}
    values = scores(
        qrels,
        {"r": {"t": ranked("a", "u", "n", "s", "b")}, "ideal": {"t": ranked("s", "a", "b", "n")}},
        RPREF,
    )
    assert exact(values["r", "rpref_N"], F(1, 6) * (2 + 3 * (1 - F(4, 3) / 2) + (1 - F(1, 2))))
    assert exact(values["r", "rpref_relative"], F(1, 6) * (3 * (1 - F(4, 3) / 2) + (1 - F(1, 3))))
    assert exact(
        values["r", "rpref_relative2"], F(1, 6) * (2 + 3 * (1 - F(4, 3) / 3) + (1 - F(1, 4)))
    )
    assert values["ideal", "rpref_relative2"] == 1.0
    assert values["ideal", "rpref_N"] == 1.0
