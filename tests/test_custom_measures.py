"""Capped recall (R_cap), DCG and IDCG, and measures registered by users
(``irgauge.register_measure`` / ``@irgauge.measure``, plugins through the entry point group
``irgauge.measures`` or ``IRGAUGE_MEASURES``)."""

from __future__ import annotations

import json
import math
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given

import irgauge
from irgauge import MeasureError, evaluate

from test_properties import SETTINGS, collections, ideal_run, per_topic

CUTOFFS = (1, 3, 5, 10, 20)
FORMS = ("", "dcg=exp-log2", "dcg=jk,b=2", "dcg=jk,b=3")


def collection(seed: int, n_topics: int = 15):
    """qrels {qid: {doc: level}} and run {qid: {doc: score}}: graded levels 0..3, topics
    without relevant documents, unjudged documents, heavy score ties, short lists."""
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for t in range(n_topics):
        qid = f"q{t}"
        n_judged = int(rng.integers(1, 30))
        levels = rng.choice([0, 0, 1, 2, 3] if t % 4 else [0, 0], size=n_judged)
        qrels[qid] = {f"d{t}_{i:02d}": int(level) for i, level in enumerate(levels)}
        pool = list(qrels[qid]) + [f"u{t}_{i:02d}" for i in range(int(rng.integers(0, 15)))]
        length = int(rng.integers(1, len(pool) + 1))
        chosen = rng.choice(pool, size=length, replace=False)
        scores = rng.integers(0, 5, size=length) / 4.0  # few distinct values: ties
        run[qid] = {str(d): float(s) for d, s in zip(chosen, scores)}
    return qrels, run


def ranking(scores: dict) -> list:
    """trec_eval's order: score descending, ties by docno descending."""
    return [d for _, d in sorted(((s, d) for d, s in scores.items()), reverse=True)]


def values(qrels, run, measures, **options):
    options = {"order": "score", "empty_topics": "zero", **options}
    frame = evaluate(qrels, {"r": run}, measures, **options).per_topic
    return {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}


# R_cap ---------------------------------------------------------------------------------------
def direct_r_cap(qrels, run, k, rel=1):
    out = {}
    for qid, docs in qrels.items():
        relevant = sum(level >= rel for level in docs.values())
        top = ranking(run[qid])[:k] if k else ranking(run[qid])
        found = sum(docs.get(d, 0) >= rel for d in top)
        cap = min(relevant, k) if k else relevant
        out[qid] = found / cap if cap else 0.0
    return out


@pytest.mark.parametrize("seed", [1, 2, 3])
@pytest.mark.parametrize("rel", [1, 2])
def test_r_cap_matches_a_direct_computation(seed, rel):
    qrels, run = collection(seed)
    names = [f"R_cap@{k}" for k in CUTOFFS] + ["R_cap"]
    ours = values(qrels, run, names, rel_level=rel)
    own_rel = values(qrels, run, [f"R_cap(rel={rel})@{k}" for k in CUTOFFS])
    for k in CUTOFFS + (None,):
        name = f"R_cap@{k}" if k else "R_cap"
        for qid, expected in direct_r_cap(qrels, run, k, rel).items():
            assert ours[(name, qid)] == pytest.approx(expected, abs=1e-12), (name, qid)
            if k:
                assert own_rel[(f"R_cap(rel={rel})@{k}", qid)] == pytest.approx(expected)


def test_r_cap_is_relative_precision_at_k_and_recall_without_cutoff():
    qrels, run = collection(4)
    ours = values(qrels, run, ["R_cap@5", "RelP@5", "R_cap", "R"])
    for qid in qrels:
        assert ours[("R_cap@5", qid)] == ours[("RelP@5", qid)]
        assert ours[("R_cap", qid)] == ours[("R", qid)]


