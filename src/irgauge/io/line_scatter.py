"""The lines of a text run sent to K files by a hash of their first token (the topic), as
the bytes they are: the partitioning of a file whose topics are not contiguous (see
:func:`irgauge.io.run_partitions.partitioned_parts`).

Only the first token of each line is looked at, with whole-block array operations: the
lines are tokenized once, when a partition is read back, not once here and again there.
Each partition file has a companion of the file line number of each of its lines (int64),
so that a partition read back names the lines of the file it came from. Blank and comment
lines are left out (they belong to no topic); every other line keeps its bytes and its line
end (LF, CRLF or a lone CR), and a last line without one gets an LF.
"""

from __future__ import annotations

import os
from typing import List, Optional, Tuple

import numpy as np

from irgauge.io._tokens import SEPARATORS, separator_mask
from irgauge.io.ids import Ids

LF, CR, HASH = 10, 13, ord("#")
WORD = 8
GATHER_WIDTH = 256  # lines up to this long are copied as fixed-width rows, then trimmed
LINE_NUMBER = np.dtype(np.int64)


def mixed(hashes: np.ndarray, salt: int) -> np.ndarray:
    """Hashes remixed for another partitioning (one bucket of the first holds hashes of
    one residue, which the same modulus would not split)."""
    if salt == 0:
        return hashes
    with np.errstate(over="ignore"):
        remixed = (hashes ^ np.uint64(salt)) * np.uint64(0x9E3779B97F4A7C15)
    return remixed ^ (remixed >> np.uint64(29))


def line_bounds(buf: np.ndarray, has_cr: bool = True) -> Tuple[np.ndarray, np.ndarray]:
    """(starts, ends) of the lines of a block, each end just past its line end (LF, CRLF
    or lone CR, as the tokenizer cuts lines); a last line without one ends at the block's
    end. ``has_cr``: False when the block holds no CR byte."""
    end_here = buf == LF
    if has_cr:  # a CR ends a line unless an LF follows it
        lone_cr = buf == CR
        lone_cr[:-1] &= buf[1:] != LF
        end_here |= lone_cr
    ends = np.flatnonzero(end_here) + 1
    if len(buf) and (len(ends) == 0 or ends[-1] != len(buf)):
        ends = np.append(ends, len(buf))
    starts = np.zeros(len(ends), dtype=np.int64)
    starts[1:] = ends[:-1]
    return starts, ends


def first_tokens(pool: np.ndarray, n_bytes: int, starts: np.ndarray, ends: np.ndarray):
    """(rows, token starts, token lengths) of the data lines among the lines starts..ends
    of ``pool`` (its first ``n_bytes`` the block, then at least eight zeros): their first
    token; blank and comment lines left out, as the tokenizer leaves them (its separators,
    SEPARATORS: a line of control bytes is a data line, refused when it is tokenized, not
    dropped here). A token's length stops at any byte <= 32 (see _token_lengths): a
    shorter key, the same for every line of the topic, so its lines still go together."""
    first = pool[starts]
    separator = SEPARATORS[first]
    data = ~separator & (first != HASH)
    indented = np.flatnonzero(separator)
    token = starts
    if len(indented):  # whitespace before the first token, or none at all (rare)
        solid = np.flatnonzero(~separator_mask(pool[:n_bytes]))
        found = np.append(solid, n_bytes)[np.searchsorted(solid, starts[indented])]
        token = starts.copy()
        token[indented] = found
        data[indented] = (found < ends[indented]) & (pool[found] != HASH)
    rows = np.flatnonzero(data)
    token = token[rows]
    return rows, token, _token_lengths(pool, token)


_BYTES_33 = np.uint64(0x2121212121212121)
_HIGH_BITS = np.uint64(0x8080808080808080)
_PLACES = np.uint64(0x0001020304050607)  # byte j holds 7 - j


