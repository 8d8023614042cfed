"""The meta-evaluation methods and the studies under ``use_engine("dask")`` (``--engine
dask``) give the local output, bit for bit: steps run as tasks on a cluster (in-process for
speed, and with worker processes from the command line), a worker lost mid-run, bad input
met on a worker, and Dask not installed."""

from __future__ import annotations

import dataclasses
import os
import pickle
import subprocess
import sys

import numpy as np
import pandas as pd
import pytest

import irgauge
import irgauge.cli
from irgauge.errors import InputError
from irgauge.evaluation.tasks import run_steps, use_engine
from irgauge.scores import ScoreMatrix
from irgauge.stats import bootstrap, randomisation, resampling
from irgauge.studies import onerel
from tests.conftest import small_resampling_chunks

distributed = pytest.importorskip("distributed")
from dask_faults import DieOnce, cli_without_dask  # noqa: E402  (needs distributed)

pytestmark = pytest.mark.slow  # each test starts a Dask cluster

MEASURES = ("AP", "nDCG@10", "P@10")


def _matrices(systems=9, topics=24, seed=5):
    """Scores of three measures; P@10's are multiples of 0.1, so that some pairs tie."""
    rng = np.random.default_rng(seed)
    names = [f"sys{k}" for k in range(systems)]
    topic_ids = [str(t) for t in range(topics)]
    base = rng.random((systems, 1)) * 0.3 + rng.random((systems, topics)) * 0.7
    values = {
        "AP": base,
        "nDCG@10": np.clip(base + rng.normal(0, 0.1, base.shape), 0, 1),
        "P@10": np.round(base * 10) / 10,
    }
    return {m: ScoreMatrix(values[m], names, topic_ids, m) for m in MEASURES}


@pytest.fixture(scope="module")
def cluster():
    with distributed.LocalCluster(
        n_workers=2, threads_per_worker=1, processes=False, dashboard_address=":0"
    ) as local:
        yield local


def _same(local, remote) -> None:
    """Two MetaResults alike to the bit: tables, details and parameters."""
    assert remote.parameters == local.parameters
    assert local.table.equals(remote.table)
    assert local.details.keys() == remote.details.keys()
    for name, table in local.details.items():
        assert table.equals(remote.details[name]), name


def _ran(cluster, prefix: str) -> bool:
    """Whether the cluster ran tasks of function ``prefix``."""
    return prefix in cluster.scheduler.task_prefixes


METHODS = {
    "discriminative_power": dict(samples=300, seed=1),
    "swap_rates": dict(trials=200, seed=2),
    "stability": dict(trials=200, seed=3),
    "predictive_power": dict(halvings=300, seed=4, subset_sizes=(4, 8)),
}
STEPS = {
    "discriminative_power": "bootstrap_chunk",
    "swap_rates": "measure_swaps",
    "stability": "measure_stability",
    "predictive_power": "tau_chunk",
}


@pytest.mark.parametrize("method", sorted(METHODS))
def test_each_method_gives_the_local_result(method, cluster, monkeypatch):
    # small chunks, so that a measure's pairs (halvings) are cut into several tasks
    small_resampling_chunks(monkeypatch, bootstrap)
    monkeypatch.setattr("irgauge.meta.kendall._CHUNK_CELLS", 2000)
    matrices = _matrices()
    function = getattr(irgauge, method)
    local = function(matrices, **METHODS[method])
    with use_engine("dask", cluster.scheduler_address):
        remote = function(matrices, **METHODS[method])
    assert _ran(cluster, STEPS[method])
    _same(local, remote)


