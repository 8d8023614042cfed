"""The paired bootstrap takes a chunk's pairs a block at a time: its temporaries stay within
BLOCK_CELLS (pairs x samples) whatever the chunk's size, with the values of the chunk taken
whole."""

from __future__ import annotations

import numpy as np

from irgauge.stats import bootstrap
from irgauge.stats.resampling import bootstrap_indices, index_counts


def _chunk(pairs: int, topics: int = 12):
    rng = np.random.default_rng(7)
    w = rng.normal(size=(pairs, topics))
    w[3] = 0.0  # a flat pair: NaN t in every sample
    w -= w.mean(axis=1, keepdims=True)
    observed = np.abs(rng.normal(size=pairs)) * 3
    counts_t = np.ascontiguousarray(index_counts(bootstrap_indices(topics, 200, 5), topics).T)
    return (w, observed), counts_t


def test_a_chunk_is_taken_a_block_at_a_time_with_the_same_values(monkeypatch):
    chunk, counts_t = _chunk(pairs=50)
    ranks = {0.01: 2, 0.05: 10}
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", 1 << 30)
    whole = bootstrap.bootstrap_chunk(chunk, counts_t, ranks)
    rows = []
    real = bootstrap.weighted_t
    monkeypatch.setattr(bootstrap, "weighted_t", lambda w, c: rows.append(len(w)) or real(w, c))
    monkeypatch.setattr(bootstrap, "BLOCK_CELLS", 7 * counts_t.shape[1])
    blocked = bootstrap.bootstrap_chunk(chunk, counts_t, ranks)
    assert rows == [7] * 7 + [1]  # 50 pairs, 7 a block: never the chunk whole
    assert np.array_equal(blocked[0], whole[0])
    assert blocked[1].keys() == whole[1].keys()
    for alpha in ranks:
        assert np.array_equal(blocked[1][alpha], whole[1][alpha], equal_nan=True)
    empty = bootstrap.bootstrap_chunk((chunk[0][:0], chunk[1][:0]), counts_t, ranks)
    assert len(empty[0]) == 0 and all(len(v) == 0 for v in empty[1].values())
