"""The studies' random experiments, each repeated over independent seeds.

Each function runs one :mod:`irgauge.meta` experiment once per seed of
:func:`irgauge.studies._noise.repetition_seeds` and returns the per-repetition rows (a
``repetition`` column, 0-based) together with their mean, sd and Monte Carlo SE per measure
(:func:`irgauge.studies._noise.spread`). The same seed is used for every measure within a
repetition, so measures are compared on the same samples.
"""

from __future__ import annotations

from typing import Callable, List, Optional, Sequence

import numpy as np
import pandas as pd

from irgauge import meta
from irgauge.studies import _noise

Progress = Optional[Callable[[str], Optional[Callable[[int, int], None]]]]

CATCH_ALL = 0.20  # lower edge of the last difference bin (|d| >= 0.20)


def _bar(progress: Progress, label: str, r: int, seeds: Sequence[int], parts: int = 1):
    """The callback of repetition ``r``: one bar over the ``parts`` measures of the run."""
    if progress is None:
        return None
    update = progress(f"{label} {r + 1}/{len(seeds)}" if len(seeds) > 1 else label)
    return across(update, parts) if update is not None and parts > 1 else update


def across(update: Callable[[int, int], None], parts: int) -> Callable[[int, int], None]:
    """One bar over a per-measure loop.

    The meta functions report ``(done, total)`` for each measure in turn, restarting at 0
    (every measure has the same total: the system pairs); drawn as is, each measure would
    fill and close its own bar. This maps the k-th measure's ``(done, total)`` to
    ``(k * total + done, parts * total)``, so the bar fills once, over all measures.
    """
    finished = [0]

    def report(done: int, total: int) -> None:
        update(min(finished[0], parts - 1) * total + done, parts * total)
        if done >= total:
            finished[0] += 1

    return report


def discriminative_power(
    matrices, B: int, alpha: float, seeds: Sequence[int], progress: Progress = None
):
    """(per-repetition summary rows, spread, pairs of the first repetition)."""
    rows, first = [], None
    for r, s in enumerate(seeds):
        res = meta.discriminative_power(
            matrices,
            samples=B,
            alphas=(alpha,),
            seed=s,
            progress=_bar(progress, "bootstrap", r, seeds, len(matrices)),
        )
        rows.append(res.table.assign(repetition=r))
        if first is None:
            first = res
    table = pd.concat(rows, ignore_index=True)
    return (
        table,
        _noise.spread(table, ["measure"], ["significant", "share", "required_difference"]),
        first,
    )


DP_DIGITS = {
    "share": 3,
    "share_se": 3,
    "significant": 1,
    "significant_se": 1,
    "required_difference": 3,
    "required_difference_se": 3,
}


def discriminative_power_table(spread: pd.DataFrame, names: Sequence[str]) -> pd.DataFrame:
    """The discriminative-power table of ``names`` (most significant pairs first): pairs
    significant, their share and the required difference, each the mean over the
    repetitions with its Monte Carlo SE."""
    rows = spread[spread["measure"].isin(names)]
    rows = rows.sort_values("share", ascending=False, kind="stable")
    return pd.DataFrame(
        {
            "measure": rows["measure"],
            "significant": rows["significant"],
            "significant_se": rows["significant_se"],
            "share": rows["share"],
            "share_se": rows["share_se"],
            "required_difference": rows["required_difference"],
            "required_difference_se": rows["required_difference_se"],
        }
    )


def swap(
    matrices,
    c: int,
    trials: int,
    seeds: Sequence[int],
    mode: str = "strict",
    replacement: bool = False,
    progress: Progress = None,
):
    """(bins per repetition, summary per repetition, spread of bins, spread of summary).

    The catch-all bin (|d| >= 0.20) has no upper edge, so a required difference falling in
    it gets no relative difference (NaN).
    """
    bins, summaries = [], []
    for r, s in enumerate(seeds):
        res = meta.swap_rates(
            matrices,
            subset_size=c,
            trials=trials,
            seed=s,
            mode=mode,
            replacement=replacement,
            progress=_bar(progress, "swap", r, seeds, len(matrices)),
        )
        bins.append(res.table.assign(repetition=r))
        summary = res.details["summary"].assign(repetition=r)
        catch_all = summary["required_difference"] >= CATCH_ALL - 1e-9
        summary.loc[catch_all, "relative_difference"] = np.nan
        summaries.append(summary)
    bins = pd.concat(bins, ignore_index=True)
    summaries = pd.concat(summaries, ignore_index=True)
    # a measure giving every system the same score on every topic has only zero
    # differences: "0.00 reached by every comparison" would read as perfect sensitivity
    flat = flat_measures(matrices)
    summaries.loc[
        summaries["measure"].isin(flat),
        ["required_difference", "relative_difference", "share_reaching"],
    ] = np.nan
    summaries["found"] = summaries["required_difference"].notna().astype(float)
    return (
        bins,
        summaries,
        _noise.spread(bins, ["measure", "difference"], ["swap_rate"]),
        _noise.spread(
            summaries,
            ["measure"],
            [
                "required_difference",
                "largest_mean",
                "relative_difference",
                "share_reaching",
                "found",
            ],
        ),
    )


