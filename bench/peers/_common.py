"""Shared by the peer scripts: command line and output format.

Every peer prints one line per run and measure, ``run<TAB>measure<TAB>mean``, with the
measure under irgauge's name, so that bench_eval.py can compare the tools' values.
"""

from __future__ import annotations

import argparse
import os
from typing import Dict, Iterable, Tuple

# irgauge name -> the standard set of the benchmark, in this order
STANDARD = ["AP", "nDCG", "nDCG@10", "P@10", "RR", "Rprec", "bpref", "R@1000"]


def parse_args(description: str) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=description)
    parser.add_argument("qrels")
    parser.add_argument("runs", nargs="+")
    parser.add_argument(
        "--measures",
        default=None,
        help="comma-separated irgauge names to compute (default: all of STANDARD)",
    )
    return parser.parse_args()


def wanted(args: argparse.Namespace, names: Iterable[str]) -> set:
    """The measures asked for (by irgauge name) among ``names``."""
    if not args.measures:
        return set(names)
    return set(names) & set(args.measures.split(","))


def run_name(path: str) -> str:
    """A run is named by its file name without extension, as irgauge's sample does."""
    return os.path.splitext(os.path.basename(path))[0]


def print_means(rows: Iterable[Tuple[str, Dict[str, float]]]) -> None:
    out = []
    for run, means in rows:
        for measure in STANDARD:
            if measure in means:
                out.append(f"{run}\t{measure}\t{means[measure]:.6f}\n")
    print("".join(out), end="")
