"""Assessor agreement on multi-judge qrels from TREC topics: trec_eval's test file
``qrels.123`` (topics 301-303, three judgment groups over the same documents, which
disagree on some of them), read with ``irgauge agree -g``. Every label statistic is checked
against scikit-learn's cohen_kappa_score and the krippendorff package, on grades read here
with plain Python; the system rankings against scipy's kendalltau."""

from __future__ import annotations

import io
import json
from contextlib import redirect_stdout
from itertools import combinations

import numpy as np
import pytest

from irgauge.cli import main

from meta_paths import DATA

FOLDER = DATA / "trec_eval_tests"
GROUPS_FILE = FOLDER / "qrels.123"
pytestmark = pytest.mark.skipif(not GROUPS_FILE.is_file(), reason="shared data not available")


def group_grades() -> dict:
    """{group: {(topic, docno): grade}}, read with plain Python."""
    found: dict = {}
    for line in GROUPS_FILE.read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            topic, group, docno, grade = line.split()
            found.setdefault(group, {})[(topic, docno)] = int(grade)
    return found


def derived_runs(folder) -> list:
    """results.test and three runs made from it: each topic's scores reversed, its documents
    ranked by docno, and its second half dropped (systems that differ, on the same topics)."""
    lines = [line.split() for line in (FOLDER / "results.test").read_text().splitlines()]
    variants = {
        "reversed": lambda rows: [(d, -s) for d, s in rows],
        "by_docno": lambda rows: [(d, float(-k)) for k, (d, _) in enumerate(sorted(rows))],
        "half": lambda rows: sorted(rows, key=lambda r: -r[1])[: len(rows) // 2],
    }
    paths = [str(FOLDER / "results.test")]
    for name, change in variants.items():
        by_topic: dict = {}
        for topic, _, docno, _, score, _ in lines:
            by_topic.setdefault(topic, []).append((docno, float(score)))
        out = [
            f"{topic} Q0 {docno} {rank} {score} {name}"
            for topic, rows in by_topic.items()
            for rank, (docno, score) in enumerate(change(rows), 1)
        ]
        path = folder / f"{name}.run"
        path.write_text("\n".join(out) + "\n")
        paths.append(str(path))
    return paths


@pytest.fixture(scope="module")
def result(tmp_path_factory):
    runs = derived_runs(tmp_path_factory.mktemp("runs"))
    buffer = io.StringIO()
    argv = ["agree", "-g", str(GROUPS_FILE), "--run", *runs, "-m", "AP", "-m", "P@10"]
    with redirect_stdout(buffer):
        assert main(argv + ["-B", "50", "--seed", "5", "--format", "json"]) == 0
    return json.loads(buffer.getvalue())


def value(result, a, b, statistic, measure="-"):
    rows = [
        r
        for r in result["results"]
        if (r["a"], r["b"], r["statistic"], r["measure"]) == (a, b, statistic, measure)
    ]
    assert len(rows) == 1, (a, b, statistic, measure)
    return rows[0]["value"]


def test_the_groups_disagree():
    found = group_grades()
    assert sorted(found) == ["0", "1", "2"]
    a, b = found["0"], found["1"]
    assert sum(a[k] != b[k] for k in set(a) & set(b)) > 50


def test_kappas_match_scikit_learn(result):
    from sklearn.metrics import cohen_kappa_score

    found = group_grades()
    for x, y in combinations(sorted(found), 2):
        a, b = found[x], found[y]
        shared = sorted(set(a) & set(b))
        ga = np.array([a[k] for k in shared])
        gb = np.array([b[k] for k in shared])
        ca, cb = np.maximum(ga, 0), np.maximum(gb, 0)
        labels = list(range(int(max(ca.max(), cb.max())) + 1))
        expected = {
            "pairs": len(shared),
            "cohen_kappa": cohen_kappa_score(ga >= 1, gb >= 1),
            "weighted_kappa_linear": cohen_kappa_score(ca, cb, weights="linear", labels=labels),
            "weighted_kappa_quadratic": cohen_kappa_score(
                ca, cb, weights="quadratic", labels=labels
            ),
        }
        for statistic, wanted in expected.items():
            got = value(result, f"qrels.123[{x}]", f"qrels.123[{y}]", statistic)
            assert got == pytest.approx(wanted, abs=1e-9), (x, y, statistic)


@pytest.mark.parametrize("level", ["ordinal", "interval"])
def test_alpha_matches_krippendorff(result, level):
    import krippendorff

    found = group_grades()
    names = sorted(found)
    units = sorted(set().union(*found.values()))
    data = np.array([[max(found[g].get(u, np.nan), 0) for u in units] for g in names], dtype=float)
    statistic = f"krippendorff_alpha_{level}"
    every = krippendorff.alpha(reliability_data=data, level_of_measurement=level)
    assert value(result, "all", "all", statistic) == pytest.approx(every, abs=1e-6)
    pair = krippendorff.alpha(reliability_data=data[:2], level_of_measurement=level)
    assert value(result, "qrels.123[0]", "qrels.123[1]", statistic) == pytest.approx(pair, abs=1e-6)


def test_system_rankings_match_scipy(result):
    from scipy.stats import kendalltau

    systems = result["details"]["systems"]
    for x, y in combinations(["0", "1", "2"], 2):
        a, b = f"qrels.123[{x}]", f"qrels.123[{y}]"
        for measure in ("AP", "P@10"):
            rows = [r for r in systems if (r["a"], r["b"], r["measure"]) == (a, b, measure)]
            assert len(rows) == 4
            tau = kendalltau([r["mean_a"] for r in rows], [r["mean_b"] for r in rows])[0]
            assert value(result, a, b, "kendall_tau_b", measure) == pytest.approx(tau, abs=1e-9)
