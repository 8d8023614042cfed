"""The conventions an evaluation states are those its measures applied.

For every registered family, the header's relevance threshold, gains and condensed lists
of each measure, passed back to the measure as ``rel=``, ``gains=`` and ``judged_only=``
under the default options, give the same values: a header made from the options alone
(``-l 2`` printed beside trec_eval's nDCG, which reads every level) fails here.
"""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from irgauge import evaluate
from irgauge.cli import main
from irgauge.errors import MeasureError
from irgauge.evaluation.conventions import grouped
from irgauge.evaluation.rendering import render_evaluation
from irgauge.measures import REGISTRY
from irgauge.measures.base import Measure

SAMPLE = Path(__file__).resolve().parents[1] / "src" / "irgauge" / "data" / "sample"
KEYS = ("rel_level", "gains", "condensed")


def _collection():
    """Eight topics of levels 0..3 (some without a level-3 or any relevant document) and
    two runs holding judged and unjudged documents."""
    rng = np.random.default_rng(7)
    qrels = {}
    for t in range(8):
        levels = rng.integers(0, 4, size=12)
        if t == 0:
            levels = np.minimum(levels, 2)  # no document at level 3
        if t == 1:
            levels[:] = 0  # no relevant document
        qrels[str(t)] = {f"d{i}": int(v) for i, v in enumerate(levels)}
    runs = {}
    for name in ("a", "b"):
        runs[name] = {
            str(t): {f"d{i}": float(rng.random()) for i in rng.permutation(16)[:10]}
            for t in range(8)
        }  # d12..d15 are unjudged
    return qrels, runs


def _builtin_families():
    """Every family irgauge defines (measures registered by other tests or plugins aside)."""
    skip = ("irgauge.measures.custom", "irgauge.measures.user_code")
    return [f for f in REGISTRY.values() if f.func.__module__ not in skip]


def _variants(family):
    """The family at its defaults, under each choice of a word parameter and each true
    switch, at a cutoff, with its own threshold and with its own gains."""
    tries = [{}]
    for p in family.params:
        if p.kind == "str" and p.choices:
            tries += [{"params": ((p.name, c),)} for c in p.choices if c != p.default]
        if p.kind == "bool" and p.default is False:
            tries.append({"params": ((p.name, True),)})
    # RBP's trec_eval norm weighs graded lists only
    if {"graded", "norm"} <= {p.name for p in family.params}:
        tries.append({"params": (("graded", True), ("norm", "trec_eval"))})
    # the blended ratio at beta = 0 is count(r)/r, which reads no gains
    if "beta" in {p.name for p in family.params}:
        tries.append({"params": (("beta", 0.0),)})
    if family.cutoff == "optional":
        tries.append({"cutoff": 5})
    tries.append({"rel": 3})
    if family.graded:
        tries.append({"gains": (2.0, 1.0, 5.0)})
    measures = []
    for kwargs in tries:
        try:
            measures.append(Measure(family, **kwargs))
        except MeasureError:
            continue  # a combination the family refuses
    return measures


def _measures():
    found = [m for family in _builtin_families() for m in _variants(family)]
    return [replace(m, label=f"m{i}") for i, m in enumerate(found)]


def _stated(text: str, names):
    """``{name: {key: value}}`` from the ``# key: value`` lines of a TSV header."""
    lines = dict(line[2:].split(": ", 1) for line in text.splitlines() if line.startswith("# "))
    stated = {name: {} for name in names}
    for key in KEYS:
        for name, value in _ungrouped(lines[key], names).items():
            stated[name][key] = _value(key, value)
    return stated


def _ungrouped(value: str, names):
    """The value of each measure from ``V1 (m1, m2) | V2 (others)`` or a single ``V``."""
    if " (" not in value:
        return {name: value for name in names}
    found = {}
    for part in value.split(" | "):
        text, listed = part[:-1].split(" (", 1)
        for name in names if listed == "others" else listed.split(", "):
            found.setdefault(name, text)
    return found


def _value(key: str, text: str):
    if key == "rel_level":
        return int(text)
    if key == "condensed":
        return {"true": True, "false": False}[text]
    return None if text == "binary" else text


OPTIONS = (
    {"rel_level": 2, "gains": "1:3:7"},
    {"rel_level": 3, "gains": "2:2:9", "judged_only": True},
)


@pytest.mark.parametrize("options", OPTIONS, ids=["l2-gains", "l3-judged-only"])
def test_every_family_states_what_it_applied(options):
    qrels, runs = _collection()
    measures = _measures()
    names = [m.name for m in measures]
    result = evaluate(qrels, runs, measures, empty_topics="zero", **options)
    header = render_evaluation(result, "tsv")
    stated = _stated(header, names)
    assert result.metadata["measure_conventions"] == stated
    data = json.loads(render_evaluation(result, "json"))
    assert data["metadata"]["measure_conventions"] == stated
    # the stated conventions as the measures' own parameters, under the default options
    passed = [
        replace(
            m,
            rel=stated[m.name]["rel_level"],
            gains=stated[m.name]["gains"],
            judged_only=stated[m.name]["condensed"],
        )
        for m in measures
    ]
    again = evaluate(qrels, runs, passed, empty_topics="zero")
    before = result.per_topic.set_index(["run", "measure", "topic"])["value"]
    after = again.per_topic.set_index(["run", "measure", "topic"])["value"]
    assert len(before) == len(after) > 0
    differ = [
        f"{m.name} = {m.full}: {before.xs(m.name, level='measure').tolist()} stated "
        f"{stated[m.name]}, gives {after.xs(m.name, level='measure').tolist()}"
        for m in measures
        if not np.allclose(
            before.xs(m.name, level="measure"),
            after.xs(m.name, level="measure").loc[before.xs(m.name, level="measure").index],
            rtol=1e-12,
            atol=0,
            equal_nan=True,
        )
    ]
    assert not differ, "\n".join(differ)


