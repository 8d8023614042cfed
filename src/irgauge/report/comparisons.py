"""One comparison per set of scores in a report, and what sets two comparisons apart.

A report given an evaluation's per-topic scores and a comparison table of those scores
(``irgauge compare --table json``) shows the table given, not irgauge's own comparison
beside it: two tables of one set of scores made with different tests, corrections or
alphas mark different runs, and the page would show both without a word. Where two given
tables compare the same scores, each says how it differs from the other, from the
parameters each table recorded.
"""

from __future__ import annotations

from typing import Any, Dict, List, Mapping

from irgauge.stats.comparison_formats import CORRECTIONS, TESTS

# the recorded parameters that decide which runs a table marks
DECIDING = ("test", "correction", "alpha", "baseline")
# and those of the tests that resample
RANDOM = {
    "bootstrap": ("bootstrap_samples", "seed"),
    "randomisation": ("permutations", "seed"),
    "tukey": ("tukey_trials", "seed"),
}


def deciding(parameters: Mapping[str, Any]) -> Dict[str, Any]:
    """The parameters of a comparison table that decide its marks, as it recorded them."""
    keys = DECIDING + RANDOM.get(str(parameters.get("test")), ())
    return {key: parameters.get(key) for key in keys}


def described(parameters: Mapping[str, Any]) -> str:
    """``paired Student's t-test, Holm's correction, α = 0.05`` (and the baseline)."""
    test = TESTS.get(str(parameters.get("test")), str(parameters.get("test")))
    correction = CORRECTIONS.get(str(parameters.get("correction")), parameters.get("correction"))
    text = f"{test}, {correction}, α = {_shown(parameters.get('alpha'))}"
    if parameters.get("baseline") is not None:
        text += f", against the baseline {parameters['baseline']}"
    return text


def differences(here: Mapping[str, Any], there: Mapping[str, Any]) -> List[str]:
    """``correction: none here, holm there`` for each deciding parameter the two tables
    recorded differently (a key one of them lacks counts as a difference)."""
    a, b = deciding(here), deciding(there)
    keys = list(dict.fromkeys([*a, *b]))
    return [
        f"{key}: {_shown(a.get(key))} here, {_shown(b.get(key))} there"
        for key in keys
        if a.get(key) != b.get(key)
    ]


def _shown(value: Any) -> str:
    return "none" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def of_evaluation(table: Mapping[str, Any], runs, measures, n_topics) -> bool:
    """Whether a comparison table (its metadata) compares an evaluation's scores: its runs
    and measures are among the evaluation's, over as many topics."""
    return (
        set(map(str, table.get("runs") or [])) <= set(map(str, runs))
        and set(table.get("measures") or []) <= set(measures)
        and bool(table.get("runs"))
        and (n_topics is None or table.get("n_topics") in (None, n_topics))
    )


def same_scores(a: Mapping[str, Any], b: Mapping[str, Any]) -> bool:
    """Whether two comparison tables (their metadata) compare the same runs over the same
    topics of one collection, in at least one measure."""
    return (
        set(map(str, a.get("runs") or [])) == set(map(str, b.get("runs") or []))
        and bool(set(a.get("measures") or []) & set(b.get("measures") or []))
        and a.get("n_topics") == b.get("n_topics")
        and a.get("collection") == b.get("collection")
    )
