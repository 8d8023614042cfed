"""Measures named among scores: a name finds the scores of its measure under any spelling of
it (``MAP`` finds a file's ``AP``, ``map`` and ``AP`` are one measure), wherever measures are
named (``-m``, ``--by``, the studies' ``--scores``, :meth:`EvalResult.matrices`), and a name
that finds none is refused listing the measures there are.

A name is first looked up as written; otherwise the measure it parses to (its canonical
definition, :func:`irgauge.measures.parse_measure`) is compared with the definitions of the
names there are. Names that parse to nothing (a file's own label) match only as written.
"""

from __future__ import annotations

import functools
from typing import Any, Dict, Iterable, Mapping, Optional, Sequence, TypeVar

from irgauge.errors import InputError

T = TypeVar("T")


@functools.lru_cache(maxsize=4096)
def definition(name: str) -> Optional[str]:
    """The canonical definition of measure ``name``; None for a name that is no measure."""
    from irgauge.errors import MeasureError
    from irgauge.measures import parse_measure

    try:
        return parse_measure(name).full
    except (MeasureError, InputError, ValueError, KeyError):
        return None


def find_measure(available: Iterable[str], name: str) -> Optional[str]:
    """The one name of ``available`` that names the measure ``name``: itself, else the one
    with its definition; None when none does, or when two do (neither is guessed)."""
    names = list(available)
    if name in names:
        return name
    wanted = definition(name)
    if wanted is None:
        return None
    found = [n for n in names if definition(n) == wanted]
    return found[0] if len(found) == 1 else None


def as_named(matrices: Mapping[str, Any], wanted: Sequence[str]) -> Dict[str, Any]:
    """The score matrices of the measures ``wanted`` that are there, each under the name it
    was asked by (so that one file's ``MAP`` and another's ``AP`` combine as one measure)."""
    named = {}
    for name in wanted:
        found = find_measure(matrices, name)
        if found is not None:
            m = matrices[found]
            named[name] = type(m)(m.values, m.systems, m.topics, name, m.source)
    return named


def pick_measures(
    scores: Mapping[str, T], wanted: Sequence[str], where: str = "", source=None
) -> Dict[str, T]:
    """``{name: scores[name]}`` of the measures ``wanted``, in its order, each under the name
    it has in ``scores``; a measure that is not there is refused, listing those that are
    (``where`` says where they were looked for: " in the score files"), and so is a
    measure wanted twice (:func:`~irgauge.measures.parse.refuse_repeats`)."""
    from irgauge.measures.parse import refuse_repeats  # as definition(): measures on use

    refuse_repeats(wanted)
    picked: Dict[str, T] = {}
    missing = []
    for name in wanted:
        found = find_measure(scores, name)
        if found is None:
            missing.append(name)
        else:
            picked[found] = scores[found]
    refuse_missing(missing, scores, where, source)
    return picked


def refuse_missing(missing: Sequence[str], held: Iterable[str], where: str = "", source=None):
    """Refuse the measures ``missing``, listing those ``held``."""
    if missing:
        raise InputError(
            f"no scores for measure(s) {', '.join(missing)}{where} "
            f"(they hold: {', '.join(held) or 'none'})",
            source,
        )
