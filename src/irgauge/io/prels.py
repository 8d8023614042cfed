"""Read "prels": judgments of a sample, each with its probability of having been sampled.

Two layouts, told apart by the column count (every line has the same):

- ``topic docno level inclusion`` (4 columns);
- ``topic docno level method inclusion`` (5 columns): the prels of the TREC Million Query
  track 2008-2009 and the Web track 2009, read as their statAP_MQ_eval reads them:
  ``method`` says which of the track's selection methods picked the document, and a
  document picked by MTC (method 0, or 2: by both) counts as judged for sure, its
  inclusion probability 1 whatever the line says (the script's "collision" rule). As the
  script does, two kinds of line are skipped, not refused: a level of -999 or below (a
  document not sampled) and an inclusion probability ``NA`` (none known); neither counts
  as a judgment, and a topic whose every line is skipped is not judged.

``level`` is a relevance level as in qrels (an integer, ``L<k>`` or S/A/B);
``inclusion`` is a decimal number in (0, 1]. A bad line is refused at FILE:LINE. In the
4-column layout nothing is skipped: a negative level is a judgment's level as in qrels
(with ``negative="unjudged"``, a pooled document left unsampled, as sample_eval.pl
reads any negative level, -999 too), and ``NA`` is no number.
"""

from __future__ import annotations

from typing import Iterator, Optional, Union

import numpy as np

from irgauge import _checks
from irgauge.errors import InputError
from irgauge.io._numbers import parse_floats
from irgauge.io._source import iter_blocks, size_hint
from irgauge.io.file_names import PathLike, file_path
from irgauge.io._tokens import BLOCK_BYTES, tokenize
from irgauge.io.ids import Ids
from irgauge.io.qrels import parse_levels
from irgauge.io.records import Qrels

INCLUSION_COLUMN = {4: 3, 5: 4}  # by column count
METHOD_COLUMN = 3  # of the 5-column layout
CERTAIN_METHODS = (0, 2)  # MTC alone, or MTC and statAP: statAP_MQ_eval sets pi = 1
NOT_SAMPLED = -999  # statAP_MQ_eval skips a line at this level or below
NO_PROBABILITY = b"NA"  # statAP_MQ_eval skips a line with this probability
# the column header of a pool's TSV (irgauge pool): four columns as prels have, the third
# the judging order where prels hold a level; every pool carries it (--no-header leaves
# out the # lines only), so a pool given as prels is refused at it, never read as levels
POOL_COLUMNS = ("topic", "docno", "order", "inclusion")


@_checks.renamed_keywords(threads="jobs")
def read_prels(source: Union[PathLike, Qrels], jobs: Optional[int] = None) -> Qrels:
    """Prels from a path (``-`` for standard input), or Qrels that carry inclusion
    probabilities: Qrels whose ``inclusion`` holds each judgment's probability. ``jobs``:
    as for :func:`~irgauge.read_qrels`."""
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
    return _from_path(file_path(source, "prels", "prels", accepted), jobs)


def _from_path(path: PathLike, threads: Optional[int]) -> Qrels:
    name = str(path)
    table = tokenize(
        _refusing_a_pool(iter_blocks(name, BLOCK_BYTES), name),
        name,
        allowed_columns=(4, 5),
        keep={4: (0, 1, 2, 3), 5: (0, 1, 2, 3, 4)},
        numbers={4: {3: "inclusion probability"}, 5: {3: "method"}},
        unhashed={4: (2,), 5: (2, 4)},
        threads=threads,
        size_hint=size_hint(path),
    )
    columns = table.columns
    topics, docnos, level_tokens = columns[0], columns[1], columns[2]
    assert isinstance(level_tokens, Ids)  # the level column is kept unhashed
    levels = parse_levels(level_tokens, table)
    lines = table.line_numbers
    if table.n_columns == 5:
        tokens = columns[INCLUSION_COLUMN[5]]
        assert isinstance(tokens, Ids)
        rows = np.flatnonzero((levels > NOT_SAMPLED) & ~_is(tokens, NO_PROBABILITY))
        inclusion = parse_floats(tokens[rows], name, lines[rows], "inclusion probability")
        method = np.asarray(columns[METHOD_COLUMN], dtype=np.float64)[rows]
        inclusion = np.where(np.isin(method, CERTAIN_METHODS), 1.0, inclusion)
        assert topics is not None and docnos is not None  # both columns are kept
        topics, docnos, levels, lines = topics[rows], docnos[rows], levels[rows], lines[rows]
    else:
        inclusion = np.asarray(columns[INCLUSION_COLUMN[4]], dtype=np.float64)
    check_inclusion(inclusion, name, lines)
    return Qrels.from_arrays(
        topics,
        docnos,
        levels,
        source=name,
        fmt="prels",
        line_numbers=lines,
        inclusion=inclusion,
    )


def _is(tokens: Ids, word: bytes) -> np.ndarray:
    """Whether each token is ``word``, byte for byte."""
    out = tokens.lens == len(word)
    for k, byte in enumerate(word):
        out[out] = tokens.pool[tokens.starts[out] + k] == byte
    return out


def _refusing_a_pool(blocks: Iterator[bytes], name: str) -> Iterator[bytes]:
    """``blocks`` passed on, after a look at the first line that is neither blank nor a
    ``#`` comment: a pool's column header is refused there (FILE:LINE)."""
    looking = True
    line_number = 0
    for block in blocks:
        start = 0
        while looking and start < len(block):
            end = block.find(b"\n", start)
            end = len(block) if end < 0 else end + 1
            line, start = block[start:end], end
            line_number += 1
            if line_number == 1:
                line = line.removeprefix(b"\xef\xbb\xbf")  # a BOM before the header
            fields = line.split()
            if not fields or fields[0].startswith(b"#"):
                continue
            looking = False
            if tuple(f.decode("latin-1").lower() for f in fields) == POOL_COLUMNS:
                raise InputError(
                    "this is a pool (columns topic, docno, order, inclusion, as irgauge "
                    "pool writes them), not prels: prels give each sampled document's "
                    "relevance level (topic docno level inclusion), a pool its judging "
                    "order",
                    name,
                    line_number,
                )
        yield block


# The smallest inclusion probability read. The estimators' terms reach the fourth power
# of a weight w = 1/pi (statAP's variance: y(d)^2 and w(d)^2 below(d)^2, each ~ w^4,
# summed over up to 2^40 documents), so every estimate stays a finite double only while
# 2^40 w^4 < 2^1024, i.e. pi >= 2^-246 (about 8.84e-75). No real sample comes near it.
MIN_INCLUSION = 2.0**-246


def check_inclusion(inclusion: np.ndarray, source: str, line_numbers=None) -> None:
    """InputError at the first line whose inclusion probability lies outside (0, 1] or
    below MIN_INCLUSION = 2^-246: a document sampled with probability 0 could not have
    been judged, above 1 is no probability (NaN fails too), and below 2^-246 the
    estimators' terms in (1/pi)^4 (statAP's variance) overflow a double."""
    outside = ~((inclusion > 0) & (inclusion <= 1))
    tiny = inclusion < MIN_INCLUSION
    bad = np.flatnonzero(outside | tiny)
    if len(bad):
        i = int(bad[0])
        line = int(line_numbers[i]) if line_numbers is not None else i + 1
        problem = (
            "is outside (0, 1]"
            if outside[i]
            else f"is below {MIN_INCLUSION:.3g} (2^-246): the estimates in (1/pi)^4 "
            "(statAP's variance) would overflow"
        )
        raise InputError(f"inclusion probability {float(inclusion[i])!r} {problem}", source, line)