def test_each_steps_item_travels_as_data_of_its_own(cluster, monkeypatch):
    """A step's item cut from an array (a chunk of score differences given as such) is
    scattered, not an argument inside its task, which the scheduler would unpickle, hold
    and pickle again."""
    small_resampling_chunks(monkeypatch, bootstrap)  # several steps, so several items
    items = []
    real = distributed.Client.submit

    def spy(self, function, step, item, *args, **options):
        items.append(item)
        return real(self, function, step, item, *args, **options)

    monkeypatch.setattr(distributed.Client, "submit", spy)
    diffs = np.random.default_rng(3).normal(size=(40, 24))
    counts = resampling.index_counts(resampling.bootstrap_indices(24, 300, 1), 24)
    local = bootstrap.bootstrap_pairs(diffs, counts, (0.05,))
    with use_engine("dask", cluster.scheduler_address):
        remote = bootstrap.bootstrap_pairs(diffs, counts, (0.05,))
    assert len(items) > 1 and all(isinstance(i, distributed.Future) for i in items)
    assert pickle.dumps(local) == pickle.dumps(remote)


@pytest.mark.parametrize("method", ["discriminative_power", "compare_pairs"])
def test_the_scores_reach_each_worker_once_and_the_differences_never(method, cluster, monkeypatch):
    """The resampling tests' chunks of pair differences are made on the workers from the
    scores, sent to each once for the run: nothing cut from the differences travels, and
    no task carries more than its slice of pairs."""
    small_resampling_chunks(monkeypatch, bootstrap, randomisation)
    scattered, submitted = [], []
    scatter, submit = distributed.Client.scatter, distributed.Client.submit

    def spy_scatter(self, data, *args, **options):
        scattered.extend(data)
        return scatter(self, data, *args, **options)

    def spy_submit(self, function, *args, **options):
        submitted.append(args)
        return submit(self, function, *args, **options)

    monkeypatch.setattr(distributed.Client, "scatter", spy_scatter)
    monkeypatch.setattr(distributed.Client, "submit", spy_submit)
    matrices = _matrices()
    ap = matrices["AP"]

    def run():
        if method == "discriminative_power":
            return irgauge.discriminative_power(matrices, samples=300, seed=1)
        tests = ("bootstrap", "randomisation")
        return irgauge.compare_pairs(ap.values, ap.systems, tests, samples=300, seed=6).table

    local = run()
    with use_engine("dask", cluster.scheduler_address):
        remote = run()
    sources = [s for s in scattered if isinstance(s, resampling.PairDifferences)]
    # a source per measure (per test): the tasks outnumber them
    assert sources and len(submitted) > 2 * len(sources)
    # as sent: the scores (and the pairs where given), never differences made here
    sent = [pickle.loads(pickle.dumps(s)) for s in sources]
    assert all(s.made is None and s.values.shape == (9, 24) for s in sent)
    topics = [a for a in scattered if isinstance(a, np.ndarray) and a.shape[-1] == 24]
    assert not topics  # no differences (pairs x topics) scattered
    parts = [a for args in submitted for a in args if isinstance(a, slice)]
    assert len(parts) == len(submitted)
    if method == "compare_pairs":
        assert local.equals(remote)
    else:
        _same(local, remote)


@pytest.fixture
def small_compare_chunks(monkeypatch):
    """Chunks of a few pairs (trials), so that each resampling test of compare is cut into
    several tasks."""
    from irgauge.stats import tukey

    small_resampling_chunks(monkeypatch, bootstrap, randomisation, tukey)


COMPARE_STEPS = ("bootstrap_chunk", "sign_flip_chunk", "ranges_chunk")


def test_compare_gives_the_local_p_values(cluster, small_compare_chunks):
    """compare_pairs (every test) and the comparison table built on it."""
    matrices = _matrices()
    ap = matrices["AP"]
    options = dict(samples=300, permutations=400, seed=6, correction="holm")
    local = irgauge.compare_pairs(ap.values, ap.systems, **options)
    table = irgauge.compare_table(matrices, test="tukey", samples=300, seed=6)
    with use_engine("dask", cluster.scheduler_address):
        remote = irgauge.compare_pairs(ap.values, ap.systems, **options)
        remote_table = irgauge.compare_table(matrices, test="tukey", samples=300, seed=6)
    for step in COMPARE_STEPS:
        assert _ran(cluster, step), step
    assert remote.parameters == local.parameters
    assert local.table.equals(remote.table)
    assert remote_table.render("csv", 6) == table.render("csv", 6)
    assert all(remote_table.pvalues[m].equals(table.pvalues[m]) for m in MEASURES)


