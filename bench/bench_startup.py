"""Start-up time of whole processes: ``import irgauge.meta`` and ``irgauge discpower``.

Targets: ``import irgauge.meta`` <= 0.3 s; ``irgauge discpower`` on a 59-system x 54-topic
matrix with B = 1000 <= 0.5 s, both as whole processes (wall clock, and the CPU time of the
child process), median of several runs.

The matrix is real data: the first 54 topics and the first 59 systems of TREC Robust 2003
AP (``urbano-score-matrices/irj2015-reliability/robust2003.csv``, Julián Urbano, CC BY-SA
4.0), written to a temporary wide CSV (never into the repository).

    python bench/bench_startup.py [--runs 7]
"""

from __future__ import annotations

import argparse
import csv
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SOURCE = (
    ROOT.parent
    / "shared"
    / "data"
    / "urbano-score-matrices"
    / "irj2015-reliability"
    / "robust2003.csv"
)
SYSTEMS, TOPICS = 59, 54


def matrix_file(folder: str) -> str:
    """The 59 x 54 wide CSV (rows = topics, columns = systems)."""
    with open(SOURCE, newline="") as handle:
        rows = list(csv.reader(handle))
    path = os.path.join(folder, "robust2003_59x54_ap.csv")
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        for row in rows[: TOPICS + 1]:  # header + 54 topics
            writer.writerow(row[:SYSTEMS])
    return path


def timed(argv) -> tuple:
    """(wall, CPU) seconds of one child process."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def measure(label: str, argv, runs: int, target: float) -> bool:
    timed(argv)  # warm the file cache
    samples = [timed(argv) for _ in range(runs)]
    wall = statistics.median(s[0] for s in samples)
    cpu = statistics.median(s[1] for s in samples)
    ok = wall <= target
    print(
        f"{label:<58} wall {wall:6.3f} s  cpu {cpu:6.3f} s  target <= {target} s  "
        f"{'ok' if ok else 'MISSED'}"
    )
    return ok


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7, help="runs per measurement (median)")
    args = parser.parse_args()
    python = sys.executable
    with tempfile.TemporaryDirectory() as folder:
        path = matrix_file(folder)
        results = [
            measure(
                "python -c 'import irgauge.meta'",
                [python, "-c", "import irgauge.meta"],
                args.runs,
                0.3,
            ),
            measure(
                "irgauge discpower (59 x 54, B = 1000, --format tsv)",
                [
                    python,
                    "-m",
                    "irgauge",
                    "discpower",
                    f"ap={path}",
                    "-B",
                    "1000",
                    "--seed",
                    "1",
                    "--format",
                    "tsv",
                ],
                args.runs,
                0.5,
            ),
        ]
    return 0 if all(results) else 1


if __name__ == "__main__":
    sys.exit(main())
