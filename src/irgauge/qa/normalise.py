"""Answer-string normalisation before matching answers against the gold data.

Options (any combination; the default is exact matching, nothing changed):

* ``nfkc``: Unicode NFKC normal form (full-width letters and digits become ASCII, the
  ideographic space U+3000 becomes a space, compatibility characters are unified);
* ``space``: leading and trailing whitespace removed, inner runs of whitespace (any Unicode
  whitespace) collapsed into one ASCII space;
* ``case``: Unicode case folding (``str.casefold``).

They apply in that order (NFKC first, so that the whitespace it produces is collapsed).
A spec is a comma-separated list of option names, ``exact``/``none`` (nothing) or ``all``.
"""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass
from typing import Union

from irgauge import _checks

from irgauge.errors import InputError

OPTIONS = ("nfkc", "space", "case")


@dataclass(frozen=True)
class Normaliser:
    """How answer strings are compared; calling it normalises one string."""

    nfkc: bool = False
    space: bool = False
    case: bool = False

    def __call__(self, text: str) -> str:
        if self.nfkc:
            text = unicodedata.normalize("NFKC", text)
        if self.space:
            text = " ".join(text.split())
        if self.case:
            text = text.casefold()
        return text

    @property
    def spec(self) -> str:
        chosen = [name for name in OPTIONS if getattr(self, name)]
        return ",".join(chosen) if chosen else "exact"


def make_normaliser(spec: Union[None, str, Normaliser] = None) -> Normaliser:
    """``"nfkc,space,case"``, ``"exact"`` (default), ``"all"`` or a Normaliser."""
    if isinstance(spec, Normaliser):
        return spec
    if spec is None or str(spec).strip().lower() in ("exact", "none"):
        return Normaliser()
    if str(spec).strip().lower() == "all":
        return Normaliser(True, True, True)
    names = [part.lower() for part in _checks.items(spec, "normalise", "normalisations", False)]
    unknown = [n for n in names if n not in OPTIONS]
    if unknown:
        raise InputError(
            f"unknown answer normalisation {unknown[0]!r}; choose from "
            f"{', '.join(OPTIONS)}, exact or all"
        )
    return Normaliser(**{n: True for n in names})
