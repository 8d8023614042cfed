"""Judgment lookup: irgauge's key table against pandas.Index.get_indexer and a plain binary
search (numpy.searchsorted), side by side in one process.

Keys are built as Judgments builds them (irgauge.io.keys.pair_keys: the topic code in the
high bits, a 64-bit docno hash below), sorted and unique; the query keys are many more,
most of them absent (retrieved but unjudged documents). Two query orders: "run order",
topic by topic as Judgments.grades_of receives them, and "shuffled", the worst case for a
binary search (no locality at all).

    python bench/bench_keys.py [--repeat 5]

Prints the median build + lookup time of each method per workload, its ratio to irgauge's
key table, and the peak memory it allocates (tracemalloc, one untimed run); every method's
positions are checked equal before timing. Importing pandas is not counted here: it costs
a whole `irgauge eval` process about 0.6 s and 43 MB (see bench/README.md).
"""

from __future__ import annotations

import argparse
import platform
import time
import tracemalloc

import numpy as np
import pandas as pd

from irgauge.collection.judgments import _KeyTable
from irgauge.io.keys import pair_keys

# (name, judged keys, topics, query keys, share of queries that are judged, keys per lookup
# call: a run at a time for W1's 50 runs, Judgments.LOOKUP_CHUNK for W2's one run)
SHAPES = [
    ("300k judged, 50 runs of 50k retrieved (W1-like)", 300_000, 1_000, 2_500_000, 0.1, 50_000),
    ("1.4M judged, one run of 5M retrieved (W2-like)", 1_400_000, 5_000, 5_000_000, 0.1, 1 << 18),
]
ORDERS = ("run order", "shuffled")


def make(n_keys: int, n_topics: int, n_queries: int, share: float, chunk: int, order: str):
    rng = np.random.default_rng(0)

    def keys_of(n):
        topics = rng.integers(0, n_topics, n)
        return pair_keys(topics, rng.integers(0, 2**64, n, dtype=np.uint64), n_topics)

    keys = np.unique(keys_of(n_keys))
    present = rng.choice(keys, int(n_queries * share))
    queries = np.concatenate([present, keys_of(n_queries - len(present))])
    rng.shuffle(queries)
    if order == "run order":  # each run's lines topic by topic, documents in any order
        topic_of = queries >> np.uint64(64 - n_topics.bit_length())
        for i in range(0, n_queries, chunk):
            part = queries[i : i + chunk]
            part[:] = part[np.argsort(topic_of[i : i + chunk], kind="stable")]
    return keys, queries


def key_table(keys, queries, chunk):
    table = _KeyTable(keys)
    return np.concatenate(
        [table.find(queries[i : i + chunk]) for i in range(0, len(queries), chunk)]
    )


def pandas_index(keys, queries, chunk):
    index = pd.Index(keys)
    return np.concatenate(
        [index.get_indexer(queries[i : i + chunk]) for i in range(0, len(queries), chunk)]
    )


def binary_search(keys, queries, chunk):
    def find(part):
        at = np.minimum(np.searchsorted(keys, part), len(keys) - 1)
        return np.where(keys[at] == part, at, -1)

    return np.concatenate([find(queries[i : i + chunk]) for i in range(0, len(queries), chunk)])


METHODS = {
    "irgauge key table": key_table,
    "pandas get_indexer": pandas_index,
    "numpy searchsorted": binary_search,
}


def median_seconds(function, keys, queries, chunk: int, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function(keys, queries, chunk)
        times.append(time.perf_counter() - start)
    return float(np.median(times))


def peak_mb(function, keys, queries, chunk: int) -> float:
    """Peak of what build + lookup allocate on top of the inputs (pandas' hash tables and
    numpy's arrays both report to tracemalloc)."""
    tracemalloc.start()
    function(keys, queries, chunk)
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak / 2**20


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    print(
        f"machine: {platform.machine()}, {platform.processor() or 'cpu ?'}; numpy "
        f"{np.__version__}, pandas {pd.__version__}; median of {args.repeat}, build + lookup"
    )
    for name, n_keys, n_topics, n_queries, share, chunk in SHAPES:
        for order in ORDERS:
            keys, queries = make(n_keys, n_topics, n_queries, share, chunk, order)
            reference = key_table(keys, queries, chunk)
            for method, function in METHODS.items():
                assert np.array_equal(function(keys, queries, chunk), reference), method
            seconds = {
                m: median_seconds(f, keys, queries, chunk, args.repeat) for m, f in METHODS.items()
            }
            base = seconds["irgauge key table"]
            print(f"\n{name}, {order}")
            for method, value in seconds.items():
                print(
                    f"  {method:20s} {value * 1000:8.1f} ms   {value / base:5.2f}x key table"
                    f"   peak {peak_mb(METHODS[method], keys, queries, chunk):6.1f} MB"
                )


if __name__ == "__main__":
    main()
