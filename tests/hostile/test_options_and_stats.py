"""Numeric options of every command and the statistics' preconditions: a one-line message and
exit 2 (never a traceback), the same words from the Python API; ties give p = 1."""

from __future__ import annotations

import numpy as np
import pandas as pd
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from irgauge import InputError
from irgauge.meta import discriminative_power, stability, swap_rates
from irgauge.scores import ScoreMatrix
from irgauge.stats import (
    paired_bootstrap_test,
    paired_t_test,
    randomisation_test,
    randomised_tukey_hsd,
    sign_test,
)
from irgauge.stats.pairs import compare_pairs
from tests.conftest import examples


@pytest.fixture
def scores(tmp_path):
    """A wide score file: 8 topics x 5 systems."""
    rng = np.random.default_rng(7)
    path = tmp_path / "ap.csv"
    pd.DataFrame(
        rng.random((8, 5)), columns=list("abcde"), index=[f"t{i}" for i in range(8)]
    ).to_csv(path)
    return str(path)


@pytest.mark.parametrize(
    "args,message",
    [
        (
            "discpower -B 0",
            "argument -B/--samples: expected a number of random draws from 1 to 10000000; got 0",
        ),
        ("discpower -B -5", "got -5"),
        (
            "discpower --alpha 1.5",
            "argument --alpha: expected a significance level in (0, 1); got 1.5",
        ),
        ("swap --trials 0", "argument --trials: expected a number of random draws"),
        ("swap --confidence 1", "expected a confidence level in (0, 1); got 1"),
        ("swap -k 0", "argument -k/--subset-size: expected a whole number from 1 to"),
        ("stability --trials -2", "got -2"),
        ("stability --fuzziness 0.1,2", "--fuzziness: expected a probability in [0, 1]; got 2"),
        ("predictive -P -1", "argument -P/--halvings: expected a number of random draws"),
        ("predictive -k 0,2", "--subset-sizes: expected a whole number from 1 to"),
        ("compare --seed -1", "argument --seed: expected a seed from 0 to"),
        ("compare --permutations 1e3", "expected a number of random draws; got '1e3'"),
        ("correlate --alpha nan", "expected a significance level"),
        ("correlate --top-k 0", "argument --top-k: expected a whole number from 1 to"),
        ("correlate --top-fraction 0", "expected a fraction in (0, 1]; got 0"),
    ],
)
def test_meta_options_refused(cli, scores, args, message):
    code, out, err = cli(*args.split(), scores)
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err


@pytest.mark.parametrize(
    "args,message",
    [
        ("eval --digits -1", "argument --digits: expected a number of decimals from 0 to 15"),
        ("eval -l 0", "argument -l/--rel-level: expected a relevance level"),
        ("eval -M 0", "argument -M/--max-docs"),
        ("incomplete -B 0", "argument -B/--samples"),
        ("incomplete --bootstrap-seed -3", "expected a seed"),
    ],
)
def test_evaluation_options_refused(cli, collection, args, message):
    code, out, err = cli(*args.split()[:1], *collection, *args.split()[1:])
    assert code == 2 and message in err and "Traceback" not in err


def test_qa_digits_refused(cli, collection):
    code, out, err = cli("qa", "eval", *collection, "--digits", "99")
    assert code == 2 and "argument --digits: expected a number of decimals" in err


@pytest.mark.parametrize(
    "option,value,message",
    [
        ("--topics", "0", "argument --topics: expected a whole number from 1 to"),
        ("--depth", "-1", "argument --depth"),
        ("--shared-weight", "1.5", "expected a probability in [0, 1]; got 1.5"),
        ("--tie-fraction", "-0.1", "expected a probability"),
        ("--rel-median", "0", "expected a median count in (0, "),
        ("--topic-noise", "inf", "expected a non-negative number"),
        ("--score-decimals", "40", "expected a number of decimals"),
        ("--seed", "-2", "expected a seed"),
        ("--quality", "1:0", "--quality: expected LO:HI with LO <= HI, got '1:0'"),
    ],
)
def test_simulate_options_refused(cli, tmp_path, option, value, message):
    code, out, err = cli("simulate", "--out", tmp_path / "c", option, value)
    assert code == 2 and message in err and not (tmp_path / "c").exists()


def matrix(values):
    values = np.asarray(values, dtype=float)
    return {
        "AP": ScoreMatrix(
            values,
            [f"s{i}" for i in range(values.shape[0])],
            [f"t{j}" for j in range(values.shape[1])],
            "AP",
        )
    }


