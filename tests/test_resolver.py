"""The measure-name resolver: rules where two tools share a spelling, --explain, and round
trips of the canonical form (the values themselves are checked against each tool in
test_ntcireval_conformance, test_trec_eval_conformance and test_ir_measures_names)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from irgauge.cli import main
from irgauge.cli._options import split_measures
from irgauge.errors import MeasureError
from irgauge.measures import parse_measure
from irgauge.measures.parse import resolve

NAMES = [
    "AP",
    "AP@10",
    "AP@0010",
    "map_cut_10",
    "nDCG@0010",
    "MSnDCG@1000",
    "nDCG@10",
    "RBP",
    "RBP@0010",
    "RBP(rel=2)",
    "RBP(p=0.9)",
    "ERR",
    "ERR@10",
    "ERR@0010",
    "nERR@1000",
    "IPrec@0.1",
    "iprec_at_recall_0.10",
    "Judged@10",
    "SetP",
    "SetP(relative=True)",
    "SetF",
    "NumRet",
    "NumRet(rel=2)",
    "NumRel",
    "NumQ",
    "Success@10",
    "NCUrb,P",
    "NCUrb,IE@0010",
    "NCUgu,BR",
    "j:Q@0010",
    "Q-measure",
    "P-plus",
    "nDCG(gains={2:3,3:7})@10",
    "nDCG(dcg='exp-log2')@10",
    "AP(rel=2)",
    "P(judged_only=True)@10",
    "bpref",
    "Bpref(rel=2)",
    "gm_map",
    "rbp",
    "11pt_avg",
    "Rprec_mult_0.20",
]


@pytest.mark.parametrize("name", NAMES)
def test_the_full_form_reads_back_as_the_same_measure(name):
    measure = parse_measure(name)
    again = parse_measure(measure.full)
    assert again == measure  # family, parameters, cutoff, rel, gains, judged_only, agg
    assert measure.name == name  # rows keep the spelling given


@pytest.mark.parametrize(
    "name,tool,full",
    [
        ("AP@0010", "NTCIREVAL", "AP(norm=min,judged_only=false)@10"),
        ("AP@10", "irgauge", "AP(norm=R,judged_only=false)@10"),
        ("nDCG@0010", "NTCIREVAL", "nDCG(dcg=jk,b=2,levels=all,judged_only=false)@10"),
        ("ERR@10", "ir_measures", "ERR(stop=exp,max_grade=4,judged_only=false)@10"),
        ("ERR", "NTCIREVAL", "ERR(stop=ntcir,max_grade=4,judged_only=false)"),
        ("RBP", "NTCIREVAL", "RBP(p=0.95,graded=true,norm=collection,judged_only=false)"),
        (
            "RBP(rel=2)",
            "ir_measures",
            "RBP(p=0.8,graded=false,norm=collection,rel=2,judged_only=false)",
        ),
        ("IPrec@0.1", "ir_measures", "IPrec(recall=0.1,rounding=v9,judged_only=false)"),
        ("iprec_at_recall_0.10", "trec_eval", "IPrec(recall=0.1,rounding=round,judged_only=false)"),
        ("j:NCUrb,BR", "NTCIREVAL", "NCUrb(utility=BR,gamma=0.95,beta=1,u=0.99,judged_only=true)"),
    ],
)
def test_which_tool_a_spelling_belongs_to(name, tool, full):
    assert resolve(name).tool == tool
    assert parse_measure(name).full == full


@pytest.mark.parametrize(
    "name,forms",
    [
        ("nDCG@1000", ["nDCG(dcg=jk,b=2)@1000", "nDCG(dcg=log2)@1000"]),
        ("AP@1000", ["AP(norm=min)@1000", "AP(norm=R)@1000"]),
        ("ERR@1000", ["ERR(stop=ntcir)@1000", "ERR(stop=exp,max_grade=4)@1000"]),
        ("RBP@10", ["RBP@0010", "RBP(p=0.8,rel=1)@10"]),
    ],
)
def test_ambiguous_spellings_are_refused_naming_both_forms(name, forms):
    with pytest.raises(MeasureError, match="ambiguous") as err:
        parse_measure(name)
    for form in forms:
        assert form in str(err.value)
        parse_measure(form)  # and each named form is accepted


def test_other_refusals():
    for bad, problem in [
        ("SetP@10", "takes no cutoff"),
        ("AP@0.5", "whole number"),
        ("Compat", "compatibility measure"),
        ("alpha_nDCG@10", "diversity"),
        ("INST", "C/W/L"),
        ("Kompat", "unknown measure"),
        ("nDCG(gains={0:1})", r"is not numbers separated by ':' or a \{level:gain"),
    ]:
        with pytest.raises(MeasureError, match=problem):
            parse_measure(bad)


def test_explain_command(capsys):
    assert main(["measures", "--explain", "AP@0010,ERR@10", "--explain", "NCUrb,P"]) == 0
    out = capsys.readouterr().out
    assert "tool:      NTCIREVAL" in out and "AP(norm=min,judged_only=false)@10" in out
    assert "ERR(stop=exp,max_grade=4,judged_only=false)@10" in out and "NCUrb,P\n" in out
    assert main(["measures", "--explain", "nDCG@1000"]) == 2
    assert "refused" in capsys.readouterr().out


NAME = st.sampled_from(NAMES + ["nDCG(dcg=jk,b=2)@1000", "Q-measure(beta=0.5,gains=1:2:3)"])
SEPARATOR = st.sampled_from([",", " ", ", ", "  ", "\t"])


@given(
    st.lists(NAME, min_size=1, max_size=6),
    st.lists(SEPARATOR, min_size=6, max_size=6),
    st.integers(1, 3),
)
def test_lists_split_back_into_the_names(names, separators, groups):
    """Names joined by commas/spaces, over one or several -m values, split back exactly."""
    joined = [names[0]]
    for name, sep in zip(names[1:], separators):
        joined[-1] += sep + name
    # several -m values: cut the list at name boundaries
    cut = len(names) // groups or 1
    values = [" ".join(names[i : i + cut]) for i in range(0, len(names), cut)]
    assert split_measures(joined) == names
    assert split_measures(values) == names


@given(
    st.text(alphabet=st.sampled_from(list("APnDCGRBERQ@0123456789.,()={}:'\"_-+j ")), max_size=30)
)
def test_any_text_resolves_or_fails_with_a_measure_error(text):
    """Hostile spellings: a Measure or a MeasureError, never another exception."""
    try:
        parse_measure(text)
    except MeasureError:
        pass
