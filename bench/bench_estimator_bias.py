#!/usr/bin/env python3
"""Measure: the bias of the sampled-judgment estimators in simulation (docs/pooling.md).

On the collection of ``tests/test_sampled_estimates.py`` (3 runs x 3 topics x 60
documents, seeded), over S seeded samples, per (run, topic) cell: the mean estimate less
the value under full judgments, and that difference in standard errors of the mean.

* Horvitz-Thompson (each document sampled on its own with its probability): statP@10,
  statR, statAP's numerator statAP x R^ (against AP x R) and statAP itself (against AP),
  at the test's probabilities and at ``--scale`` times them (capped at 1);
* xinfAP under its stratified design, with sample_eval.pl's smoothing (an empty stratum
  above a rank counts a third of its documents as relevant) and without it (counting
  none: the smoothing constants set to 0 and 1e-300 for the run), at the test's rates
  and at ``--rates`` times them.

Run:  python bench/bench_estimator_bias.py [--samples 4000] [--scale 1,2] [--rates 1,1.5,2]
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))
import tests.test_sampled_estimates as sim  # noqa: E402  (the test's collection and helpers)
import irgauge.measures.infap as infap  # noqa: E402


def _line(name: str, values: np.ndarray, exact: np.ndarray) -> str:
    mean = values.mean(axis=1)
    error = values.std(axis=1, ddof=1) / np.sqrt(values.shape[1])
    bias = mean - exact
    z = np.abs(bias) / np.where(error > 1e-12, error, np.inf)
    return (
        f"  {name:<14} bias {bias.min():+.4f} .. {bias.max():+.4f}   "
        f"SE {error.mean():.4f}   max |bias| / SE {z.max():.1f}"
    )


def horvitz_thompson(samples: int, scale: float) -> None:
    sim.SAMPLES = samples
    rng = np.random.default_rng(34)
    levels, runs, inclusion, _ = sim._collection(rng)
    inclusion = np.minimum(1.0, inclusion * scale)
    sampled = sim._poisson_sample(rng, inclusion)
    none = np.zeros_like(sampled)
    est = sim._estimates(levels, runs, sampled, none, inclusion, ["statAP", "statP@10", "statR"])
    truth = sim._full(levels, runs, ["AP", "P@10", "num_rel"])
    n = inclusion.sum(axis=1).mean()
    print(f"Horvitz-Thompson, probabilities x{scale} ({n:.0f} of 60 sampled per topic):")
    print(_line("statP@10", est["statP@10"], truth["P@10"]))
    print(_line("statR", est["statR"], truth["num_rel"]))
    numerator = est["statAP"] * est["statR"]
    print(_line("statAP x R^", numerator, truth["AP"] * truth["num_rel"]))
    print(_line("statAP", est["statAP"], truth["AP"]))


def xinfap(samples: int, factor: float) -> None:
    sim.SAMPLES = samples
    base = ((5, 1.0), (15, 0.5), (sim.DEPTH, 0.25), (sim.DEPTH + 1, 0.2))
    sim.INF_STRATA = tuple((deepest, min(1.0, rate * factor)) for deepest, rate in base)
    rng = np.random.default_rng(34)
    levels, runs, _, best_rank = sim._collection(rng)
    sampled, inclusion = sim._stratified_sample(rng, best_rank, samples)
    truth = sim._full(levels, runs, ["AP"])["AP"]
    n = inclusion.sum(axis=1).mean()
    print(f"xinfAP, rates x{factor} ({n:.0f} of 60 sampled per topic):")
    reference = (infap.EPSILON, infap.SAMPLED_EPSILON)
    for name, constants in (("smoothed", reference), ("no smoothing", (0.0, 1e-300))):
        infap.EPSILON, infap.SAMPLED_EPSILON = constants
        try:
            listed = np.ones_like(sampled)
            est = sim._estimates(levels, runs, sampled, listed, inclusion, ["infAP"])
        finally:
            infap.EPSILON, infap.SAMPLED_EPSILON = reference
        print(_line(name, est["infAP"], truth))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--samples", type=int, default=4000)
    parser.add_argument("--scale", default="1,2", help="Horvitz-Thompson probabilities x")
    parser.add_argument("--rates", default="1,1.5,2", help="xinfAP's strata rates x")
    args = parser.parse_args()
    for scale in map(float, args.scale.split(",")):
        horvitz_thompson(args.samples, scale)
    for factor in map(float, args.rates.split(",")):
        xinfap(min(args.samples, 2000), factor)


if __name__ == "__main__":
    main()
