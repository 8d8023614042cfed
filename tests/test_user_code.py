"""User code under one guard (``irgauge.measures.user_code``, issue 33): a registered
measure, or a plugin's, that raises or answers anything but one finite real number per
(run, topic) is refused with one line naming the measure, where it came from and the
topic: a UserCodeError from Python (what it raised chained), exit 2 from the command line,
in every engine. A plugin that fails to import is one line, and no name another tool
prints or accepts can be registered, in any case."""

from __future__ import annotations

import json
import pickle
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import irgauge
from irgauge import MeasureError, UserCodeError, evaluate
from irgauge.measures import trec_eval_words as TE

from test_custom_measures import collection, patient_rr, plugin_environment, write_trec

# name -> (the function's body over ``ranked``, integer, what the one line says)
BAD = {
    "NanM": ("np.full(ranked.n_rows, np.nan)", False, "returned nan;"),
    "InfM": ("np.where(ranked.R >= 0, np.inf, 0.0)", False, "returned inf;"),
    "NegInfM": ("-np.exp(ranked.R * 1000.0)", False, "returned -inf;"),
    # finite, but two of them sum to inf: the means and the bootstrap would print inf
    "HugeM": ("np.full(ranked.n_rows, 1e308)", False, "returned 1e+308;"),
    "ComplexM": ("ranked.R + 1j", False, "returned complex128 values, not real numbers"),
    "TextM": ("np.full(ranked.n_rows, '0.5')", False, "returned <U3 values, not real numbers"),
    "NoneM": ("[None] * ranked.n_rows", False, "returned nan;"),
    "DateM": (
        "np.full(ranked.n_rows, np.datetime64('2020-01-01'))",
        False,
        "returned datetime64[D] values",
    ),
    "MatrixM": ("ranked.isrel * 1.0", False, "returned shape ("),
    "ScalarM": ("1.0", False, "returned shape ()"),
    "RaiseM": ("1 / 0", False, "raised ZeroDivisionError: division by zero"),
    "ExitM": ("sys.exit(3)", False, "raised SystemExit: 3"),
    "HalfM": ("ranked.R + 0.5", True, "a count (integer=True) is whole"),
}
VALUE_PROBLEMS = ("NanM", "InfM", "NegInfM", "HugeM", "NoneM", "HalfM")  # a topic holds the value

PLUGIN = "import sys\nimport numpy as np\nimport irgauge\n" + "".join(
    f"\n@irgauge.measure({name!r}, integer={integer})\ndef f_{name}(ranked):\n    return {body}\n"
    for name, (body, integer, _) in BAD.items()
)


@pytest.fixture(scope="module")
def bad_measures():
    """Every BAD measure registered from this module's namespace."""
    space = {"_measure": _measure}
    exec(compile(PLUGIN.replace("@irgauge.measure(", "@_measure("), __file__, "exec"), space)
    yield
    for name in BAD:
        irgauge.unregister_measure(name)


def _measure(name, integer):
    """``irgauge.measure`` for functions named as if this module defined them."""

    def wrap(function):
        function.__module__, function.__qualname__ = __name__, f"f_{name}"
        irgauge.register_measure(name, function, integer=integer)
        return function

    return wrap


@pytest.mark.parametrize("name", sorted(BAD))
def test_a_bad_answer_or_an_exception_is_one_error_naming_measure_origin_topic(name, bad_measures):
    qrels, run = collection(3)
    with pytest.raises(UserCodeError) as caught:
        evaluate(qrels, {"r": run}, [name])
    err = caught.value
    message = str(err)
    assert "\n" not in message
    assert message.startswith(f"measure {name} (function test_user_code.f_{name})"), message
    assert BAD[name][2] in message, message
    assert isinstance(err, MeasureError) and err.measure == name
    if name in VALUE_PROBLEMS:
        assert err.topic in qrels and err.run == "r", message
        assert f", topic {err.topic} of run r: " in message
    if name == "RaiseM":
        assert isinstance(err.__cause__, ZeroDivisionError)  # kept for Python users
    copy = pickle.loads(pickle.dumps(err))  # as a Dask worker sends it back
    assert type(copy) is UserCodeError and str(copy) == message


