"""Counted nouns and lists in messages and summaries: "1 run", "2 runs", every count of
every output through :func:`counted`, so that no output says "1 runs"; and confidence
levels through :func:`level_percent`, so that none says "100%" of a level below 1."""

from __future__ import annotations

from typing import Iterable, Optional

# nouns whose plural is not the noun + "s"
_PLURALS = {"query": "queries", "judgment group": "judgment groups", "is": "are", "was": "were"}


def plural(noun: str) -> str:
    """The plural of ``noun`` (an English noun of irgauge's outputs)."""
    if noun in _PLURALS:
        return _PLURALS[noun]
    if noun.endswith(("s", "x", "sh", "ch")):
        return noun + "es"
    if noun.endswith("y") and noun[-2:-1] not in "aeiou":
        return noun[:-1] + "ies"
    return noun + "s"


def counted(n, noun: str, plurals: Optional[str] = None) -> str:
    """``n`` and ``noun``, plural unless ``n`` is 1: ``counted(1, "run")`` is "1 run",
    ``counted(3, "run")`` "3 runs"; ``plurals`` for a plural of its own ("3 analyses").
    ``n`` may be text already formatted (a report's escaped "1")."""
    word = noun if str(n).strip() == "1" else (plurals or plural(noun))
    return f"{n} {word}"


def listed(items: Iterable, limit: int = 10) -> str:
    """Up to ``limit`` items, comma-separated, then how many there are in all."""
    items = [str(i) for i in items]
    shown = ", ".join(items[:limit])
    return shown + (f", ... ({len(items)} in all)" if len(items) > limit else "")


def level_percent(level: float, tail: Optional[float] = None) -> str:
    """A confidence level as a percentage with the fewest decimals that keep it within a
    thousandth of its tail: "95%", "99.9999%" (not "100%"), "12.3%"; where they would run
    past a double's digits (a tail below 1e-9), "100(1 - 1e-12)%". ``tail`` is 1 - level
    given exactly (the alpha the level came from: 1 - alpha rounds to 1 below 1e-16)."""
    tail = 1.0 - level if tail is None else float(tail)
    level = 1.0 - tail if level >= 1.0 else level
    if 0.0 < tail < 1e-9:
        return f"100(1 - {tail:g})%"
    if level < 1e-9:
        return f"{100 * level:.3g}%"
    for decimals in range(12):
        text = f"{100 * level:.{decimals}f}"
        if abs(float(text) / 100 - level) <= 1e-3 * min(level, tail):
            return text + "%"
    return f"{100 * level:.12g}%"