def _token_lengths(pool: np.ndarray, token: np.ndarray) -> np.ndarray:
    """Bytes from each token start to the next byte <= 32 (every line has one: its line
    end, or the zeros after the block), eight bytes per step: the high bit of each byte
    below 33 is set with word arithmetic (exact for the first such byte), and the first
    one's place k read off by a multiplication that moves byte 7 - k of _PLACES (which
    is k) to the top."""
    words = np.ndarray((len(pool) - WORD + 1,), dtype="<u8", buffer=pool, strides=(1,))
    lengths = np.zeros(len(token), dtype=np.int64)
    rows = None  # all of them, the first time
    with np.errstate(over="ignore"):
        while rows is None or len(rows):
            at = token if rows is None else token[rows] + lengths[rows]
            word = words[at]
            below = (word - _BYTES_33) & ~word & _HIGH_BITS
            lowest = below & (~below + np.uint64(1))  # bit 8k + 7 of the first byte k
            place = ((lowest >> np.uint64(7)) * _PLACES) >> np.uint64(56)
            step = np.where(below != 0, place.astype(np.int64), WORD)
            if rows is None:
                lengths += step
                rows = np.flatnonzero(below == 0)
            else:
                lengths[rows] += step
                rows = rows[below == 0]
    return lengths


_LOW_BYTES = np.array([(1 << (8 * k)) - 1 for k in range(WORD)] + [(1 << 64) - 1], np.uint64)
_ODD = np.uint64(0x9E3779B97F4A7C15)  # a multiplication by it is a bijection of uint64


def token_keys(pool: np.ndarray, token: np.ndarray, lengths: np.ndarray) -> np.ndarray:
    """A 64-bit key of each token, spread over all bits: equal tokens, equal keys; for
    tokens of up to eight bytes (nearly every topic) different tokens, different keys
    (their bytes and length, which a byte <= 32 cannot fake, through a bijection). A
    longer token's key is its hash (Ids.hashes)."""
    words = np.ndarray((len(pool) - WORD + 1,), dtype="<u8", buffer=pool, strides=(1,))
    short = lengths <= WORD
    word = words[token] & _LOW_BYTES[np.minimum(lengths, WORD)]
    # the top byte of a token shorter than 8 bytes is free: its length goes there
    key = np.where(lengths < WORD, word | (lengths.astype(np.uint64) << np.uint64(56)), word)
    with np.errstate(over="ignore"):
        key *= _ODD
    if not short.all():
        long = np.flatnonzero(~short)
        key[long] = Ids(pool, token[long], lengths[long]).hashes()
    return key


def buckets(keys: np.ndarray, salt: int, count: int) -> np.ndarray:
    """The file (0..count-1, count <= 256) of each key: its top 32 bits scaled to count
    (a multiplication, not a division)."""
    top = mixed(keys, salt) >> np.uint64(32)
    return ((top * np.uint64(count)) >> np.uint64(32)).astype(np.uint8)


def gathered(pool: np.ndarray, starts: np.ndarray, lens: np.ndarray) -> np.ndarray:
    """The bytes of the lines starts..starts+lens of ``pool`` back to back, in that order.
    ``pool`` must hold GATHER_WIDTH bytes after its last line."""
    if len(lens) == 0:
        return np.zeros(0, np.uint8)
    width = int(lens.max())
    if width > GATHER_WIDTH:  # a long line: a copy through an index of every byte
        return Ids(pool, starts, lens).compacted().pool[: int(lens.sum())]
    rows = np.ndarray((len(pool) - width + 1,), dtype=f"V{width}", buffer=pool, strides=(1,))
    copied = rows[starts].view(np.uint8).reshape(-1, width)
    if not (lens != width).any():
        return copied.reshape(-1)
    masks = np.arange(width) < np.arange(width + 1)[:, None]  # row k: the first k bytes
    keep = masks.view(f"V{width}").ravel()[lens].view(bool).reshape(-1, width)
    return copied[keep]