def test_r_cap_scores_the_same_topics_as_recall():
    qrels, run = collection(5)
    frame = evaluate(qrels, {"r": run}, ["R_cap@10", "R@10"]).per_topic  # empty topics skipped
    topics = {m: set() for m in ("R_cap@10", "R@10")}
    for m, t in zip(frame["measure"], frame["topic"]):
        topics[m].add(t)
    assert topics["R_cap@10"] == topics["R@10"]
    assert len(topics["R@10"]) < len(qrels)  # some topics have no relevant document


def distinct_scores(run):
    """The same rankings (trec_eval's order) with distinct scores, for tools that do not
    break ties by docno."""
    return {
        qid: {d: float(len(docs) - i) for i, d in enumerate(ranking(docs))}
        for qid, docs in run.items()
    }


@pytest.mark.slow  # ranx, interpreted (tests/conftest.py): seconds
@pytest.mark.parametrize("seed", [6, 7])
def test_r_cap_and_dcg_match_ranx(seed):
    ranx = pytest.importorskip("ranx")
    qrels, run = collection(seed)
    qrels = {q: d for q, d in qrels.items() if max(d.values()) > 0}  # ranx needs relevant docs
    run = distinct_scores({q: run[q] for q in qrels})
    rq = ranx.Qrels({q: {d: lv for d, lv in docs.items() if lv > 0} for q, docs in qrels.items()})
    rr = ranx.Run(run)
    names = [f"R_cap@{k}" for k in CUTOFFS] + [f"DCG@{k}" for k in CUTOFFS]
    names += [f"DCG(dcg=exp-log2)@{k}" for k in CUTOFFS]
    ours = values(qrels, run, names)
    order = list(rq.keys())
    for k in CUTOFFS:
        hits = ranx.evaluate(rq, rr, f"hits@{k}", return_mean=False)
        dcg = ranx.evaluate(rq, rr, f"dcg@{k}", return_mean=False)
        burges = ranx.evaluate(rq, rr, f"dcg_burges@{k}", return_mean=False)
        for i, qid in enumerate(order):
            relevant = sum(lv > 0 for lv in qrels[qid].values())
            assert ours[(f"R_cap@{k}", qid)] == pytest.approx(hits[i] / min(relevant, k))
            assert ours[(f"DCG@{k}", qid)] == pytest.approx(dcg[i])
            assert ours[(f"DCG(dcg=exp-log2)@{k}", qid)] == pytest.approx(burges[i])


# DCG / IDCG ----------------------------------------------------------------------------------
def gain_of(level, form):
    return 2.0**level - 1 if form == "dcg=exp-log2" else float(level)


def weight(rank, form):
    if form.startswith("dcg=jk"):
        b = float(form.rsplit("=", 1)[1])
        return 1.0 if rank <= b else math.log(b) / math.log(rank)
    return 1.0 / math.log2(rank + 1)


def direct_dcg(levels, form, k):
    levels = levels[:k] if k else levels
    return sum(gain_of(max(lv, 0), form) * weight(r, form) for r, lv in enumerate(levels, 1))


@pytest.mark.parametrize("seed", [1, 2])
@pytest.mark.parametrize("form", FORMS)
def test_dcg_and_idcg_match_a_direct_computation_and_divide_to_ndcg(seed, form):
    qrels, run = collection(seed)
    params = f"({form})" if form else ""
    names = [
        f"{m}{params}{'@' + str(k) if k else ''}"
        for m in ("DCG", "IDCG", "nDCG")
        for k in (None,) + CUTOFFS
    ]
    ours = values(qrels, run, names)
    for qid, docs in qrels.items():
        levels = [docs.get(d, 0) for d in ranking(run[qid])]
        ideal = sorted((lv for lv in docs.values() if lv > 0), reverse=True)
        for k in (None,) + CUTOFFS:
            at = f"{params}@{k}" if k else params
            dcg, idcg = ours[(f"DCG{at}", qid)], ours[(f"IDCG{at}", qid)]
            assert dcg == pytest.approx(direct_dcg(levels, form, k), abs=1e-12)
            assert idcg == pytest.approx(direct_dcg(ideal, form, k), abs=1e-12)
            expected = dcg / idcg if idcg else 0.0
            assert ours[(f"nDCG{at}", qid)] == pytest.approx(expected, abs=1e-12), (at, qid)


