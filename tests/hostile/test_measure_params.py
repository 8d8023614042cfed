"""Measure parameters: every parameter of every family declares its valid values once, and
the measure string (CLI) and Python objects (API) are refused alike outside them."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irgauge import MeasureError, evaluate
from irgauge.measures import REGISTRY, list_measures, parse_measure
from irgauge.measures.base import MAX_CUTOFF, Measure

from hostile_data import QRELS, RUN
from tests.conftest import examples

NUMERIC = ("int", "float", "levels")


def all_params():
    return [(family, p) for family in REGISTRY.values() for p in family.all_params()]


def outside(p):
    """Values just outside the declared range of a numeric parameter, and non-finite ones."""
    values = [math.nan, math.inf, -math.inf]
    if p.low is not None:
        values.append(p.low if p.low_open else math.nextafter(p.low, -math.inf))
    if p.high is not None:
        values.append(p.high if p.high_open else math.nextafter(p.high, math.inf))
    if p.kind == "int":
        values = [v for v in values if math.isfinite(v)]
        values = [int(math.floor(v)) if v < (p.low or 0) + 1 else int(math.ceil(v)) for v in values]
    return values


def test_every_parameter_declares_its_valid_values():
    for family, p in all_params():
        if p.kind in NUMERIC:
            assert p.low is not None and p.high is not None, f"{family.name}.{p.name}"
        elif p.kind == "str":
            assert p.choices, f"{family.name}.{p.name}"
        elif p.kind == "pairs":  # trec_eval's level=gain pairs: any level, any double
            with pytest.raises(MeasureError, match=f"parameter {p.name}=.* is not level=gain"):
                p.convert("1=2;nonsense", family.name)
        else:
            assert p.kind == "bool"
        # the default is itself valid
        if p.default is not None:
            p.convert(p.default, family.name)
    listed = {m["name"]: m for m in list_measures()}
    assert (
        listed["RBP"]["params"]["p"]["valid"]
        == "[-inf, inf] and nan (any double; its family may confine it)"
    )


def test_a_range_one_parameter_opens_only_under_anothers_value():
    """RBP's p lies in [0, 1) but for trec_eval's form, SetF's beta is >= 0 unless signed:
    the family's check refuses the combination from a string and from the API alike."""
    for text in ("RBP(p=1.5)", "RBP_resid(p=-1)", "SetF(beta=-2)"):
        with pytest.raises(MeasureError, match=r"^\S+\(.*\): parameter"):
            parse_measure(text)
    with pytest.raises(MeasureError, match="trec_eval's form takes any p"):
        Measure(REGISTRY["RBP"], params=(("p", 2.0),))
    for text in ("RBP(p=inf)", "RBP_resid(p=nan)", "SetF(beta=inf)", "SetF(beta=nan)"):
        with pytest.raises(MeasureError, match=r"^\S+\(.*\): parameter"):
            parse_measure(text)
    for text in (
        "RBP(p=1.5,graded=true,norm=trec_eval)",
        "RBP_resid(p=-1,form=trec_eval)",
        "SetF(beta=-2,signed=true)",
        # trec_eval reads these with atof and computes with them: C's doubles, all of them
        "RBP(p=-inf,graded=true,norm=trec_eval)",
        "RBP_resid(p=nan,form=trec_eval)",
        "SetF(beta=1.7e308,signed=true)",
        "SetF(beta=-nan,signed=true)",
    ):
        parse_measure(text)


@pytest.mark.parametrize(
    "family,p",
    [fp for fp in all_params() if fp[1].kind in NUMERIC],
    ids=lambda x: getattr(x, "name", ""),
)
def test_out_of_range_refused_from_string_and_api(family, p):
    for value in outside(p):
        text = str(value) if p.kind != "levels" else f"1:{value}"
        api = value if p.kind != "levels" else (1.0, value)
        label = f"{family.name}({p.name}={text})"
        with pytest.raises(MeasureError) as from_string:
            parse_measure(label)
        message = str(from_string.value)
        assert message.startswith(label + ":") and p.name in message
        if math.isfinite(value):
            assert p.span() in message
        if p.name in ("gains", "judged_only", "agg"):
            continue  # common options: Measure fields, not family params
        with pytest.raises(MeasureError) as from_api:
            Measure(family, params=((p.name, api),), label=label)
        assert str(from_api.value) == message


