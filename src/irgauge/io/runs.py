"""Read runs: TREC runs (``qid Q0 docno rank score tag``), NTCIREVAL-style ranked lists
(``qid docno`` in rank order, or one ``docno`` per line for a single topic named by the
file's stem), Parquet and Arrow tables (:mod:`irgauge.io.arrow_tables`), pandas DataFrames
and ``{qid: {docno: score}}`` dicts.

The rank column of a TREC run is not read: trec_eval ignores it, and files with
0-based or placeholder ranks are common.
"""

from __future__ import annotations

import os
import re
from typing import Any, Mapping, Optional, Tuple

import numpy as np

from irgauge import _checks
from irgauge.io.ids import Ids
from irgauge.io.records import IdKeys, Run
from irgauge.errors import InputError
from irgauge.io._source import iter_blocks, size_hint
from irgauge.io.file_names import (
    PathLike,
    file_path,
    path_name,
    path_stem_and_suffix,
    strip_compression_suffix,
)
from irgauge.io._tokens import BLOCK_BYTES, TokenTable, tokenize
from irgauge.io.arrow_tables import read_arrow_run, table_format
from irgauge.io.adapters import adapted_frame, as_score, frame_scores, run_sources
from irgauge.io.qrels import inner_mapping, memory_ids
from irgauge.types import RunLike


RUN_KINDS = "a file path, a DataFrame, a {topic: {docno: score}} dict or Run"


@_checks.renamed_keywords(threads="jobs")
def read_run(source: RunLike, name: Optional[str] = None, jobs: Optional[int] = None) -> Run:
    """Read one run from a path (``-`` for standard input), DataFrame, dict or Run.
    ``jobs``: as for :func:`~irgauge.read_qrels`."""
    if isinstance(source, Run):
        return source
    if source is None:  # a forgotten argument, not a file named "None"
        raise InputError("no run given", parameter="runs")
    if isinstance(source, Mapping):
        return _from_mapping(source, name or "run")
    if hasattr(source, "columns"):
        return _from_frame(source, name or "run")
    return _from_path(source, name, jobs)


# Why a run file given twice is refused, by the kind of comparison: the words after
# "this run file is given twice: ".
GROUPS = "runs compared as groups must differ (a twin stays in the pool when the other is left out)"
SYSTEMS = (
    "systems compared must differ (a run paired with itself, no difference on any topic, "
    "would enter every statistic)"
)


def read_runs(runs: Any, distinct: bool = False, why: str = GROUPS) -> list:
    """The runs given (one run, a list of runs or a ``{name: run}`` mapping, see
    :func:`~irgauge.io.adapters.run_sources`), read: what every function taking ``runs``
    reads them with, so that one path is one run, not a list of one-letter paths.

    ``distinct``: a run file given twice (the same file by any path) is refused, naming
    it, with reason ``why`` (:func:`refuse_twins`)."""
    sources = run_sources(runs)
    if distinct:
        _refuse_a_file_twice([source for source, _ in sources], why)
    return [read_run(source, name=name) for source, name in sources]


def refuse_twins(runs: Any, why: str = SYSTEMS) -> None:
    """Refuse a run file given twice among ``runs`` (the same file by any path, a link
    too), naming it, without reading any run. Where runs are compared as groups (a
    leave-one-out, a pool, ``why=GROUPS``), a twin left in the pool keeps every document of
    the run left out; where they are compared as systems (``SYSTEMS``), the pair of a run
    with itself (every difference 0, the same ranking) shifts discriminative power, swap
    rates, tau and agreement. Runs given as data are distinct runs, as given."""
    if runs is not None:
        _refuse_a_file_twice([source for source, _ in run_sources(runs)], why)


def _refuse_a_file_twice(sources: list, why: str) -> None:
    seen = set()
    for source in sources:
        if not isinstance(source, (str, os.PathLike)) or str(source) == "-":
            continue
        try:
            found = os.stat(source)
        except OSError:  # the reader names a file that cannot be read
            continue
        key = (found.st_dev, found.st_ino)
        if key in seen:
            raise InputError(f"this run file is given twice: {why}", str(source), parameter="runs")
        seen.add(key)


def unique_run_names(runs) -> list:
    """Names of runs given as (name, source) pairs, made unique by file names (or numbers)
    where names collide: what every output calls each run."""
    names = [name for name, _ in runs]
    if len(set(names)) == len(names):
        return names
    stems = [path_name(source) if not source.startswith("<") else name for name, source in runs]
    if len(set(stems)) == len(stems):
        return stems
    return [f"{n}#{i + 1}" for i, n in enumerate(names)]


def _file_stem(path: str) -> str:
    return path_name(strip_compression_suffix(path))


def _from_path(path: PathLike, name: Optional[str], threads=None) -> Run:
    path = file_path(path, "a run", "runs", RUN_KINDS)
    if table_format(path):
        return read_arrow_run(path, name)
    first_line: list = []  # (found, tag) of the first data line, once a block holds it

    def blocks():
        for block in iter_blocks(path, BLOCK_BYTES):
            if not first_line:
                found, tag = data_line_tag(block)
                if found:
                    first_line.append(tag)
            yield block

    table = tokenize_run(blocks(), path, threads=threads, size_hint=size_hint(path))
    tag = first_line[0] if first_line and table.n_columns == 6 else None
    return run_from_table(table, path, name, tag, _sparse_lines(table.line_numbers))


