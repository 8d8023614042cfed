"""The relevance conventions of an evaluation as its measures applied them.

Each measure states what it read (``Measure.conventions``): its relevance threshold, the
gain per level of a graded family, condensed lists or not. The header is made from
those statements, never from the options: ``-l 2`` leaves trec_eval's nDCG reading every
level with its gain, a measure's ``rel=`` or ``gains=`` overrides the options, and the
bpref family is always condensed. Where the measures agree, a key has one value; where
they differ, the value names the measures of each value (``1 (nDCG@10) | 2 (others)``).
"""

from __future__ import annotations

from typing import Any, Dict, List

BINARY = "binary"  # the gains of a measure that reads none
# what a command scoring runs itself (a meta-evaluation command's --qrels/--run) states
# beside its own parameters: the evaluation's conventions, measure by measure where they
# differ, and the topics it left out
STATED = ("order", "rel_level", "gains", "condensed", "empty_topics", "topics_without_relevant")
OTHERS = "others"
SEPARATOR = " | "


def measure_conventions(measures, judgments) -> Dict[str, Dict[str, Any]]:
    """``{measure name: {"rel_level", "gains", "condensed"}}`` as each measure applied them."""
    return {m.name: m.conventions(judgments) for m in measures}


def convention_lines(per_measure: Dict[str, Dict[str, Any]]) -> Dict[str, Any]:
    """The header's ``rel_level``, ``gains`` and ``condensed`` entries: a key's value where
    every measure agrees, else the values with the measures of each (:func:`grouped`)."""
    return {
        key: grouped({name: _shown(key, c[key]) for name, c in per_measure.items()})
        for key in ("rel_level", "gains", "condensed")
    }


def _shown(key: str, value: Any) -> Any:
    return BINARY if key == "gains" and value is None else value


def grouped(values: Dict[str, Any]) -> Any:
    """One value when all are equal; else ``"V1 (m1, m2) | V2 (others)"``: each value with
    its measures in their order, the value most measures share last, as ``others``."""
    groups: Dict[str, List[str]] = {}
    for name, value in values.items():
        groups.setdefault(_text(value), []).append(name)
    if len(groups) <= 1:
        return next(iter(values.values()), None)
    largest = max(groups, key=lambda text: len(groups[text]))
    parts = [f"{text} ({', '.join(names)})" for text, names in groups.items() if text != largest]
    # not "; ", which separates the keys packed on a line of a table's header
    return SEPARATOR.join(parts + [f"{largest} ({OTHERS})"])


def _text(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)