def test_dcg_follows_gains_and_levels_as_ndcg_does():
    qrels, run = collection(3)
    names = [
        "DCG(gains=0:5:10)@10",
        "IDCG(gains=0:5:10)@10",
        "nDCG(gains=0:5:10)@10",
        "DCG(levels=relevant,rel=2)@10",
        "IDCG(levels=relevant,rel=2)@10",
        "nDCG(levels=relevant,rel=2)@10",
        "DCG(judged_only=true)@10",
        "IDCG(judged_only=true)@10",
        "nDCG(judged_only=true)@10",
    ]
    ours = values(qrels, run, names)
    for qid in qrels:
        for i in range(0, len(names), 3):
            dcg, idcg, ndcg = (ours[(n, qid)] for n in names[i : i + 3])
            assert ndcg == pytest.approx(dcg / idcg if idcg else 0.0, abs=1e-12)


def test_dcg_against_pytrec_eval_ndcg_times_idcg():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    qrels, run = collection(8)
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"ndcg_cut.10"}).evaluate(run)
    ours = values(qrels, run, ["DCG@10", "IDCG@10"])
    for qid, got in theirs.items():
        expected = got["ndcg_cut_10"] * ours[("IDCG@10", qid)]
        assert ours[("DCG@10", qid)] == pytest.approx(expected, abs=1e-6)


@SETTINGS
@given(collections())
def test_r_cap_lies_in_the_unit_interval(data):
    names = [f"R_cap@{k}" for k in (1, 2, 5)] + ["R_cap", "R_cap(judged_only=true)@3"]
    found = per_topic(*data, names)
    assert all(-1e-12 <= v <= 1 + 1e-12 for v in found.values())


@SETTINGS
@given(collections())
def test_an_ideal_run_gives_r_cap_one_and_dcg_equal_to_idcg(data):
    qrels, _ = data
    cap = [f"R_cap@{k}" for k in (1, 2, 5)] + ["R_cap"]
    dcg = [
        f"{m}({form}){'@3' if k else ''}"
        for form in FORMS[1:]
        for k in (0, 1)
        for m in ("DCG", "IDCG")
    ]
    found = per_topic(qrels, ideal_run(qrels), cap + dcg)
    for qid, docs in qrels.items():
        if max(docs.values()) > 0:
            assert all(found[(m, qid)] == pytest.approx(1.0) for m in cap)
        for i in range(0, len(dcg), 2):
            assert found[(dcg[i], qid)] == pytest.approx(found[(dcg[i + 1], qid)], abs=1e-12)


# registered measures -------------------------------------------------------------------------
def patient_rr(ranked, p=0.9):
    """PRR@k = sum_{r<=k} isrel(r) p^(r-1) / r"""
    return (ranked.isrel * p ** (ranked.ranks - 1) / ranked.ranks).sum(axis=1)


def direct_prr(qrels, run, k, p, rel=1):
    out = {}
    for qid, docs in qrels.items():
        top = ranking(run[qid])[:k]
        out[qid] = sum(p ** (r - 1) / r for r, d in enumerate(top, 1) if docs.get(d, 0) >= rel)
    return out


@pytest.fixture
def prr():
    family = irgauge.register_measure(
        "PRR", patient_rr, params={"p": {"default": 0.9, "low": 0.0, "high": 1.0}}
    )
    yield family
    irgauge.unregister_measure("PRR")


