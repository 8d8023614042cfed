"""A small generated collection shared by the study tests (fast: few topics and runs)."""

from collections import defaultdict
from pathlib import Path

import pytest

from irgauge.collection.simulate import simulate_collection, write_collection


@pytest.fixture(scope="session")
def recorded_study():
    """Runs a study once with a progress recorder:
    ``run(study, qrels, runs, out, **options)`` gives (result, output folder,
    {bar label: [(done, total)]})."""

    def run(study, qrels, runs, out, **options):
        bars = defaultdict(list)

        def factory(label):
            return lambda done, total: bars[label].append((done, total))

        return study(qrels, runs, out, progress=factory, **options), out, bars

    return run


@pytest.fixture(scope="session")
def collection(tmp_path_factory):
    """(qrels path, [run paths]) of 24 topics x 8 runs x 100 documents, pooled to depth 20."""
    root = tmp_path_factory.mktemp("collection")
    sim = simulate_collection(
        n_topics=24, n_runs=8, depth=100, seed=11, pool_depth=20, rel_median=10.0
    )
    manifest = write_collection(sim, root)
    return root / manifest["files"]["qrels"], [root / r for r in manifest["files"]["runs"]]


def _read_bytes(directory: Path, pattern: str):
    return {
        p.relative_to(directory).as_posix(): p.read_bytes() for p in sorted(directory.glob(pattern))
    }


@pytest.fixture
def read_bytes():
    """``read_bytes(dir, pattern)``: {relative name: bytes} of the matching files."""
    return _read_bytes


def write_trec(root: Path, qrels_rows, runs):
    """Write qrels rows (topic, doc, level) and {run: {topic: [docs best first]}} as TREC
    files under ``root``; return (qrels path, [run paths])."""
    root.mkdir(parents=True, exist_ok=True)
    qrels = root / "qrels.txt"
    qrels.write_text("".join(f"{t} 0 {d} {lv}\n" for t, d, lv in qrels_rows))
    return qrels, write_runs(root, runs)


def write_runs(root: Path, runs, stem: str = "{name}.run"):
    """Write {run: {topic: [docs best first]}} as TREC run files under ``root``, each
    named ``stem`` with the run's name (its tag too); return their paths."""
    paths = []
    for name, ranking in runs.items():
        lines = [
            f"{t} Q0 {d} {r + 1} {1000 - r} {name}\n"
            for t, docs in ranking.items()
            for r, d in enumerate(docs)
        ]
        path = root / stem.format(name=name)
        path.write_text("".join(lines))
        paths.append(path)
    return paths


@pytest.fixture(scope="session")
def first_rank_collection(tmp_path_factory):
    """Every run puts a partially relevant document (level 1) first on every topic, so RR is
    1 everywhere and separates no pair of systems; the highly relevant documents (level 3)
    sit at ranks that depend on the run (better runs rank them higher), so P-measure,
    P-plus, O-measure and AP do separate systems. 30 topics x 8 runs."""
    import numpy as np

    rng = np.random.default_rng(5)
    rows, runs = [], {f"r{k}": {} for k in range(8)}
    for t in range(1, 31):
        rows.append((t, "first", 1))
        rows += [(t, f"high{j}", 3) for j in range(3)]
        rows += [(t, f"non{j}", 0) for j in range(40)]
        for k in range(8):
            docs = [f"non{j}" for j in range(40)]
            for j in range(3):  # run k ranks highly relevant documents near 2 + 3k
                at = int(np.clip(1 + 3 * k + rng.integers(0, 4), 0, len(docs)))
                docs.insert(at, f"high{j}")
            runs[f"r{k}"][t] = ["first"] + docs
    return write_trec(tmp_path_factory.mktemp("firstrank"), rows, runs)


@pytest.fixture(scope="session")
def all_first_collection(tmp_path_factory):
    """Binary relevance; every run ranks the topic's one relevant document first on every
    topic: RR, P-measure, P-plus, O-measure and NWRR are all 1 for every run and topic, so
    they are equal by construction. 20 topics x 6 runs."""
    rows, runs = [], {f"r{k}": {} for k in range(6)}
    for t in range(1, 21):
        rows.append((t, "rel", 1))
        rows += [(t, f"non{j}", 0) for j in range(10)]
        for k in range(6):
            others = [f"non{(j + k + t) % 10}" for j in range(10)]
            runs[f"r{k}"][t] = ["rel"] + others
    return write_trec(tmp_path_factory.mktemp("allfirst"), rows, runs)
