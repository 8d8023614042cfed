"""The reductions the incomplete-judgment study compares with the full qrels: shares j of
the judgments kept at random (``rates``, %; Sakai 2007), or the depth-K pools of the
runs (``depths``; Sakai and Kando 2008, as ``irgauge incomplete --depth``).

A step is a rate (the full qrels: 100) or a depth (the full qrels: "full"); the tables
have one column per step, the full qrels first and the smallest reduction last, and the
summary speaks of the smallest one. Every step also has its share of judgments kept
(the ``rate`` column of :func:`irgauge.studies.incomplete_result.incomplete_study`'s
table: the rate itself, or the share the depth keeps), which the figures draw against.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import List, Optional, Union

from irgauge.collection.depth_reduce import DepthReduction

Step = Union[float, int, str]


@dataclass(frozen=True)
class Steps:
    rates: List[float]  # the shares kept (%), 100 left out
    depths: Optional[List[int]] = None  # the pool depths, or None for a random reduction

    @property
    def column(self) -> str:
        """The column of the study's table that names the step."""
        return "rate" if self.depths is None else "depth"

    @property
    def full(self) -> Step:
        """The step of the full qrels."""
        return 100 if self.depths is None else "full"

    @property
    def reduced(self) -> List[Step]:
        """The reduced steps, the largest first."""
        return sorted(self.rates if self.depths is None else self.depths, reverse=True)

    @property
    def lowest(self) -> Optional[Step]:
        """The smallest reduction (None: no reduction)."""
        return self.reduced[-1] if self.reduced else None

    def header(self, step: Step) -> str:
        """The step as a table's column header: 90%, or full and depth 10."""
        if self.depths is None:
            return f"{float(step):g}%"
        return "full" if step == "full" else f"depth {step}"

    def matrix_key(self, step: Step) -> Step:
        """The key of the step's score matrices in the study's ``matrices``."""
        if self.depths is None or step == self.full:
            return 100 if step == self.full else step
        return DepthReduction.label(int(step))

    def data(self, step: Step) -> str:
        """The step's relevance data, in words."""
        if self.depths is None:
            return f"{float(step):g}% relevance data"
        return f"the depth-{step} pool's relevance data"

    @property
    def axis(self) -> str:
        """What the tables' columns run over, in words."""
        if self.depths is None:
            return "the share j of relevance data kept"
        return "the pool depth K (the depth-K pool of the runs, Sakai and Kando 2008)"


__all__ = ["Steps", "Step"]
