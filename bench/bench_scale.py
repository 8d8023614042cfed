"""Benchmark: how `irgauge eval` and `irgauge discpower` scale with the cores of one machine.

For 1, 2, 4, ... workers, up to twice the CPUs this process may use (past the cores it
still measures the CPU a mode costs), each command runs as a whole process:

- ``local``   : ``--jobs N`` (threads in the command's process);
- ``dask``    : ``--engine dask --jobs N`` (a LocalCluster of N worker processes, started
  and stopped by the command, so its start-up counts);
- ``dask-up`` : ``--engine dask --scheduler ADDRESS`` on a cluster of N single-threaded
  workers started beforehand (``dask scheduler``, ``dask worker --nworkers N``, with the
  settings docs/scale.md gives) and warmed by one untimed run of the command (the
  workers' imports): the command's own cost, the CPU its scheduler and workers spend
  during it included;

against the same command pinned to one CPU (as ``taskset -c 0`` runs it) and the default
(no option). Printed for each: the wall time, the CPU time (user + system) of every process
of the command (client, scheduler, nannies, workers: ``os.wait4`` of the command counts its
reaped descendants; a cluster already up is read with psutil before and after), the CPU
ratio and the speed-up against the single-CPU run (for a cluster already up, split under
the table into the client, the scheduler, the nannies' process and the workers), the peak
memory (the memory of the command's process tree, and of a cluster already up, summed,
sampled every 50 ms with
psutil: proportional set sizes where the system gives them, so that pages the processes
share count once, else resident sets; without psutil, the largest single process's peak)
and whether the output is the single-CPU run's, byte for byte. ``--repeat R`` runs each
row R times and keeps the least wall and the least CPU: on a machine loaded by other work,
the closest to the command's own cost. The machine's name, CPUs and load average are
printed with the figures.

Workloads (generated into ``bench/out/scale/``, reused):

- eval: ``irgauge simulate --topics T --runs 1 --depth 200 --seed 37`` (``--topics``,
  default 3000: 600,000 lines, 20 MB; ``--depth`` for another depth, ``--judged N`` for N
  judgments a topic, simulate's ``--judged-per-topic``),
  ``eval QRELS RUN -m AP -m nDCG@10 -q --format tsv``; ``--copies K`` makes the run and
  qrels K topic-disjoint copies of that collection (topic ``t`` becomes ``cK-t``), a run
  of K x T x depth lines without K times the simulation;
- discpower: uniform scores of S systems x 50 topics (``--systems``, default 150: 11,175
  pairs, three chunks of pairs at B = 1000; ``--discpower-topics`` for another number of
  topics), ``discpower FILE -B 1000 --seed 1 --pairs``.

Run:

    python bench/bench_scale.py [--topics 3000] [--copies 1] [--depth 200] [--judged N]
        [--systems 150]
        [--discpower-topics 50] [--max-workers N | --workers 1,4,16]
        [--modes local,dask,dask-up] [--repeat R] [--only eval|discpower] [--no-dask]
"""

from __future__ import annotations

import argparse
import hashlib
import os
import platform
import subprocess
import sys
import threading
import time
from pathlib import Path
from typing import List, Optional

import numpy as np

try:
    import psutil
except ImportError:  # the peak is then the largest process's, from wait4
    psutil = None

HERE = Path(__file__).resolve().parent
OUT = HERE / "out" / "scale"
IRGAUGE = [sys.executable, "-m", "irgauge"]


def installed_as() -> str:
    """Which irgauge the commands run, and how it is installed: an editable install (or a
    source folder on PYTHONPATH read without bytecode) starts slower, which weighs on every
    row alike and so lowers every speed-up (on 2 CPUs, a 6M-line eval: 1.18 times one
    CPU's speed from an editable install, 1.53 from a regular one). Measure a regular
    install (``pip install .``), as users run it."""
    import importlib.util
    import json
    from importlib import metadata

    spec = importlib.util.find_spec("irgauge")
    where = Path(spec.origin).parent if spec and spec.origin else None
    # installed: its metadata lies beside the package (site-packages, or pip's --target),
    # not only the egg-info a build leaves in a source folder
    beside = where is not None and any(
        d.read_text("RECORD") is not None
        for d in metadata.distributions(name="irgauge", path=[str(where.parent)])
    )
    try:
        direct = metadata.distribution("irgauge").read_text("direct_url.json")
        editable = bool(json.loads(direct or "{}").get("dir_info", {}).get("editable"))
    except metadata.PackageNotFoundError:
        editable = False
    if beside:
        how = "a regular install"
    elif editable:
        how = "an editable install: start-up is slower than a user's, speed-ups lower"
    else:
        how = "a source folder, not installed: start-up may be slower than a user's"
    return f"irgauge {where}: {how}"