def test_good_answers_of_every_real_kind_are_scored_exactly():
    qrels, run = collection(4)
    answers = {
        "IntsM": lambda ranked: ranked.R,
        "BoolsM": lambda ranked: ranked.R > 3,
        "ListM": lambda ranked: [float(r) / 7 for r in ranked.R],
        "F32M": lambda ranked: (ranked.R / 3).astype(np.float32),
    }
    for name, function in answers.items():
        irgauge.register_measure(name, function, cutoff=False)
    try:
        frame = evaluate(qrels, {"r": run}, list(answers), empty_topics="zero").per_topic
    finally:
        for name in answers:
            irgauge.unregister_measure(name)
    got = {(m, t): v for m, t, v in zip(frame["measure"], frame["topic"], frame["value"])}
    for qid, docs in qrels.items():
        relevant = sum(level >= 1 for level in docs.values())
        assert got[("IntsM", qid)] == relevant
        assert got[("BoolsM", qid)] == float(relevant > 3)
        assert got[("ListM", qid)] == relevant / 7
        assert got[("F32M", qid)] == float(np.float32(relevant / 3))


def test_a_measure_computing_nan_then_replacing_it_prints_no_warning(recwarn):
    qrels, run = collection(5)
    irgauge.register_measure("Ratio", lambda ranked: np.nan_to_num(ranked.R * 0.0 / 0.0))
    try:
        evaluate(qrels, {"r": run}, ["Ratio"], empty_topics="zero")
    finally:
        irgauge.unregister_measure("Ratio")
    assert not [w for w in recwarn if issubclass(w.category, RuntimeWarning)]


def _driver(directory, engines):
    """Runs ``irgauge eval`` in one process on each BAD measure of the plugin
    ``bad_measures`` (from IRGAUGE_MEASURES) with each engine's options: JSON
    {name engine: [exit status, stderr]}."""
    qrels, run = collection(6)
    qrels_path, (run_path,) = write_trec(qrels, {"r": run}, directory)
    (directory / "bad_measures.py").write_text(PLUGIN)
    code = textwrap.dedent(
        f"""
        import contextlib, io, json, sys
        from irgauge.cli import main
        found = {{}}
        for name in {sorted(BAD)!r}:
            for engine in {engines!r}:
                err = io.StringIO()
                with contextlib.redirect_stderr(err), contextlib.redirect_stdout(io.StringIO()):
                    code = main(["eval", {str(qrels_path)!r}, {str(run_path)!r}, "-m", name,
                                 *engine.split()])
                found[name + " " + engine] = [code, err.getvalue()]
        print(json.dumps(found))
        """
    )
    environment = plugin_environment(directory, IRGAUGE_MEASURES="bad_measures")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment, cwd=directory
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_command_line_refuses_each_in_one_line_naming_the_plugin(tmp_path):
    origin = "(plugin bad_measures from IRGAUGE_MEASURES)"
    for key, (code, err) in _driver(tmp_path, ["", "--memory 1M"]).items():
        name = key.split()[0]
        assert code == 2, (key, err)
        lines = err.splitlines()
        assert len(lines) == 1, (key, err)
        assert lines[0].startswith(f"irgauge: error: measure {name} {origin}"), (key, err)
        assert BAD[name][2] in lines[0], (key, err)


def test_the_console_script_exits_2_with_one_line(tmp_path):
    qrels, run = collection(7)
    qrels_path, (run_path,) = write_trec(qrels, {"r": run}, tmp_path)
    (tmp_path / "bad_measures.py").write_text(PLUGIN)
    environment = plugin_environment(tmp_path, IRGAUGE_MEASURES="bad_measures")
    done = subprocess.run(
        [sys.executable, "-m", "irgauge", "eval", str(qrels_path), str(run_path), "-m", "RaiseM"],
        capture_output=True,
        text=True,
        env=environment,
    )
    assert done.returncode == 2
    assert done.stderr == (
        "irgauge: error: measure RaiseM (plugin bad_measures from IRGAUGE_MEASURES): "
        "raised ZeroDivisionError: division by zero\n"
    )
    assert done.stdout == ""


