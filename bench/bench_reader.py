#!/usr/bin/env python3
"""Benchmark of the reader's edge workloads (issue 10), whole processes, side by side with
pytrec_eval, reporting wall time, CPU (user + sys) and peak RSS of each process:

* W1L / W2L: W1 / W2 of bench_eval.py with one docno replaced by one of 10,000 characters
  (targets: W1L peak within +20 MB and wall within 1.25x of W1; W2L the same means as W2,
  peak <= 600 MB);
* NONL: 64 MB without a newline, read under a 1 GB address-space limit (ulimit -v):
  exit 2 naming the file within 60 s;
* MSM: MS MARCO-train-shaped qrels (500,000 topics, 1-2 relevant each) with a run of
  10,000 topics x 100 documents, measures AP, nDCG@10 and RR: CPU <= 0.5x pytrec_eval,
  the same AP and nDCG@10 means, output under 10 KB.

    python bench/bench_reader.py [--repeat 3] [--workloads W1,W1L,W2,W2L,NONL,MSM]

Files go to bench/out/full/ (gitignored). Generation runs in child processes, so that
the harness stays small (a child's peak RSS starts from the harness's own).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Dict, List, Optional

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

from bench_eval import (  # noqa: E402  (after the path is set)
    PEERS,
    STANDARD,
    WORKLOADS,
    Result,
    Tool,
    Workload,
    default_irgauge,
    measure,
    prepare_workload,
    read_means,
)

LONG_DOCNO = "D" * 10_000
MSM_MEASURES = "AP nDCG@10 RR"
MSM_SCRIPT = r"""
import sys, numpy as np
out = sys.argv[1]
rng = np.random.default_rng(2024)
n_topics, n_run_topics, depth, n_docs = 500_000, 10_000, 100, 8_800_000
topics = np.arange(n_topics) * 3 + 1000  # sparse numeric ids, as MS MARCO's
n_rel = rng.integers(1, 3, n_topics)
rel_topic = np.repeat(topics, n_rel)
rel_doc = rng.integers(0, n_docs, len(rel_topic))
with open(f"{out}/qrels.txt", "w") as f:
    f.write("".join(f"{t} 0 {d} 1\n" for t, d in zip(rel_topic.tolist(), rel_doc.tolist())))
run_topics = np.sort(rng.choice(topics, n_run_topics, replace=False))
lines = []
first_rel = dict(zip(rel_topic.tolist()[::-1], rel_doc.tolist()[::-1]))
for t in run_topics.tolist():
    docs = rng.choice(n_docs, depth, replace=False)
    if rng.random() < 0.6:  # the relevant document somewhere in the list
        docs[rng.integers(0, depth)] = first_rel[t]
    docs = list(dict.fromkeys(docs.tolist()))
    scores = np.sort(rng.random(len(docs)) * 30)[::-1]
    lines.extend(f"{t} Q0 {d} {r} {s:.4f} run\n" for r, (d, s) in enumerate(zip(docs, scores), 1))
with open(f"{out}/run.txt", "w") as f:
    f.write("".join(lines))
"""


def long_docno_variant(base: Workload, out: Path) -> Workload:
    """``base`` with the first docno of its first run replaced by LONG_DOCNO (streamed)."""
    folder = out / f"{base.out.name}L"
    (folder / "runs").mkdir(parents=True, exist_ok=True)
    runs = []
    for k, run in enumerate(base.runs):
        target = folder / "runs" / run.name
        if k == 0:
            with open(run, "rb") as src, open(target, "wb") as dst:
                fields = src.readline().split()
                fields[2] = LONG_DOCNO.encode()
                dst.write(b" ".join(fields) + b"\n")
                shutil.copyfileobj(src, dst, 1 << 20)
        elif not target.exists():
            target.symlink_to(run)
        runs.append(target)
    return Workload(f"{base.name}L", base.qrels, runs, folder)


def no_newline_file(out: Path) -> Path:
    path = out / "NONL" / "no_newline.txt"
    path.parent.mkdir(parents=True, exist_ok=True)
    if not path.exists() or path.stat().st_size != 64 << 20:
        with open(path, "wb") as f:
            for _ in range(64):
                f.write(b"x" * (1 << 20))
    return path


def msm_workload(out: Path, python: str) -> Workload:
    folder = out / "MSM"
    folder.mkdir(parents=True, exist_ok=True)
    if not (folder / "run.txt").exists():
        t0 = time.perf_counter()
        subprocess.run([python, "-c", MSM_SCRIPT, str(folder)], check=True)
        print(f"generated MSM in {time.perf_counter() - t0:.1f} s", file=sys.stderr)
    return Workload("MSM", folder / "qrels.txt", [folder / "run.txt"], folder)


EXACT_SCRIPT = r"""
import sys, numpy as np
from irgauge.io.runs import read_run
n = 0
for path in sys.argv[1:]:
    got = read_run(path).scores
    with open(path, "rb") as f:
        want = np.array([float(line.split()[4]) for line in f if line.strip()])
    if got.tobytes() != want.tobytes():
        bad = int(np.flatnonzero(got.view(np.uint64) != want.view(np.uint64))[0])
        print(f"{path}: score {bad + 1} read as {got[bad]!r}, Python's float gives {want[bad]!r}")
        sys.exit(1)
    n += len(got)