def test_a_registered_measure_works_in_evaluate(prr):
    qrels, run = collection(9)
    ours = values(qrels, run, ["PRR@10", "PRR(p=0.5)@5", "PRR(rel=2)@10", "PRR(agg=gmean)@3"])
    for name, k, p, rel in (
        ("PRR@10", 10, 0.9, 1),
        ("PRR(p=0.5)@5", 5, 0.5, 1),
        ("PRR(rel=2)@10", 10, 0.9, 2),
    ):
        for qid, expected in direct_prr(qrels, run, k, p, rel).items():
            assert ours[(name, qid)] == pytest.approx(expected, abs=1e-12), (name, qid)
    assert prr.summary.startswith("PRR@k")  # the docstring's first line
    assert any(m["name"] == "PRR" for m in irgauge.list_measures())
    with pytest.raises(MeasureError, match="must lie in"):
        irgauge.parse_measure("PRR(p=2)")


def test_the_decorator_and_a_measure_without_cutoff():
    @irgauge.measure("RelFound", cutoff=False, integer=True, summary="relevant retrieved")
    def found(ranked):
        return ranked.n_rel_ret

    try:
        qrels, run = collection(10)
        ours = values(qrels, run, ["RelFound", "num_rel_ret"])
        assert all(ours[("RelFound", q)] == ours[("num_rel_ret", q)] for q in qrels)
        with pytest.raises(MeasureError, match="takes no cutoff"):
            irgauge.parse_measure("RelFound@10")
    finally:
        irgauge.unregister_measure("RelFound")
    with pytest.raises(MeasureError, match="unknown measure"):
        irgauge.parse_measure("RelFound")


def test_a_registered_measure_through_ir_measures(prr):
    ir_measures = pytest.importorskip("ir_measures")
    qrels, run = collection(11)
    names = ["PRR@10", "PRR(p=0.5)@5"]
    objects = irgauge.to_ir_measures(names)
    aggregate = ir_measures.calc_aggregate(objects, qrels, run)
    means = evaluate(qrels, {"r": run}, names, empty_topics="zero").table()
    for obj in objects:
        assert aggregate[obj] == pytest.approx(means.loc["r", str(obj)], abs=1e-12)


@pytest.mark.parametrize(
    "name, problem",
    [
        ("AP", "is taken"),
        ("nDCG", "is taken"),
        ("R_cap", "is taken"),
        ("DCG", "is taken"),
        ("ap", "only in case"),
        ("map", "already trec_eval's map"),
        ("MRR", "already ir_measures' MRR"),
        ("Q", "already NTCIREVAL's Q"),
        ("alpha_nDCG", "already ir_measures' alpha_nDCG"),
        ("ndcg_cut_10", "already trec_eval's ndcg_cut_10"),
        ("P_10", "already trec_eval's P_10"),
        ("1st", "a letter"),
        ("a b", "a letter"),
        ("x(y)", "a letter"),
    ],
)
def test_names_that_collide_or_cannot_be_read_are_refused(name, problem):
    with pytest.raises(MeasureError, match=problem):
        irgauge.register_measure(name, patient_rr)
    assert "ap" not in irgauge.measures.REGISTRY.keys()


@pytest.mark.parametrize(
    "params, function, problem",
    [
        ({"rel": 2}, patient_rr, "every measure has"),
        ({"gains": 2}, patient_rr, "every measure has"),
        ({"q": 1.0}, patient_rr, "takes no parameter 'q'"),
        ({"p": [0.5]}, patient_rr, "none of bool, int, float, str"),
        ({"p": {"default": 0.5, "choices": ("a",)}}, patient_rr, "choices are for str"),
        ({"p": {"default": "x", "kind": "str", "choices": ("a",)}}, patient_rr, "must be one of"),
        ({"p": {"default": 2.0, "high": 1.0}}, patient_rr, "must lie in"),
        ({"p": {"value": 2.0}}, patient_rr, "holds 'default'"),
        ({"p": {"default": 1, "kind": "matrix"}}, patient_rr, "kind 'matrix'"),
        ({"2p": 1.0}, patient_rr, "Python identifier"),
        ({}, lambda ranked, p: ranked.R, "requires p"),
        ({}, lambda: 0, "first argument"),
        ({}, 42, "not a function"),
        (["p"], patient_rr, "params is a {name: default} mapping; got list"),
    ],
)
def test_bad_declarations_are_refused(params, function, problem):
    with pytest.raises(MeasureError, match=problem):
        irgauge.register_measure("Fresh", function, params=params)
    assert "Fresh" not in irgauge.measures.custom_measures()