def test_a_plugin_that_fails_to_import_is_one_line_and_fatal_only_for_a_name_not_found(
    tmp_path,
):
    qrels, run = collection(8)
    qrels_path, (run_path,) = write_trec(qrels, {"r": run}, tmp_path)
    (tmp_path / "broken_measures.py").write_text("import no_such_module_anywhere\n")
    environment = plugin_environment(tmp_path, IRGAUGE_MEASURES="broken_measures")

    def irgauge_cli(*args):
        return subprocess.run(
            [sys.executable, "-m", "irgauge", *args],
            capture_output=True,
            text=True,
            env=environment,
        )

    why = "ModuleNotFoundError: No module named 'no_such_module_anywhere'"
    missing = irgauge_cli("eval", str(qrels_path), str(run_path), "-m", "PluginRR@10")
    assert missing.returncode == 2
    assert missing.stderr.splitlines() == [
        "irgauge: error: unknown measure 'PluginRR' in 'PluginRR@10' (`irgauge measures` "
        f"lists them all); measure plugin broken_measures from IRGAUGE_MEASURES failed to "
        f"load: {why}"
    ]
    found = irgauge_cli("eval", str(qrels_path), str(run_path), "-m", "AP,ndcg,nDCG@10")
    assert found.returncode == 0 and "plugin" not in found.stderr, found.stderr
    listing = irgauge_cli("measures", "--format", "json")
    assert listing.returncode == 0
    assert listing.stderr == (
        "irgauge: note: measure plugin broken_measures from IRGAUGE_MEASURES failed to "
        f"load, its measures are not listed: {why}\n"
    )
    json.loads(listing.stdout)


def test_a_plugin_registering_a_taken_name_fails_to_load_naming_itself(tmp_path):
    (tmp_path / "clash.py").write_text(
        "import irgauge\nirgauge.register_measure('Success_1', lambda ranked: ranked.R)\n"
    )
    code = (
        "from irgauge.measures import load_plugins, plugin_failures\n"
        "assert load_plugins() == []\n"
        "print(plugin_failures()['clash from IRGAUGE_MEASURES'])\n"
    )
    environment = plugin_environment(tmp_path, IRGAUGE_MEASURES="clash")
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, env=environment
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout == (
        "MeasureError: measure name 'Success_1' differs only in case from trec_eval's "
        "success_1; choose another name\n"
    )


def test_a_dask_worker_sends_the_error_back_without_a_traceback(tmp_path, caplog):
    distributed = pytest.importorskip("distributed")
    qrels, run = collection(9)
    qrels_path, (run_path,) = write_trec(qrels, {"r": run}, tmp_path)
    irgauge.register_measure("DaskNan", lambda ranked: ranked.R / 0.0)
    try:
        with distributed.LocalCluster(
            n_workers=1, threads_per_worker=1, processes=False, dashboard_address=":0"
        ) as cluster:
            with pytest.raises(UserCodeError) as caught:
                evaluate(
                    str(qrels_path),
                    [str(run_path)],
                    ["DaskNan"],
                    engine="dask",
                    scheduler=cluster.scheduler_address,
                )
    finally:
        irgauge.unregister_measure("DaskNan")
    message = str(caught.value)
    assert message.startswith("measure DaskNan (function "), message
    assert " of run r: returned " in message and "(on Dask worker " in message
    # the task returns the error: raised there, the worker would log it with a traceback
    assert not [r for r in caplog.records if "Compute Failed" in r.getMessage()]


# names -------------------------------------------------------------------------------------
@pytest.mark.parametrize(
    "name, spelling",
    [
        ("NDCG_cut_10", "trec_eval's ndcg_cut_10"),
        ("Success_1", "trec_eval's success_1"),
        ("success_2", "trec_eval's success_2"),
        ("map_avgjg", "trec_eval's map_avgjg"),
        ("MAP_AVGJG", "trec_eval's map_avgjg"),
        ("p_5", "trec_eval's P_5"),
        ("P_7", "trec_eval's P_7"),
        ("ndcg_cut_13", "trec_eval's ndcg_cut_13"),
        ("Recall_1000", "trec_eval's recall_1000"),
        ("p_avgjg_5", "trec_eval's P_avgjg_5"),
        ("IPREC_AT_RECALL_0.35", "trec_eval's iprec_at_recall_0.35"),
        ("rprec_mult_0.70", "trec_eval's Rprec_mult_0.70"),
        ("Set_F_0.5", "trec_eval's set_F_0.5"),
        ("relstring_20", "trec_eval's relstring_20"),
        ("Official", "trec_eval's official"),
        ("p.5", "trec_eval's P.5"),
        ("gm_MAP", "trec_eval's gm_map"),
        ("p10", "irgauge's P10"),
        ("Ndcg_Cut13", "irgauge's ndcg_cut13"),
        ("q-MEASURE", "irgauge's Q-measure"),
        ("msndcg", "NTCIREVAL's MSnDCG"),
        ("numrelret", "ir_measures' NumRelRet"),
        ("Alpha_NDCG", "ir_measures' alpha_nDCG"),
    ],
)
def test_a_name_another_tool_prints_or_accepts_is_refused_in_any_case(name, spelling):
    with pytest.raises(MeasureError, match=f"measure name '{name}' .* {spelling};"):
        irgauge.register_measure(name, patient_rr)
    assert name not in irgauge.measures.custom_measures()


