"""A small generated collection shared by the study tests (fast: few topics and runs)."""
from pathlib import Path

import pytest

from irgauge.simulate import simulate_collection, write_collection


@pytest.fixture(scope="session")
def collection(tmp_path_factory):
    """(qrels path, [run paths]) of 24 topics x 8 runs x 100 documents, pooled to depth 20."""
    root = tmp_path_factory.mktemp("collection")
    sim = simulate_collection(n_topics=24, n_runs=8, depth=100, seed=11, pool_depth=20,
                              rel_median=10.0)
    manifest = write_collection(sim, root)
    return root / manifest["files"]["qrels"], [root / r for r in manifest["files"]["runs"]]


def _read_bytes(directory: Path, pattern: str):
    return {p.relative_to(directory).as_posix(): p.read_bytes()
            for p in sorted(directory.glob(pattern))}


@pytest.fixture
def read_bytes():
    """``read_bytes(dir, pattern)``: {relative name: bytes} of the matching files."""
    return _read_bytes
