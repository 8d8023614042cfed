"""Benchmark: how `irgauge eval` and `irgauge discpower` scale with the cores of one machine.

For 1, 2, 4, ... workers, up to twice the CPUs this process may use (past the cores it
still measures the CPU a mode costs), each command runs as a whole process:

- ``local`` : ``--jobs N`` (threads in the command's process);
- ``dask``  : ``--engine dask --jobs N`` (a LocalCluster of N worker processes, started and
  stopped by the command, so its start-up counts);

against the single-core run (``--jobs 1``, pinned to one CPU as ``taskset -c 0`` would) and
the default (no option). Printed for each: the wall time, the CPU time (user + system) of
every process of the command (client, scheduler, nannies, workers: ``os.wait4`` of the
command counts its reaped descendants), the CPU ratio and the speed-up against the
single-core run, the peak memory (the resident sets of the command's process tree summed,
sampled every 50 ms with psutil; without psutil, the largest single process's peak) and
whether the output is the single-core run's, byte for byte.

Workloads (generated into ``bench/out/scale/``, reused):

- eval: ``irgauge simulate --topics T --runs 1 --depth 200 --seed 37`` (``--topics``,
  default 3000: 600,000 lines, 20 MB), ``eval QRELS RUN -m AP -m nDCG@10 -q --format tsv``;
- discpower: uniform scores of S systems x 50 topics (``--systems``, default 150: 11,175
  pairs, three chunks of pairs at B = 1000), ``discpower FILE -B 1000 --seed 1 --pairs``.

Run:

    python bench/bench_scale.py [--topics 3000] [--systems 150] [--max-workers N] [--no-dask]
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


def cpus() -> List[int]:
    try:
        return sorted(os.sched_getaffinity(0))
    except AttributeError:
        return list(range(os.cpu_count() or 1))


def eval_workload(topics: int) -> List[str]:
    folder = OUT / f"eval-{topics}"
    if not (folder / "manifest.json").exists():
        subprocess.run(
            IRGAUGE
            + ["simulate", "--out", str(folder), "--topics", str(topics), "--runs", "1"]
            + ["--depth", "200", "--seed", "37", "--quiet", "--overwrite"],
            check=True,
            stdout=subprocess.DEVNULL,
        )
    run = sorted((folder / "runs").iterdir())[0]
    qrels = folder / "qrels.txt"
    return ["eval", str(qrels), str(run), "-m", "AP", "-m", "nDCG@10", "-q", "--format", "tsv"]


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


def _tree_rss(pid: int) -> int:
    try:
        top = psutil.Process(pid)
        procs = [top] + top.children(recursive=True)
    except psutil.Error:
        return 0
    total = 0
    for proc in procs:
        try:
            total += proc.memory_info().rss
        except psutil.Error:
            pass
    return total


def measure(argv: List[str], pin: Optional[int] = None) -> dict:
    """Wall s, CPU s of the process tree, peak MB and the output's digest of one command."""
    out_path = OUT / "output.tmp"
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
                peak[0] = max(peak[0], _tree_rss(proc.pid))

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
    return {"wall": wall, "cpu": cpu, "peak": rss / 2**20, "digest": digest}


def table(name: str, argv: List[str], workers: List[int], dask: bool) -> None:
    base = measure(argv + ["--jobs", "1"], pin=cpus()[0])
    rows = [("single core (--jobs 1, one CPU)", base), ("default (no option)", measure(argv))]
    for n in workers:
        rows.append((f"local --jobs {n}", measure(argv + ["--jobs", str(n)])))
    if dask:
        for n in workers:
            dask_argv = argv + ["--engine", "dask", "--jobs", str(n)]
            rows.append((f"dask --jobs {n}", measure(dask_argv)))
    print(f"\n{name}: irgauge {' '.join(argv[:1])} ...")
    print("| mode | wall s | CPU s | CPU ratio | speed-up | peak MB | same output |")
    print("|---|---:|---:|---:|---:|---:|---|")
    for label, r in rows:
        print(
            f"| {label} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['cpu'] / base['cpu']:.2f} | "
            f"{base['wall'] / r['wall']:.2f} | {r['peak']:.0f} | "
            f"{'yes' if r['digest'] == base['digest'] else 'NO'} |"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--topics", type=int, default=3000, help="eval: topics of the run")
    parser.add_argument("--systems", type=int, default=150, help="discpower: systems")
    parser.add_argument("--max-workers", type=int, default=None, help="default: 2 x CPUs")
    parser.add_argument("--no-dask", action="store_true", help="skip the Dask rows")
    parser.add_argument("--only", choices=("eval", "discpower"), default=None)
    args = parser.parse_args()
    top = args.max_workers or max(2 * len(cpus()), 4)
    workers = [1 << k for k in range(top.bit_length()) if 1 << k <= top]
    dask = not args.no_dask
    if dask:
        try:
            import distributed  # noqa: F401
        except ImportError:
            dask = False
    load = os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")
    print(
        f"{platform.node()}: {len(cpus())} CPU(s) allowed, load {load:.2f} at start; "
        f"peak memory: {'process tree summed (psutil)' if psutil else 'largest process'}"
    )
    if args.only in (None, "eval"):
        table("eval", eval_workload(args.topics), workers, dask)
    if args.only in (None, "discpower"):
        table("discpower", discpower_workload(args.systems), workers, dask)


if __name__ == "__main__":
    main()
