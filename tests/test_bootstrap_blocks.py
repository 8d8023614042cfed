"""The paired bootstrap takes a chunk's pairs a block at a time: its temporaries stay within
BLOCK_CELLS (pairs x samples) whatever the chunk's size, and the blocks lie on one grid of
the pairs, so that the values are the same bits however the pairs are cut into chunks."""

from __future__ import annotations

import numpy as np
import pytest

from irgauge.stats import bootstrap
from irgauge.stats.resampling import bootstrap_indices, index_counts


def _chunk(pairs: int, topics: int = 12):
    rng = np.random.default_rng(7)
    diffs = rng.normal(size=(pairs, topics)) * 0.3 + 0.05
    diffs[3] = 0.0  # a flat pair: NaN t in every sample
    diffs[5] = 0.2  # flat and not tied: t infinite, ASL 0
    counts_t = np.ascontiguousarray(index_counts(bootstrap_indices(topics, 200, 5), topics).T)
    return diffs, counts_t


def test_a_chunk_is_taken_a_block_at_a_time(monkeypatch):
    chunk, counts_t = _chunk(pairs=50)
    ranks = {0.01: 2, 0.05: 10}
    rows = []
    real = bootstrap.weighted_t
    monkeypatch.setattr(bootstrap, "weighted_t", lambda w, c: rows.append(len(w)) or real(w, c))
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", 7 * counts_t.shape[1])
    t, asl, required = bootstrap.bootstrap_chunk(chunk, counts_t, ranks)
    assert rows == [7] * 7 + [1]  # 50 pairs, 7 a block: never the chunk whole
    assert required.keys() == ranks.keys() and len(t) == len(asl) == 50
    assert asl[3] == 1.0 and asl[5] == 0.0  # tied; flat and not tied
    assert np.isnan(required[0.05][[3, 5]]).all()
    empty = bootstrap.bootstrap_chunk(chunk[:0], counts_t, ranks)
    assert all(len(a) == 0 for a in empty[:2]) and all(len(v) == 0 for v in empty[2].values())


@pytest.mark.parametrize("max_rows", [1, 7, 10, 22, 300])
def test_the_values_are_the_same_bits_however_the_pairs_are_cut(monkeypatch, max_rows):
    # the threads and the engine cut the pairs into chunks of different sizes (4M cells on
    # one core, 2M on two threads); BLAS sums a matrix product's rows in an order that
    # depends on the block, so the blocks lie on one grid whatever the chunks (before the
    # grid, chunks of one pair, each a matrix-vector product, gave other last bits)
    diffs, _ = _chunk(pairs=300, topics=25)
    counts = index_counts(bootstrap_indices(25, 300, 11), 25)
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", 7 * 300)
    together = bootstrap.bootstrap_pairs(diffs, counts, (0.05,), max_cells=1 << 30)
    cut = bootstrap.bootstrap_pairs(diffs, counts, (0.05,), max_cells=max_rows * 300)
    for name in ("statistic", "asl"):
        assert np.array_equal(getattr(cut, name), getattr(together, name), equal_nan=True)
    assert np.array_equal(cut.required[0.05], together.required[0.05], equal_nan=True)