def test_replace_re_registers_ones_own_measure_only(prr):
    with pytest.raises(MeasureError, match="is taken"):
        irgauge.register_measure("PRR", patient_rr)
    irgauge.register_measure("PRR", lambda ranked: ranked.R, replace=True)
    qrels, run = collection(2)
    ours = values(qrels, run, ["PRR", "num_rel"])
    assert all(ours[("PRR", q)] == ours[("num_rel", q)] for q in qrels)
    with pytest.raises(MeasureError, match="is taken"):
        irgauge.register_measure("AP", patient_rr, replace=True)


def test_a_function_returning_the_wrong_shape_is_named():
    irgauge.register_measure("Broken", lambda ranked: ranked.isrel.astype(float))
    try:
        qrels, run = collection(1)
        with pytest.raises(MeasureError, match=r"measure Broken .*: returned shape \(\d+, \d+\)"):
            evaluate(qrels, {"r": run}, ["Broken@5"])
    finally:
        irgauge.unregister_measure("Broken")
    with pytest.raises(MeasureError, match="not a registered custom measure"):
        irgauge.unregister_measure("AP")


# plugins: the command line ---------------------------------------------------------------------
PLUGIN = """
import irgauge

@irgauge.measure("PatientRR", params={"p": 0.9}, summary="sum_r isrel(r) p^(r-1) / r")
def patient_rr(ranked, p=0.9):
    return (ranked.isrel * p ** (ranked.ranks - 1) / ranked.ranks).sum(axis=1)
"""


def write_trec(qrels, runs, directory: Path):
    (directory / "qrels.txt").write_text(
        "".join(f"{q} 0 {d} {lv}\n" for q, docs in qrels.items() for d, lv in docs.items())
    )
    paths = []
    for name, run in runs.items():
        lines = [
            f"{q} Q0 {d} {i} {docs[d]} {name}\n"
            for q, docs in run.items()
            for i, d in enumerate(ranking(docs), 1)
        ]
        paths.append(directory / f"{name}.txt")
        paths[-1].write_text("".join(lines))
    return directory / "qrels.txt", paths


@pytest.fixture
def plugin_dir(tmp_path):
    """A module registering PatientRR and an installed distribution declaring it in the
    entry point group irgauge.measures (as ``pip install`` of a package with
    ``[project.entry-points."irgauge.measures"]`` leaves it)."""
    (tmp_path / "my_measures.py").write_text(PLUGIN)
    info = tmp_path / "my_measures-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: my-measures\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text("[irgauge.measures]\nmy_measures = my_measures\n")
    return tmp_path


def plugin_environment(path, **variables):
    """This process's environment with ``path`` first on the Python path (the rest of it
    kept, so that the command runs the irgauge under test) and ``variables`` set."""
    environment = {**os.environ, "PYTHONPATH": os.pathsep.join([str(path), *sys.path])}
    environment.pop("IRGAUGE_MEASURES", None)
    return {**environment, **variables}


