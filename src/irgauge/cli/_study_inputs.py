"""The inputs of ``irgauge study NAME`` that the command reads itself: the qa study's gold
and answer files (or those derived from ad hoc qrels and runs with --derive-qa), the
score files of --scores, and the collections of --collection and --collections."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import TYPE_CHECKING, Any, Dict, Tuple

from irgauge.cli import answer_options

if TYPE_CHECKING:  # the scores and studies load on use
    from irgauge.scores.matrix import Matrices


DERIVED_DIR = "qa-derived-data"


def qa_inputs(args: argparse.Namespace) -> Tuple[Any, Any]:
    """(gold, runs) of the qa study: as given, or derived from ad hoc qrels and runs with
    --derive-qa; ad hoc qrels without it are refused with a pointer to the option."""
    return qa_pair(args, args.qrels, args.runs, Path(args.out))


def qa_pair(args: argparse.Namespace, gold: Any, runs: Any, out: Path) -> Tuple[Any, Any]:
    """(gold, runs) of one collection of the qa study: derived under ``out`` with
    --derive-qa, refused when they look like ad hoc qrels without it."""
    from irgauge.studies.qa import qa_collection_from_adhoc

    if args.derive_qa:
        made = qa_collection_from_adhoc(gold, runs, out / DERIVED_DIR)
        return made["gold"], made["runs"]
    if _looks_like_qrels(gold):
        from irgauge.errors import InputError

        raise InputError(
            f"{gold} looks like ad hoc TREC qrels (topic, iteration, document, level), "
            f"not QA gold answers: pass --derive-qa to derive QA-shaped data from qrels and "
            f"runs (a weak stand-in for real QA data)"
        )
    return gold, runs


def _looks_like_qrels(path: Any) -> bool:
    """True when the first line of ``path`` reads as a TREC qrels line: four fields, the
    last an integer level."""
    try:
        with open(path, "rb") as handle:
            fields = handle.readline().split()
    except OSError:
        return False
    return len(fields) == 4 and fields[3].lstrip(b"-").isdigit()


def score_matrices(args: argparse.Namespace) -> Matrices:
    """--scores (studies predictive and topicset): the score files' matrices, combined."""
    from irgauge.errors import InputError
    from irgauge.scores import combine, read_scores

    if args.qrels or args.runs:
        raise InputError("give --scores or QRELS RUN..., not both")
    parts = []
    for spec in args.scores:
        name, path = answer_options.named_file(spec)
        parts.append(read_scores(path, name=name))
    return combine(parts)


def collections_given(args: argparse.Namespace) -> Dict[str, Tuple[Any, Any]]:
    """``{name: (qrels, runs)}`` from --collections (first) and --collection."""
    from irgauge.errors import InputError
    from irgauge.studies import collections as many

    if args.qrels or args.runs or getattr(args, "scores", None):
        raise InputError(
            "give the collections with --collection/--collections, or one "
            "collection as QRELS RUN..., not both"
        )
    collections = {}
    if args.collections:
        collections.update(many.read_collections_toml(args.collections))
    for spec in args.collection or []:
        name, value = many.parse_collection(spec)
        if name in collections:
            raise InputError(f"collection {name!r} given twice")
        collections[name] = value
    return collections
