"""Fixtures for the meta-evaluation tests: real score matrices read by path (CC BY-SA 4.0 data
of Julián Urbano, never copied into the repository)."""

import pytest

from irgauge.scores import read_scores, select_systems

from meta_paths import ADHOC8, DATA, URBANO  # noqa: F401  (re-exported for fixtures)


def adhoc8(measures=("ap", "p10", "rr"), systems=15):
    """adhoc8 matrices (50 topics), the ``systems`` best by AP."""
    if not ADHOC8.is_dir():
        pytest.skip("shared Urbano score matrices not available")
    found = {}
    for m in measures:
        found.update(read_scores(ADHOC8 / f"adhoc8_{m}.csv", name=m))
    if systems is None:
        return found
    # take a spread of systems (every 8th by AP) so that pairs range from close to far apart
    ranked = select_systems(found, top_k=10**6, by="ap" if "ap" in found else None)
    pick = next(iter(ranked.values())).systems[::8][:systems]
    return {k: v.take_systems(pick) for k, v in found.items()}


@pytest.fixture(scope="session")
def small():
    return adhoc8()
