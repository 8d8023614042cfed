#!/usr/bin/env python3
"""Benchmark: whole-process wall time and peak memory of `irgauge eval` against its peers.

Generates two workloads with irgauge.collection.simulate into bench/out/ (reused when their manifest
matches):

* W1: 50 runs x 50 topics x 1000 documents, graded qrels with 275 judged per topic,
  ties in a quarter of the runs;
* W2: 1 run x 5000 topics x 1000 documents, 275 judged per topic.

and times, one process each, side by side:

* irgauge        `irgauge eval QRELS RUN... -m "<standard set>" --empty-topics zero --format tsv`
* irgauge+sakai  the same with every Sakai measure added;
* pytrec_eval, ir_measures, ranx: bench/peers/*.py, which read the files in Python and
  print the means of the standard set per run;
* trec_eval, one process per run inside one shell, if a `trec_eval` binary is on PATH.

Each process's peak resident memory comes from os.wait4 (the kernel's ru_maxrss of that
child alone), wall time from perf_counter around spawn-to-reap. Every tool runs once
untimed first (page cache, ranx's numba cache; irgauge's .pyc files are written before,
as an installed package has them), then --repeat times, in
interleaved order; the table shows the median wall time and the largest peak.

    python bench/bench_eval.py [--repeat 3] [--workloads W1,W2] [--quick]
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Dict, List, Optional, Sequence

HERE = Path(__file__).resolve().parent
PEERS = HERE / "peers"

STANDARD = "AP nDCG nDCG@10 P@10 RR Rprec bpref R@1000"
SAKAI = (
    "Q-measure O-measure P-measure P-plus NWRR nDCG(dcg=jk,b=2)@1000 bpref_R bpref_N "
    "old_bpref bpref_relative rpref_N rpref_relative rpref_relative2"
)
TREC_EVAL_MEASURES = [
    "map",
    "ndcg",
    "ndcg_cut.10",
    "P.10",
    "recip_rank",
    "Rprec",
    "bpref",
    "recall.1000",
]

# simulate_collection arguments per workload; --quick shrinks them for smoke runs.
WORKLOADS = {
    "W1": dict(n_topics=50, n_runs=50, depth=1000, judged_per_topic=275, tie_fraction=0.25),
    "W2": dict(n_topics=5000, n_runs=1, depth=1000, judged_per_topic=275, tie_fraction=0.25),
}
QUICK = {
    "W1": dict(n_topics=10, n_runs=8, depth=200, judged_per_topic=60, tie_fraction=0.25),
    "W2": dict(n_topics=300, n_runs=1, depth=200, judged_per_topic=60, tie_fraction=0.25),
}
SEED = 2024

# Targets of issue 2, "Speed and memory", tightened by issue 10 (the reader): wall time
# per workload, and CPU (user + sys, whole process) for both.
TARGET_VS_PYTREC = {"W1": 0.4, "W2": 0.5}
TARGET_CPU_VS_PYTREC = 0.5
TARGET_SAKAI_VS_STANDARD = 1.5
TARGET_W2_PEAK_MB = 500.0


@dataclass
class Workload:
    name: str
    qrels: Path
    runs: List[Path]
    out: Path


@dataclass
class Tool:
    name: str
    argv: List[str]  # {qrels} and {runs} placeholders are expanded per workload
    skip: Optional[str] = None  # why it cannot run, if it cannot

    def command(self, w: Workload) -> List[str]:
        cmd: List[str] = []
        for a in self.argv:
            if a == "{qrels}":
                cmd.append(str(w.qrels))
            elif a == "{runs}":
                cmd.extend(str(r) for r in w.runs)
            else:
                cmd.append(a)
        return cmd


@dataclass
class Result:
    tool: str
    workload: str
    walls: List[float] = field(default_factory=list)
    peaks_mb: List[float] = field(default_factory=list)
    cpus: List[float] = field(default_factory=list)  # user + sys seconds of the process
    error: Optional[str] = None

    @property
    def wall(self) -> float:
        return statistics.median(self.walls)

    @property
    def cpu(self) -> float:
        return statistics.median(self.cpus)

    @property
    def peak(self) -> float:
        return max(self.peaks_mb)


# --- workloads -----------------------------------------------------------------------------


def prepare_workload(name: str, params: dict, out_root: Path, irgauge: List[str]) -> Workload:
    """Generate the workload into out_root/name unless a manifest with the same params is there.

    Generation runs as `irgauge simulate` in a child process: this harness must stay small,
    because a spawned child's ru_maxrss starts from the harness's own resident size (Linux
    keeps the pre-exec high-water mark), which would inflate every peak measured after it.
    """
    folder = out_root / name
    wanted = dict(params, seed=SEED)
    manifest_path = folder / "manifest.json"
    manifest = json.loads(manifest_path.read_text()) if manifest_path.exists() else None
    if manifest is None or any(manifest["params"].get(k) != v for k, v in wanted.items()):
        cmd = irgauge + [
            "simulate",
            "--out",
            str(folder),
            "--overwrite",
            "--seed",
            str(SEED),
            "--topics",
            str(params["n_topics"]),
            "--runs",
            str(params["n_runs"]),
            "--depth",
            str(params["depth"]),
            "--judged-per-topic",
            str(params["judged_per_topic"]),
            "--tie-fraction",
            str(params.get("tie_fraction", 0.25)),
        ]
        t0 = time.perf_counter()
        subprocess.run(cmd, check=True)
        print(f"generated {name} in {time.perf_counter() - t0:.1f} s ({folder})", file=sys.stderr)
        manifest = json.loads(manifest_path.read_text())
    return Workload(
        name=name,
        qrels=folder / manifest["files"]["qrels"],
        runs=[folder / r for r in manifest["files"]["runs"]],
        out=folder,
    )


# --- tools ---------------------------------------------------------------------------------


def _python_has(python: str, module: str) -> bool:
    return subprocess.run([python, "-c", f"import {module}"], capture_output=True).returncode == 0


def make_tools(python: str, irgauge: List[str]) -> List[Tool]:
    tools = []
    has_eval = subprocess.run(irgauge + ["eval", "--help"], capture_output=True).returncode == 0
    why = None if has_eval else "`irgauge eval` not available"
    # --empty-topics zero: average topics without relevant documents as 0, as the peers do,
    # so that every tool computes the same means
    base = irgauge + ["eval", "{qrels}", "{runs}", "-m", STANDARD, "--empty-topics", "zero"]
    tools.append(Tool("irgauge", base + ["--format", "tsv"], why))
    tools.append(Tool("irgauge+sakai", base + ["-m", SAKAI, "--format", "tsv"], why))
    for peer, module in [
        ("pytrec_eval", "pytrec_eval"),
        ("ir_measures", "ir_measures"),
        ("ranx", "ranx"),
    ]:
        ok = _python_has(python, module)
        tools.append(
            Tool(
                peer,
                [python, str(PEERS / f"{peer}_peer.py"), "{qrels}", "{runs}"],
                None if ok else f"python module {module} not installed",
            )
        )
    trec_eval = shutil.which("trec_eval")
    if trec_eval:
        # trec_eval takes one run per process: loop over the runs in one shell.
        ms = " ".join(f"-m {m}" for m in TREC_EVAL_MEASURES)
        script = f'q="$1"; shift; for r in "$@"; do "{trec_eval}" {ms} "$q" "$r" || exit 1; done'
        tools.append(Tool("trec_eval", ["sh", "-c", script, "sh", "{qrels}", "{runs}"]))
    else:
        tools.append(Tool("trec_eval", [], "no trec_eval binary on PATH"))
    return tools


# --- measuring -----------------------------------------------------------------------------


def measure(cmd: Sequence[str], stdout_path: Path) -> tuple:
    """Run cmd once; return (wall seconds, peak RSS MB, return code, stderr tail, CPU
    user + sys seconds)."""
    with open(stdout_path, "wb") as out, open(stdout_path.with_suffix(".err"), "wb") as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(list(cmd), stdout=out, stderr=err)
        # wait4 reaps this child and gives its own rusage (ru_maxrss in KiB on Linux),
        # unlike RUSAGE_CHILDREN, whose ru_maxrss is a maximum over all children so far.
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
    tail = stdout_path.with_suffix(".err").read_text(errors="replace")[-600:]
    return wall, usage.ru_maxrss / 1024.0, proc.returncode, tail, usage.ru_utime + usage.ru_stime


def run_all(
    tools: List[Tool], workloads: List[Workload], repeat: int, warmup: bool
) -> List[Result]:
    results = {(t.name, w.name): Result(t.name, w.name) for w in workloads for t in tools}
    runnable = [t for t in tools if t.skip is None]
    rounds = ([False] if warmup else []) + [True] * repeat
    for timed in rounds:
        # interleave tools within a round so that drift of the machine hits all alike
        for w in workloads:
            for t in runnable:
                res = results[(t.name, w.name)]
                if res.error:
                    continue
                wall, peak, rc, tail, cpu = measure(t.command(w), w.out / f"{t.name}.out")
                if rc != 0:
                    res.error = (
                        f"exit {rc}: {tail.strip().splitlines()[-1] if tail.strip() else ''}"
                    )
                    print(f"{t.name} on {w.name} failed ({res.error})", file=sys.stderr)
                elif timed:
                    res.walls.append(wall)
                    res.peaks_mb.append(peak)
                    res.cpus.append(cpu)
                print(
                    f"  {'timed' if timed else 'warm-up'} {t.name:14s} {w.name}: {wall:7.2f} s "
                    f"{cpu:7.2f} s CPU {peak:7.0f} MB",
                    file=sys.stderr,
                )
    return list(results.values())


# --- agreement -------------------------------------------------------------------------------


def read_means(path: Path) -> Dict[tuple, float]:
    """(run, measure) -> mean, from a peer's output or irgauge's TSV (topic `all` rows)."""
    means = {}
    if not path.exists():
        return means
    for line in path.read_text().splitlines():
        cols = line.split("\t")
        if len(cols) == 3:
            run, m, value = cols
        elif len(cols) == 4 and cols[2] == "all":
            run, m, _, value = cols
        else:
            continue
        try:
            means[(os.path.splitext(os.path.basename(run))[0], m)] = float(value)
        except ValueError:
            pass  # header line
    return means


def agreement(results: List[Result], workloads: List[Workload]) -> List[str]:
    """Largest |difference| of the standard-set means between irgauge and each peer."""
    lines = []
    for w in workloads:
        ref = read_means(w.out / "irgauge.out")
        for r in results:
            if r.workload != w.name or r.tool in ("irgauge", "irgauge+sakai", "trec_eval"):
                continue
            if r.error or not r.walls or not ref:
                continue
            other = read_means(w.out / f"{r.tool}.out")
            common = ref.keys() & other.keys()
            if not common:
                lines.append(f"{w.name} {r.tool}: no (run, measure) pairs in common with irgauge")
                continue
            worst = max(common, key=lambda k: abs(ref[k] - other[k]))
            lines.append(
                f"{w.name} irgauge vs {r.tool}: {len(common)} means compared, max |diff| "
                f"{abs(ref[worst] - other[worst]):.2e} ({worst[1]}, {worst[0]})"
            )
        left_out = topics_left_out(w.out / "irgauge.out")
        if left_out:
            # Not a disagreement in the measures: SPEC.md leaves such topics out of the mean,
            # while trec_eval and the peers average them as 0.
            lines.append(
                f"{w.name} note: irgauge left {left_out} topic(s) without relevant "
                "documents out of its means; the peers average them as 0"
            )
    return lines


def topics_left_out(path: Path) -> int:
    """How many topics irgauge's TSV header says it left out for having no relevant document."""
    if not path.exists():
        return 0
    with open(path) as f:
        for line in f:
            if not line.startswith("#"):
                break
            if line.startswith("# topics_without_relevant:"):
                try:
                    return len(json.loads(line.split(":", 1)[1]))
                except ValueError:
                    return 0
    return 0


