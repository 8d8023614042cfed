"""Columns of byte-string ids stored as one byte pool plus offsets (as Arrow stores strings).

A fixed-width ``S`` array is as wide as its longest id, so one document id of 10,000
characters would make a column of five million ids take 50 GB. ``Ids`` keeps every id's
bytes once, back to back, with a start offset and a length per id: memory is
O(bytes + ids) whatever the longest id.

Ids are compared as bytes (trec_eval compares them with ``strcmp``); they become Python
``str`` only for output, decoded as UTF-8 with ``backslashreplace`` so that an id that is
not UTF-8 is printed with escapes (``\\xff``) instead of failing.

Whole-column operations work eight bytes at a time: an unaligned little-endian ``uint64``
view of the pool gives bytes [i, i + 8) of the pool at index i, and each step handles only
the ids still long enough, so hashing or comparing costs O(total bytes / 8) vector steps.
"""

from __future__ import annotations

from typing import Iterator, List, Optional, Sequence, Union

import numpy as np

_MULT = np.uint64(0x9E3779B97F4A7C15)
_MIX1 = np.uint64(0xBF58476D1CE4E5B9)
_MIX2 = np.uint64(0x94D049BB133111EB)
_SMALL_POOL = 1 << 30
CHUNK = 1 << 18  # ids per step of whole-column operations: temporaries of a few MB
_RUNS_LOOKED_AT = 4096  # ids looked at for runs of one stored id before a column is hashed
_GATHER_WIDTH = 32  # ids of one length up to this are copied column by column
_PAD = 8  # zero bytes after the pool, so that an 8-byte read at any id start stays inside
_LOW = np.array([(1 << (8 * k)) - 1 for k in range(8)] + [(1 << 64) - 1], dtype=np.uint64)
# by id length 0..16: the masks of its two words, as one 16-byte item (a single gather)
_MASKS16 = (
    np.array([[_LOW[min(k, 8)], _LOW[min(max(k - 8, 0), 8)]] for k in range(17)], np.uint64)
    .view("V16")
    .ravel()
)


def _mix(h: np.ndarray) -> np.ndarray:
    """The splitmix64 finaliser: spreads every input bit over the whole word."""
    h = h ^ (h >> np.uint64(30))
    h = h * _MIX1
    h = h ^ (h >> np.uint64(27))
    h = h * _MIX2
    return h ^ (h >> np.uint64(31))


def _hash_round(h: np.ndarray, word: np.ndarray, k: int) -> np.ndarray:
    """The hash so far, updated with an id's word k (k >= 1)."""
    return _mix(h ^ word * _MULT + np.uint64(k))