def tokenize_run(blocks, path: str, **options) -> TokenTable:
    """The columns of a run's lines: 6 (TREC), 2 (``qid docno``) or 1 (``docno``).
    The rank column is not read (see above), nor the tag past the first line."""
    return tokenize(
        blocks,
        path,
        allowed_columns=(1, 2, 6),
        keep={6: (0, 2, 4)},
        trailing_after=6,
        numbers={6: {4: "score"}},
        **options,
    )


def run_from_table(
    table: TokenTable, path: str, name: Optional[str], tag: Optional[str], line_numbers
) -> Run:
    """The Run of a tokenized run file (or part of one): named ``name``, else by the first
    line's ``tag`` (TREC runs), else by the file's name. ``line_numbers``: as Run takes them
    (None when entry i is on line i + 1)."""
    if table.n_columns == 6:
        return Run(
            name=name or tag or _file_stem(path),
            topics=table.ids(0),
            docnos=table.ids(2),
            scores=table.numbers(4),
            natural_order="score",
            source=path,
            line_numbers=line_numbers,
            tag=tag,
        )
    if table.n_columns == 2:
        topics, docnos = table.ids(0), table.ids(1)
    else:
        topics = Ids.full(path_stem_and_suffix(_file_stem(path))[0].encode(), len(table))
        docnos = table.ids(0)
    return Run(
        name=name or _file_stem(path),
        topics=topics,
        docnos=docnos,
        scores=None,
        natural_order="file",
        source=path,
        line_numbers=line_numbers,
    )


def _sparse_lines(lines: np.ndarray) -> Optional[np.ndarray]:
    """None when data line i is file line i + 1 (no comment or blank line): a run
    needs its line numbers only to name a line in an error."""
    return None if len(lines) and lines[-1] == len(lines) else lines


def first_tag(data) -> Optional[str]:
    """The tag (sixth field) of the first data line, which names the run as in trec_eval.
    ``data``: bytes, or whole-line blocks in file order (the first data line may come
    after blocks of comments)."""
    for block in [data] if isinstance(data, (bytes, bytearray, memoryview)) else data:
        found, tag = data_line_tag(block)
        if found:
            return tag
    return None


def data_line_tag(block) -> Tuple[bool, Optional[str]]:
    """Whether ``block`` holds a data line, and the tag of its first (None without one)."""
    for match in _LINE.finditer(block):  # lines end at LF, CRLF or CR
        fields = match.group().split()
        if fields and not fields[0].startswith(b"#"):
            tag = fields[5].decode("utf-8", "backslashreplace") if len(fields) >= 6 else None
            return True, tag
    return False, None


_LINE = re.compile(rb"[^\r\n]+")


def _from_mapping(mapping: Mapping[str, Mapping[str, float]], name: str) -> Run:
    topics, docnos, scores = [], [], []
    topic_id = IdKeys(f"run {name!r}", "<dict>", topics=True)
    for topic, ranked in mapping.items():
        label = topic_id(topic)
        inner_mapping(ranked, f"run {name!r}, topic {label!r}", "{docno: score}")
        docno_id = IdKeys(f"documents of topic {label!r}", "<dict>", topics=False)
        for docno, score in ranked.items():
            topics.append(label)
            docnos.append(docno_id(docno))
            scores.append(_score(score, name, label, docno))
    return _build(topics, docnos, np.asarray(scores, np.float64), name, "<dict>")


def _score(score: Any, name: str, topic: str, docno: Any) -> float:
    """A score from a mapping run, as a float; anything else is refused by its place."""
    number = as_score(score)
    if number is None:
        raise InputError(
            f"run {name!r}, topic {topic!r}, document {docno!r}: score must be a number, "
            f"got {type(score).__name__} {str(score)[:40]!r}",
            "<dict>",
        )
    return number


def _from_frame(frame: Any, name: str) -> Run:
    """A run from a DataFrame, its columns found and its ids checked by the adapter."""
    frame = adapted_frame(frame, "run")
    if "run" in frame.columns and frame["run"].nunique() > 1:
        raise InputError(
            "run DataFrame holds several runs; pass one DataFrame per run", "<DataFrame>"
        )
    return _build(
        frame["query_id"].tolist(),
        frame["doc_id"].tolist(),
        frame_scores(frame["score"], name),
        name,
        "<DataFrame>",
        rows=True,
    )


def _build(topics, docnos, scores, name: str, source: str, rows: bool = False) -> Run:
    if not np.isfinite(scores).all():
        raise InputError(f"run {name!r} has a score that is not a finite number", source)
    return Run(
        name=name,
        topics=memory_ids(topics, "topic id", source, rows),
        docnos=memory_ids(docnos, "document id", source, rows),
        scores=scores,
        natural_order="score",
        source=source,
        line_numbers=None,
    )