def cpus() -> List[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def eval_workload(
    topics: int, copies: int = 1, depth: int = 200, judged: Optional[int] = None
) -> List[str]:
    shape = (
        "" if (depth, judged) == (200, None) else f"-d{depth}" + (f"-j{judged}" if judged else "")
    )
    folder = OUT / f"eval-{topics}{shape}"
    if not (folder / "manifest.json").exists():
        subprocess.run(
            IRGAUGE
            + ["simulate", "--out", str(folder), "--topics", str(topics), "--runs", "1"]
            + ["--depth", str(depth), "--seed", "37", "--quiet", "--overwrite"]
            + (["--judged-per-topic", str(judged)] if judged else []),
            check=True,
            stdout=subprocess.DEVNULL,
        )
    run = sorted((folder / "runs").iterdir())[0]
    qrels = folder / "qrels.txt"
    if copies > 1:
        qrels, run = (_copies(path, copies, folder / f"x{copies}") for path in (qrels, run))
    return ["eval", str(qrels), str(run), "-m", "AP", "-m", "nDCG@10", "-q", "--format", "tsv"]


def _copies(path: Path, copies: int, folder: Path) -> Path:
    """``copies`` topic-disjoint copies of a qrels or run file, one after another: every
    line of copy k starts ``ck-`` (bytes.replace, so a 1 GB run is written in seconds)."""
    target = folder / path.name
    if not target.exists():
        folder.mkdir(parents=True, exist_ok=True)
        body = path.read_bytes().rstrip(b"\n")
        with open(f"{target}.tmp", "wb") as out:
            for k in range(copies):
                prefix = f"c{k}-".encode()
                out.write(prefix + body.replace(b"\n", b"\n" + prefix) + b"\n")
        os.replace(f"{target}.tmp", target)
    return target


def discpower_workload(systems: int, topics: int = 50) -> List[str]:
    path = OUT / f"wide_{systems}x{topics}.csv"
    if not path.exists():
        OUT.mkdir(parents=True, exist_ok=True)
        values = np.random.default_rng(1).random((topics, systems))
        with open(path, "w") as out:
            out.write("topic," + ",".join(f"s{i}" for i in range(systems)) + "\n")
            for t, row in enumerate(values):
                out.write(f"t{t}," + ",".join(f"{x:.4f}" for x in row) + "\n")
    return ["discpower", str(path), "-B", "1000", "--seed", "1", "--pairs", "--format", "tsv"]


def _memory(proc) -> int:
    """A process's proportional set size where the system gives it (pages shared with
    other processes, as forked workers and a mapped plan share them, count once across
    them), else its resident set size."""
    if PSS[0]:
        try:
            return proc.memory_full_info().pss
        except (psutil.NoSuchProcess, psutil.ZombieProcess):
            raise  # gone: its caller skips it
        except (psutil.Error, AttributeError, OSError):
            PSS[0] = False
    return proc.memory_info().rss


PSS = [True]  # until a process's PSS cannot be read


def _tree_rss(pid: int) -> int:
    try:
        top = psutil.Process(pid)
        procs = [top] + top.children(recursive=True)
    except psutil.Error:
        return 0
    total = 0
    for proc in procs:
        try:
            total += _memory(proc)
        except psutil.Error:
            pass
    return total


def measure(argv: List[str], pin: Optional[int] = None, cluster=None) -> dict:
    """Wall s, CPU s of the process tree, peak MB and the output's digest of one command;
    with ``cluster`` (a running one, see :class:`Cluster`), its processes' CPU and memory
    during the command count too."""
    out_path = OUT / f"output-{os.getpid()}.tmp"  # benches may run side by side
    before = cluster.cpu_parts() if cluster is not None else {}
    with open(out_path, "wb") as out:
        start = time.perf_counter()
        proc = subprocess.Popen(
            IRGAUGE + argv,
            stdout=out,
            stderr=subprocess.DEVNULL,
            preexec_fn=(lambda: os.sched_setaffinity(0, {pin})) if pin is not None else None,
        )
        peak = [0]
        done = threading.Event()

        def sample():
            while not done.wait(0.05):
                held = _tree_rss(proc.pid) + (cluster.rss() if cluster is not None else 0)
                peak[0] = max(peak[0], held)

        sampler = threading.Thread(target=sample) if psutil is not None else None
        if sampler is not None:
            sampler.start()
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - start
        done.set()
        if sampler is not None:
            sampler.join()
        proc.returncode = os.waitstatus_to_exitcode(status)
    if proc.returncode != 0:
        raise SystemExit(f"failed ({proc.returncode}): irgauge {' '.join(argv)}")
    digest = hashlib.sha256(out_path.read_bytes()).hexdigest()
    out_path.unlink()
    rss = peak[0] if psutil is not None else usage.ru_maxrss * 1024
    cpu = usage.ru_utime + usage.ru_stime
    parts = {"client": cpu}
    if cluster is not None:
        after = cluster.cpu_parts()
        parts.update({role: after[role] - before[role] for role in after})
    return {
        "wall": wall,
        "cpu": sum(parts.values()),
        "peak": rss / 2**20,
        "digest": digest,
        "parts": parts,
    }


def best(runs: List[dict]) -> dict:
    """The least wall time and the least CPU of repeated runs (on a loaded machine the
    least is the closest to the command's own cost); the digests must agree."""
    digests = {r["digest"] for r in runs}
    return {
        "wall": min(r["wall"] for r in runs),
        "cpu": min(r["cpu"] for r in runs),
        "peak": max(r["peak"] for r in runs),
        "digest": digests.pop() if len(digests) == 1 else "differs",
        "parts": min(runs, key=lambda r: r["cpu"])["parts"],  # the least CPU's run
    }


# docs/scale.md, "Starting a cluster by hand": arrays on the heap (a nanny's default
# MALLOC_TRIM_THRESHOLD_=65536 maps and faults in every array anew: measured 2.6 s against
# 1.4-1.8 s of CPU per worker for the same spans), no huge-page advice, no worker profiler,
# and the event-loop tick and system monitor slowed (an idle cluster of 8 workers on 2
# CPUs: 0.21 s of CPU a second by default, 0.04 s with these)
DASK_CONFIG = """\
distributed:
  nanny:
    pre-spawn-environ:
      MALLOC_TRIM_THRESHOLD_: 33554432
      MALLOC_MMAP_THRESHOLD_: 33554432
      NUMPY_MADVISE_HUGEPAGE: "0"
  worker:
    profile:
      enabled: false
  admin:
    tick:
      interval: 1s
    system-monitor:
      interval: 5s
"""


class Cluster:
    """A Dask cluster already up (``dask scheduler`` and ``dask worker --nworkers N
    --nthreads 1``, as docs/scale.md starts one by hand), so that a command's rows count
    what the command costs it, not its start-up: the CPU and memory of its processes are
    read before and during each command (psutil)."""

    def __init__(self, workers: int):
        import distributed

        # the settings docs/scale.md gives a cluster started by hand, in a config folder
        config = OUT / "dask-config"
        config.mkdir(parents=True, exist_ok=True)
        (config / "irgauge.yaml").write_text(DASK_CONFIG)
        env = {**os.environ, "DASK_CONFIG": str(config)}
        self.procs = [
            subprocess.Popen(
                [sys.executable, "-m", "dask", "scheduler", "--port", "0", "--no-dashboard"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.PIPE,
                text=True,
            )
        ]
        self.address = None
        for line in self.procs[0].stderr:
            if "Scheduler at:" in line:
                self.address = line.split("Scheduler at:")[1].strip()
                break
        threading.Thread(target=self.procs[0].stderr.read, daemon=True).start()
        self.procs.append(
            subprocess.Popen(
                [sys.executable, "-m", "dask", "worker", self.address]
                + ["--nworkers", str(workers), "--nthreads", "1"]
                + ["--memory-limit", "0", "--no-dashboard"],
                env=env,
                stdout=subprocess.DEVNULL,
                stderr=subprocess.DEVNULL,
            )
        )
        with distributed.Client(self.address) as client:
            client.wait_for_workers(workers, timeout=120)

    def _tree(self):
        procs = []
        for proc in self.procs:
            try:
                top = psutil.Process(proc.pid)
                procs += [top] + top.children(recursive=True)
            except psutil.Error:
                pass
        return procs

    def cpu_parts(self) -> dict:
        """The CPU s so far of the scheduler, the nannies' process and the workers."""
        parts = {"scheduler": 0.0, "nannies": 0.0, "workers": 0.0}
        for role, proc in [("scheduler", p) for p in self._procs(0)] + [
            ("nannies" if k == 0 else "workers", p) for k, p in enumerate(self._procs(1))
        ]:
            try:
                times = proc.cpu_times()
                parts[role] += times.user + times.system
            except psutil.Error:
                pass
        return parts

    def _procs(self, k: int):
        try:
            top = psutil.Process(self.procs[k].pid)
            return [top] + top.children(recursive=True)
        except psutil.Error:
            return []

    def rss(self) -> int:
        total = 0
        for proc in self._tree():
            try:
                total += _memory(proc)
            except psutil.Error:
                pass
        return total

    def close(self) -> None:
        for proc in reversed(self.procs):
            proc.terminate()
            proc.wait(timeout=60)


def table(
    name: str,
    argv: List[str],
    workers: List[int],
    modes,
    repeat: int,
    dask_workers: Optional[List[int]] = None,
) -> None:
    print(f"\n{name}: irgauge {' '.join(argv)}")
    print(f"(load average {os.getloadavg()[0]:.2f} at its start)")
    print("| mode | wall s | CPU s | CPU ratio | speed-up | peak MB | same output |")
    print("|---|---:|---:|---:|---:|---:|---|")
    base: dict = {}

    split: List[str] = []

    def row(label: str, extra: List[str], pin: Optional[int] = None, cluster=None) -> None:
        r = best([measure(argv + extra, pin, cluster) for _ in range(repeat)])
        base.update(base or r)
        if cluster is not None:
            shares = ", ".join(f"{role} {cpu:.2f}" for role, cpu in r["parts"].items())
            split.append(f"({label}, the least CPU's run, CPU s: {shares})")
        print(
            f"| {label} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['cpu'] / base['cpu']:.2f} | "
            f"{base['wall'] / r['wall']:.2f} | {r['peak']:.0f} | "
            f"{'yes' if r['digest'] == base['digest'] else 'NO'} |",
            flush=True,
        )

    # the same command pinned to one CPU, as `taskset -c 0 irgauge ...` runs it
    row("taskset -c 0 (one CPU)", [], pin=cpus()[0])
    row("default (no option)", [])
    if "local" in modes:
        for n in workers:
            row(f"local --jobs {n}", ["--jobs", str(n)])
    dask_workers = dask_workers or workers
    if "dask" in modes:
        for n in dask_workers:
            row(f"dask --jobs {n}", ["--engine", "dask", "--jobs", str(n)])
    if "dask-up" in modes:
        for n in dask_workers:
            cluster = Cluster(n)
            try:
                extra = ["--engine", "dask", "--scheduler", cluster.address]
                # once untimed: the workers import numpy and irgauge with their first task
                measure(argv + extra, None, cluster)
                row(f"dask, cluster up, {n} workers", extra, cluster=cluster)
            finally:
                cluster.close()
    for line in split:  # where a Dask command's CPU goes, process by process
        print(line)
    print(f"(load average {os.getloadavg()[0]:.2f} at its end)", flush=True)
    summed = "proportional set sizes (PSS)" if PSS[0] else "resident set sizes (RSS)"
    print(f"(peak memory: the {summed} of the processes, summed)", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=3000, help="eval: topics of the run")
    parser.add_argument(
        "--copies", type=int, default=1, help="eval: topic-disjoint copies of the run"
    )
    parser.add_argument(
        "--depth", type=int, default=200, help="eval: documents per topic of the run"
    )
    parser.add_argument(
        "--judged",
        type=int,
        default=None,
        help="eval: judged documents per topic (default: simulate's pool); the issue's "
        "shape is --depth 1000 --judged 40",
    )
    parser.add_argument("--systems", type=int, default=150, help="discpower: systems")
    parser.add_argument("--discpower-topics", type=int, default=50, help="discpower: topics")
    parser.add_argument("--max-workers", type=int, default=None, help="default: 2 x CPUs")
    parser.add_argument(
        "--workers", default=None, help="the worker counts, comma-separated (1,4,16)"
    )
    parser.add_argument(
        "--dask-workers", default=None, help="the Dask rows' worker counts (default --workers)"
    )
    parser.add_argument(
        "--modes",
        default="local,dask,dask-up",
        help="rows besides the single-core one and the default: local (--jobs N), dask "
        "(a LocalCluster the command starts), dask-up (a cluster already up)",
    )
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask rows")
    parser.add_argument("--repeat", type=int, default=1, help="runs of each row (the least)")
    parser.add_argument("--only", choices=("eval", "discpower"), default=None)
    args = parser.parse_args()
    top = args.max_workers or max(2 * len(cpus()), 4)
    workers = [1 << k for k in range(top.bit_length()) if 1 << k <= top]
    if args.workers:
        workers = [int(n) for n in args.workers.split(",")]
    dask_workers = [int(n) for n in args.dask_workers.split(",")] if args.dask_workers else None
    modes = set(args.modes.split(","))
    try:
        import distributed  # noqa: F401
    except ImportError:
        args.no_dask = True
    if args.no_dask or psutil is None:  # a cluster already up is read with psutil
        modes.discard("dask-up")
    if args.no_dask:
        modes.discard("dask")
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{platform.node()}: {len(cpus())} CPU(s) allowed, load {load:.2f} at start; "
        f"peak memory: {'process tree summed (psutil)' if psutil else 'largest process'}; "
        f"each row the least of {args.repeat} run(s)"
    )
    print(installed_as())
    if args.only in (None, "eval"):
        table(
            "eval",
            eval_workload(args.topics, args.copies, args.depth, args.judged),
            workers,
            modes,
            args.repeat,
            dask_workers,
        )
    if args.only in (None, "discpower"):
        table(
            "discpower",
            discpower_workload(args.systems, args.discpower_topics),
            workers,
            modes,
            args.repeat,
            dask_workers,
        )


if __name__ == "__main__":
    main()
