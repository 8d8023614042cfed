"""Synthetic test collections: graded qrels built by pooling, and runs of graded quality.

Used for the bundled sample data, for the benchmark workloads (``bench/bench_eval.py``) and
for demos. Everything is generated with whole-array numpy operations (one loop per run and
per block of topics, never per document), and is fully determined by the seed.

The model, per topic t:

* The topic owns ``docs_per_topic`` documents (default ``2 * depth``), named
  ``D<topic>-<number>`` with the numbers shuffled, so that a docno says nothing about
  relevance (trec_eval breaks score ties by docno, which must not leak relevance).
* ``R_t`` of them are relevant, drawn log-normally around ``rel_median`` (so a few topics
  have only a handful of relevant documents and a few have hundreds); each relevant
  document gets level 1..3 with probabilities ``level_probs`` (fewer high grades).
* A run r scores every document: ``shared_weight * c_d + sqrt(1 - shared_weight^2) * e_rd``
  (``c_d`` is common to all runs, so runs agree on which nonrelevant documents look good and
  overlap as real systems do), plus, for a relevant document of level L,
  ``mu_rt * (1 + level_boost * (L - 1))``. The effectiveness ``mu_rt`` is the run's quality
  (spread evenly over ``quality_range``, in shuffled order) times a topic difficulty, plus
  per-topic noise ``topic_noise``, floored at 0. The run returns its ``depth`` best documents.
* Scores are written with ``score_decimals`` decimals and made strictly decreasing, except
  in ``tie_fraction`` of the runs, whose scores are rounded to ``tie_decimals`` decimals,
  which creates ties (those runs list tied documents in their own order; trec_eval
  re-sorts them by docno).
* Judgments come from a pool: every document some run ranks within ``pool_depth`` is judged
  with its true level (0 = judged nonrelevant); everything else is unjudged. With
  ``judged_per_topic`` set instead, each topic judges that many documents, taken in order
  of their best rank over all runs (depth pooling with the depth chosen per topic).
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Dict, List, Optional, Sequence, Tuple, Union

import numpy as np
import pandas as pd

from irgauge import _checks
from irgauge.io.atomic import write_text
from irgauge.errors import InputError
from irgauge.io.steps import step_counter
from irgauge.io.staging import staged_outputs
from irgauge.io.words import counted

# Bump when the generation algorithm changes: the same seed then gives other files, and
# the bundled sample must be regenerated (tests/test_simulate.py checks it byte for byte).
SIMULATE_VERSION = 1

# Score offset and scale: keeps scores positive and BM25-like, and small enough that
# 4 decimals survive tools that read scores as 32-bit floats (pytrec_eval).
_SCORE_BASE = 10.0
_SCORE_SCALE = 2.0

# Topics are generated in blocks so that memory stays bounded for thousands of topics
# (5000 topics x 2000 documents). Changing it changes the random stream, hence the files.
_TOPIC_BLOCK = 256

PathLike = Union[str, Path]
Progress = Optional[Callable[[int, int], None]]


@dataclass
class SimulatedCollection:
    """A generated test collection.

    ``qrels``: DataFrame ``topic, docno, level`` (strings, strings, int), one row per judged
    document, topics in generation order, documents by number.
    ``runs``: run name -> DataFrame ``topic, docno, rank, score``, rank 1.. per topic,
    rows in rank order.
    ``params``: every generation parameter, seed included (enough to regenerate).
    """

    qrels: pd.DataFrame
    runs: Dict[str, pd.DataFrame]
    params: dict
    tied_runs: List[str] = field(default_factory=list)

    def stats(self) -> dict:
        """Summary figures for the manifest: judged and relevant documents per topic."""
        q = self.qrels
        judged = q.groupby("topic", sort=False).size()
        relevant = q[q["level"] > 0].groupby("topic", sort=False).size()
        relevant = relevant.reindex(judged.index, fill_value=0)
        levels = q["level"].value_counts().sort_index()
        return {
            "topics": int(judged.size),
            "runs": len(self.runs),
            "judged_per_topic": _summary(judged),
            "relevant_per_topic": _summary(relevant),
            "judgments_per_level": {str(int(k)): int(v) for k, v in levels.items()},
            "tied_runs": list(self.tied_runs),
        }


def _summary(counts: pd.Series) -> dict:
    return {
        "min": int(counts.min()),
        "median": float(counts.median()),
        "mean": round(float(counts.mean()), 3),
        "max": int(counts.max()),
    }


def simulate_collection(
    n_topics: int = 50,
    n_runs: int = 20,
    depth: int = 1000,
    seed: int = 0,
    *,
    pool_depth: int = 100,
    judged_per_topic: Optional[int] = None,
    docs_per_topic: Optional[int] = None,
    rel_median: float = 30.0,
    rel_spread: float = 1.0,
    level_probs: Sequence[float] = (0.6, 0.3, 0.1),
    quality_range: Tuple[float, float] = (0.2, 1.8),
    topic_noise: float = 0.5,
    difficulty_spread: float = 0.3,
    shared_weight: float = 0.6,
    level_boost: float = 0.5,
    tie_fraction: float = 0.25,
    tie_decimals: int = 1,
    score_decimals: int = 4,
    first_topic: int = 1,
    progress: Progress = None,
) -> SimulatedCollection:
    """Generate graded qrels and ranked runs; see the module docstring for the model.

    Parameters
    ----------
    n_topics, n_runs, depth:
        Topics, runs, and documents each run returns per topic.
    seed:
        Seed of ``numpy.random.default_rng``; the same arguments give the same collection.
    pool_depth:
        Documents ranked within this depth by any run are judged; deeper ones that no run
        ranks higher stay unjudged.
    judged_per_topic:
        If given, overrides ``pool_depth``: each topic judges this many documents (fewer
        only if the runs retrieve fewer), chosen by best rank over all runs.
    docs_per_topic:
        Size of each topic's document set (default ``2 * depth``); at least ``depth``.
    rel_median, rel_spread:
        Relevant documents per topic ~ round(lognormal(log(rel_median), rel_spread)),
        clipped to [1, docs_per_topic // 4].
    level_probs:
        Probabilities of levels 1, 2, 3 ... among relevant documents (normalised); its
        length sets the highest level.
    quality_range:
        Run effectiveness, spread evenly between these bounds (runs in shuffled order).
    topic_noise:
        Standard deviation of the per-(run, topic) effectiveness noise.
    difficulty_spread:
        Log-normal spread of the per-topic difficulty factor common to all runs.
    shared_weight:
        Weight (0..1) of the document score component common to all runs; higher means
        runs retrieve more of the same documents.
    level_boost:
        How much more visible each higher level is: relevant documents of level L get
        ``mu * (1 + level_boost * (L - 1))`` added to their score.
    tie_fraction, tie_decimals:
        Share of runs (rounded to a whole number of runs) whose scores are rounded to
        ``tie_decimals`` decimals, producing ties.
    score_decimals:
        Decimals of the other runs' scores, which are made strictly decreasing.
    first_topic:
        Topic ids are ``str(first_topic + i)``.
    progress:
        ``progress(done, total)``, called as each run is drawn (the library draws nothing).
    """
    params = _checked_params(dict(locals()))
    _check(params)
    return _Generator(params, progress).run()


def _checked_params(g: dict) -> dict:
    """The arguments of :func:`simulate_collection`, each checked in the command line's
    words; ``docs_per_topic`` defaults to twice the depth."""
    c = _checks

    def spread(value, name):
        return c.real(value, name, 0.0, 1e6, what="a non-negative number")

    def decimals(value, name):
        return c.whole(value, name, 0, 15, what="a number of decimals")

    def count(name):
        return c.count(g[name], name)

    return dict(
        n_topics=count("n_topics"),
        n_runs=count("n_runs"),
        depth=count("depth"),
        seed=c.seed(g["seed"]),
        pool_depth=count("pool_depth"),
        judged_per_topic=None if g["judged_per_topic"] is None else count("judged_per_topic"),
        docs_per_topic=count("docs_per_topic") if g["docs_per_topic"] else 2 * count("depth"),
        rel_median=c.real(
            g["rel_median"], "rel_median", 0.0, 1e9, min_open=True, what="a median count"
        ),
        rel_spread=spread(g["rel_spread"], "rel_spread"),
        level_probs=c.sequence(g["level_probs"], "level_probs", spread),
        quality_range=c.sequence(
            g["quality_range"], "quality_range", lambda q, n: c.real(q, n, -1e6, 1e6), False
        ),
        topic_noise=spread(g["topic_noise"], "topic_noise"),
        difficulty_spread=spread(g["difficulty_spread"], "difficulty_spread"),
        shared_weight=c.probability(g["shared_weight"], "shared_weight"),
        level_boost=spread(g["level_boost"], "level_boost"),
        tie_fraction=c.probability(g["tie_fraction"], "tie_fraction"),
        tie_decimals=decimals(g["tie_decimals"], "tie_decimals"),
        score_decimals=decimals(g["score_decimals"], "score_decimals"),
        first_topic=c.whole(g["first_topic"], "first_topic", 0, c.MAX_COUNT, what="a topic number"),
    )


def _check(p: dict) -> None:
    """What the single-value checks cannot see: relations between parameters."""
    if p["docs_per_topic"] < p["depth"]:
        raise InputError("docs_per_topic must be at least depth")
    if not p["level_probs"] or sum(p["level_probs"]) <= 0:
        raise InputError("level_probs must be non-negative with a positive sum")
    if len(p["quality_range"]) != 2:
        raise InputError("quality_range must be two numbers (low, high)")
    low, high = p["quality_range"]
    if low > high:  # the same qualities either way, but dealt to other runs: not a guess to make
        raise InputError(f"quality_range: low {low:g} is above high {high:g}")
    need, have = estimated_bytes(p), available_bytes()
    if have is not None and need > have:
        raise InputError(
            f"a collection of {counted(p['n_runs'], 'run')} x "
            f"{counted(p['n_topics'], 'topic')} x {p['depth']} "
            f"documents needs about {need / 2**30:.1f} GiB of memory while it is drawn; "
            f"{have / 2**30:.1f} GiB are available (fewer runs, topics or documents)"
        )


# Peak memory while drawing, measured with /usr/bin/time on 40 and 80 runs x 100 and 200
# topics x 1000 documents: about 95 bytes per run entry over some 110 MB, and the
# documents of each topic; the estimate rounds both up.
_BYTES_PER_ENTRY, _BYTES_PER_DOCUMENT, _BASE_BYTES = 120, 64, 200 * 2**20


def estimated_bytes(p: dict) -> int:
    """Memory that drawing the collection ``p`` (simulate_collection's arguments) takes."""
    entries = p["n_runs"] * p["n_topics"] * p["depth"]
    documents = p["n_topics"] * p["docs_per_topic"]
    return _BASE_BYTES + _BYTES_PER_ENTRY * entries + _BYTES_PER_DOCUMENT * documents


def available_bytes():
    """Memory available to this process now (MemAvailable of /proc/meminfo), or None where
    the system does not say."""
    try:
        with open("/proc/meminfo") as meminfo:
            for line in meminfo:
                if line.startswith("MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


class _Generator:
    """Holds the per-topic state (levels, docno numbers, best ranks) while runs are drawn."""

    def __init__(self, params: dict, progress: Progress = None):
        self.p = params
        self.progress = progress
        # Independent streams for the topics and for each run, so that adding a run does
        # not change the others.
        seq = np.random.SeedSequence(params["seed"])
        topic_seq, setup_seq, *run_seqs = seq.spawn(2 + params["n_runs"])
        self.topic_rng = np.random.default_rng(topic_seq)
        self.setup_rng = np.random.default_rng(setup_seq)
        self.run_rngs = [np.random.default_rng(s) for s in run_seqs]

    def run(self) -> SimulatedCollection:
        p = self.p
        n_t, n_docs = p["n_topics"], p["docs_per_topic"]
        self.topic_ids = np.array([str(p["first_topic"] + i) for i in range(n_t)], dtype=object)
        self._draw_topics()

        width = len(str(p["n_runs"]))
        names = [f"run{i + 1:0{width}d}" for i in range(p["n_runs"])]
        # Evenly spread qualities in shuffled order, so run number says nothing about rank.
        lo, hi = p["quality_range"]
        quality = np.linspace(lo, hi, p["n_runs"])[self.setup_rng.permutation(p["n_runs"])]
        n_tied = int(round(p["tie_fraction"] * p["n_runs"]))
        tied = set(self.setup_rng.permutation(p["n_runs"])[:n_tied].tolist())

        # Best (smallest) rank any run gives each document; drives pooling.
        best_rank = np.full((n_t, n_docs), np.iinfo(np.int32).max, dtype=np.int32)
        runs = {}
        step = step_counter(self.progress, p["n_runs"] + 1)
        for r, name in enumerate(names):
            runs[name] = self._draw_run(r, quality[r], r in tied, best_rank)
            step()
        qrels = self._pool(best_rank)
        step()
        return SimulatedCollection(
            qrels=qrels,
            runs=runs,
            params=dict(p),
            tied_runs=[names[r] for r in sorted(tied)],
        )

    def _draw_topics(self) -> None:
        p, rng = self.p, self.topic_rng
        n_t, n_docs = p["n_topics"], p["docs_per_topic"]
        n_rel = np.rint(
            np.exp(np.log(p["rel_median"]) + p["rel_spread"] * rng.standard_normal(n_t))
        )
        self.n_rel = np.clip(n_rel, 1, max(1, n_docs // 4)).astype(np.int64)
        # Relevant documents take the first n_rel slots of each topic; the shuffled docno
        # numbers hide that. Levels by inverse CDF (stable across numpy versions).
        cdf = np.cumsum(p["level_probs"]) / np.sum(p["level_probs"])
        max_rel = int(self.n_rel.max())
        draws = np.searchsorted(cdf, rng.random((n_t, max_rel)), side="right") + 1
        draws = np.minimum(draws, len(cdf))  # guard against rounding at the top of the CDF
        slots = np.arange(max_rel)[None, :] < self.n_rel[:, None]
        self.levels = np.zeros((n_t, n_docs), dtype=np.int8)
        self.levels[:, :max_rel] = np.where(slots, draws, 0)
        self.difficulty = np.exp(p["difficulty_spread"] * rng.standard_normal(n_t))
        # The component of document scores that every run shares.
        self.common = rng.standard_normal((n_t, n_docs)).astype(np.float32)
        # docno number of slot j of topic t: a random permutation of 1..n_docs per topic.
        self.docno_num = np.argsort(rng.random((n_t, n_docs)), axis=1, kind="stable") + 1

    def _draw_run(self, r: int, quality: float, tied: bool, best_rank: np.ndarray) -> pd.DataFrame:
        p, rng = self.p, self.run_rngs[r]
        n_t, depth = p["n_topics"], p["depth"]
        w = p["shared_weight"]
        mu = np.maximum(
            0.0, quality * self.difficulty + p["topic_noise"] * rng.standard_normal(n_t)
        )
        decimals = p["tie_decimals"] if tied else p["score_decimals"]
        scale = 10**decimals
        top_slots = np.empty((n_t, depth), dtype=np.int64)
        top_units = np.empty((n_t, depth), dtype=np.int64)
        for start in range(0, n_t, _TOPIC_BLOCK):
            rows = slice(start, min(start + _TOPIC_BLOCK, n_t))
            lv = self.levels[rows]
            score = w * self.common[rows] + np.sqrt(1 - w * w) * rng.standard_normal(lv.shape)
            boost = np.where(lv > 0, 1.0 + p["level_boost"] * (lv - 1.0), 0.0)
            score += mu[rows, None] * boost
            # depth best documents, then sorted best first (stable sort keeps it reproducible)
            part = np.argpartition(-score, depth - 1, axis=1)[:, :depth]
            part_scores = np.take_along_axis(score, part, axis=1)
            order = np.argsort(-part_scores, axis=1, kind="stable")
            top_slots[rows] = np.take_along_axis(part, order, axis=1)
            # Scores as integers in units of 10^-decimals, so rounding is exact.
            top_units[rows] = np.rint(
                (_SCORE_BASE + _SCORE_SCALE * np.take_along_axis(part_scores, order, axis=1))
                * scale
            ).astype(np.int64)
        if not tied:
            # Strictly decreasing: u'_k = min_{j<=k} (u_j + j) - k, i.e. each score at least
            # one unit below the previous one. Changes only scores that rounding made equal.
            k = np.arange(depth)
            top_units = np.minimum.accumulate(top_units + k, axis=1) - k
        rows_idx = np.repeat(np.arange(n_t), depth)
        ranks = np.tile(np.arange(1, depth + 1, dtype=np.int32), n_t)
        flat_slots = top_slots.ravel()
        # Each document appears once per topic in a run, so a plain fancy-index update is
        # a correct (and much faster) element-wise minimum.
        best_rank[rows_idx, flat_slots] = np.minimum(best_rank[rows_idx, flat_slots], ranks)
        return pd.DataFrame(
            {
                "topic": self.topic_ids[rows_idx],
                "docno": self._docnos(rows_idx, flat_slots),
                "rank": ranks,
                "score": top_units.ravel() / scale,
            }
        )

    def _pool(self, best_rank: np.ndarray) -> pd.DataFrame:
        p = self.p
        retrieved = best_rank < np.iinfo(np.int32).max
        if p["judged_per_topic"] is None:
            judged = best_rank <= p["pool_depth"]
        else:
            # Per topic, the judged_per_topic documents with the best rank; ties in best rank
            # are broken by the (random) docno number, so no slot order leaks in.
            k = min(p["judged_per_topic"], p["docs_per_topic"])
            key = best_rank.astype(np.int64) * (p["docs_per_topic"] + 1) + self.docno_num
            cut = np.partition(key, k - 1, axis=1)[:, k - 1 : k]
            judged = (key <= cut) & retrieved
        t_idx, slots = np.nonzero(judged)
        # Order by topic, then docno number.
        order = np.lexsort((self.docno_num[t_idx, slots], t_idx))
        t_idx, slots = t_idx[order], slots[order]
        return pd.DataFrame(
            {
                "topic": self.topic_ids[t_idx],
                "docno": self._docnos(t_idx, slots),
                "level": self.levels[t_idx, slots].astype(np.int64),
            }
        )

    def _docnos(self, t_idx: np.ndarray, slots: np.ndarray) -> np.ndarray:
        """``D<topic>-<number>`` strings for (topic index, slot) pairs."""
        # Format each distinct topic prefix and number once, then gather: formatting
        # millions of integers one by one is the slow part otherwise.
        prefix = np.array([f"D{t}-" for t in self.topic_ids], dtype=object)
        numbers = np.array([str(n) for n in range(self.p["docs_per_topic"] + 1)], dtype=object)
        return prefix[t_idx] + numbers[self.docno_num[t_idx, slots]]


# ---------------------------------------------------------------------------------------
# Writing TREC files


def write_qrels(qrels: pd.DataFrame, path: PathLike) -> Path:
    """Write TREC qrels, ``qid 0 docno level``, one judged document a line."""
    path = Path(path)
    cols = zip(qrels["topic"].tolist(), qrels["docno"].tolist(), qrels["level"].tolist())
    write_text(path, "".join(f"{t} 0 {d} {lv}\n" for t, d, lv in cols))
    return path


def write_run(run: pd.DataFrame, path: PathLike, tag: str, decimals: int = 4) -> Path:
    """Write a TREC run, ``qid Q0 docno rank score tag``, lines in the frame's (rank) order."""
    path = Path(path)
    cols = zip(
        run["topic"].tolist(), run["docno"].tolist(), run["rank"].tolist(), run["score"].tolist()
    )
    # A single join is about as fast as pandas.to_csv here and needs no quoting rules.
    write_text(path, "".join(f"{t} Q0 {d} {r} {s:.{decimals}f} {tag}\n" for t, d, r, s in cols))
    return path


def write_collection(
    collection: SimulatedCollection,
    out_dir: PathLike,
    overwrite: bool = False,
    progress: Progress = None,
) -> dict:
    """Write ``qrels.txt``, ``runs/<name>.run`` and ``manifest.json`` under ``out_dir``.

    Refuses to write into a folder that already holds a collection unless ``overwrite``;
    with it, ``runs/`` is replaced whole so that the folder describes exactly one
    collection. The files are written to a temporary folder first and moved into place once
    complete (manifest last): a failure or Ctrl-C leaves the previous state. Returns the
    manifest (as a dict). ``progress(done, total)`` is called as each file is written.
    """
    if not isinstance(collection, SimulatedCollection):
        raise InputError(
            "collection: expected simulate_collection's result (a SimulatedCollection); "
            f"got {type(collection).__name__}",
            parameter="collection",
        )
    out = Path(out_dir)
    existing = [out / "qrels.txt", out / "manifest.json", out / "runs"]
    found = [p.name for p in existing if p.exists()]
    if not overwrite and found:
        # (a reduce or study folder has a manifest.json too: name what is there, not "a collection")
        raise FileExistsError(
            f"{out} already holds {', '.join(found)} "
            "(overwrite with --overwrite, or overwrite=True in Python)"
        )
    with staged_outputs(out, replace_any=overwrite) as stage:
        return _write_collection_files(collection, stage, progress)


def _write_collection_files(
    collection: SimulatedCollection, out: Path, progress: Progress = None
) -> dict:
    runs_dir = out / "runs"
    runs_dir.mkdir()
    p = collection.params
    tied = set(collection.tied_runs)
    step = step_counter(progress, len(collection.runs) + 1)
    write_qrels(collection.qrels, out / "qrels.txt")
    step()
    run_files = []
    for name, run in collection.runs.items():
        decimals = p["tie_decimals"] if name in tied else p["score_decimals"]
        write_run(run, runs_dir / f"{name}.run", tag=name, decimals=decimals)
        run_files.append(f"runs/{name}.run")
        step()
    manifest = {
        "generator": "irgauge.collection.simulate",
        "simulate_version": SIMULATE_VERSION,
        "params": p,
        "files": {"qrels": "qrels.txt", "runs": run_files},
        "stats": collection.stats(),
    }
    write_text(out / "manifest.json", json.dumps(manifest, indent=2, sort_keys=True) + "\n")
    return manifest


def read_manifest(out_dir: PathLike) -> dict:
    """The manifest of a written collection; ``simulate_collection(**m["params"])`` redoes it."""
    with open(Path(out_dir) / "manifest.json", encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------
# Bundled sample

SAMPLE_DIR = Path(__file__).resolve().parents[1] / "data" / "sample"

# How the bundled sample was made. tests/test_simulate.py regenerates it from its manifest and
# compares byte for byte; after a deliberate change to the generator, bump SIMULATE_VERSION
# and run `python -c "from irgauge.collection.simulate import make_sample; make_sample()"`.
SAMPLE_PARAMS: Dict[str, Any] = dict(
    n_topics=20, n_runs=12, depth=100, seed=20240607, pool_depth=20, rel_median=10.0
)


def sample_paths() -> Tuple[Path, List[Path]]:
    """Paths of the bundled sample collection: ``(qrels, [run, ...])``, runs by name."""
    manifest = read_manifest(SAMPLE_DIR)
    qrels = SAMPLE_DIR / manifest["files"]["qrels"]
    return qrels, [SAMPLE_DIR / r for r in manifest["files"]["runs"]]


def make_sample(out_dir: PathLike = SAMPLE_DIR) -> dict:
    """(Re)generate the bundled sample into ``out_dir``; returns its manifest."""
    return write_collection(simulate_collection(**SAMPLE_PARAMS), out_dir, overwrite=True)