def test_api_says_what_the_cli_says(cli, scores):
    with pytest.raises(InputError) as err:
        discriminative_power(matrix(np.eye(3)), samples=0)
    assert str(err.value) == (
        "samples: expected a number of random draws from 1 to 10000000; got 0"
    )
    with pytest.raises(InputError, match="trials: expected a number of random draws"):
        swap_rates(matrix(np.eye(4)), trials=-1)
    with pytest.raises(InputError, match=r"fuzziness: expected a probability in \[0, 1\]"):
        stability(matrix(np.eye(4)), fuzziness=[1.5])
    with pytest.raises(InputError, match="seed: expected a seed"):
        paired_bootstrap_test([1, 2, 3], [3, 2, 1], seed=-1)


@pytest.mark.parametrize("command", ["discpower", "compare"])
def test_one_topic_is_refused_not_significant(cli, tmp_path, command):
    path = tmp_path / "one.csv"
    path.write_text("topic,a,b,c,d\nt1,0.1,0.5,0.9,0.3\n")
    code, out, err = cli(command, path, "-B", "50", "--seed", "1")
    assert code == 2 and out == ""
    assert "needs at least 2 topics; got 1" in err


def test_one_topic_api():
    with pytest.raises(InputError, match="needs at least 2 topics; got 1"):
        discriminative_power(matrix([[0.1], [0.5], [0.9]]), samples=50, seed=1)
    with pytest.raises(InputError, match="at least 2 systems"):
        compare_pairs(np.ones((1, 5)), ["a"])
    with pytest.raises(InputError, match="must be finite"):
        compare_pairs(np.array([[0.1, np.nan], [0.2, 0.3]]), ["a", "b"])


def test_equal_means_give_p_one_in_every_mean_test():
    """x and y hold the same values in another order: equal means, but the sums differ in
    the last bits, so without one tie tolerance the bootstrap gave ASL 0.84."""
    x = np.array([0.637, 0.2698, 0.041, 0.0165, 0.8133, 0.9128, 0.6066])
    y = x[[3, 2, 0, 1, 4, 6, 5]]
    assert (x - y).mean() != 0  # rounding: the tie is not exact
    assert paired_bootstrap_test(x, y, samples=500, seed=3).pvalue == 1.0
    assert paired_t_test(x, y).pvalue == 1.0
    assert randomisation_test(x, y, permutations=500, seed=3).pvalue == 1.0
    assert randomised_tukey_hsd(np.vstack([x, y]), trials=200, seed=3).pvalues[0, 1] == 1.0
    table = compare_pairs(
        np.vstack([x, y]), ["x", "y"], samples=200, permutations=200, seed=3
    ).table
    for test in ("bootstrap", "t", "randomisation", "tukey"):
        assert table[f"p_{test}"].iloc[0] == 1.0, test


def test_sign_test_drops_topics_tied_within_the_tolerance():
    x = np.array([0.3, 0.5, 0.9, 0.1 + 0.2])
    y = np.array([0.1, 0.2, 0.4, 0.3])  # 0.1 + 0.2 - 0.3 = 5.6e-17: a tie
    result = sign_test(x, y)
    assert (result.statistic, result.n_untied) == (3, 3)


META = st.sampled_from(["discpower", "swap", "stability", "predictive", "correlate", "compare"])
NUMBER = st.one_of(
    st.integers(-3, 40),
    st.sampled_from(["0", "1e3", "nan", "inf", "-0", "99999999999999999999", "0.5", "x"]),
)


@settings(
    max_examples=examples(60),
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.function_scoped_fixture],
)
@given(
    command=META,
    samples=NUMBER,
    trials=NUMBER,
    subset=NUMBER,
    seed=NUMBER,
    level=st.one_of(st.floats(allow_nan=True, allow_infinity=True), st.just(0.05)),
    top=NUMBER,
)
def test_random_meta_options_never_a_traceback(
    cli, scores, command, samples, trials, subset, seed, level, top
):
    """Any value: exit 0 with finite numbers in the output, or exit 2 with one line."""
    options = {
        "discpower": ["-B", samples, "--alpha", level],
        "swap": ["--trials", trials, "-k", subset, "--confidence", level],
        "stability": ["--trials", trials, "-k", subset],
        "predictive": ["-P", trials, "-k", subset],
        "correlate": ["--alpha", level, "--top-k", top],
        "compare": ["-B", samples, "--permutations", trials, "--top-k", top],
    }[command]
    if command != "correlate":
        options += ["--seed", seed]
    code, out, err = cli(command, scores, *options, "--format", "json")
    assert "Traceback" not in err
    if code == 2:
        last = err.strip().splitlines()[-1]  # after argparse's usage lines
        assert out == "" and last.startswith("irgauge") and ": error: " in last
    else:
        assert code == 0, err
        if "NaN" in out or "Infinity" in out:
            assert "irgauge: note: " in err and '"notes"' in out


