"""Read "prels": judgments of a sample, each with its probability of having been sampled.

Two layouts, told apart by the column count (every line has the same):

- ``topic docno level inclusion`` (4 columns);
- ``topic docno level method inclusion`` (5 columns): the prels of the TREC Million Query
  track 2008-2009 and the Web track 2009, read by statAP_MQ_eval (``method`` says which of
  the track's selection methods picked the document; it is read and set aside).

``level`` is a relevance level as in qrels (an integer, ``L<k>`` or S/A/B);
``inclusion`` is a decimal number in (0, 1]. A bad line is refused at FILE:LINE.
"""

from __future__ import annotations

from typing import Optional, Union

import numpy as np

from irgauge.errors import InputError
from irgauge.io._source import PathLike, file_path, iter_blocks, size_hint
from irgauge.io._tokens import BLOCK_BYTES, tokenize
from irgauge.io.ids import Ids
from irgauge.io.qrels import parse_levels
from irgauge.io.records import Qrels

INCLUSION_COLUMN = {4: 3, 5: 4}  # by column count


def read_prels(source: Union[PathLike, Qrels], threads: Optional[int] = None) -> Qrels:
    """Prels from a path (``-`` for standard input), or Qrels that carry inclusion
    probabilities: Qrels whose ``inclusion`` holds each judgment's probability."""
    if isinstance(source, Qrels):
        if source.inclusion is None:
            raise InputError(
                "prels must give each judgment's inclusion probability; these qrels give none",
                source.source,
                parameter="prels",
            )
        check_inclusion(source.inclusion, source.source, source.line_numbers)
        return source
    accepted = "a file path or Qrels with inclusion probabilities"
    return _from_path(file_path(source, "prels", "prels", accepted), threads)


def _from_path(path: PathLike, threads: Optional[int]) -> Qrels:
    name = str(path)
    table = tokenize(
        iter_blocks(name, BLOCK_BYTES),
        name,
        allowed_columns=(4, 5),
        keep={4: (0, 1, 2, 3), 5: (0, 1, 2, 4)},
        numbers={n: {column: "inclusion probability"} for n, column in INCLUSION_COLUMN.items()},
        unhashed={4: (2,), 5: (2,)},
        threads=threads,
        size_hint=size_hint(path),
    )
    columns = table.columns
    topics, docnos, level_tokens = columns[0], columns[1], columns[2]
    assert isinstance(level_tokens, Ids)  # the level column is kept unhashed
    inclusion = np.asarray(columns[INCLUSION_COLUMN[table.n_columns]], dtype=np.float64)
    check_inclusion(inclusion, name, table.line_numbers)
    return Qrels.from_arrays(
        topics,
        docnos,
        parse_levels(level_tokens, table),
        source=name,
        fmt="prels",
        line_numbers=table.line_numbers,
        inclusion=inclusion,
    )


def check_inclusion(inclusion: np.ndarray, source: str, line_numbers=None) -> None:
    """InputError at the first line whose inclusion probability lies outside (0, 1] or
    below 1/max float: a document sampled with probability 0 could not have been judged,
    above 1 is no probability (NaN fails too), and below 1/max float its Horvitz-Thompson
    weight 1/pi is infinite."""
    outside = ~((inclusion > 0) & (inclusion <= 1))
    # a probability so small that its weight 1/pi overflows makes every estimate infinite
    tiny = inclusion < 1 / np.finfo(np.float64).max
    bad = np.flatnonzero(outside | tiny)
    if len(bad):
        i = int(bad[0])
        line = int(line_numbers[i]) if line_numbers is not None else i + 1
        problem = "is outside (0, 1]" if outside[i] else "is too small: its weight 1/pi overflows"
        raise InputError(f"inclusion probability {float(inclusion[i])!r} {problem}", source, line)
