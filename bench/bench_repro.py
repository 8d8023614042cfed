#!/usr/bin/env python3
"""Benchmark: the reproducibility study (irgauge.reproducibility) against repro_eval 0.5.0.

Generates a collection with irgauge.collection.simulate into a temporary folder: 250
topics, 4 runs of 1000 documents (the original baseline and advanced runs, and one
repeated pair), ties in a quarter of the runs. Then times, in this process:

* the bootstrap alone: B = 1000 samples of the 250 topics, every mean statistic of the
  study (KTU and RBO's three values at 6 cutoffs, RMSE, nRMSE, ARP, ER, Delta RI of 2
  measures) and their percentile intervals;
* the whole study: irgauge.reproducibility(..., samples=1000, cutoffs=5..1000), reading,
  scoring (also at each cutoff, for the RMSE curve), document order and bootstrap;
* repro_eval, the same statistics where it has them (no intervals): its KTU and RBO at
  each cutoff, RMSE, nRMSE, ER, Delta RI and t-tests, on its own reading and scoring.

and prints each time with the ratio repro_eval / irgauge.

    python bench/bench_repro.py [--topics 250] [--samples 1000] [--repeat 3]
"""

from __future__ import annotations

import argparse
import copy
import statistics
import tempfile
import time
from pathlib import Path

import numpy as np

CUTOFFS = [5, 10, 20, 50, 100, 1000]
MEASURES = ["AP", "P@10"]


def timed(function, repeat: int) -> float:
    """The median wall time of ``repeat`` calls (after one untimed call)."""
    function()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        function()
        times.append(time.perf_counter() - start)
    return statistics.median(times)


def collection(folder: Path, topics: int):
    from irgauge.cli import main

    argv = ["simulate", "--out", str(folder), "--topics", str(topics), "--runs", "4"]
    assert main(argv + ["--depth", "1000", "--seed", "1", "--quiet"]) == 0
    return folder / "qrels.txt", sorted((folder / "runs").glob("*.run"))


def bootstrap_only(topics: int, samples: int):
    """The study's bootstrap on random per-topic values of its shape."""
    from irgauge.meta.repro import effects as fx
    from irgauge.meta.repro.samples import TopicMeans, intervals, topic_counts

    rng = np.random.default_rng(0)
    rows = 2 * (4 * len(CUTOFFS) + 3 * len(MEASURES)) + 2 * len(MEASURES)

    def study():
        counts = topic_counts(topics, samples, 1)
        means = TopicMeans()
        handles = [means.add("original", rng.random(topics)) for _ in range(rows)]
        means.compute({"original": counts, "repeated": counts})
        vectors = [means[h] for h in handles]
        vectors += [fx.effect_ratio(means[handles[0]], means[handles[1]])] * len(MEASURES)
        intervals(np.stack(vectors), 0.95)

    return study


def repro_eval_study(qrels, runs):
    import ir_measures
    from repro_eval.measure import document_order as ro
    from repro_eval.measure import effectiveness as rf
    from repro_eval.measure import overall_effects as rx
    from repro_eval.measure import statistics as rs
    from repro_eval import util as ru

    def study():
        loaded = [ru.break_ties(ru.load_run(str(r))) for r in runs]
        judged = ru.load_qrels(str(qrels))
        measures = [ir_measures.parse_measure(m) for m in MEASURES]
        scores = [ru.evaluate_run(measures, judged, copy.deepcopy(r)) for r in loaded]
        for o, r in ((0, 2), (1, 3)):
            for k in CUTOFFS:
                ro.KTU(loaded[o], loaded[r], trim_thresh=k)
                a, b = copy.deepcopy(loaded[o]), copy.deepcopy(loaded[r])
                ru.trim_run(a, k)
                ru.trim_run(b, k)
                ro.RBO(a, b, p=0.95, depth=1000, pbar=False, per_topic=False)
            rf.RMSE(scores[o], scores[r])
            rf.nRMSE(scores[o], scores[r])
            rs.ttest(scores[o], scores[r])
        rx.ER(scores[1], scores[0], scores[3], scores[2])
        rx.DRI(scores[1], scores[0], scores[3], scores[2])

    return study


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--topics", type=int, default=250)
    parser.add_argument("--samples", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    import irgauge

    with tempfile.TemporaryDirectory() as folder:
        qrels, runs = collection(Path(folder) / "c", args.topics)

        def whole():
            irgauge.reproducibility(qrels, runs[:2], runs[2:], MEASURES, cutoffs=CUTOFFS,
                                    samples=args.samples, seed=1)  # fmt: skip

        boot = timed(bootstrap_only(args.topics, args.samples), args.repeat)
        ours = timed(whole, args.repeat)
        try:
            theirs = timed(repro_eval_study(qrels, runs), args.repeat)
        except ImportError:
            theirs = float("nan")
    print(f"4 runs x {args.topics} topics x 1000 documents, B = {args.samples}, cutoffs {CUTOFFS}")
    print(f"{'what':48s} {'seconds':>9s} {'repro_eval / irgauge':>22s}")
    print(f"{'irgauge bootstrap (all intervals)':48s} {boot:9.3f} {'':>22s}")
    print(f"{'irgauge whole study (with intervals)':48s} {ours:9.3f} {theirs / ours:22.2f}")
    print(f"{'repro_eval (same statistics, no intervals)':48s} {theirs:9.3f} {'':>22s}")


if __name__ == "__main__":
    main()
