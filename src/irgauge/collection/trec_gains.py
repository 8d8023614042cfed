"""trec_eval 10.0's gain table (gain_init.c), for its gain measures given ``level=gain``
pairs (``ndcg.1=3,2=9``, ``G``, ``dcg``, ``ideal_dcg``, ``ndcg_rel``, ``Rndcg``).

For each topic, setup_gains builds a table of entries (level, gain, count):

1. every pair whose name is an integer, in the order given (a level may come twice);
2. then each level i = 0 .. L-1 (L: the topic's highest judged level + 1): the first
   entry of step 1 with level i takes the count of the topic's documents judged i;
   a level not given is added with gain i and that count.

The entries are sorted by ``comp_rel_gain``, which returns the difference of two gains
converted to an int: truncated toward 0, and INT_MIN for a NaN or a difference outside
an int (x86-64's conversion). Gains less than 1 apart thus compare equal, and the order
is not transitive where differences overflow; glibc's qsort is a stable top-down merge
sort (msort.c), reproduced here step for step, so the order is trec_eval's.

From the sorted table (ascending, as far as the comparison goes):

- a document's gain in the run is ``get_gain``: the gain of the first entry with its
  level (a document outside the qrels has level -1, one judged with a negative level
  -2), 0 if none;
- the ideal ranking walks the table from its last entry down: each entry gives its
  count of documents its gain, until an entry that has documents and a gain that is
  not above 0 (NaN included); nothing at all when the last entry's gain is not above 0.

Only the table's order depends on the topic, through L: it is built once per L.
"""

from __future__ import annotations

import math
from typing import Callable, Dict, List, Sequence, Tuple, TypeVar

import numpy as np

INT_MIN, INT_MAX = -(1 << 31), (1 << 31) - 1
NONPOOL, UNJUDGED_IN_POOL = -1, -2  # trec_eval's RELVALUE_NONPOOL, RELVALUE_UNJUDGED

Entry = Tuple[int, float, int]  # (level, gain, index of the level's counting entry or -1)
T = TypeVar("T")


def c_int(x: float) -> int:
    """``(int) x`` as x86-64 converts a double (cvttsd2si): truncated toward 0, INT_MIN
    for a NaN or a value whose truncation lies outside an int."""
    if math.isnan(x) or math.isinf(x):
        return INT_MIN
    truncated = math.trunc(x)
    return truncated if INT_MIN <= truncated <= INT_MAX else INT_MIN


def compare_gains(a: float, b: float) -> int:
    """comp_rel_gain: ``(int) (a - b)``."""
    return c_int(a - b)


def glibc_msort(items: Sequence[T], compare: Callable[[T, T], int]) -> List[T]:
    """glibc's qsort (msort_with_tmp) with C comparison ``compare``: split at n/2, sort
    both halves, merge taking the left item while compare(left, right) <= 0. Its order
    is C's even where ``compare`` is not transitive."""
    n = len(items)
    if n <= 1:
        return list(items)
    half = n // 2
    left = glibc_msort(items[:half], compare)
    right = glibc_msort(items[half:], compare)
    merged: List[T] = []
    i = j = 0
    while i < len(left) and j < len(right):
        if compare(left[i], right[j]) <= 0:
            merged.append(left[i])
            i += 1
        else:
            merged.append(right[j])
            j += 1
    return merged + left[i:] + right[j:]


def _by_gain(a: Entry, b: Entry) -> int:
    return compare_gains(a[1], b[1])


def parse_pairs(text: str) -> Tuple[Tuple[int, float], ...]:
    """``"1=3;-1=0.5"`` (levels as C longs, gains as doubles, ``nan``/``-nan``/``inf``
    spelled out) -> ((1, 3.0), (-1, 0.5)), in the order given."""
    pairs = []
    for part in filter(None, text.split(";")):
        level, eq, gain = part.partition("=")
        if not eq:
            raise ValueError(text)
        pairs.append((int(level), float(gain)))
    return tuple(pairs)


def pairs_text(pairs: Sequence[Tuple[int, float]]) -> str:
    return ";".join(f"{level}={_gain_text(gain)}" for level, gain in pairs)


def _gain_text(gain: float) -> str:
    if math.isnan(gain):
        return "-nan" if math.copysign(1.0, gain) < 0 else "nan"
    return repr(float(gain))


class TrecGainTable:
    """setup_gains' table for the pairs given, per number of levels L (see the module)."""

    def __init__(self, pairs: Sequence[Tuple[int, float]], rbp: bool = False):
        self.pairs = tuple(pairs)
        self.rbp = rbp  # m_rbp.c's gains, brought into [0, 1] (``run_gains``)
        self._sorted: Dict[int, List[Entry]] = {}

    def sorted_entries(self, levels: int) -> List[Entry]:
        """The table of a topic with ``levels`` levels (0 .. levels-1), sorted; an entry's
        third field is the level it counts documents for, or -1 (it counts none)."""
        if levels not in self._sorted:
            entries: List[Entry] = []
            given = set()
            for level, gain in self.pairs:
                counts = 0 <= level < levels and level not in given
                given.add(level)
                entries.append((level, gain, level if counts else -1))
            for level in range(levels):
                if level not in given:
                    entries.append((level, float(level), level))
            self._sorted[levels] = glibc_msort(entries, _by_gain)
        return self._sorted[levels]

    def run_gains(self, levels: int, low: int, high: int) -> np.ndarray:
        """get_gain of each trec_eval level low .. high for a topic with ``levels``; for
        rbp, from the table brought into [0, 1] as m_rbp.c does."""
        entries = self.sorted_entries(levels)
        if self.rbp:
            entries = _rbp_normalised(entries)
        found: Dict[int, float] = {}
        for level, gain, _ in entries:
            found.setdefault(level, gain)
        return np.array([found.get(level, 0.0) for level in range(low, high + 1)], np.float64)

    def ideal(self, levels: int, counts: np.ndarray) -> List[float]:
        """The ideal ranking's gains (see the module), ``counts[i]``: documents judged i."""
        entries = self.sorted_entries(levels)
        if not entries or not entries[-1][1] > 0.0:
            return []
        gains: List[float] = []
        for _, gain, counted in reversed(entries):
            count = int(counts[counted]) if counted >= 0 else 0
            if count == 0:
                continue
            if not gain > 0.0:
                break
            gains.extend([gain] * count)
        return gains


def _rbp_normalised(entries: List[Entry]) -> List[Entry]:
    """m_rbp.c: the table's lowest and highest gains (a NaN compares false), from 0, as
    its uninitialised min and max are when nothing ran before it; where they leave
    [0, 1], every gain becomes (gain - min) / (max - min). A level not in the table
    keeps get_gain's 0."""
    low = high = 0.0
    for _, gain, _ in entries:
        if gain < low:
            low = gain
        if gain > high:
            high = gain
    if not (low < 0 or high > 1):
        return entries
    with np.errstate(all="ignore"):  # C's quotients: infinities and NaNs
        scale = np.float64(high) - np.float64(low)
        return [(level, float((np.float64(g) - low) / scale), c) for level, g, c in entries]