# --- report -------------------------------------------------------------------------------


def table(results: List[Result], tools: List[Tool], workloads: List[Workload]) -> str:
    by = {(r.tool, r.workload): r for r in results}
    rows = [
        "| tool | workload | wall s | CPU s | peak MB | wall / pytrec_eval | CPU / pytrec_eval |",
        "|---|---|---:|---:|---:|---:|---:|",
    ]
    for w in workloads:
        ref = by.get(("pytrec_eval", w.name))
        ref_wall = ref.wall if ref and ref.walls else None
        for t in tools:
            r = by[(t.name, w.name)]
            if t.skip or r.error or not r.walls:
                why = t.skip or r.error or "not run"
                rows.append(f"| {t.name} | {w.name} | – | – | – | skipped: {why} | |")
                continue
            ratio = f"{r.wall / ref_wall:.2f}x" if ref_wall else "–"
            cpu_ratio = f"{r.cpu / ref.cpu:.2f}x" if ref_wall else "–"
            rows.append(
                f"| {t.name} | {w.name} | {r.wall:.2f} | {r.cpu:.2f} | {r.peak:.0f} | "
                f"{ratio} | {cpu_ratio} |"
            )
    return "\n".join(rows)


def check_targets(results: List[Result], workloads: List[Workload]) -> List[tuple]:
    """(description, passed or None when it could not be checked) for each target."""
    by = {(r.tool, r.workload): r for r in results if r.walls and not r.error}
    checks = []
    for w in workloads:
        ig, sk, pt = (by.get((t, w.name)) for t in ("irgauge", "irgauge+sakai", "pytrec_eval"))
        if ig and pt:
            ratio, target = ig.wall / pt.wall, TARGET_VS_PYTREC.get(w.name, 0.5)
            checks.append(
                (
                    f"{w.name}: irgauge wall {ratio:.2f}x pytrec_eval (target <= {target}x)",
                    ratio <= target,
                )
            )
            ratio = ig.cpu / pt.cpu
            checks.append(
                (
                    f"{w.name}: irgauge CPU {ratio:.2f}x pytrec_eval "
                    f"(target <= {TARGET_CPU_VS_PYTREC}x)",
                    ratio <= TARGET_CPU_VS_PYTREC,
                )
            )
        else:
            checks.append((f"{w.name}: irgauge vs pytrec_eval not measured", None))
        if ig and sk:
            ratio = sk.wall / ig.wall
            checks.append(
                (
                    f"{w.name}: Sakai set {ratio:.2f}x the standard set "
                    f"(target <= {TARGET_SAKAI_VS_STANDARD}x)",
                    ratio <= TARGET_SAKAI_VS_STANDARD,
                )
            )
        else:
            checks.append((f"{w.name}: Sakai set vs standard set not measured", None))
        if w.name == "W2":
            for r in (ig, sk):
                if r:
                    checks.append(
                        (
                            f"W2: {r.tool} peak {r.peak:.0f} MB "
                            f"(target <= {TARGET_W2_PEAK_MB:.0f} MB)",
                            r.peak <= TARGET_W2_PEAK_MB,
                        )
                    )
    return checks


