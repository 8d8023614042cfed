"""Incomplete judgments (Sakai 2007, "Alternatives to bpref"): reduced qrels.

**Reduced relevance data** (Buckley and Voorhees). For each topic, its R judged relevant
documents (level >= ``rel_level``) and, separately, its N other judged documents are put in
random order ONCE (seeded: one uniform key per judgment, drawn in file order; each stratum
is sorted by its keys). For a rate j% the reduced qrels keep the first

    R_j = min(R, max(1, trunc(R*j/100)))   and   N_j = min(N, max(10, trunc(N*j/100)))

of the two lists. Since one order serves every rate, the qrels at a smaller rate are
contained in those at a larger one.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Dict, List, Optional, Sequence, Union

import numpy as np

from irgauge.io.atomic import write_bytes, write_text
from irgauge.io.staging import staged_outputs
from irgauge.io.records import Qrels
from irgauge.errors import InputError
from irgauge.io.qrels import read_qrels
from irgauge import _checks
from irgauge._checks import resolve_seed
from irgauge.io._source import read_twice
from irgauge.io.file_names import path_stem_and_suffix, strip_compression_suffix
from irgauge.io.file_text import pick_lines
from irgauge.types import QrelsLike, RatesLike

DEFAULT_RATES = (90, 70, 50, 30, 10)
MIN_RELEVANT, MIN_NONRELEVANT = 1, 10


def parse_rates(
    rates: Union[str, float, Sequence[float], None], source: Optional[str] = None
) -> List[float]:
    """Rates in (0, 100], from ``"90,70,50"`` or a sequence; duplicates dropped, largest first."""
    if rates is None:
        return list(DEFAULT_RATES)
    # "90,70,50" is documented; any other value is a sequence of numbers (or one number)
    items = (
        _checks.items(rates, None, "rates", spaces=False)
        if isinstance(rates, str)
        else _checks.sequence(rates, "rates", lambda rate, name: rate)
    )
    parsed = []
    for item in items:
        try:
            if isinstance(item, str) and not _checks.plain_number_text(item):
                raise ValueError(item)  # 0_5 (5.0 to float()), full-width digits
            value = float(item)
        except (TypeError, ValueError):
            raise InputError(f"rate {item!r} is not a number", source) from None
        if not (0 < value <= 100):
            raise InputError(f"rate {item!r} is outside (0, 100]", source)
        parsed.append(int(value) if value.is_integer() else value)
    if not parsed:
        raise InputError("no rates given", source)
    return sorted(set(parsed), reverse=True)


def kept_counts(total: np.ndarray, rate: float, minimum: int) -> np.ndarray:
    """``min(total, max(minimum, trunc(total * rate / 100)))`` elementwise."""
    total = np.asarray(total, dtype=np.int64)
    share = np.floor(total * float(rate) / 100.0).astype(np.int64)
    return np.minimum(total, np.maximum(minimum, share))


@dataclass
class Reduction:
    """The shuffled strata of a qrels and what each rate keeps.

    ``position[i]``: place of judgment i in its (topic, relevant or not) stratum after the
    shuffle; judgment i is kept at rate j when ``position[i] < count_j`` of its stratum.
    """

    qrels: Qrels
    rates: List[float]
    seed: int
    rel_level: int
    topic_ids: List[str]
    topic: np.ndarray
    relevant: np.ndarray
    position: np.ndarray
    R: np.ndarray
    N: np.ndarray
    _kept: Dict[float, np.ndarray] = field(default_factory=dict, repr=False)

    kind = "rate"  # what a step of the reduction is (see collection/depth_reduce.py)

    @property
    def steps(self) -> List[float]:
        return self.rates

    @staticmethod
    def label(rate: float) -> str:
        return _label(rate)

    def keep_mask(self, rate: float) -> np.ndarray:
        if rate not in self._kept:
            limit = np.where(
                self.relevant,
                kept_counts(self.R, rate, MIN_RELEVANT)[self.topic],
                kept_counts(self.N, rate, MIN_NONRELEVANT)[self.topic],
            )
            self._kept[rate] = self.position < limit
        return self._kept[rate]

    def qrels_at(self, rate: float) -> Qrels:
        """The reduced qrels at ``rate`` (the original at 100)."""
        if rate == 100:
            return self.qrels
        q, keep = self.qrels, self.keep_mask(rate)
        lines = q.line_numbers[keep] if q.line_numbers is not None else None
        return Qrels(
            q.topics[keep], q.docnos[keep], q.levels[keep], f"{q.source}@{rate}%", q.fmt, lines
        )

    def manifest(self) -> Dict[str, Any]:
        """Seed, rates and, per topic, R, N and the counts kept at each rate."""
        topics = {}
        for t, name in enumerate(self.topic_ids):
            topics[name] = {
                "R": int(self.R[t]),
                "N": int(self.N[t]),
                "kept": {
                    _label(j): {
                        "R": int(kept_counts(self.R[t], j, MIN_RELEVANT)),
                        "N": int(kept_counts(self.N[t], j, MIN_NONRELEVANT)),
                    }
                    for j in self.rates
                },
            }
        return {
            "method": "reduced relevance data (Buckley and Voorhees 2004, as in Sakai 2007)",
            "source": self.qrels.source,
            "format": self.qrels.fmt,
            "seed": self.seed,
            "rates": self.rates,
            "rel_level": self.rel_level,
            "rule": "keep first min(R, max(1, trunc(R*j/100))) relevant and "
            "min(N, max(10, trunc(N*j/100))) nonrelevant of one seeded shuffle "
            "per topic",
            "judgments": {_label(j): int(self.keep_mask(j).sum()) for j in self.rates},
            "topics": topics,
        }


def _label(rate: float) -> str:
    return str(int(rate)) if float(rate).is_integer() else str(rate)


def reduce_qrels(
    qrels: QrelsLike,
    rates: RatesLike = DEFAULT_RATES,
    seed: Optional[int] = None,
    rel_level: int = 1,
) -> Reduction:
    """Reduced relevance data at each rate (see the module docstring); seeded."""

    q = read_qrels(qrels)
    rates = parse_rates(rates, q.source)
    if rel_level < 1:
        raise InputError(f"relevance level threshold must be >= 1, got {rel_level}")
    seed = resolve_seed(seed)
    topic_ids = q.topic_ids
    topic = q.topic_index.codes
    relevant = q.levels >= rel_level
    keys = np.random.default_rng(seed).random(len(q))
    stratum = topic.astype(np.int64) * 2 + relevant
    order = np.lexsort((keys, stratum))
    sizes = np.bincount(stratum, minlength=2 * len(topic_ids))
    starts = np.concatenate(([0], np.cumsum(sizes)[:-1]))
    position = np.empty(len(q), dtype=np.int64)
    position[order] = np.arange(len(q)) - starts[stratum[order]]
    R, N = sizes[1::2], sizes[0::2]
    return Reduction(q, rates, seed, rel_level, topic_ids, topic, relevant, position, R, N)


def write_reduced(reduction, out_dir) -> Dict[str, Any]:
    """Write the qrels of every step (rate, or depth of a
    :class:`~irgauge.collection.depth_reduce.DepthReduction`) in the input's format, named
    ``STEM.LABEL.SUFFIX`` (``qrels.50.txt``, ``qrels.depth10.txt``), and ``manifest.json``.

    When the qrels came from a file, each reduced file holds the kept lines of that file
    exactly as written (same format, labels and order); otherwise TREC lines
    ``topic 0 docno level``. Files are written to a temporary folder and moved into
    ``out_dir`` once all are complete (manifest last). Returns the manifest (with the file
    names).
    """
    with staged_outputs(out_dir) as stage:
        return _write_reduced_files(reduction, stage)


def _write_reduced_files(reduction, out: Path) -> Dict[str, Any]:

    q = reduction.qrels
    source = Path(q.source) if not q.source.startswith("<") else None
    table = q.fmt == "arrow"  # a Parquet or Arrow table: its rows are written as text
    # the kept lines as written: the file read again through the input module, the lines
    # of every step at once
    lines: Optional[Dict[int, bytes]] = None
    if source is not None and read_twice(source) and q.line_numbers is not None and not table:
        kept_anywhere = np.logical_or.reduce([reduction.keep_mask(s) for s in reduction.steps])
        numbers = np.unique(q.line_numbers[kept_anywhere]).tolist()
        lines = dict(zip(numbers, pick_lines(source, numbers)))
    stem, suffix = _name_parts(source)
    suffix = ".txt" if table else suffix
    files = {}
    for step in reduction.steps:
        keep = np.flatnonzero(reduction.keep_mask(step))
        if lines is not None:
            body = [lines[int(n)] for n in np.sort(q.line_numbers[keep])]
        else:
            body = [b"%s 0 %s %d" % (q.topics[i], q.docnos[i], q.levels[i]) for i in keep]
        name = f"{stem}.{reduction.label(step)}{suffix}"
        write_bytes(out / name, b"\n".join(body) + b"\n")
        files[reduction.label(step)] = name
    manifest = reduction.manifest()
    manifest["files"] = files
    write_text(out / "manifest.json", json.dumps(manifest, indent=2) + "\n")
    return manifest


def _name_parts(source: Optional[Path]):
    """(stem, suffix) of the reduced files: the input's, without a compression suffix (they
    are written uncompressed); standard input or a pipe, whose names ('-', '/dev/fd/63')
    would make files named '-.50' or '63.50', give 'qrels' and '.txt'."""
    if source is None or not read_twice(source):
        return "qrels", ".txt"
    stem, suffix = path_stem_and_suffix(strip_compression_suffix(source.name))
    return (stem, suffix) if stem and not stem.startswith("-") else ("qrels", suffix or ".txt")