@pytest.mark.parametrize(
    "family,p",
    [fp for fp in all_params() if fp[1].kind == "str"],
    ids=lambda x: getattr(x, "name", ""),
)
def test_unknown_choice_refused(family, p):
    with pytest.raises(MeasureError, match=f"parameter {p.name} must be one of"):
        parse_measure(f"{family.name}({p.name}=nonsense)")


def test_api_gains_refused_like_the_string():
    with pytest.raises(MeasureError) as text:
        parse_measure("nDCG(gains=1:-1)")
    with pytest.raises(MeasureError) as api:
        Measure(REGISTRY["nDCG"], gains=(1, -1), label="nDCG(gains=1:-1)")
    assert (
        str(text.value)
        == str(api.value)
        == ("nDCG(gains=1:-1): every value of parameter gains must lie in [0, 1000]; got 1:-1")
    )


def test_evaluate_gains_list_refused_like_the_string():
    qrels = {"1": {"d1": 1, "d2": 2}}
    run = {"1": {"d1": 1.0, "d2": 0.5}}
    with pytest.raises(ValueError) as text:
        evaluate(qrels, run, gains="1:-1")
    with pytest.raises(ValueError) as api:
        evaluate(qrels, run, gains=[1, -1])
    assert str(text.value) == str(api.value)


@pytest.mark.parametrize(
    "measure,message",
    [
        ("RBP(p=1.5)", "RBP(p=1.5): parameter p must lie in [0, 1); got 1.5"),
        (
            "Q-measure(beta=-1)",
            "Q-measure(beta=-1): parameter beta must lie in [0, 1000000]; got -1",
        ),
        ("nDCG(gains=1:-1)", "every value of parameter gains must lie in [0, 1000]; got 1:-1"),
        ("nDCG(dcg=jk,b=0)", "parameter b must lie in (1, 1000000000]; got 0"),
        (
            "AP@99999999999999999999",
            "AP@99999999999999999999: cutoff must lie in "
            f"[1, {MAX_CUTOFF}]; got 99999999999999999999",
        ),
        ("AP@0", "cutoff must lie in [1, "),
        ("Utility(num_docs=2.5)", "parameter num_docs='2.5' is not a whole number"),
        ("RBP(graded=maybe)", "parameter graded='maybe' is not true or false"),
        ("NCUrb(gamma=2)", "parameter gamma must lie in [0, 1]; got 2"),
        ("IPrec(recall=inf)", "parameter recall must lie in [-1.7976931348623157e+308, "),
        ("WRR(pen=2:1)", "every value of parameter pen must lie in (1, 1000000]; got 2:1"),
        ("iRBU(u=0)", "parameter u must lie in (0, 1]; got 0"),
        ("ERR(stop=exp,max_grade=5000)", "parameter max_grade must lie in [0, 1000]; got 5000"),
    ],
)
def test_cli_refuses_bad_parameters(cli, collection, measure, message):
    code, out, err = cli("eval", *collection, "-m", measure)
    assert code == 2 and out == ""
    assert message in err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1


def _float_params():
    return [(f.name, p.name) for f, p in all_params() if p.kind == "float"]


@settings(max_examples=examples(150), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(_float_params()),
    value=st.one_of(
        st.floats(allow_nan=True, allow_infinity=True),
        st.floats(-2, 3),
        st.sampled_from([0.0, 1.0, 1e-300, 1e300]),
    ),
    cutoff=st.one_of(st.none(), st.integers(-5, 2**70)),
)
def test_random_parameter_values_give_finite_values_or_a_message(which, value, cutoff):
    """Any value is either refused with a MeasureError naming the measure and the parameter,
    or gives finite values for every topic."""
    family, name = which
    text = f"{family}({name}={value!r})" + (f"@{cutoff}" if cutoff is not None else "")
    qrels = {
        q: {
            line.split()[2]: int(line.split()[3])
            for line in QRELS.splitlines()
            if line.split()[0] == q
        }
        for q in ("1", "2")
    }
    run = {
        q: {
            line.split()[2]: float(line.split()[4])
            for line in RUN.splitlines()
            if line.split()[0] == q
        }
        for q in ("1", "2")
    }
    try:
        result = evaluate(qrels, run, [text])
    except MeasureError as err:
        assert family in str(err) and ("cutoff" in str(err) or name in str(err))
        return
    values = result.per_topic_columns["value"]
    assert np.all(np.isfinite(values)), (text, values)