def stability(matrices, c: int, trials: int, seeds: Sequence[int], progress: Progress = None):
    """(per-repetition curve rows, spread per measure and fuzziness)."""
    rows = []
    for r, s in enumerate(seeds):
        res = meta.stability(
            matrices,
            subset_size=c,
            trials=trials,
            seed=s,
            progress=_bar(progress, "stability", r, seeds, len(matrices)),
        )
        rows.append(res.table.assign(repetition=r))
    table = pd.concat(rows, ignore_index=True)
    return table, _noise.spread(
        table, ["measure", "fuzziness"], ["minority_rate", "proportion_ties"]
    )


def stability_table(curves: pd.DataFrame, f: float = 0.05) -> pd.DataFrame:
    """Minority rate and ties at fuzziness ``f`` (mean ± SE) per measure."""
    at = curves[(curves["fuzziness"] - f).abs() < 1e-9]
    return at[
        [
            "measure",
            "fuzziness",
            "minority_rate",
            "minority_rate_se",
            "proportion_ties",
            "proportion_ties_se",
        ]
    ]


def swap_summary_table(spread: pd.DataFrame) -> pd.DataFrame:
    """The sensitivity table: required difference, largest mean, relative difference and
    share reaching it (means over the repetitions, with SE), and in how many repetitions a
    required difference exists."""
    return pd.DataFrame(
        {
            "measure": spread["measure"],
            "required_difference": spread["required_difference"],
            "required_difference_se": spread["required_difference_se"],
            "largest_mean": spread["largest_mean"],
            "largest_mean_se": spread["largest_mean_se"],
            "relative_difference": spread["relative_difference"],
            "relative_difference_se": spread["relative_difference_se"],
            "share_reaching": spread["share_reaching"],
            "share_reaching_se": spread["share_reaching_se"],
            "found_in": spread["found"],
        }
    )


SWAP_DIGITS = {
    "required_difference": 2,
    "required_difference_se": 3,
    "largest_mean": 4,
    "largest_mean_se": 4,
    "relative_difference": 3,
    "relative_difference_se": 3,
    "share_reaching": 3,
    "share_reaching_se": 3,
    "found_in": 2,
}


def swap_sentences(
    spread: pd.DataFrame, names: List[str], c: int, flat: Sequence[str] = ()
) -> List[str]:
    """The share of comparisons reaching the required difference, ordered within the noise;
    measures without a required difference in some repetitions are named, and ``flat``
    measures (the same score for every system) apart."""
    lines = []
    flat = [m for m in flat if m in names]
    if flat:
        lines.append(
            f"{', '.join(flat)} give{'s' if len(flat) == 1 else ''} every system "
            f"the same score on every topic: no system pair to compare."
        )
        names = [n for n in names if n not in flat]
    ok = spread[spread["found"] >= 1 - 1e-9].set_index("measure")
    found = {
        m: (ok.loc[m, "share_reaching"], ok.loc[m, "share_reaching_se"])
        for m in names
        if m in ok.index
    }
    if len(found) > 1:
        lines.append(
            f"Share of comparisons reaching the swap method's 95% required "
            f"difference at c = {c}: {_noise.ordering(found)}."
        )
    elif found:
        m = next(iter(found))
        lines.append(
            f"At c = {c} only {m} has a 95% required difference by the swap method "
            f"in every repetition ({_noise.fmt(*found[m])} of comparisons reach it)."
        )
    never = [m for m in names if m not in found]
    if never:
        lines.append(
            f"At c = {c} the swap rate of {', '.join(never)} does not stay at or "
            f"below 5% over the difference bins in every repetition: no required "
            f"difference at 95% confidence (too few topics per subset or too few "
            f"trials)."
        )
    return lines


def flat_measures(matrices) -> List[str]:
    """Measures whose score is the same for every system on every topic."""
    return [name for name, m in matrices.items() if np.all(m.values == m.values[:1])]


def stability_sentence(
    pairs: pd.DataFrame, curves: pd.DataFrame, names: List[str], setting: str
) -> str:
    """The summary's stability sentence: the curves' reading between measures, or for a
    single measure its minority rate and proportion of ties at fuzziness 0.05."""
    if len(names) < 2:
        at = stability_table(curves).set_index("measure")
        parts = []
        for m in names:
            mr = _noise.fmt(at.loc[m, "minority_rate"], at.loc[m, "minority_rate_se"], 4)
            pt = _noise.fmt(at.loc[m, "proportion_ties"], at.loc[m, "proportion_ties_se"], 4)
            parts.append(f"{m}: minority rate {mr}, proportion of ties {pt}")
        return f"Stability ({setting}) at fuzziness 0.05: " + "; ".join(parts) + "."
    return (
        f"Stability ({setting}; minority rate at equal proportion of ties, from the "
        f"curves; most stable first): " + "; ".join(_noise.stability_sentences(pairs, names)) + "."
    )
