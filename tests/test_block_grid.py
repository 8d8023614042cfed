"""The steps whose rows come from a matrix product (the paired bootstrap's and the
randomisation test's pairs, system agreement's weightings) take a chunk's rows a block at a
time: the temporaries stay within BLOCK_CELLS whatever the chunk's size, and the blocks lie
on one grid of the rows (stats.resampling.block_chunks), so that the values are the same
bits however the threads, the engine or max_cells cut the rows into chunks."""

from __future__ import annotations

import numpy as np
import pytest

from irgauge.evaluation.tasks import use_jobs
from irgauge.meta import system_agreement
from irgauge.stats import bootstrap, randomisation, resampling
from irgauge.stats.resampling import bootstrap_indices, index_counts

CUTS = [1, 7, 10, 22, 300]  # rows a chunk may hold: blocks of 7 are cut five ways


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
    monkeypatch.setattr(resampling, "BLOCK_CELLS", 7 * counts_t.shape[1])
    t, asl, required, _ = bootstrap.bootstrap_chunk(chunk, counts_t, ranks)
    assert rows == [7] * 7 + [1]  # 50 pairs, 7 a block: never the chunk whole
    assert required.keys() == ranks.keys() and len(t) == len(asl) == 50
    assert asl[3] == 1.0 and asl[5] == 0.0  # tied; flat and not tied
    assert np.isnan(required[0.05][[3, 5]]).all()
    empty = bootstrap.bootstrap_chunk(chunk[:0], counts_t, ranks)
    assert all(len(a) == 0 for a in empty[:2]) and all(len(v) == 0 for v in empty[2].values())


@pytest.mark.parametrize("jobs", [1, 2, 3, 16])
@pytest.mark.parametrize(
    "rows, cells, max_cells", [(0, 9, 100), (50, 9, 100), (1000, 300, 1 << 22)]
)
def test_the_chunks_are_whole_blocks_on_one_grid(monkeypatch, jobs, rows, cells, max_cells):
    monkeypatch.setattr(resampling, "BLOCK_CELLS", 7 * cells)
    with use_jobs(jobs):
        parts = resampling.block_chunks(rows, cells, max_cells)
    assert [p.start for p in parts] == list(range(0, rows, parts[0].stop if parts else 1))
    assert all(p.start % 7 == 0 and p.stop > p.start for p in parts)
    assert (parts[-1].stop if parts else 0) == rows
    # the steps running at once hold max_cells together, one block at the least
    assert all((p.stop - p.start) * cells <= max(max_cells // jobs, 7 * cells) for p in parts)


def _bootstrap(diffs, max_cells):
    counts = index_counts(bootstrap_indices(diffs.shape[1], 300, 11), diffs.shape[1])
    found = bootstrap.bootstrap_pairs(diffs, counts, (0.05,), max_cells=max_cells)
    return {"t": found.statistic, "asl": found.asl, "required": found.required[0.05]}


def _randomisation(diffs, max_cells):
    signs = randomisation.random_signs(diffs.shape[1], 300, 11)
    # the identity among the sign flips: its mean equals the observed one but for the last
    # bits, and at this size (an ulp of the mean above TIE_TOLERANCE) whether it counts
    # hangs on them (on the old chunks, a third of the p-values moved with the cut)
    signs[::3] = 1.0
    return {"p": randomisation.randomisation_pvalues(diffs * 1e6, signs, max_cells=max_cells)}


def _agreement(diffs, max_cells):
    # diffs as systems x topics scores under A, and under B slightly off
    xa, xb = diffs[:12], diffs[:12] + diffs[12:24] * 0.1
    weights = index_counts(bootstrap_indices(diffs.shape[1], 300, 2), diffs.shape[1])
    return system_agreement.system_statistics(xa, xb, weights, max_cells=max_cells)


STEPS = {  # step: (run(rows x topics, max_cells), its block function, the cells a row,
    # the module of its BLOCK_CELLS)
    "bootstrap": (_bootstrap, (bootstrap, "_bootstrap_block"), lambda: 300, resampling),
    "randomisation": (
        _randomisation,
        (randomisation, "_sign_flip_block"),
        lambda: 300,
        resampling,
    ),
    "agreement": (
        _agreement,
        (system_agreement, "_statistics_block"),
        lambda: system_agreement._cells_per_row(12),
        system_agreement,
    ),
}


@pytest.mark.parametrize("max_rows", CUTS)
@pytest.mark.parametrize("step", sorted(STEPS))
def test_the_values_are_the_same_bits_however_the_rows_are_cut(monkeypatch, step, max_rows):
    # the threads and the engine cut the rows into chunks of different sizes (4M cells on
    # one core, 2M on two threads); BLAS sums a matrix product's rows in an order that
    # depends on the block, so the blocks lie on one grid whatever the chunks (before the
    # grid, chunks of one pair, each a matrix-vector product, gave other last bits)
    run, (module, name), cells, blocked = STEPS[step]
    diffs, _ = _chunk(pairs=300, topics=25)
    monkeypatch.setattr(blocked, "BLOCK_CELLS", 7 * cells(), raising=False)
    blocks: list = []  # per run, the rows of each block, by their first argument's bytes
    real = getattr(module, name, None)
    if real is not None:
        spy = lambda rows, *rest: blocks[-1].append(rows.tobytes()) or real(rows, *rest)  # noqa: E731
        monkeypatch.setattr(module, name, spy)
    found = []
    for max_cells in (1 << 30, max_rows * cells()):
        blocks.append([])
        found.append(run(diffs, max_cells))
    together, cut = found
    for key, values in together.items():
        assert np.array_equal(cut[key], values, equal_nan=True), key
    # every row in the same block of the one grid, whatever the cut
    assert real is not None and sorted(blocks[1]) == sorted(blocks[0])