print(n)
"""


def scores_bit_exact(w: Workload, python: str) -> tuple:
    """(check text, passed): every score of the workload's runs as irgauge reads it equals
    Python's float of the token, bit for bit (run after the timings: a child process, so
    that the harness stays small)."""
    done = subprocess.run(
        [python, "-c", EXACT_SCRIPT, *map(str, w.runs)], capture_output=True, text=True
    )
    if done.returncode != 0:
        return (
            f"{w.name}: scores not bit-exact with Python's float: "
            f"{(done.stdout + done.stderr).strip()[-300:]}",
            False,
        )
    return (f"{w.name}: {int(done.stdout):,} scores read bit-exact as Python's float", True)


def tools_for(name: str, irgauge: List[str], python: str) -> List[Tool]:
    if name == "MSM":
        measures = ["-m", MSM_MEASURES]
        peer = ["--measures", MSM_MEASURES.replace(" ", ",")]
    else:
        measures = ["-m", STANDARD, "--empty-topics", "zero"]
        peer = []
    return [
        Tool("irgauge", irgauge + ["eval", "{qrels}", "{runs}", *measures, "--format", "tsv"]),
        Tool(
            "pytrec_eval", [python, str(PEERS / "pytrec_eval_peer.py"), "{qrels}", "{runs}", *peer]
        ),
    ]


def timed(tool: Tool, w: Workload, repeat: int, results: Dict) -> Result:
    res = results.setdefault((tool.name, w.name), Result(tool.name, w.name))
    for k in range(repeat + 1):  # one warm-up
        wall, peak, rc, tail, cpu = measure(tool.command(w), w.out / f"{tool.name}.out")
        print(
            f"  {'warm-up' if k == 0 else 'timed'} {tool.name:12s} {w.name:5s} {wall:7.2f} s "
            f"{cpu:7.2f} s CPU {peak:6.0f} MB",
            file=sys.stderr,
        )
        if rc != 0:
            res.error = f"exit {rc}: {tail.strip()[-200:]}"
            break
        if k:
            res.walls.append(wall)
            res.cpus.append(cpu)
            res.peaks_mb.append(peak)
    return res


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--workloads", default="W1,W1L,W2,W2L,NONL,MSM")
    ap.add_argument("--out", default=str(HERE / "out" / "full"))
    ap.add_argument("--python", default=sys.executable)
    args = ap.parse_args(argv)
    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    out = Path(args.out)
    irgauge = default_irgauge()
    base = {
        n: prepare_workload(n, WORKLOADS[n], out, irgauge)
        for n in ("W1", "W2")
        if n in names or f"{n}L" in names
    }
    results: Dict = {}
    checks: List[tuple] = []
    for name in names:
        if name == "NONL":
            checks.append(no_newline_check(out, irgauge))
            continue
        if name in ("W1", "W2"):
            w = base[name]
        elif name in ("W1L", "W2L"):
            w = long_docno_variant(base[name[:2]], out)
        else:
            w = msm_workload(out, args.python)
        for tool in tools_for(name, irgauge, args.python):
            timed(tool, w, args.repeat, results)
        checks += workload_checks(name, w, results, base)
    for name in names:
        if name in ("W1", "W2", "MSM"):
            w = base[name] if name in base else msm_workload(out, args.python)
            checks.append(scores_bit_exact(w, sys.executable))
    cpu = (
        subprocess.run(["sh", "-c", "lscpu | grep 'Model name'"], capture_output=True, text=True)
        .stdout.split(":")[-1]
        .strip()
    )
    print(
        f"\nirgauge reader benchmark: {len(os.sched_getaffinity(0))} CPUs ({cpu}), "
        f"median of {args.repeat} after one warm-up"
    )
    for text, ok in checks:
        print(f"{ {True: 'PASS', False: 'FAIL', None: '    '}[ok] }  {text}")
    (out / "reader_results.json").write_text(
        json.dumps({"checks": [{"check": c, "passed": p} for c, p in checks]}, indent=2) + "\n"
    )
    return 0


def no_newline_check(out: Path, irgauge: List[str]) -> tuple:
    """NONL: 64 MB without a newline, under a 1 GB address space, refused in time."""
    path = no_newline_file(out)
    cmd = ["sh", "-c", 'ulimit -v 1000000; exec "$@"', "sh", *irgauge, "eval", str(path), str(path)]
    wall, peak, rc, tail, cpu = measure(cmd, path.with_suffix(".out"))
    ok = rc == 2 and str(path) in tail and wall <= 60 and "Traceback" not in tail
    return (
        f"NONL: exit {rc} in {wall:.2f} s ({cpu:.2f} s CPU, {peak:.0f} MB) "
        f"under ulimit -v 1000000: {tail.strip()[:160]}",
        ok,
    )


def workload_checks(name: str, w, results: Dict, base: Dict) -> List[tuple]:
    """irgauge against pytrec_eval on one workload: timings, agreement and its targets."""
    ig, pt = results[("irgauge", name)], results[("pytrec_eval", name)]
    if ig.error or pt.error:
        return [(f"{name}: failed: {ig.error or pt.error}", False)]
    mine, theirs = read_means(w.out / "irgauge.out"), read_means(w.out / "pytrec_eval.out")
    common = mine.keys() & theirs.keys()
    worst = max((abs(mine[k] - theirs[k]) for k in common), default=float("nan"))
    checks = [
        (
            f"{name}: irgauge wall {ig.wall:.2f} s ({ig.wall / pt.wall:.2f}x), CPU "
            f"{ig.cpu:.2f} s ({ig.cpu / pt.cpu:.2f}x), peak {ig.peak:.0f} MB; "
            f"pytrec_eval {pt.wall:.2f} s, {pt.cpu:.2f} s CPU, {pt.peak:.0f} MB",
            None,
        ),
        (
            f"{name}: {len(common)} means agree with pytrec_eval to {worst:.1e}",
            bool(common) and worst < 1e-6,
        ),
    ]
    if name == "W1":
        checks.append((f"W1: CPU {ig.cpu / pt.cpu:.2f}x (<= 0.5x)", ig.cpu / pt.cpu <= 0.5))
        checks.append((f"W1: wall {ig.wall / pt.wall:.2f}x (<= 0.4x)", ig.wall / pt.wall <= 0.4))
    if name == "W2":
        checks.append((f"W2: CPU {ig.cpu / pt.cpu:.2f}x (<= 0.5x)", ig.cpu / pt.cpu <= 0.5))
        checks.append((f"W2: peak {ig.peak:.0f} MB (<= 500)", ig.peak <= 500))
    if name == "W1L" and ("irgauge", "W1") in results:
        plain = results[("irgauge", "W1")]
        checks.append(
            (
                f"W1L: peak {ig.peak - plain.peak:+.0f} MB (<= +20), wall "
                f"{ig.wall / plain.wall:.2f}x W1 (<= 1.25x)",
                ig.peak - plain.peak <= 20 and ig.wall / plain.wall <= 1.25,
            )
        )
    if name == "W2L" and ("irgauge", "W2") in results:
        same = read_means(base["W2"].out / "irgauge.out") == mine
        checks.append(
            (
                f"W2L: peak {ig.peak:.0f} MB (<= 600), means "
                f"{'identical to' if same else 'differ from'} W2's",
                ig.peak <= 600 and same,
            )
        )
    if name == "MSM":
        size = (w.out / "irgauge.out").stat().st_size
        checks.append(
            (
                f"MSM: CPU {ig.cpu / pt.cpu:.2f}x (<= 0.5x), output {size} bytes (< 10 KB)",
                ig.cpu / pt.cpu <= 0.5 and size < 10_000,
            )
        )
    return checks


if __name__ == "__main__":
    sys.exit(main())
