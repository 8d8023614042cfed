"""Benchmark: ``irgauge-trec_eval`` against a trec_eval 10.0 binary, side by side.

Two ways scripts call trec_eval, both as whole processes (start-up included):

- P1, one process per run: ``trec_eval QRELS RUN`` on 50,000-line runs (the runs of W1,
  50 topics x 1000 documents), each run its own process, A and B in turn. Target:
  ``irgauge-trec_eval`` at most 0.15 s wall per run. The start-up left in that figure
  is shown beside it: ``python -c pass``, ``python -c "import numpy"`` and
  ``irgauge-trec_eval --version`` (the command line built, no input read).
- P5M, one 5,000,000-line run (W2, 5000 topics x 1000 documents). Target:
  ``irgauge-trec_eval`` at most 0.5x trec_eval's CPU (user + sys).

Every output is compared byte for byte with trec_eval's. The workloads are W1 and W2 of
``bench_eval.py`` (made by ``irgauge simulate`` into ``bench/out/``, reused while their
manifest matches). trec_eval is not shipped: give its path with ``--trec-eval`` or
``TREC_EVAL``, or have it on PATH (build it from its public source with ``make``).

    python bench/bench_trec_eval.py --trec-eval /path/to/trec_eval [--repeat 5] [--runs 10]
"""

from __future__ import annotations

import argparse
import os
import platform
import shutil
import statistics
import sys
from pathlib import Path
from typing import List, Optional

sys.path.insert(0, str(Path(__file__).resolve().parent))  # noqa: E402 - the bench folder
from bench_eval import SEED, WORKLOADS, default_irgauge, measure, prepare_workload  # noqa: E402

HERE = Path(__file__).resolve().parent
TARGET_WALL_PER_RUN = 0.15
TARGET_CPU_RATIO = 0.5


def median(values: List[float]) -> float:
    return statistics.median(values) if values else float("nan")


def timed(argv: List[str], out: Path, repeat: int) -> dict:
    """Median wall, CPU and peak memory of ``repeat`` runs of ``argv``; its output kept."""
    walls, cpus, peaks = [], [], []
    for _ in range(repeat):
        wall, peak, code, tail, cpu = measure(argv, out)
        if code != 0:
            raise SystemExit(f"{' '.join(argv)} failed ({code}): {tail}")
        walls.append(wall)
        cpus.append(cpu)
        peaks.append(peak)
    return {"wall": median(walls), "cpu": median(cpus), "peak": max(peaks)}


def per_run(commands: dict, qrels: Path, runs: List[Path], out: Path, repeat: int) -> dict:
    """One process per run, over every run, ``repeat`` times, the commands in turn (A B A B,
    so that a drift of the machine's speed falls on both): per-run medians of each."""
    found = {name: {"wall": [], "cpu": []} for name in commands}
    for run in runs:
        samples = {name: {"wall": [], "cpu": []} for name in commands}
        for _ in range(repeat):
            for name, command in commands.items():
                one = timed(command + [str(qrels), str(run)], out / name / f"{run.name}.out", 1)
                samples[name]["wall"].append(one["wall"])
                samples[name]["cpu"].append(one["cpu"])
        for name in commands:
            for key in ("wall", "cpu"):
                found[name][key].append(median(samples[name][key]))
    return {name: {key: median(v) for key, v in f.items()} for name, f in found.items()}