def test_compare_on_the_command_line(tmp_path, cluster, small_compare_chunks, capsys):
    """--engine dask --scheduler: the local output, byte for byte, with the seed in it;
    the pairwise rows and the comparison table."""
    common = ["compare", _scores_file(tmp_path), "-B", "300", "--permutations", "400"]
    common += ["--seed", "8"]
    dask = ["--engine", "dask", "--scheduler", cluster.scheduler_address]
    outputs = {"rows": ["--format", "tsv"], "table": ["--table", "latex", "--tests", "tukey"]}
    seen = {}
    for name, output in outputs.items():
        assert irgauge.cli.main(common + output) == 0
        local = capsys.readouterr()
        assert irgauge.cli.main(common + output + dask) == 0
        remote = capsys.readouterr()
        assert remote.out == local.out
        assert "engine dask" in remote.err and "engine" not in local.err
        seen[name] = local.out
    assert "# seed: 8\n" in seen["rows"] and "seed 8" in seen["table"]


def _same_data(local, remote) -> None:
    """Two studies' computed data alike to the bit (frames equal, the rest pickled)."""
    for field in dataclasses.fields(local):
        a, b = getattr(local, field.name), getattr(remote, field.name)
        if isinstance(a, pd.DataFrame):
            assert a.equals(b), field.name
        else:
            assert pickle.dumps(a) == pickle.dumps(b), field.name


def test_the_onerel_study_gives_the_local_numbers(tmp_path, cluster):
    """Repetitions (with the gain variants, as measures of each) and topic resamples as
    tasks: every number and sentence of the study is the local one."""
    irgauge.write_collection(irgauge.simulate_collection(16, 5, 40, seed=1), tmp_path)
    qrels, runs = tmp_path / "qrels.txt", sorted((tmp_path / "runs").iterdir())
    options = onerel.OnerelOptions(
        seed=1, samples=60, trials=30, repetitions=2, topic_resamples=20, gains=["3:2:1", "9:3:1"]
    )
    local = onerel.compute_onerel(qrels, runs, options)
    with use_engine("dask", cluster.scheduler_address):
        remote = onerel.compute_onerel(qrels, runs, options)
    for step in ("discriminative_power", "swap", "stability", "swap_on", "stability_on"):
        assert _ran(cluster, step), step
    _same_data(local, remote)
    assert onerel.describe_onerel(remote) == onerel.describe_onerel(local)


def test_incomplete_scores_its_rates_as_tasks(tmp_path, cluster, capsys):
    """``irgauge incomplete``: each rate (its scores and bootstrap) a task, the local
    table (the API's and the command line's, byte for byte)."""
    irgauge.write_collection(irgauge.simulate_collection(12, 4, 30, seed=2), tmp_path)
    qrels, runs = tmp_path / "qrels.txt", sorted((tmp_path / "runs").iterdir())
    options = dict(measures=["AP", "nDCG"], rates=[70, 30], seed=3, samples=80)
    local = irgauge.incomplete_study(qrels, runs, **options)
    with use_engine("dask", cluster.scheduler_address):
        remote = irgauge.incomplete_study(qrels, runs, **options)
    assert _ran(cluster, "rate_step")
    assert local.table.equals(remote.table) and local.metadata == remote.metadata
    args = ["incomplete", str(qrels), *map(str, runs), "-m", "AP", "--rates", "50"]
    args += ["-B", "40", "--seed", "4", "--format", "tsv"]
    assert irgauge.cli.main(args) == 0
    printed = capsys.readouterr().out
    assert (
        irgauge.cli.main(args + ["--engine", "dask", "--scheduler", cluster.scheduler_address]) == 0
    )
    assert capsys.readouterr().out == printed


