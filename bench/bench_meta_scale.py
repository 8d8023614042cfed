"""Benchmark: the meta commands on many systems, as whole processes (start-up included).

Workload: a wide score file of 10,000 systems x 50 topics (uniform random scores, seed 1,
written to ``bench/out/scale/``), read as two measures (``AP=FILE P=FILE``) where the
command compares measures.

| command | target |
|---|---|
| ``irgauge correlate AP=FILE P=FILE`` | at most 10 s wall and 500 MB peak |
| ``irgauge compare FILE --systems s1 s2 --seed 1`` | at most 5 s wall and 300 MB peak |

Wall time, CPU (user + sys) and peak RSS of each child come from ``os.wait4``; the median
of ``--repeat`` runs is printed with the machine's name. Run:

    python bench/bench_meta_scale.py [--repeat 3] [--systems 10000]
"""

from __future__ import annotations

import argparse
import os
import platform
import statistics
import sys
import time
from pathlib import Path
from typing import List

import numpy as np

HERE = Path(__file__).resolve().parent
TARGETS = {"correlate": (10.0, 500.0), "compare two named systems": (5.0, 300.0)}


def scores_file(folder: Path, systems: int, topics: int) -> Path:
    path = folder / f"wide_{systems}x{topics}.csv"
    if not path.exists():
        folder.mkdir(parents=True, exist_ok=True)
        values = np.random.default_rng(1).random((topics, systems))
        with open(path, "w") as out:
            out.write("topic," + ",".join(f"s{i}" for i in range(systems)) + "\n")
            for t, row in enumerate(values):
                out.write(f"t{t}," + ",".join(f"{x:.4f}" for x in row) + "\n")
    return path


def run_once(argv: List[str]) -> tuple:
    """(wall s, cpu s, peak MB) of one child process; its output is discarded."""
    with open(os.devnull, "wb") as null:
        start = time.perf_counter()
        pid = os.posix_spawn(
            argv[0],
            argv,
            dict(os.environ),
            file_actions=[
                (os.POSIX_SPAWN_DUP2, null.fileno(), 1),
            ],
        )
        _, status, usage = os.wait4(pid, 0)
        wall = time.perf_counter() - start
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{' '.join(argv)} failed")
    return wall, usage.ru_utime + usage.ru_stime, usage.ru_maxrss / 1024


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--systems", type=int, default=10000)
    ap.add_argument("--topics", type=int, default=50)
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)
    script = Path(sys.executable).with_name("irgauge")
    irgauge = [str(script)] if script.exists() else [sys.executable, "-m", "irgauge"]
    path = str(scores_file(HERE / "out" / "scale", args.systems, args.topics))
    commands = {
        "correlate": irgauge + ["correlate", f"AP={path}", f"P={path}"],
        "compare two named systems": irgauge
        + ["compare", path, "--systems", "s1", "s2"]
        + ["--seed", "1"],
    }
    print(
        f"meta commands on {args.systems} systems x {args.topics} topics ({platform.node()}, "
        f"{os.cpu_count()} CPUs, Python {sys.version.split()[0]}; median of {args.repeat})"
    )
    print(f"  {'command':<28} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    missed = False
    for name, command in commands.items():
        runs = [run_once(command) for _ in range(args.repeat)]
        wall, cpu = (statistics.median(r[k] for r in runs) for k in (0, 1))
        peak = max(r[2] for r in runs)
        limit_s, limit_mb = TARGETS[name]
        ok = wall <= limit_s and peak <= limit_mb
        missed |= not ok
        print(
            f"  {name:<28} {wall:8.2f} {cpu:8.2f} {peak:8.0f}  "
            f"{'PASS' if ok else 'FAIL'} (target <= {limit_s:g} s, {limit_mb:g} MB)"
        )
    return 1 if args.strict and missed else 0


if __name__ == "__main__":
    sys.exit(main())