def same_bytes(ours: Path, theirs: Path) -> bool:
    return ours.read_bytes() == theirs.read_bytes()


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--trec-eval", default=os.environ.get("TREC_EVAL") or shutil.which("trec_eval"))
    ap.add_argument("--repeat", type=int, default=5, help="timed runs of each process")
    ap.add_argument("--runs", type=int, default=10, help="W1 runs timed one process each")
    ap.add_argument("--out", default=str(HERE / "out"), help="folder for workloads and outputs")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    if not args.trec_eval or not os.access(args.trec_eval, os.X_OK):
        ap.error("no trec_eval binary: give --trec-eval PATH or set TREC_EVAL")

    irgauge = default_irgauge()
    script = Path(irgauge[0]).with_name("irgauge-trec_eval")
    ours = [str(script)] if script.exists() else irgauge + ["trec_eval"]
    theirs = [args.trec_eval]
    root = Path(args.out) / "full"
    w1 = prepare_workload("W1", WORKLOADS["W1"], root, irgauge)
    w2 = prepare_workload("W2", WORKLOADS["W2"], root, irgauge)
    folder = root / "trec_eval"
    for name in ("ours", "theirs", "irgauge-trec_eval", "trec_eval"):
        (folder / name).mkdir(parents=True, exist_ok=True)

    runs = w1.runs[: args.runs]
    p1 = per_run(
        {"irgauge-trec_eval": ours, "trec_eval": theirs}, w1.qrels, runs, folder, args.repeat
    )
    start = {
        "python -c pass": timed([sys.executable, "-c", "pass"], folder / "s1", args.repeat),
        # with one BLAS thread, as irgauge's console scripts start numpy
        "python -c 'import numpy'": timed(
            ["env", "OPENBLAS_NUM_THREADS=1", sys.executable, "-c", "import numpy"],
            folder / "s2",
            args.repeat,
        ),
        "irgauge-trec_eval --version": timed(ours + ["--version"], folder / "s3", args.repeat),
    }
    big_ours = timed(ours + [str(w2.qrels), str(w2.runs[0])], folder / "ours" / "W2", args.repeat)
    big_theirs = timed(
        theirs + [str(w2.qrels), str(w2.runs[0])], folder / "theirs" / "W2", args.repeat
    )
    identical = all(
        same_bytes(
            folder / "irgauge-trec_eval" / f"{r.name}.out", folder / "trec_eval" / f"{r.name}.out"
        )
        for r in runs
    ) and same_bytes(folder / "ours" / "W2", folder / "theirs" / "W2")

    print(
        f"irgauge-trec_eval vs trec_eval ({platform.node()}, {os.cpu_count()} CPUs, "
        f"{platform.processor() or platform.machine()}, Python {sys.version.split()[0]}; "
        f"medians of {args.repeat} whole processes; seed {SEED})"
    )
    print("\nP1: one process per 50,000-line run (W1), default measures, per run")
    print(f"  {'tool':<30} {'wall s':>8} {'cpu s':>8}")
    for name, found in p1.items():
        print(f"  {name:<30} {found['wall']:8.3f} {found['cpu']:8.3f}")
    for name, found in start.items():
        print(f"  {name:<30} {found['wall']:8.3f} {found['cpu']:8.3f}")
    print("\nP5M: one 5,000,000-line run (W2), default measures")
    print(f"  {'tool':<30} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    for name, found in (("irgauge-trec_eval", big_ours), ("trec_eval", big_theirs)):
        print(f"  {name:<30} {found['wall']:8.3f} {found['cpu']:8.3f} {found['peak']:8.0f}")
    floor = start["python -c 'import numpy'"]["wall"]
    print(
        f"\n  start-up floor (Python and numpy): {floor:.3f} s; irgauge's own share of P1: "
        f"{p1['irgauge-trec_eval']['wall'] - floor:.3f} s"
    )
    ratio = big_ours["cpu"] / big_theirs["cpu"]
    checks = [
        (
            f"P1 wall per run {p1['irgauge-trec_eval']['wall']:.3f} s "
            f"(target <= {TARGET_WALL_PER_RUN} s; trec_eval {p1['trec_eval']['wall']:.3f} s)",
            p1["irgauge-trec_eval"]["wall"] <= TARGET_WALL_PER_RUN,
        ),
        (f"P5M CPU ratio {ratio:.2f}x trec_eval (target <= {TARGET_CPU_RATIO}x)", ratio <= 0.5),
        (f"outputs byte-identical to trec_eval's ({len(runs)} W1 runs and W2)", identical),
    ]
    print()
    for text, passed in checks:
        print(f"{'PASS' if passed else 'FAIL'}  {text}")
    return 1 if args.strict and not all(p for _, p in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