def _hash_words(words: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """Ids.hashes of ids of at most two words, from their words (n x 1 or n x 2, zero
    past each id's end): the same rounds, the second one kept where an id has it."""
    with np.errstate(over="ignore"):
        h = _mix(words[:, 0] * _MULT)
        if words.shape[1] == 2:
            two_words = lens > 8
            rows = np.flatnonzero(two_words)
            if 2 * len(rows) < len(h):  # the second round only where ids have a second word
                h[rows] = _hash_round(h[rows], words[rows, 1], 1)
            else:
                h = np.where(two_words, _hash_round(h, words[:, 1], 1), h)
        return h ^ lens.astype(np.uint64) * _MIX1


def offset_type(pool: np.ndarray):
    """The integer type Ids keeps the offsets into ``pool`` in (see Ids.__init__)."""
    return np.int32 if len(pool) < _SMALL_POOL else np.int64


class Ids:
    """An immutable column of byte strings: ``pool[starts[i]: starts[i] + lens[i]]`` is id i.

    Indexing with an integer gives ``bytes``; with a slice, mask or index array, another
    ``Ids`` sharing the pool. ``==`` and ``!=`` compare element-wise (with another Ids, an
    ``S`` array or one ``bytes`` value) and give a bool array.
    """

    __array_ufunc__ = None  # ``S_array == ids`` defers to Ids.__eq__

    def __init__(
        self, pool: np.ndarray, starts: np.ndarray, lens: np.ndarray, compact: bool = False
    ):
        self.pool = pool  # uint8, ends with _PAD zero bytes
        # 32-bit offsets while the pool is small enough that no offset arithmetic here
        # (start + length) can pass 2^31: 8 bytes per id instead of 16
        offsets = offset_type(pool)
        self.starts = np.asarray(starts).astype(offsets, copy=False)
        self.lens = np.asarray(lens).astype(offsets, copy=False)
        self.compact = compact  # ids back to back from pool[0], pool ends right after them
        self._hashes: Optional[np.ndarray] = None

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_list(cls, values: Sequence[Union[bytes, str]]) -> "Ids":
        """From bytes or str values (str encoded as UTF-8)."""
        encoded = [v.encode("utf-8") if isinstance(v, str) else bytes(v) for v in values]
        lens = np.fromiter((len(e) for e in encoded), dtype=np.int64, count=len(encoded))
        pool = np.frombuffer(b"".join(encoded) + bytes(_PAD), dtype=np.uint8)
        starts = np.zeros(len(lens), dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        return cls(pool, starts, lens, compact=True)

    @classmethod
    def from_fixed(cls, values: np.ndarray) -> "Ids":
        """From a fixed-width ``S`` array (trailing NUL bytes are padding, as numpy reads it)."""
        values = np.ascontiguousarray(values)
        n, width = len(values), max(values.dtype.itemsize, 1)
        if n == 0:
            return cls.from_list([])
        matrix = values.view(np.uint8).reshape(n, width)
        lens = np.char.str_len(values).astype(np.int64)
        keep = np.arange(width) < lens[:, None]
        pool = np.concatenate((matrix[keep], np.zeros(_PAD, np.uint8)))
        starts = np.zeros(n, dtype=np.int64)
        np.cumsum(lens[:-1], out=starts[1:])
        return cls(pool, starts, lens, compact=True)

    @staticmethod
    def padded(data: bytes) -> np.ndarray:
        """``data`` as a pool (uint8 with the zero padding the 8-byte reads need)."""
        pool = np.empty(len(data) + _PAD, dtype=np.uint8)
        pool[: len(data)] = np.frombuffer(data, dtype=np.uint8)
        pool[len(data) :] = 0
        return pool

    def compacted(self, with_hashes: bool = False) -> "Ids":
        """The same ids in a pool of their own, back to back (drops the rest of the pool).
        ``with_hashes``: their hashes computed too (from the words read to compact them,
        for ids of up to two words)."""
        if self.compact:
            if with_hashes:
                self.hashes()
            return self
        longest = int(self.lens.max()) if len(self) else 0
        one_width = longest <= _GATHER_WIDTH and not (self.lens != longest).any()
        # ids of one to four bytes each (relevance levels, say): a gather per byte is less
        # than the two words of an id read, masked and compressed
        if longest <= 2 * 8 and not (one_width and longest <= 4):
            return self._compacted_short(longest, with_hashes)
        pool = np.empty(int(self.lens.sum()) + _PAD, dtype=np.uint8)
        width = longest
        if 0 < width and one_width:
            # ids of one length (the usual docno): a gather per byte column, no index of
            # every byte
            table = pool[: len(pool) - _PAD].reshape(len(self), width)
            for j in range(width):
                table[:, j] = self.pool[self.starts + j]
        else:
            pool[: len(pool) - _PAD] = self.pool[self._positions(self.starts, self.lens)]
        pool[len(pool) - _PAD :] = 0
        compacted = Ids(pool, self.starts_compact(offset_type(pool)), self.lens, compact=True)
        compacted._hashes = self._hashes
        if with_hashes:
            compacted.hashes()
        return compacted

    def _compacted_short(self, longest: int, with_hashes: bool) -> "Ids":
        """compacted() for ids of at most two words (nearly every id): each id's words read
        once, their bytes kept up to its length; no index of every byte."""
        words, masks = self.short_words()
        if longest <= 8:
            words, masks = words[:, :1].copy(), masks[:, :1].copy()
        width = 8 * words.shape[1]
        total = int(self.lens.sum())
        pool = np.empty(total + _PAD, dtype=np.uint8)
        kept = masks.view(np.uint8).reshape(len(self), width) != 0
        pool[:total] = words.view(np.uint8).reshape(len(self), width)[kept]
        pool[total:] = 0
        compacted = Ids(pool, self.starts_compact(offset_type(pool)), self.lens, compact=True)
        compacted._hashes = self._hashes
        if with_hashes and compacted._hashes is None:
            compacted._hashes = _hash_words(words, self.lens)
        return compacted

    def short_words(self):
        """(words, masks) of ids of at most 16 bytes, both (n, 2) uint64: the ids' bytes
        [0, 16) as two little-endian words, zero past each id's end, and the masks that
        cleared those bytes (0xFF over an id's bytes). One 16-byte read per id."""
        n_pairs = len(self.pool) - 15
        masks = _MASKS16[self.lens.astype(np.intp)].view(np.uint64).reshape(len(self), 2)
        if n_pairs <= 0:
            words = np.zeros((len(self), 2), dtype=np.uint64)
            near_end = np.arange(len(self))
        else:
            pairs = np.ndarray(shape=(n_pairs,), dtype="V16", buffer=self.pool, strides=(1,))
            words = pairs[np.minimum(self.starts, n_pairs - 1, dtype=np.intp)].view(np.uint64)
            words = words.reshape(len(self), 2)
            near_end = np.flatnonzero(self.starts >= n_pairs)
        words &= masks
        if len(near_end):  # ids in the pool's last 15 bytes: shorter than 8, before its padding
            words[near_end, 0] = self.word(near_end, 0)
            words[near_end, 1] = 0
        return words, masks

    def compact_range(self, begin: int, end: int) -> "Ids":
        """Ids begin..end-1 of a compact column, in a pool of their own (their bytes are
        one stretch of the pool: a single copy)."""
        if not self.compact:
            return self[begin:end].compacted()
        if begin >= end:
            return Ids.from_list([])
        first = int(self.starts[begin])
        last = int(self.starts[end - 1]) + int(self.lens[end - 1])
        pool = np.empty(last - first + _PAD, dtype=np.uint8)
        pool[: last - first] = self.pool[first:last]
        pool[last - first :] = 0
        return Ids(pool, self.starts[begin:end] - first, self.lens[begin:end], compact=True)

    def compacted_runs(self) -> "Ids":
        """Like ``compacted``, but a run of equal consecutive ids keeps one copy of its bytes
        (a run file repeats its topic id on each of a topic's lines)."""
        n = len(self)
        if n == 0:
            return self.compacted()
        change = np.ones(n, dtype=bool)
        longest = int(self.lens.max())
        if longest <= 8:  # (a topic id, usually) one word each, read once
            words = self.word(None, 0)
            change[1:] = (self.lens[1:] != self.lens[:-1]) | (words[1:] != words[:-1])
        elif longest <= 16:  # each id read once, not once per side
            words = self.short_words()[0]
            change[1:] = (
                (self.lens[1:] != self.lens[:-1])
                | (words[1:, 0] != words[:-1, 0])
                | (words[1:, 1] != words[:-1, 1])
            )
        else:
            change[1:] = ~self[1:].equal(self[:-1])
        heads = np.flatnonzero(change)
        once = self[heads].compacted()
        runs = np.diff(np.append(heads, n))
        return Ids(once.pool, np.repeat(once.starts, runs), self.lens)

    @classmethod
    def full(cls, value: bytes, n: int) -> "Ids":
        """``n`` copies of one id (stored once)."""
        pool = np.frombuffer(bytes(value) + bytes(_PAD), dtype=np.uint8)
        return cls(pool, np.zeros(n, np.int64), np.full(n, len(value), np.int64))

    @classmethod
    def concat(cls, parts: List["Ids"]) -> "Ids":
        """One column from several, pools joined. The list is emptied as the parts are
        copied, so memory holds the result and one part, not the result and all parts."""
        if not parts:
            return cls.from_list([])
        n_bytes = sum(len(p.pool) for p in parts)
        n_ids = sum(len(p) for p in parts)
        wide = np.int32 if n_bytes < _SMALL_POOL else np.int64
        pool = np.empty(n_bytes, dtype=np.uint8)
        starts: np.ndarray = np.empty(n_ids, dtype=wide)
        lens: np.ndarray = np.empty(n_ids, dtype=wide)
        compact = len(parts) == 1 and parts[0].compact
        hashes = np.empty(n_ids, np.uint64) if all(p._hashes is not None for p in parts) else None
        at_byte = at_id = 0
        parts.reverse()
        while parts:
            p = parts.pop()
            pool[at_byte : at_byte + len(p.pool)] = p.pool
            starts[at_id : at_id + len(p)] = p.starts
            starts[at_id : at_id + len(p)] += at_byte
            lens[at_id : at_id + len(p)] = p.lens
            if hashes is not None and p._hashes is not None:  # all parts have them
                hashes[at_id : at_id + len(p)] = p._hashes
            at_byte += len(p.pool)
            at_id += len(p)
            del p
        joined = cls(pool, starts, lens, compact)
        joined._hashes = hashes
        return joined

    # ---------------------------------------------------------------- sequence protocol
    def __len__(self) -> int:
        return len(self.lens)

    def __getitem__(self, index):
        if isinstance(index, (int, np.integer)):
            start = int(self.starts[index])
            return self.pool[start : start + int(self.lens[index])].tobytes()
        compact = (
            self.compact
            and isinstance(index, slice)
            and index.step in (None, 1)
            and (index.start in (None, 0) or len(self) == 0)
            and index.stop is None
        )
        subset = Ids(self.pool, self.starts[index], self.lens[index], compact)
        if self._hashes is not None:  # hashes travel with their ids
            subset._hashes = self._hashes[index]
        return subset

    def __iter__(self) -> Iterator[bytes]:
        return iter(self.tolist())

    def __repr__(self) -> str:
        shown = self[:5].tolist()
        return f"Ids({len(self)} ids: {shown}{' ...' if len(self) > 5 else ''})"

    def tolist(self) -> List[bytes]:
        """The ids as Python bytes (one object each: for small columns and output)."""
        data = self.pool.tobytes()
        return [data[s : s + n] for s, n in zip(self.starts.tolist(), self.lens.tolist())]

    def decode(self) -> List[str]:
        """The ids as str: UTF-8, with ``\\xNN`` escapes for bytes that are not."""
        if len(self) == 0:
            return []
        joined = self.joined(b"\n")
        if joined is not None:  # one decode and one split for the whole column
            return joined.decode("utf-8", "backslashreplace").split("\n")
        return [v.decode("utf-8", "backslashreplace") for v in self.tolist()]

    def joined(self, sep: bytes) -> Optional[bytes]:
        """All ids joined by the one-byte ``sep``, or None when an id contains ``sep``."""
        n = len(self)
        total = int(self.lens.sum())
        byte_sep = np.frombuffer(sep, np.uint8)[0]
        out = np.full(total + n - 1 if n else 0, byte_sep, dtype=np.uint8)
        dest = self.starts_compact() + np.arange(n)
        src = self._positions(self.starts, self.lens)
        dst = self._positions(dest, self.lens)
        out[dst] = self.pool[src]
        if (self.pool[src] == byte_sep).any():
            return None
        return out.tobytes()

    def starts_compact(self, dtype=np.int64) -> np.ndarray:
        """Where each id starts when the ids are back to back; ``dtype``: of the result
        (the offsets' type of the pool they will index, Ids keeps them as it is)."""
        out = np.zeros(len(self), dtype=dtype)
        np.cumsum(self.lens[:-1], out=out[1:])
        return out

    @staticmethod
    def _positions(starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
        """Every byte position of every id, id by id (O(total bytes)): a running sum of
        steps of 1 that jumps from one id's last byte to the next id's first."""
        lens = lens.astype(np.int64, copy=False)
        total = int(lens.sum())
        if total == 0:
            return np.zeros(0, dtype=np.int64)
        filled = lens > 0
        s, n = starts[filled].astype(np.int64), lens[filled]
        # 32-bit positions where they fit (a block's pool): half the memory traffic
        kind = (
            np.int32
            if int(s[-1]) + int(n[-1]) < (1 << 31) and int(s.max()) < (1 << 31)
            else np.int64
        )
        steps = np.ones(total, dtype=kind)
        at = np.zeros(len(n), dtype=np.int64)
        np.cumsum(n[:-1], out=at[1:])
        steps[0] = s[0]
        steps[at[1:]] = s[1:] - s[:-1] - n[:-1] + 1
        return np.cumsum(steps, out=steps)

    # ---------------------------------------------------------------- whole-column operations
    def _words(self) -> np.ndarray:
        """``words[i]`` = pool bytes [i, i + 8) as a little-endian uint64 (unaligned view)."""
        return np.ndarray(
            shape=(len(self.pool) - _PAD + 1,), dtype="<u8", buffer=self.pool, strides=(1,)
        )

    def word(self, rows: Optional[np.ndarray], k: int) -> np.ndarray:
        """Bytes [8k, 8k + 8) of the ids ``rows`` (None: all) as uint64, zero past each
        id's end."""
        words = self._words()
        lens = self.lens if rows is None else self.lens[rows]
        starts = self.starts if rows is None else self.starts[rows]
        if k == 0:  # every id starts inside the pool: no clamping of the offsets
            if len(lens) and lens.min() >= 8:  # long ids: no masking either
                return words[starts]
            return words[starts] & _LOW[np.minimum(lens, 8)]
        remaining = np.clip(lens - 8 * k, 0, 8)
        at = np.minimum(starts + 8 * k, len(words) - 1)  # ids already ended read 0
        return words[at] & _LOW[remaining]

    def hashes(self) -> np.ndarray:
        """64-bit hash of each id (same bytes -> same hash, whatever the column)."""
        heads = self._long_stored_runs() if self._hashes is None else None
        if heads is not None:  # a run's topic column keeps one copy per run of lines:
            once = self[heads].hashes()  # each copy hashed once
            self._hashes = np.repeat(once, np.diff(np.append(heads, len(self))))
        if self._hashes is None and len(self) > CHUNK:  # bounded temporaries
            self._hashes = np.concatenate(
                [self[a : a + CHUNK].hashes() for a in range(0, len(self), CHUNK)]
            )
        if self._hashes is None:
            with np.errstate(over="ignore"):
                # every id takes at least one round, so the empty id hashes too
                h = _mix(self.word(None, 0) * _MULT)
                rows = np.flatnonzero(self.lens > 8)
                k = 1
                while len(rows):
                    h[rows] = _hash_round(h[rows], self.word(rows, k), k)
                    k += 1
                    rows = rows[self.lens[rows] > 8 * k]
                h ^= self.lens.astype(np.uint64) * _MIX1
            self._hashes = h
        return self._hashes

    def stored_run_heads(self) -> np.ndarray:
        """Index of each id stored elsewhere than the id before it (0 first): the ids from
        one head to the next are one stored id, repeated (equal, unlike ids stored apart
        that may be equal too)."""
        if len(self) == 0:
            return np.zeros(0, dtype=np.intp)
        moved = np.ones(len(self), dtype=bool)
        np.not_equal(self.starts[1:], self.starts[:-1], out=moved[1:])
        moved[1:] |= self.lens[1:] != self.lens[:-1]
        return np.flatnonzero(moved)

    def _long_stored_runs(self) -> Optional[np.ndarray]:
        """stored_run_heads of a column of long runs of one stored id (a run file's
        topics); None for others, most of which are told by their first ids alone."""
        if len(self) < _RUNS_LOOKED_AT:
            return None
        if 16 * len(self[:_RUNS_LOOKED_AT].stored_run_heads()) >= _RUNS_LOOKED_AT:
            return None
        heads = self.stored_run_heads()
        return heads if 16 * len(heads) < len(self) else None

    def equal(self, other: "Ids") -> np.ndarray:
        """Element-wise equality with another column of the same length."""
        if len(self) != len(other):
            raise ValueError("columns of different lengths")
        if len(self) > CHUNK:  # bounded temporaries
            return np.concatenate(
                [
                    self[a : a + CHUNK].equal(other[a : a + CHUNK])
                    for a in range(0, len(self), CHUNK)
                ]
            )
        same = (self.lens == other.lens) & (self.word(None, 0) == other.word(None, 0))
        rows = np.flatnonzero(same & (self.lens > 8))
        k = 1
        while len(rows):
            diff = self.word(rows, k) != other.word(rows, k)
            same[rows[diff]] = False
            k += 1
            rows = rows[~diff]
            rows = rows[self.lens[rows] > 8 * k]
        return same

    def __eq__(self, other) -> np.ndarray:  # type: ignore[override]
        if isinstance(other, (bytes, str)):
            return self.equal(
                Ids.full(other.encode() if isinstance(other, str) else other, len(self))
            )
        return self.equal(as_ids(other))

    def __ne__(self, other) -> np.ndarray:  # type: ignore[override]
        return ~self.__eq__(other)

    __hash__ = None  # type: ignore[assignment]

    def unique(self):
        """(first index of each distinct id, code of every id) with codes 0.. in order of
        first appearance; exact (hash groups are verified byte for byte)."""
        h = self.hashes()
        if len(h) == 0:
            return np.zeros(0, np.int64), np.zeros(0, np.int64)
        order = np.argsort(h)  # unstable (fast): each group's first index is its minimum
        hs = h[order]
        head = np.ones(len(hs), dtype=bool)
        head[1:] = hs[1:] != hs[:-1]
        rep = np.minimum.reduceat(order, np.flatnonzero(head))[np.cumsum(head) - 1]
        rep_of = np.empty(len(h), dtype=np.int64)
        rep_of[order] = rep
        if not self[rep_of].equal(self).all():  # a hash collision: exact codes by sorting
            return _unique_exact(self)
        firsts = np.flatnonzero(rep_of == np.arange(len(h)))
        code_of_first = np.full(len(h), -1, dtype=np.int64)
        code_of_first[firsts] = np.arange(len(firsts))
        return firsts, code_of_first[rep_of]


def _unique_exact(ids: Ids):
    values = np.array(ids.tolist(), dtype=object)
    _, first, inverse = np.unique(values, return_index=True, return_inverse=True)
    order = np.argsort(first, kind="stable")
    rank = np.empty(len(order), dtype=np.int64)
    rank[order] = np.arange(len(order))
    return first[order], rank[inverse.ravel()]


def as_ids(values) -> Ids:
    """An Ids column from Ids, an ``S`` array, or a sequence of bytes/str."""
    if isinstance(values, Ids):
        return values
    if isinstance(values, np.ndarray) and values.dtype.kind == "S":
        return Ids.from_fixed(values)
    return Ids.from_list(list(values))


def byte_ranks(values) -> np.ndarray:
    """Dense rank of each id in byte order (equal ids, equal rank), as trec_eval's strcmp.

    A most-significant-digit radix refinement, eight bytes (one big-endian word) per
    round: each round sorts only the ids still tied with another on every byte so far, so
    the cost is O(total bytes / 8) sorted words. Ids equal on all words differ at most by
    trailing NUL bytes, which the final sort by length orders (shorter first, as memcmp)."""
    ids = as_ids(values)
    n = len(ids)
    if n == 0:
        return np.zeros(0, dtype=np.int64)
    group = np.zeros(n, dtype=np.int64)  # position of the first of one's tie group
    active = np.arange(n)
    k = 0
    while len(active) > 1:
        key = ids.word(active, k).byteswap()  # big-endian: integer order is byte order
        # the first round has one group: a single-key sort, much cheaper than lexsort (and
        # need not be stable: equal keys get one tie group whatever their order)
        order = np.argsort(key) if k == 0 else np.lexsort((key, group[active]))
        a, g, key = active[order], group[active][order], key[order]
        pos = np.arange(len(a))
        new_group = np.ones(len(a), dtype=bool)
        new_group[1:] = g[1:] != g[:-1]
        head = new_group.copy()
        head[1:] |= key[1:] != key[:-1]
        first_of_group = np.maximum.accumulate(np.where(new_group, pos, 0))
        first_of_tie = np.maximum.accumulate(np.where(head, pos, 0))
        group[a] = g + (first_of_tie - first_of_group)
        k += 1
        # still tied with another, and some of the tie longer than the bytes compared
        starts = np.flatnonzero(head)
        sizes = np.diff(np.append(starts, len(a)))
        longest_tied = np.maximum.reduceat(ids.lens[a], starts)
        undecided = np.repeat((sizes > 1) & (longest_tied > 8 * k), sizes)
        active = a[undecided]
    longest = int(ids.lens.max())
    if n * (longest + 1) < (1 << 62):  # (group, length) as one integer: one sort, unstable
        order = np.argsort(group * (longest + 1) + ids.lens)  # (equal keys: equal ids)
    else:
        order = np.lexsort((ids.lens, group))
    change = np.ones(n, dtype=bool)
    change[1:] = (group[order][1:] != group[order][:-1]) | (
        ids.lens[order][1:] != ids.lens[order][:-1]
    )
    ranks = np.empty(n, dtype=np.int64)
    ranks[order] = np.cumsum(change) - 1
    return ranks