class LineSpill:
    """Lines written to ``count`` files in ``folder`` (``prefix`` k ``.txt``, with their
    line numbers in ``prefix`` k ``.lines``) by the hash of their first token, remixed by
    ``salt``. Output is kept until about ``flush_bytes`` are waiting, then written with
    one call per file."""

    def __init__(self, folder: str, prefix: str, count: int, salt: int, flush_bytes: int):
        self.count, self.salt, self.flush_bytes = count, salt, flush_bytes
        self.paths = [os.path.join(folder, f"{prefix}{k}") for k in range(count)]
        self.waiting: List[Tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]] = []
        self.waiting_bytes = 0
        self.first_line: Optional[Tuple[bytes, int]] = None
        self.buffer: Optional[np.ndarray] = None
        self.files: list = []
        for path in self.paths:
            self.files.append((open(path + ".txt", "wb"), open(path + ".lines", "wb")))

    def add(self, block: bytes, numbers: Optional[np.ndarray], first_line: int) -> int:
        """The lines of a block of whole lines, numbered ``numbers`` (from its first entry
        on, one per line), else from ``first_line`` on; the number of lines in the block.
        The first data line seen is kept as ``first_line`` (its bytes and number)."""
        pool = self._pool(block)
        starts, ends = line_bounds(pool[: len(block)], has_cr=b"\r" in block)
        if len(block) and pool[len(block) - 1] not in (LF, CR):
            pool[len(block)] = LF  # the file's last line, without a line end
            ends[-1] += 1
        rows, token, token_lens = first_tokens(pool, len(block), starts, ends)
        if numbers is None:
            numbers = np.arange(first_line, first_line + len(starts), dtype=LINE_NUMBER)
        if len(rows) == 0:
            return len(starts)
        if self.first_line is None:
            first = int(rows[0])
            self.first_line = (block[starts[first] : ends[first]], int(numbers[first]))
        bucket = buckets(token_keys(pool, token, token_lens), self.salt, self.count)
        order = rows[np.argsort(bucket, kind="stable")]  # a radix sort of bytes
        line_starts = starts[order]
        lens = ends[order] - line_starts
        text = gathered(pool, line_starts, lens)
        self.waiting.append((text, numbers[order], np.bincount(bucket, minlength=self.count), lens))
        self.waiting_bytes += len(text)
        if self.waiting_bytes >= self.flush_bytes:
            self.flush()
        return len(starts)

    def _pool(self, block: bytes) -> np.ndarray:
        """The block's bytes, then zeros (GATHER_WIDTH + 1), in a buffer used again for
        the next block (its pages stay mapped: a new one would be faulted in anew)."""
        size = len(block) + GATHER_WIDTH + 1
        if self.buffer is None or len(self.buffer) < size:
            self.buffer = np.zeros(size + (size >> 3), dtype=np.uint8)
        pool = self.buffer[:size]
        pool[: len(block)] = np.frombuffer(block, np.uint8)
        pool[len(block) :] = 0
        return pool

    def flush(self) -> None:
        """Write the waiting lines, one write per file of its lines from every block."""
        pieces: List[List[Tuple[np.ndarray, np.ndarray]]] = [[] for _ in range(self.count)]
        for text, numbers, lines_per_file, lens in self.waiting:
            line_at = np.zeros(self.count + 1, dtype=np.int64)
            np.cumsum(lines_per_file, out=line_at[1:])
            byte_at = np.zeros(len(lens) + 1, dtype=np.int64)
            np.cumsum(lens, out=byte_at[1:])
            for k in np.flatnonzero(lines_per_file):
                a, b = int(line_at[k]), int(line_at[k + 1])
                pieces[k].append((text[byte_at[a] : byte_at[b]], numbers[a:b]))
        self.waiting, self.waiting_bytes = [], 0
        for (text_file, lines_file), mine in zip(self.files, pieces):
            if mine:
                text_file.write(b"".join(text.data for text, _ in mine))
                lines_file.write(b"".join(numbers.tobytes() for _, numbers in mine))

    def close(self, write: bool = True) -> List[str]:
        """The waiting lines written (unless not ``write``: after an error) and the files
        closed; their paths without suffix."""
        try:
            if write:
                self.flush()
        finally:
            for text_file, lines_file in self.files:
                text_file.close()
                lines_file.close()
        return self.paths
