"""Benchmark of the meta-evaluation methods on real TREC score matrices, against naive loops.

Data: Urbano's score matrices (CC BY-SA 4.0), read by path from ../shared/data.
    adhoc8 AP, P@10, RR (129 systems x 50 topics, 8,256 pairs)
    robust2004 AP, P@10 (110 systems x 249 topics, 5,995 pairs)

For each method the vectorised implementation runs at full size; the naive implementation
(the SPEC pseudo-code with a Python loop per pair and per sample/trial, numpy for the
per-sample means) runs on a fraction of the pairs or samples and its time is extrapolated
linearly to full size (marked "extrapolated"). Run:  python bench/bench_meta.py
"""

from __future__ import annotations

import itertools
import math
import sys
import time
from pathlib import Path

import numpy as np

from irgauge.meta import discriminative_power, predictive_power, stability, swap_rates
from irgauge.scores import read_scores
from irgauge.stats.resampling import (
    bootstrap_indices,
    disjoint_subset_indices,
    permutations,
    subset_indices,
)

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data" / "urbano-score-matrices"
SETS = {
    "adhoc8": (DATA / "sigir2019-statistical", "adhoc8", ("ap", "p10", "rr")),
    "robust2004": (DATA / "sigir2018-simulation", "robust2004", ("ap", "p10")),
}


def load(name):
    folder, stem, measures = SETS[name]
    found = {}
    for m in measures:
        found.update(read_scores(folder / f"{stem}_{m}.csv", name=m))
    return found


def timed(fn, repeat=3):
    best = math.inf
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - start)
    return best


def all_pairs(m):
    return list(itertools.combinations(range(m), 2))


# ----------------------------------------------------------------- naive loop versions


def naive_discpower(values, idx, pairs):
    n = values.shape[1]
    for a, b in pairs:
        z = values[a] - values[b]
        t_obs = z.mean() / (z.std(ddof=1) / math.sqrt(n))
        w = z - z.mean()
        stars = []
        for row in idx:
            wb = w[row]
            stars.append(wb.mean() / (wb.std(ddof=1) / math.sqrt(n)))
        np.mean(np.abs(stars) >= abs(t_obs))


def naive_swap(values, q1, q2, pairs):
    for a, b in pairs:
        for s1, s2 in zip(q1, q2):
            d = values[a, s1].mean() - values[b, s1].mean()
            d2 = values[a, s2].mean() - values[b, s2].mean()
            min(int(abs(d) / 0.01), 20), d * d2 < 0 or (d == 0) != (d2 == 0)


def naive_stability(values, subsets, pairs, fuzziness):
    for a, b in pairs:
        for s in subsets:
            mx, my = values[a, s].mean(), values[b, s].mean()
            for f in fuzziness:
                abs(mx - my) < f * max(mx, my)


def loop_tau(x, y):
    """Kendall tau_b with a Python loop over system pairs (the textbook definition)."""
    num = tx = ty = 0
    for a in range(len(x)):
        for b in range(a + 1, len(x)):
            sx = (x[a] > x[b]) - (x[a] < x[b])
            sy = (y[a] > y[b]) - (y[a] < y[b])
            num += sx * sy
            tx += sx == 0
            ty += sy == 0
    nn = len(x) * (len(x) - 1) / 2
    return num / math.sqrt((nn - tx) * (nn - ty))


def naive_predictive(stacked, order, half, kendalltau=None):
    if kendalltau is None:
        from scipy.stats import kendalltau

    for row in order:
        h1, h2 = row[:half], row[half:]
        m1 = [v[:, h1].mean(axis=1) for v in stacked]
        m2 = [v[:, h2].mean(axis=1) for v in stacked]
        for a in range(len(stacked)):
            for b in range(len(stacked)):
                kendalltau(m1[a], m2[b])


# ----------------------------------------------------------------- benchmark


def bench(name, rows):
    matrices = load(name)
    ap = {"ap": matrices["ap"]}
    values = matrices["ap"].values
    m, n = values.shape
    pairs = all_pairs(m)
    stacked = np.stack([v.values for v in matrices.values()])

    def add(method, work, fast, naive_time, fraction):
        label = "measured" if fraction == 1 else f"extrapolated from {fraction:.2%}"
        rows.append((name, method, work, fast, naive_time / fraction, label))

    # discriminative power, B = 1000
    fast = timed(lambda: discriminative_power(ap, samples=1000, seed=1))
    idx = bootstrap_indices(n, 1000, 1)
    some = pairs[:20]
    naive = timed(lambda: naive_discpower(values, idx, some), repeat=1)
    add("discpower B=1000", f"{len(pairs)} pairs x 1000", fast, naive, len(some) / len(pairs))

    # swap rates, 1000 trials, c = n/2
    fast = timed(lambda: swap_rates(ap, trials=1000, seed=1))
    q1, q2 = disjoint_subset_indices(n, n // 2, 1000, 1)
    some = pairs[:40]
    naive = timed(lambda: naive_swap(values, q1, q2, some), repeat=1)
    add("swap 1000 trials", f"{len(pairs)} pairs x 1000", fast, naive, len(some) / len(pairs))

    # stability, 1000 trials, 10 fuzziness values
    fast = timed(lambda: stability(ap, trials=1000, seed=1))
    subsets = subset_indices(n, n // 2, 1000, 1)
    some = pairs[:40]
    fuzz = [0.01 * k for k in range(1, 11)]
    naive = timed(lambda: naive_stability(values, subsets, some, fuzz), repeat=1)
    add("stability 1000 trials", f"{len(pairs)} pairs x 1000", fast, naive, len(some) / len(pairs))

    # predictive power, 2000 halvings, all measures of the set, top 75% by AP
    k = len(matrices)
    fast = timed(lambda: predictive_power(matrices, halvings=2000, seed=1))
    kept = math.ceil(0.75 * m)
    top = np.argsort(-values.mean(axis=1), kind="stable")[:kept]
    order = permutations(n, 2000, 1)[:100]
    naive = timed(lambda: naive_predictive(stacked[:, top], order, n // 2), repeat=1)
    work = f"{kept} systems, {k * k} pairs of measures"
    add(f"predictive P=2000, {k} measures (naive: scipy tau)", work, fast, naive, 100 / 2000)
    naive = timed(
        lambda: naive_predictive(
            stacked[:, top], order[:40], n // 2, lambda x, y: loop_tau(x.tolist(), y.tolist())
        ),
        repeat=1,
    )
    add(f"predictive P=2000, {k} measures (naive: loop tau)", work, fast, naive, 40 / 2000)


def main():
    if not DATA.is_dir():
        sys.exit(f"data not found: {DATA}")
    rows = []
    for name in SETS:
        bench(name, rows)
    header = ("data", "method", "work", "vectorised s", "naive s", "speed-up", "naive timing")
    table = [
        (d, meth, w, f"{f:.3f}", f"{nv:.1f}", f"{nv / f:.0f}x", lab)
        for d, meth, w, f, nv, lab in rows
    ]
    widths = [max(len(str(r[i])) for r in table + [header]) for i in range(len(header))]
    for r in [header, tuple("-" * w for w in widths)] + table:
        print("  ".join(str(c).ljust(w) for c, w in zip(r, widths)).rstrip())


if __name__ == "__main__":
    main()