def cli(args, path, env=None):
    environment = plugin_environment(path, **(env or {}))
    done = subprocess.run(
        [sys.executable, "-m", "irgauge", *args],
        capture_output=True,
        text=True,
        env=environment,
        cwd=path,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def runs_of(seed, n=4):
    qrels, run = collection(seed)
    rng = np.random.default_rng(seed)
    runs = {
        f"sys{i}": {
            q: {d: float(s + rng.integers(0, 3) / 8) for d, s in docs.items()}
            for q, docs in run.items()
        }
        for i in range(n)
    }
    return qrels, runs


def test_eval_loads_a_measure_from_an_entry_point(plugin_dir):
    qrels, runs = runs_of(12, n=1)
    qrels_path, (run_path,) = write_trec(qrels, runs, plugin_dir)
    out = cli(
        [
            "eval",
            str(qrels_path),
            str(run_path),
            "-m",
            "PatientRR@10,PatientRR(p=0.5)@5",
            "-q",
            "--format",
            "tsv",
            "--empty-topics",
            "zero",
        ],
        plugin_dir,
    )
    rows = [line.split("\t") for line in out.splitlines() if line and not line.startswith("#")]
    got = {
        (r[1], r[2]): float(r[3]) for r in rows if r[1].startswith("PatientRR") and r[2] != "all"
    }
    for name, k, p in (("PatientRR@10", 10, 0.9), ("PatientRR(p=0.5)@5", 5, 0.5)):
        for qid, expected in direct_prr(qrels, runs["sys0"], k, p).items():
            assert got[(name, qid)] == pytest.approx(expected, abs=1e-4), (name, qid)
    listing = json.loads(cli(["measures", "--format", "json"], plugin_dir))
    assert "PatientRR" in {m["name"] for m in listing}


@pytest.mark.slow  # six meta commands, each with a plugin measure
def test_meta_commands_compute_a_plugin_measure_from_qrels_and_runs(plugin_dir):
    qrels, runs = runs_of(13)
    qrels_path, run_paths = write_trec(qrels, runs, plugin_dir)
    common = ["--qrels", str(qrels_path), "--run", *map(str, run_paths), "-m", "PatientRR@10"]
    out = cli(["discpower", *common, "-B", "50", "--seed", "1", "--format", "tsv"], plugin_dir)
    assert "PatientRR@10" in out
    out = cli(["compare", *common, "-B", "50", "--seed", "1", "--format", "tsv"], plugin_dir)
    assert "PatientRR@10" in out and "sys0" in out


def test_the_environment_variable_names_plugin_modules(tmp_path):
    (tmp_path / "env_measures.py").write_text(PLUGIN.replace("PatientRR", "EnvRR"))
    qrels, runs = runs_of(14, n=1)
    qrels_path, (run_path,) = write_trec(qrels, runs, tmp_path)
    out = cli(
        ["eval", str(qrels_path), str(run_path), "-m", "EnvRR@10", "--format", "tsv"],
        tmp_path,
        {"IRGAUGE_MEASURES": "env_measures"},
    )
    assert "EnvRR@10" in out


def test_plugins_load_only_when_a_name_is_not_found(plugin_dir):
    code = textwrap.dedent(
        """
        import sys, warnings
        from irgauge.measures import parse_measures
        parse_measures(["AP", "map", "nDCG@10", "ndcg_cut_10", "AP@0010", "MRR", "R_cap@10"])
        assert "my_measures" not in sys.modules
        assert parse_measures(["PatientRR@10"])[0].family.name == "PatientRR"
        assert "my_measures" in sys.modules
        """
    )
    environment = plugin_environment(plugin_dir)
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment
    )
    assert done.returncode == 0, done.stderr


def test_a_broken_plugin_is_named_when_a_name_is_not_found_and_never_warns(tmp_path):
    (tmp_path / "broken_measures.py").write_text("raise ImportError('no such dependency')\n")
    code = textwrap.dedent(
        """
        import warnings
        warnings.simplefilter("error")  # a warning would fail here
        from irgauge import MeasureError
        from irgauge.measures import parse_measure, plugin_failures
        try:
            parse_measure("Missing@10")
        except MeasureError as err:
            message = str(err)
        assert "unknown measure 'Missing'" in message, message
        note = "; measure plugin broken_measures from IRGAUGE_MEASURES failed to load: "
        assert message.endswith(note + "ImportError: no such dependency"), message
        assert list(plugin_failures()) == ["broken_measures from IRGAUGE_MEASURES"]
        assert parse_measure("AP@10").family.name == "AP"  # what is found still works
        """
    )
    environment = plugin_environment(tmp_path, IRGAUGE_MEASURES="broken_measures")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment
    )
    assert done.returncode == 0, done.stderr