def test_a_measure_states_gains_if_and_only_if_it_reads_them():
    """The recomputation above cannot see gains stated but unused (RBP without
    graded=true, NCUrb with P or IE utility, the blended ratio at beta = 0 said
    ``gains: 1:2:3``): with the measure's threshold and gains left to the options, its
    values change with the options' gains exactly when the header states gains."""
    qrels, runs = _collection()
    measures = [m for m in _measures() if m.rel is None and m.gains is None]
    values = []
    for gains in ("1:2:3", "5:1:9"):
        result = evaluate(qrels, runs, measures, empty_topics="zero", gains=gains)
        values.append(result.per_topic.set_index(["run", "measure", "topic"])["value"])
    stated = result.metadata["measure_conventions"]
    wrong = []
    for m in measures:
        first = values[0].xs(m.name, level="measure")
        second = values[1].xs(m.name, level="measure").loc[first.index]
        reads = not np.allclose(first, second, rtol=1e-12, atol=0, equal_nan=True)
        if reads != (stated[m.name]["gains"] is not None):
            wrong.append(f"{m.full}: states gains {stated[m.name]['gains']}, reads them: {reads}")
    assert not wrong, "\n".join(wrong)


def test_every_family_is_covered():
    names = {m.family.name for m in _measures()}
    assert names == {f.name for f in _builtin_families()}


def test_the_header_names_the_measures_that_differ():
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(
            [
                "eval",
                f"{SAMPLE}/qrels.txt",
                f"{SAMPLE}/runs/run01.run",
                "-m",
                "nDCG@10 ndcg_cut.5 P@5 Q",  # ndcg_cut.10 would be nDCG@10 again: refused
                "-l",
                "2",
                "--format",
                "tsv",
            ]
        )
    assert status == 0
    lines = [line for line in out.getvalue().splitlines() if line.startswith("# ")]
    # trec_eval's nDCG reads every level with its gain whatever -l says; P@5 and Q do not
    assert "# rel_level: 2 (P@5, Q) | 1 (others)" in lines
    assert "# gains: binary (P@5) | 0:2:3 (Q) | 1:2:3 (others)" in lines
    assert "# condensed: false" in lines


def test_grouped_values():
    assert grouped({"a": 1, "b": 1}) == 1
    assert grouped({"a": 1, "b": 2, "c": 2}) == "1 (a) | 2 (others)"
    assert grouped({"a": True, "b": False}) == "false (b) | true (others)"


# the commands that score runs themselves (--qrels/--run), with the options that keep them
# fast; a command that gains --qrels and is not here fails the test below it
SCORING = {
    "compare": ["-B", "20", "--permutations", "20", "--seed", "1"],
    "correlate": [],
    "discpower": ["-B", "20", "--seed", "1"],
    "predictive": ["--seed", "1", "--by", "P@5"],
    "stability": ["--seed", "1"],
    "swap": ["--seed", "1"],
    "topics": ["--min-diff", "0.1"],
}


def test_every_command_scoring_runs_is_held():
    from tests.hostile.test_every_option_acts import all_commands, options_of

    taking = {
        name
        for name, parser in all_commands().items()
        if any("--qrels" in a.option_strings for a in options_of(parser))
        and any("--run" in a.option_strings for a in options_of(parser))
    }
    assert taking == set(SCORING)


@pytest.mark.parametrize("command", sorted(SCORING))
def test_a_command_scoring_runs_states_each_measure_s_conventions(command):
    """A meta-evaluation command given --qrels/--run states the conventions of the scores
    it computed, measure by measure where they differ, as eval's header does."""
    runs = [f"{SAMPLE}/runs/run0{i}.run" for i in range(1, 5)]
    measures = ["AP(rel=2)", "P@5"]
    out = io.StringIO()
    with redirect_stdout(out):
        status = main(
            [command, "--qrels", f"{SAMPLE}/qrels.txt", "--run", *runs]
            + [arg for m in measures for arg in ("-m", m)]
            + SCORING[command]
            + ["--format", "json"]
        )
    assert status == 0
    metadata = json.loads(out.getvalue())["metadata"]
    evaluated = evaluate(f"{SAMPLE}/qrels.txt", runs, measures).metadata
    for key in ("rel_level", "gains", "condensed", "order", "empty_topics"):
        assert metadata.get(key) == evaluated[key], key
    assert "|" in metadata["rel_level"]  # the two measures' thresholds, each named