def test_nan_results_come_with_a_note(cli, tmp_path):
    """A measure tying every system makes tau 0/0 and leaves no significant pair."""
    tie = tmp_path / "tie.csv"
    tie.write_text("topic,a,b,c\n1,0.5,0.5,0.5\n2,0.2,0.2,0.2\n3,0.1,0.1,0.1\n")
    ok = tmp_path / "ok.csv"
    ok.write_text("topic,a,b,c\n1,0.5,0.1,0.4\n2,0.2,0.3,0.2\n3,0.1,0.1,0.9\n")
    code, out, err = cli("correlate", tie, ok, "--format", "json")
    assert code == 0
    assert "irgauge: note: 3 tau values are not finite: a ranking ties every system" in err
    assert "RuntimeWarning" not in err
    code, out, err = cli("discpower", tie, "-B", "20", "--seed", "1")
    assert "required_difference values are not finite: no difference reaches" in err
    assert "# notes:" in out


@pytest.mark.parametrize(
    "call,message",
    [
        (
            lambda: __import__("irgauge").simulate_collection(n_topics=0),
            "n_topics: expected a whole number from 1 to 1000000000; got 0",
        ),
        (
            lambda: __import__("irgauge").simulate_collection(depth=2.5),
            "depth: expected a whole number; got 2.5",
        ),
        (
            lambda: __import__("irgauge").simulate_collection(shared_weight=1.5),
            "shared_weight: expected a probability in [0, 1]; got 1.5",
        ),
        (
            lambda: __import__("irgauge").simulate_collection(seed=-1),
            "seed: expected a seed from 0 to",
        ),
        (
            lambda: __import__("irgauge").simulate_collection(quality_range=(1.0, 0.5)),
            "quality_range: low 1 is above high 0.5",
        ),
    ],
)
def test_simulate_api_raises_input_error(call, message):
    with pytest.raises(InputError) as err:
        call()
    assert str(err.value).startswith(message)


def test_reduce_and_incomplete_api(collection):
    from irgauge import incomplete_study, reduce_qrels

    qrels, run = collection
    with pytest.raises(InputError, match="seed: expected a seed"):
        reduce_qrels(qrels, seed=-4)
    with pytest.raises(InputError, match="samples: expected a number of random draws"):
        incomplete_study(qrels, [run, run], samples=0)
    with pytest.raises(InputError, match=r"alpha: expected a significance level in \(0, 1\)"):
        incomplete_study(qrels, [run, run], alpha=1.0)


@pytest.mark.parametrize(
    "command,message",
    [
        ("swap", "two disjoint topic subsets need at least 2 topics; got 1"),
        ("predictive", "two disjoint topic subsets need at least 2 topics; got 1"),
    ],
)
def test_subset_methods_with_one_topic(cli, tmp_path, command, message):
    path = tmp_path / "ap.csv"
    path.write_text("topic,a,b,c\nt1,0.1,0.5,0.9\n")
    code, out, err = cli(command, path, "--seed", "1")
    assert code == 2 and message in err


@pytest.mark.parametrize(
    "args, message",
    [
        # the studies' --rates and -k are irgauge incomplete's and predictive's (one type
        # each, tests/test_option_declarations.py): refused in the same words
        ("incomplete --rates 0,150", "argument --rates: rate '0' is outside (0, 100]"),
        ("incomplete --rates 50,x", "argument --rates: rate 'x' is not a number"),
        (
            "qa --sign-alphas 0.05,2",
            "argument --sign-alphas: expected a significance level in (0, 1); got 2",
        ),
        (
            "predictive --sizes=5,-3",
            "argument -k/--subset-size/--subset-sizes/--sizes: expected a whole number from 1 "
            "to 1000000000; got -3",
        ),
        ("onerel -B 0", "argument -B/--samples/--B: expected a number of random draws"),
        ("predictive -P -1", "argument -P/--halvings: expected a number of random draws"),
    ],
)
def test_study_list_and_count_options_refused(cli, tmp_path, args, message):
    code, out, err = cli("study", *args.split(), "--out", tmp_path / "out")
    assert code == 2 and out == ""
    assert message in err and "Traceback" not in err
    assert not (tmp_path / "out").exists()


def test_measures_listing_shows_every_numeric_range(cli):
    code, out, _ = cli("measures")
    assert code == 0
    assert "p=0.95 [0, 1): persistence" in out
    assert "cutoffs lie in [1, 2147483647]" in out
    params = [
        line
        for line in out.splitlines()
        if line.startswith("    ") and "=" in line and not line.lstrip().startswith("aliases")
    ]

    def shows_values(line):
        head = line.split(": ")[0]
        return "[" in head or "(" in head or head.endswith("true or false")

    assert params and all(shows_values(line) for line in params), [
        line for line in params if not shows_values(line)
    ]