def test_agree_computes_the_systems_agreement_in_tasks(tmp_path, cluster, monkeypatch):
    """``irgauge agree --run``: chunks of bootstrap samples of the systems' statistics as
    tasks, the local table and details."""
    from irgauge.meta import system_agreement

    small_resampling_chunks(monkeypatch, system_agreement)
    irgauge.write_collection(irgauge.simulate_collection(12, 6, 30, seed=4), tmp_path)
    qrels = tmp_path / "qrels.txt"
    lines = qrels.read_text().splitlines()
    other = tmp_path / "other.txt"  # a second assessor: every fifth label moved by one
    other.write_text(
        "\n".join(
            " ".join(f[:3] + [str(max(0, int(f[3]) - (k % 5 == 0)))])
            for k, f in enumerate(line.split() for line in lines)
        )
        + "\n"
    )
    runs = sorted((tmp_path / "runs").iterdir())
    options = dict(runs=runs, measures=["AP"], samples=200, seed=5, correction="holm")
    local = irgauge.agreement([qrels, other], **options)
    with use_engine("dask", cluster.scheduler_address):
        remote = irgauge.agreement([qrels, other], **options)
    assert _ran(cluster, "statistics_chunk")
    _same(local, remote)


def test_a_worker_lost_mid_run_does_not_change_the_output(tmp_path):
    matrices = _matrices()
    local = irgauge.discriminative_power(matrices, samples=300, seed=7)
    marker = tmp_path / "died"
    with (
        distributed.LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, dashboard_address=":0"
        ) as procs,
        distributed.Client(procs) as client,
    ):
        client.register_plugin(DieOnce(str(marker)))
        with use_engine("dask", procs.scheduler_address):
            remote = irgauge.discriminative_power(matrices, samples=300, seed=7)
    assert marker.exists()  # a worker did die during a task
    _same(local, remote)


def _bad_step(item):
    if item == 2:
        raise InputError("no such input", "/data/scores.tsv", 3)
    return item


def test_bad_input_on_a_worker_names_the_worker_and_the_input(cluster):
    with use_engine("dask", cluster.scheduler_address):
        assert run_steps(_bad_step, [0, 1]) == [0, 1]
        with pytest.raises(InputError) as err:
            run_steps(_bad_step, [0, 1, 2, 3])
    assert err.value.path == "/data/scores.tsv" and err.value.line == 3
    worker = str(err.value).split("on Dask worker ")[1].rstrip(")")
    assert worker in cluster.scheduler_info["workers"]


def _scores_file(tmp_path) -> str:
    lines = ["run\tmeasure\ttopic\tvalue"]
    for name, matrix in _matrices(systems=6, topics=16).items():
        for s, system in enumerate(matrix.systems):
            for t, topic in enumerate(matrix.topics):
                lines.append(f"{system}\t{name}\t{topic}\t{float(matrix.values[s, t])!r}")
    path = tmp_path / "scores.tsv"
    path.write_text("\n".join(lines) + "\n")
    return str(path)


def test_the_command_line_with_a_local_cluster_of_processes(tmp_path):
    scores = _scores_file(tmp_path)
    args = [sys.executable, "-m", "irgauge", "discpower", scores, "-B", "300", "--seed", "1"]
    args += ["--pairs", "--format", "tsv"]
    local = subprocess.run(args, capture_output=True, check=True)
    remote = subprocess.run(args + ["--engine", "dask"], capture_output=True, check=True)
    assert remote.stdout == local.stdout
    assert b"engine dask" in remote.stderr and b"engine" not in local.stderr


def test_without_dask_the_error_says_how_to_install_it(tmp_path, monkeypatch):
    monkeypatch.setitem(sys.modules, "distributed", None)  # import fails
    with pytest.raises(InputError, match=r'pip install "irgauge\[dask\]"'):
        with use_engine("dask"):
            irgauge.discriminative_power(_matrices(), samples=10, seed=1)
    for command in ("swap", "compare"):
        done = cli_without_dask(command, _scores_file(tmp_path), "--engine", "dask")
        assert done.returncode == 2
        assert done.stderr.strip().count("\n") == 0 and "irgauge[dask]" in done.stderr


