"""Common shape of meta-evaluation results: tables plus everything needed to reproduce them."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Optional


from irgauge.errors import InputSizeError
from irgauge.scores._results import REASONS, CheckedResult, check_table
from irgauge.io.summaries import meta_summary
from irgauge.io.summaries import meta_summary_html
from irgauge.io.words import counted


@dataclass(frozen=True)
class MetaResult(CheckedResult):
    """``table``: the main result (pandas DataFrame); ``details``: further named tables;
    ``parameters``: seed and every parameter; ``systems``/``topics``: what was used.

    A method may give its tables as ``{column: values}``: they become DataFrames on first
    use, so a command that only prints them (``columns()``) never imports pandas."""

    method: str
    table_data: Any
    parameters: Dict[str, Any]
    systems: List[str]
    topics: List[str]
    details_data: Dict[str, Any] = field(default_factory=dict)
    # why a column's non-finite values are so, where the method knows better than REASONS
    reasons: Dict[str, str] = field(default_factory=dict)

    def check_notes(self) -> List[str]:
        # the one results check (irgauge.scores._results), on construction: a value out of its
        # range is refused; each non-finite one has its reason in ``notes``, the main table's
        # by column, a detail's named by the detail
        notes = check_table(self.table_data, reasons=self.reasons)
        for name, detail in self.details_data.items():
            notes += [f"{name}: {note}" for note in check_table(detail)]
        return notes

    @property
    def table(self):
        return _as_frame(self.table_data)

    @property
    def details(self) -> Dict[str, Any]:
        return {name: _as_frame(value) for name, value in self.details_data.items()}

    def columns(self, detail: Optional[str] = None):
        """The main table (or the named detail) as given: a DataFrame or column dict."""
        return self.table_data if detail is None else self.details_data[detail]

    def __repr__(self) -> str:

        return meta_summary(self)

    def _repr_html_(self) -> str:

        return meta_summary_html(self)

    def metadata(self) -> Dict[str, Any]:
        """Flat metadata for :func:`irgauge.io.tables.render`."""
        meta: Dict[str, Any] = {"method": self.method}
        meta.update(self.parameters)
        meta["n_systems"] = len(self.systems)
        meta["n_topics"] = len(self.topics)
        meta["systems"] = list(self.systems)
        meta["topics"] = list(self.topics)
        return meta


# the reasons, by column, of a non-finite value: kept here under their old name
NONFINITE_REASONS = REASONS


def nonfinite_notes(frame) -> List[str]:
    """One line per column of ``frame`` (a DataFrame or ``{column: values}``) holding NaN
    or infinite values, saying why, after checking every value's range (see
    :func:`irgauge.scores._results.check_table`); the CLI prints them and records them in the
    output, so no NaN goes unexplained."""
    return check_table(frame)


def check_subset_size(size: int, n_topics: int, disjoint: bool, source=None) -> None:
    """Raise InputError unless 1 <= size and size (twice, if disjoint) fits in n_topics."""
    limit = n_topics // 2 if disjoint else n_topics
    if limit < 1:
        needed = 2 if disjoint else 1
        what = "two disjoint topic subsets need" if disjoint else "a topic subset needs"
        raise InputSizeError(f"{what} at least {counted(needed, 'topic')}; got {n_topics}", source)
    if size < 1 or size > limit:
        what = "two disjoint subsets of" if disjoint else "a subset of"
        raise InputSizeError(
            f"cannot draw {what} {counted(size, 'topic')} from {counted(n_topics, 'topic')} "
            f"(subset size must be 1..{limit})",
            source,
        )


def _as_frame(data: Any):
    """A DataFrame from ``{column: values}`` (other data pass through unchanged)."""
    if isinstance(data, dict):
        # pandas only when a frame is asked for: columns() prints without it
        import pandas as pd

        return pd.DataFrame(data)
    return data
