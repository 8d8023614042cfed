"""Do the studies' stated orderings survive another seed? (issue 20)

Score matrices of a known structure, 17 systems x 100 topics like Robust 2003's top runs:
one system effect shared by every measure, measure-specific topic noise of growing size,
two exact copies (measures equal by construction) and two measures whose noise differs by
2% (B and E: a difference in discriminative power of about 0.005, which another sample of
topics would move far more; the rule before issue 20, ``--monte-carlo-only``, orders them).
For each of several seeds the discriminative-power ordering is computed as a study states
it (R bootstrap repetitions, T topic resamples, :func:`irgauge.studies._noise.ordering`).
Reported: how many stated orderings are reversed between seeds (must be none), the mean
agreement of the stated sets between seeds (|S1 & S2| / |S1 | S2|, must be >= 0.9), and
whether a copy is ever ordered.

Run:  python bench/bench_seed_agreement.py [--seeds 10] [--B 1000] [--repetitions 5]
"""

from __future__ import annotations

import argparse
import itertools
import time

import numpy as np

from irgauge.scores import ScoreMatrix
from irgauge.studies import _noise, _repeat, _topics

NOISE = {"A": 0.10, "A copy": 0.10, "B": 0.16, "E": 0.163, "C": 0.22, "D": 0.30, "D copy": 0.30}


def matrices(n_systems: int = 17, n_topics: int = 100, seed: int = 0):
    """{measure: ScoreMatrix}: effect + noise of the measure's size (copies share noise)."""
    rng = np.random.default_rng(seed)
    effect = np.linspace(0.25, 0.45, n_systems)[:, None]
    topic = rng.normal(0, 0.1, (1, n_topics))  # topic difficulty, shared
    out, noise = {}, {}
    for name, sd in NOISE.items():
        base = name.replace(" copy", "")
        if base not in noise:
            noise[base] = rng.normal(0, sd, (n_systems, n_topics))
        values = effect + topic + noise[base]
        out[name] = ScoreMatrix(
            values, [f"s{i}" for i in range(n_systems)], [f"t{j}" for j in range(n_topics)], name
        )
    return out


def stated(
    data, seed: int, B: int, repetitions: int, resamples: int, alpha: float = 0.05, topics=True
):
    """The orderings the discriminative-power sentence states with ``seed`` (without
    ``topics``: on the Monte Carlo error alone, as the summaries did before issue 20)."""
    seeds = _noise.repetition_seeds(seed, repetitions)
    rows, _, _ = _repeat.discriminative_power(data, B, alpha, seeds)
    n = next(iter(data.values())).n_topics
    draws = _noise.topic_resamples(n, resamples, _noise.topic_seed(seed))
    share, _ = _topics.discriminative_power(data, alpha, draws)
    stat = _repeat.statistic(rows, "share", "share of significant pairs", share if topics else {})
    return _noise.ordering(stat)


def agreement(sets):
    """(reversed orderings, mean Jaccard agreement between the seeds' stated sets)."""
    reversed_ = {(a, b) for s in sets for (a, b) in s if any((b, a) in t for t in sets)}
    scores = [len(s & t) / len(s | t) if s | t else 1.0 for s, t in itertools.combinations(sets, 2)]
    return reversed_, float(np.mean(scores))


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--B", type=int, default=1000)
    parser.add_argument("--repetitions", type=int, default=5)
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument(
        "--monte-carlo-only",
        action="store_true",
        help="orderings on the Monte Carlo error alone (the rule before issue 20)",
    )
    args = parser.parse_args(argv)
    data = matrices()
    start = time.perf_counter()
    results = [
        stated(
            data,
            1000 + s,
            args.B,
            args.repetitions,
            args.resamples,
            topics=not args.monte_carlo_only,
        )
        for s in range(args.seeds)
    ]
    sets = [set(r.stated) for r in results]
    reversed_, mean = agreement(sets)
    copies = [p for s in sets for p in s if p[0].replace(" copy", "") == p[1].replace(" copy", "")]
    print(results[0].text)
    print(f"{args.seeds} seeds, {time.perf_counter() - start:.1f}s")
    print(f"stated per seed: {[len(s) for s in sets]}")
    print(
        f"reversed: {sorted(reversed_) or 'none'}; mean agreement: {mean:.3f}; "
        f"copies ordered: {len(copies)}"
    )
    return 0 if not reversed_ and mean >= 0.9 and not copies else 1


if __name__ == "__main__":
    raise SystemExit(main())
