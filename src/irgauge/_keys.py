"""Integer keys for (topic, docno) pairs, so that matching runs against qrels is a
sorted search over integers rather than a dictionary lookup per line.

Document ids are hashed to 64 bits with whole-array operations. Every match found
through a hash is verified byte for byte; on a collision (vanishingly rare) callers
fall back to exact codes from a sort of the strings.
"""
from __future__ import annotations

from typing import Dict, Iterable, List

import numpy as np

_MULT = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)


def _mix(h: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: spreads every input bit over the whole word."""
    h = h ^ (h >> np.uint64(30))
    h = h * _MIX1
    h = h ^ (h >> np.uint64(27))
    h = h * _MIX2
    return h ^ (h >> np.uint64(31))


def hash_strings(strings: np.ndarray, chunk: int = 1 << 18) -> np.ndarray:
    """64-bit hashes of an ``S`` array (same bytes -> same hash, whatever the array width).

    Works through ``chunk`` ids at a time so that the temporaries stay small.
    """
    out = np.empty(len(strings), dtype=np.uint64)
    for begin in range(0, len(strings), chunk):
        out[begin: begin + chunk] = _hash_chunk(strings[begin: begin + chunk])
    return out


def _hash_chunk(strings: np.ndarray) -> np.ndarray:
    n = len(strings)
    width = max(strings.dtype.itemsize, 1)
    padded = np.zeros((n, width + (-width) % 8), dtype=np.uint8)
    if n:
        padded[:, :width] = strings.view(np.uint8).reshape(n, width)
    words = padded.view(np.uint64)
    h = np.zeros(n, dtype=np.uint64)
    with np.errstate(over="ignore"):
        for j in range(words.shape[1]):  # a handful of 8-byte words per id
            h = _mix(h ^ words[:, j] * _MULT + np.uint64(j))
    return h


def pair_keys(topic_codes: np.ndarray, doc_hashes: np.ndarray, n_topics: int) -> np.ndarray:
    """Topic-major keys: the topic code in the high bits, the docno hash below it.

    Sorted keys then group by topic, so looking up a run (whose lines come topic by topic)
    searches a small, cache-resident region at a time. With T topics the hash keeps
    64 - bits(T) bits (51 for 5,000 topics); matches are verified anyway.
    """
    shift = np.uint64(64 - max(int(n_topics).bit_length(), 1))
    return (topic_codes.astype(np.uint64) << shift) | (doc_hashes >> np.uint64(64) - shift)


def exact_pair_keys(topic_codes: List[np.ndarray], docnos: List[np.ndarray]) -> List[np.ndarray]:
    """Collision-free keys for several (topic codes, docnos) arrays sharing one code space."""
    sizes = [len(d) for d in docnos]
    _, inverse = np.unique(np.concatenate(docnos), return_inverse=True)
    n_docs = np.uint64(inverse.max() + 1 if len(inverse) else 1)
    parts = np.split(inverse.astype(np.uint64), np.cumsum(sizes)[:-1])
    return [t.astype(np.uint64) * n_docs + p for t, p in zip(topic_codes, parts)]


def group_codes(values: np.ndarray, codebook: Dict[bytes, int], grow: bool) -> np.ndarray:
    """Map an ``S`` array to integer codes through ``codebook``.

    Files list a topic's lines together, so the array is cut into runs of equal
    values and only one value per run is looked up. Unknown values get a new code when
    ``grow`` is true, else -1.
    """
    n = len(values)
    if n == 0:
        return np.zeros(0, dtype=np.int32)
    change = np.ones(n, dtype=bool)
    change[1:] = values[1:] != values[:-1]
    heads = np.flatnonzero(change)
    codes = np.empty(len(heads), dtype=np.int32)
    for i, value in enumerate(values[heads].tolist()):
        code = codebook.get(value)
        if code is None:
            code = len(codebook) if grow else -1
            if grow:
                codebook[value] = code
        codes[i] = code
    return np.repeat(codes, np.diff(np.append(heads, n)))


def natural_order(ids: Iterable[str]) -> List[str]:
    """Sort ids numerically when all are integers, else as strings."""
    ids = list(ids)
    if all(i.lstrip("-").isdigit() for i in ids):
        return sorted(ids, key=lambda i: (int(i), i))
    return sorted(ids)
