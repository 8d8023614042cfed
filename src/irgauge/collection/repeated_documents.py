"""Documents a run retrieves twice for a topic: refused at the second copy's FILE:LINE, as
trec_eval refuses such runs, or recorded per topic (trec_eval 10.0 stops at such a topic
when it evaluates it)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, List, Optional, Tuple

import numpy as np

from irgauge.collection.evaluation_order import topics_grouped
from irgauge.errors import InputError
from irgauge.io.ids import byte_ranks
from irgauge.io.keys import exact_pair_keys, hash_strings, pair_keys
from irgauge.io.records import Run


@dataclass(frozen=True)
class RepeatedDocs:
    """The topics of a run whose documents kept (after ``max_docs``) hold a docno twice,
    one entry each: the topic's index in the judgments, the docno repeated that is first
    in byte order (the one trec_eval names) and the file lines of its first two copies."""

    topics: List[int]
    docnos: List[bytes]
    first_lines: List[int]
    lines: List[int]


def _copies(keys: np.ndarray, lines: np.ndarray) -> Tuple[np.ndarray, np.ndarray]:
    """Index pairs (earlier, later) of documents with equal keys, in file order."""
    order = np.lexsort((lines, keys))  # copies of a document next to each other
    same = np.flatnonzero(keys[order][1:] == keys[order][:-1])
    return order[same], order[same + 1]


def _repeated_pairs(
    keys: np.ndarray, lines: np.ndarray, codes: np.ndarray, docnos: Any
) -> Tuple[np.ndarray, np.ndarray]:
    """Index pairs (earlier, later by ``lines``) of the copies of a document: the same
    topic and docno. Keys hashing two documents alike are replaced by exact ones."""
    first, second = _copies(keys, lines)
    if not ((docnos[first] == docnos[second]) & (codes[first] == codes[second])).all():
        # a hash collision between documents (vanishingly rare): exact keys instead
        first, second = _copies(exact_pair_keys([codes], [docnos])[0], lines)
    return first, second


def repeated_docs(
    run: Run,
    taken: Tuple[Optional[np.ndarray], Optional[np.ndarray]],
    keys: np.ndarray,
    codes: np.ndarray,
    docnos: Any,
) -> Optional[RepeatedDocs]:
    """The topics whose documents (their keys, topic codes and docnos) hold a docno twice,
    or None (the usual case). ``taken``: (the rows of ``run`` matched, None for all; the
    documents' positions among them, None for all, in that order)."""
    if not _any_repeated(keys, codes):
        return None
    known, sequence = taken
    entries = np.arange(len(codes)) if sequence is None else sequence
    entries = entries if known is None else known[entries]  # each document's row of run
    lines = entries + 1 if run.line_numbers is None else run.line_numbers[entries]
    first, second = _repeated_pairs(keys, lines, codes, docnos)
    if not len(second):
        return None
    # per topic: the docno first in byte order, its first two copies
    pick = np.lexsort((lines[second], byte_ranks(docnos[second]), codes[second]))
    first, second = first[pick], second[pick]
    heads = np.flatnonzero(np.concatenate(([True], codes[second][1:] != codes[second][:-1])))
    first, second = first[heads], second[heads]
    return RepeatedDocs(
        codes[second].tolist(),
        docnos[second].tolist(),
        lines[first].tolist(),
        lines[second].tolist(),
    )


def _any_repeated(keys: np.ndarray, codes: np.ndarray, chunk: int = 1 << 16) -> bool:
    """Whether any key repeats, by a fast sort of the integer keys. A repeat lies within a
    topic, so when each topic's rows are contiguous they are sorted in chunks that end at
    a topic boundary: small temporaries, sorted in cache (5M keys: 0.10 s in chunks of
    2^20, 0.06 s in chunks of 2^16)."""
    if not topics_grouped(codes):
        ordered = np.sort(keys)
        return bool((ordered[1:] == ordered[:-1]).any())
    boundaries = np.append(np.flatnonzero(codes[1:] != codes[:-1]) + 1, len(keys))
    begin = 0
    while begin < len(keys):
        at = int(np.searchsorted(boundaries, begin + chunk))
        end = int(boundaries[min(at, len(boundaries) - 1)])
        ordered = np.sort(keys[begin:end])
        if (ordered[1:] == ordered[:-1]).any():
            return True
        begin = end
    return False


class RetrievedTwice(InputError):
    """A document retrieved twice for a topic: an error of the run as a whole, which a run
    read in parts tells only once every part is matched (see run_scoring)."""


def refuse_repeated_documents(run: Run, codes: np.ndarray, n_topics: int) -> None:
    """RetrievedTwice at the first second copy of a document ``run`` retrieves twice for a
    topic (``codes``: each entry's topic index, < 0 for topics left out), as
    :func:`match_run` refuses it: a pool or a reduction built from a run takes it as
    trec_eval's evaluation does, so that a run the evaluation refuses is refused there
    too rather than pooled with its second copy filling a place of the depth."""
    kept = np.flatnonzero(codes >= 0)
    rows = None if len(kept) == len(codes) else kept
    codes = codes if rows is None else codes[kept]
    docnos = run.docnos if rows is None else run.docnos[kept]
    keys = pair_keys(codes, hash_strings(docnos), n_topics)
    reject_duplicates(run, rows, keys, codes, docnos)


def reject_duplicates(
    run: Run, rows: Optional[np.ndarray], keys: np.ndarray, codes: np.ndarray, docnos: Any
) -> None:
    """RetrievedTwice naming the copy that comes first in the file among the documents'
    second (and later) copies, and the copy before it: the same line whatever the order
    of the entries (a part regrouped by topic and sorted by score has them out of file
    order). ``rows``: the entries of ``run`` that ``keys`` are of (None: all)."""
    if not _any_repeated(keys, codes):
        return  # the usual case
    entries = np.arange(len(keys)) if rows is None else rows
    lines = entries + 1 if run.line_numbers is None else run.line_numbers[entries]
    first, second = _repeated_pairs(keys, lines, codes, docnos)
    if not len(second):
        return  # hash collisions between different documents
    i = np.argmin(lines[second])
    later, earlier = entries[second[i]], entries[first[i]]
    raise RetrievedTwice(
        f"document {docnos[second[i]].decode(errors='backslashreplace')!r} is retrieved twice "
        f"for topic {run.topics[later].decode(errors='backslashreplace')!r} "
        f"(also on {run.position_unit} {run.line_of(earlier)}); "
        "trec_eval rejects such runs too",
        run.source,
        run.line_of(later),
        run.position_unit,
    )