def test_a_scheduler_without_the_dask_engine_is_refused(tmp_path):
    done = subprocess.run(
        [sys.executable, "-m", "irgauge", "stability", _scores_file(tmp_path)]
        + ["--scheduler", "tcp://127.0.0.1:8786"],
        capture_output=True,
        text=True,
    )
    assert done.returncode == 2 and "engine" in done.stderr
    assert done.stderr.strip().count("\n") == 0


class _LosingClient:
    """A client whose first tasks are cancelled, as when the worker holding the only copy
    of the scattered inputs is lost; later ones run here."""

    def __init__(self):
        self.scattered = 0

    def scatter(self, values, **options):
        self.scattered += 1
        return list(values)

    def submit(self, function, *args, key=None):
        lost = self.scattered <= 2  # (the shared inputs, then the items: the first sending)
        return _Future(lambda: function(*args), lost, key)


class _Future:
    def __init__(self, compute, lost: bool, key: str):
        self.compute, self.lost, self.key = compute, lost, key

    def result(self):
        if self.lost:
            raise distributed.client.FutureCancelledError(self.key, "lost scattered data")
        return self.compute()


def _scaled(item, factor):
    return item * factor


def test_inputs_lost_with_a_worker_are_sent_again():
    from irgauge.evaluation import tasks

    client = _LosingClient()
    assert tasks._on_cluster(client, _scaled, [1, 2, 3], (10,), None) == [10, 20, 30]
    assert client.scattered == 4


def _combined(item, scale, names, weights, offset):
    return [item * scale[k] + weights[name] + offset for k, name in enumerate(names)]


def test_the_inputs_shared_by_every_step_travel_in_one_sending(cluster, monkeypatch):
    """run_steps' shared inputs reach the workers in one broadcast, whatever their number
    (each broadcast pays its round trips to the scheduler and the workers), each arriving
    whole: a list's or a dict's members are not sent one by one."""
    broadcasts = []
    real = distributed.Client.scatter

    def spy(self, data, *args, **options):
        if options.get("broadcast"):
            broadcasts.append(list(data))
        return real(self, data, *args, **options)

    monkeypatch.setattr(distributed.Client, "scatter", spy)
    shared = (np.arange(3.0), ["a", "b", "c"], {"a": 1.0, "b": 2.0, "c": 4.0}, 0.5)
    local = run_steps(_combined, [1, 2, 3], shared)
    with use_engine("dask", cluster.scheduler_address):
        remote = run_steps(_combined, [1, 2, 3], shared)
    assert remote == local
    assert len(broadcasts) == 1 and len(broadcasts[0]) == len(shared)


def test_an_unreachable_scheduler_is_never_silent(tmp_path):
    """A scheduler that cannot be reached: an error when a step needs it; when none does
    (one chunk), the output, and a note that every step ran here."""
    scores = _scores_file(tmp_path)
    env = {**os.environ, "DASK_DISTRIBUTED__COMM__TIMEOUTS__CONNECT": "1s"}
    nowhere = ["--engine", "dask", "--scheduler", "tcp://127.0.0.1:9"]
    one_step = [sys.executable, "-m", "irgauge", "compare", scores, "-B", "20", "--seed", "1"]
    one_step += ["--tests", "tukey", "--format", "tsv"]
    local = subprocess.run(one_step, capture_output=True, text=True, env=env)
    done = subprocess.run(one_step + nowhere, capture_output=True, text=True, env=env)
    assert done.returncode == 0 and done.stdout == local.stdout
    assert "every step ran here: cannot reach the Dask scheduler at tcp://127.0.0.1:9" in (
        done.stderr
    )
    assert "Traceback" not in done.stderr
    many = [sys.executable, "-m", "irgauge", "discpower", scores, "-B", "300", "--seed", "1"]
    done = subprocess.run(many + nowhere, capture_output=True, text=True, env=env)
    assert done.returncode == 2, done.stderr
    assert (
        done.stderr.strip()
        .splitlines()[-1]
        .startswith("irgauge: error: cannot reach the Dask scheduler at tcp://127.0.0.1:9")
    )