def test_every_line_name_trec_eval_prints_is_refused_in_three_cases():
    """Each trec_eval measure's printed names, for its default parameters and others."""
    printed = set()
    for name in TE.MEASURES:
        for params in (None, "7,13", "0.35"):
            try:
                printed.update(line.label for line in TE.lines(name, params, 100))
            except MeasureError:  # not computed, or needs judgment groups / other params
                pass
        for params in (None, "7"):
            try:
                printed.update(
                    line.label for line in TE.lines(name, params, 100, rel_format="qrels_jg")
                )
            except MeasureError:
                pass
    named = {label for label in printed if irgauge.measures.custom._NAME.match(label)}
    assert {"P_7", "ndcg_cut_13", "success_7", "map_avgjg", "P_avgjg_7"} <= named
    for label in sorted(named):
        for spelling in (label, label.upper(), label.swapcase()):
            with pytest.raises(MeasureError, match="choose another name"):
                irgauge.register_measure(spelling, patient_rr)


@pytest.mark.parametrize("name", ["PRR", "Success_rate", "ndcg_custom", "P_rate", "MapX", "Gx"])
def test_names_no_tool_uses_are_registered(name):
    irgauge.register_measure(name, patient_rr)
    irgauge.unregister_measure(name)


BUILT_IN = ["AP", "nDCG@10", "P@5", "RR", "Q-measure", "bpref", "ERR@10", "RBP"]


def test_a_registered_measure_cannot_change_what_the_other_measures_read():
    """A batch's arrays are shared by every measure computed on it (and cached), and its
    judgments' by every batch: a registered measure that wrote into ``ranked.isrel`` made
    AP above 1. Every array the batch and its judgments keep is read-only
    (``collection.rankings``, ``collection.judgments``), so the write is refused (here
    caught by the measure) and the other measures read what they would alone."""
    qrels, run = collection(12)
    seen: dict = {}

    def writer(ranked):
        for owner, prefix in ((ranked, ""), (ranked.judgments, "judgments.")):
            for name in (n for n in dir(owner) if not n.startswith("_")):
                try:
                    value = getattr(owner, name)
                except ValueError:  # strata: of prels only
                    continue
                if isinstance(value, np.ndarray):
                    # a writeable array kept (ranks is made afresh each time)
                    seen[prefix + name] = value.flags.writeable and getattr(owner, name) is value
                    try:
                        value[...] = 1
                    except ValueError:  # assignment destination is read-only
                        pass
        return np.zeros(ranked.n_rows)

    alone = evaluate(qrels, run, BUILT_IN).means
    irgauge.register_measure("Writer", writer)
    try:
        beside = evaluate(qrels, run, ["Writer", *BUILT_IN, "Writer@5"]).means
    finally:
        irgauge.unregister_measure("Writer")
    assert {"isrel", "gain", "grades", "lengths", "judgments.R"} <= set(seen), sorted(seen)
    assert not [name for name, writeable in seen.items() if writeable]
    kept = beside[beside["measure"].isin(BUILT_IN)].reset_index(drop=True)
    assert kept.equals(alone.reset_index(drop=True))


def test_a_registered_measures_summary_is_one_line():
    """``irgauge measures`` prints a measure a line: a summary of two lines printed its
    second line as a measure of its own."""
    with pytest.raises(MeasureError, match="summary is one line"):
        irgauge.register_measure("TwoLines", patient_rr, summary="first\nsecond")
    assert not any(m["name"] == "TwoLines" for m in irgauge.list_measures())