def _other_params():
    return [(f.name, p.name, p.kind) for f, p in all_params() if p.kind in ("int", "levels")]


@settings(max_examples=examples(80), deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(
    which=st.sampled_from(_other_params()),
    numbers=st.lists(
        st.one_of(st.integers(-3, 10**6), st.floats(allow_nan=True, allow_infinity=True)),
        min_size=1,
        max_size=4,
    ),
)
def test_random_levels_and_counts_give_finite_values_or_a_message(which, numbers):
    family, name, kind = which
    value = ":".join(repr(v) for v in numbers) if kind == "levels" else repr(numbers[0])
    qrels = {"1": {"d1": 1, "d2": 2, "d3": 0}, "2": {"d1": 3, "d4": 1}}
    run = {"1": {"d1": 1.0, "d3": 0.5, "d2": 0.2}, "2": {"d4": 2.0, "d1": 1.0, "d9": 0.1}}
    try:
        result = evaluate(qrels, run, [f"{family}({name}={value})"])
    except MeasureError as err:
        assert family in str(err) and (name in str(err) or "levels up to" in str(err))
        return
    assert np.all(np.isfinite(result.per_topic_columns["value"]))


@pytest.mark.parametrize(
    "kwargs,message",
    [
        ({"max_docs": 0}, "max_docs: expected a whole number from 1 to"),
        ({"rel_level": 1.5}, "rel_level: expected a relevance level; got 1.5"),
        ({"gains": [1, float("nan")]}, "must lie in [0, 1000]"),
        ({"gains": [1, 1001]}, "must lie in [0, 1000]"),
    ],
)
def test_evaluate_arguments(kwargs, message):
    from irgauge import InputError

    with pytest.raises(InputError) as err:
        evaluate({"1": {"d1": 1}}, {"1": {"d1": 1.0}}, ["AP"], **kwargs)
    assert message in str(err.value)


@pytest.mark.parametrize("gains", ["0:0:0", "0:0:1000", "1000:1000:1000", "0:1"])
def test_extreme_gains_in_every_graded_family(gains):
    """All-zero gains (no document gains anything) and the largest gains give finite values
    in every graded family, or a MeasureError naming it (too few gains for level 3)."""
    qrels = {"1": {"d1": 1, "d2": 2, "d3": 0}, "2": {"d1": 3, "d4": 1}}
    run = {"1": {"d1": 1.0, "d3": 0.5, "d2": 0.2}, "2": {"d4": 2.0, "d1": 1.0, "d9": 0.1}}
    for family in REGISTRY.values():
        if not family.graded:
            continue
        text = f"{family.name}(gains={gains})"
        try:
            values = evaluate(qrels, run, [text]).per_topic_columns["value"]
        except MeasureError as err:
            assert str(err).startswith(text) and "levels up to 3" in str(err)
            continue
        assert np.all(np.isfinite(values)), text


def test_levels_too_large_for_exponential_gains_are_refused_not_infinite(tmp_path, cli):
    """Levels are gains by default; 2^40000 overflows, so the exponential nDCG asks for
    gains, and the run-wide gains keep the measures' bound. ERR's exponential stopping
    probability saturates at 1 without overflowing."""
    qrels, run = tmp_path / "q.txt", tmp_path / "r.txt"
    qrels.write_text("1 0 d1 1\n1 0 d2 40000\n")
    run.write_text("1 Q0 d1 1 3 r\n1 Q0 d2 2 2 r\n")
    code, out, err = cli("eval", qrels, run, "-m", "nDCG(dcg=exp-log2)@10")
    assert code == 2 and out == ""
    assert "dcg=exp-log2 computes 2^gain, which overflows above gain 1000" in err
    code, _, err = cli("eval", qrels, run, "-m", "nDCG@10", "--gains", "1:2000")
    assert code == 2 and "gains '1:2000' must lie in [0, 1000]" in err
    code, out, err = cli("eval", qrels, run, "-m", "ERR@10", "--format", "tsv")
    assert code == 0 and "RuntimeWarning" not in err
    # ERR = s1 + (1 - s1) s2 / 2 with s1 = (2^1 - 1)/2^4 and s2 = 1 (saturated)
    s1 = 1 / 16
    assert float(out.strip().splitlines()[-1].split("\t")[-1]) == pytest.approx(
        s1 + (1 - s1) / 2, rel=1e-12
    )