def default_irgauge() -> List[str]:
    """The console script next to this interpreter, else `python -m irgauge` from src/;
    irgauge's bytecode is written first (see compile_package)."""
    compile_package()
    script = Path(sys.executable).with_name("irgauge")
    if script.exists():
        return [str(script)]
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(HERE.parent / "src"), os.environ.get("PYTHONPATH")) if p
    )
    return [sys.executable, "-m", "irgauge"]


def compile_package() -> None:
    """Write irgauge's bytecode (``__pycache__``, git-ignored) before timing, as an installed
    package has it (pip compiles on install, and the peers are installed packages): an
    editable install run under PYTHONDONTWRITEBYTECODE=1 would compile every module from
    source in every timed process (0.08 s of CPU on W1)."""
    import importlib.util

    spec = importlib.util.find_spec("irgauge")
    folder = Path(spec.origin).parent if spec and spec.origin else HERE.parent / "src" / "irgauge"
    subprocess.run(
        [sys.executable, "-m", "compileall", "-q", str(folder)], capture_output=True, check=False
    )


def main(argv: Optional[List[str]] = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--repeat", type=int, default=3, help="timed runs per tool and workload")
    ap.add_argument("--workloads", default="W1,W2", help="comma-separated: W1, W2")
    ap.add_argument("--quick", action="store_true", help="small workloads, for smoke runs")
    ap.add_argument(
        "--no-warmup",
        action="store_true",
        help="time the first run too (ranx then includes numba compilation)",
    )
    ap.add_argument(
        "--tools",
        default=None,
        help="comma-separated subset of: irgauge, irgauge+sakai, pytrec_eval, "
        "ir_measures, ranx, trec_eval",
    )
    ap.add_argument("--out", default=str(HERE / "out"), help="folder for workloads and outputs")
    ap.add_argument("--python", default=sys.executable, help="interpreter for the peer scripts")
    ap.add_argument("--strict", action="store_true", help="exit 1 when a target is missed")
    args = ap.parse_args(argv)

    names = [n.strip() for n in args.workloads.split(",") if n.strip()]
    unknown = [n for n in names if n not in WORKLOADS]
    if unknown:
        ap.error(f"unknown workload(s): {', '.join(unknown)}")
    specs = QUICK if args.quick else WORKLOADS
    out_root = Path(args.out) / ("quick" if args.quick else "full")
    irgauge = default_irgauge()
    workloads = [prepare_workload(n, specs[n], out_root, irgauge) for n in names]
    baseline = measure(["true"], out_root / "baseline.out")[1]

    tools = make_tools(args.python, irgauge)
    if args.tools:
        keep = {t.strip() for t in args.tools.split(",")}
        tools = [t for t in tools if t.name in keep]
    for t in tools:
        if t.skip:
            print(f"skipping {t.name}: {t.skip}", file=sys.stderr)

    results = run_all(tools, workloads, args.repeat, warmup=not args.no_warmup)

    print(
        f"\nirgauge eval benchmark ({'quick' if args.quick else 'full'} workloads; "
        f"median of {args.repeat} timed runs after {'no' if args.no_warmup else 'one'} "
        f"warm-up; {os.cpu_count()} CPUs; Python {sys.version.split()[0]}; peaks include "
        f"{baseline:.0f} MB that a bare `true` shows)"
    )
    for w in workloads:
        spec = specs[w.name]
        print(
            f"  {w.name}: {spec['n_runs']} runs x {spec['n_topics']} topics x {spec['depth']} "
            f"docs, {spec['judged_per_topic']} judged per topic, seed {SEED}"
        )
    print()
    print(table(results, tools, workloads))
    print()
    checks = check_targets(results, workloads)
    for text, passed in checks:
        mark = {True: "PASS", False: "FAIL", None: "----"}[passed]
        print(f"{mark}  {text}")
    for line in agreement(results, workloads):
        print(f"agree {line}")

    summary = {
        "quick": args.quick,
        "repeat": args.repeat,
        "seed": SEED,
        "workloads": {w.name: specs[w.name] for w in workloads},
        "results": [
            {
                "tool": r.tool,
                "workload": r.workload,
                "walls": r.walls,
                "cpus": r.cpus,
                "peaks_mb": r.peaks_mb,
                "error": r.error,
            }
            for r in results
        ],
        "checks": [{"check": c, "passed": p} for c, p in checks],
    }
    (out_root / "results.json").write_text(json.dumps(summary, indent=2) + "\n")
    return 1 if args.strict and any(p is False for _, p in checks) else 0


if __name__ == "__main__":
    sys.exit(main())
