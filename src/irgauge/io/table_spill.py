"""A table's parts (tokenized runs) spilled to temporary files by a hash of their topic,
and each file read back as one Run of whole topics (the tables' route of
:func:`irgauge.io.run_partitions.partitioned_parts`; a text file's lines go as bytes, by
:mod:`irgauge.io.line_scatter`)."""

from __future__ import annotations

import os
from dataclasses import replace
from typing import BinaryIO, Iterable, Iterator, List

import numpy as np

from irgauge.io.heap import release_free_memory
from irgauge.io.ids import Ids
from irgauge.io.line_scatter import mixed
from irgauge.io.records import Run
from irgauge.io.run_parts import concat_runs, taken
from irgauge.io.topic_grouping import grouped_by_topic

PIECE_ARRAYS = 10  # arrays per piece of a spill file (see _write_piece)


def spill_pieces(
    parts: Iterable[Run], folder: str, prefix: str, count: int, salt: int
) -> List[str]:
    """Write the parts' entries to ``count`` files by topic hash; the files' paths."""
    paths = [os.path.join(folder, f"{prefix}{k}.bin") for k in range(count)]
    handles = [open(p, "wb") for p in paths]
    try:
        for part in parts:
            # bytes (count <= 256): numpy's stable sort of small integers is a radix sort
            bucket = (mixed(part.topics.hashes(), salt) % np.uint64(count)).astype(np.uint8)
            order = np.argsort(bucket, kind="stable")
            bounds = np.zeros(count + 1, dtype=np.intp)
            np.cumsum(np.bincount(bucket, minlength=count), out=bounds[1:])
            # the pieces one after the other; each piece's ids are copied out of the part's
            # pools once, as it is written (compact_range), not compacted here first
            part = taken(part, order)
            for k in np.flatnonzero(np.diff(bounds)):
                _write_piece(handles[k], part, int(bounds[k]), int(bounds[k + 1]))
            del part, bucket, order  # not kept alive while the next part is read
            release_free_memory()
    finally:
        for handle in handles:
            handle.close()
    return paths


def _write_piece(handle: BinaryIO, part: Run, begin: int, end: int) -> None:
    """Entries begin..end-1 of a part (ids compact) as ten arrays: topic pool, starts and
    lengths, the same for the docnos, scores (empty for a run without), line numbers, and
    the hashes of the topics and of the docnos. The hashes are computed anyway (the topics'
    to choose the file, the docnos' as they are read); read back, they are not computed
    again, from ids then scattered over the pool, to match the run."""
    arrays = []
    for ids in (part.topics.compact_range(begin, end), part.docnos.compact_range(begin, end)):
        arrays += [ids.pool, ids.starts, ids.lens]
    arrays.append(part.scores[begin:end] if part.scores is not None else np.zeros(0))
    arrays.append(part.lines()[begin:end])
    arrays += [ids.hashes()[begin:end] for ids in (part.topics, part.docnos)]
    # a header of (type code, length) per array, then their bytes: the files live only
    # while the run is read, and .npy headers (text, parsed back) cost more than the data
    header = np.array([[ord(a.dtype.char), len(a)] for a in arrays], dtype=np.int64)
    header.tofile(handle)
    for array in arrays:
        np.ascontiguousarray(array).tofile(handle)


def read_back_pieces(
    paths: List[str], like: Run, folder: str, part_bytes: int, depth: int, by_score: bool
) -> Iterator[Run]:
    """Each spill file as one Run (named as ``like``), deleted once read; one over twice
    ``part_bytes`` is partitioned again first (a few times at most: a single topic larger
    than that cannot be split)."""
    for path in paths:
        size = os.path.getsize(path)
        if size and size > 2 * part_bytes and depth < 4:
            prefix = f"{os.path.basename(path)[:-4]}_"
            more = spill_pieces(_pieces(path, like), folder, prefix, 8, salt=depth)
            os.remove(path)
            yield from read_back_pieces(more, like, folder, part_bytes, depth + 1, by_score)
            continue
        pieces = list(_pieces(path, like)) if size else []
        os.remove(path)
        if pieces:
            run = concat_runs(pieces)
            del pieces
            yield grouped_by_topic(run, by_score)


def _pieces(path: str, like: Run) -> Iterator[Run]:
    """The pieces written to one spill file, in order."""
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        while handle.tell() < size:
            header = np.fromfile(handle, dtype=np.int64, count=2 * PIECE_ARRAYS)
            arrays = [
                np.fromfile(handle, dtype=np.dtype(chr(code)), count=int(length))
                for code, length in header.reshape(PIECE_ARRAYS, 2)
            ]
            topic_pool, topic_starts, topic_lens, pool, starts, lens, scores, lines = arrays[:8]
            topics = Ids(topic_pool, topic_starts, topic_lens, compact=True)
            docnos = Ids(pool, starts, lens, compact=True)
            topics._hashes, docnos._hashes = arrays[8:]
            yield replace(
                like,
                topics=topics,
                docnos=docnos,
                scores=scores if like.scores is not None else None,
                line_numbers=lines,
            )
