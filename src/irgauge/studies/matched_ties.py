"""The studies' stability curves (minority rate against proportion of ties, over the
fuzziness values) compared at matched proportions of ties: each measure's minority rate
there, the differences between measures with their Monte Carlo and topic noise
(:mod:`irgauge.studies._noise`), the sentences and the table that report them."""

from __future__ import annotations

import math
from typing import Any, Dict, List, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

from irgauge.studies._noise import (
    Comparison,
    Statistic,
    compare,
    fmt,
    pair_verdicts,
    spread,
)


def minority_at_ties(ties: np.ndarray, minority: np.ndarray, level: float) -> float:
    """Minority rate of one curve at proportion of ties ``level``.

    The curve (proportion of ties, minority rate) over the fuzziness values is extended to
    (1, 0), where every comparison is a tie, and interpolated linearly; below the curve's
    smallest proportion of ties it is undefined (NaN).
    """
    order = np.argsort(ties, kind="stable")
    x = np.append(np.asarray(ties, float)[order], 1.0)
    y = np.append(np.asarray(minority, float)[order], 0.0)
    if level < x[0] - 1e-12:
        return float("nan")
    return float(np.interp(level, x, y))


def matched_minority(table: pd.DataFrame) -> Dict[Tuple[str, str], np.ndarray]:
    """Per pair of measures (a, b) and per repetition (rows of the result, in the order of
    ``table``'s ``repetition`` values): the proportion of ties t* = max(min ties a, min ties
    b), the minority rates of a and b at t*, and each curve's smallest proportion of ties.

    ``table``: measure, repetition, fuzziness, minority_rate, proportion_ties. A curve closer
    to the origin (fewer swaps at the same share of ties) is more stable; one that cannot
    get below t* ties is compared where it starts.
    """
    names = list(dict.fromkeys(table["measure"]))
    curves = {
        key: (part["proportion_ties"].to_numpy(float), part["minority_rate"].to_numpy(float))
        for key, part in table.groupby(["measure", "repetition"], sort=False)
    }
    reps = list(dict.fromkeys(table["repetition"]))
    out = {}
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            rows = []
            for r in reps:
                ca, cb = curves[(a, r)], curves[(b, r)]
                level = max(ca[0].min(), cb[0].min())
                rows.append(
                    (
                        level,
                        minority_at_ties(*ca, level),
                        minority_at_ties(*cb, level),
                        ca[0].min(),
                        cb[0].min(),
                    )
                )
            out[(a, b)] = np.asarray(rows, float)
    return out


def stability_comparison(
    table: pd.DataFrame, resampled: Optional[pd.DataFrame] = None
) -> pd.DataFrame:
    """Pairwise reading of the minority-rate / proportion-of-ties curves (see
    :func:`matched_minority`): rows (a, b, ties_level, mr_a, mr_b, se_a, se_b, ties_a,
    ties_b) with means and Monte Carlo SE over the repetitions, and the difference
    d = mr_a - mr_b with its 95% interval (low, high; :func:`compare`, the topic resamples
    taken from ``resampled``, a table of the same shape with one "repetition" per resample
    and a "run" column, 0 or 1, telling its two runs apart).
    """
    reps = matched_minority(table)
    topic = _resampled_minority(resampled) if resampled is not None else {}
    rows = []
    for (a, b), v in reps.items():
        stat = _pair_statistic(a, b, v, topic.get((a, b)))
        c = compare(stat, a, b)
        rows.append(
            {
                "a": a,
                "b": b,
                "ties_level": float(v[:, 0].mean()),
                "mr_a": float(v[:, 1].mean()),
                "mr_b": float(v[:, 2].mean()),
                "se_a": _se(v[:, 1]),
                "se_b": _se(v[:, 2]),
                "ties_a": float(v[:, 3].mean()),
                "ties_b": float(v[:, 4].mean()),
                "d": c.d,
                "low": c.low,
                "high": c.high,
            }
        )
    return pd.DataFrame(rows, columns=STABILITY_PAIR_COLUMNS)


def _resampled_minority(resampled: pd.DataFrame) -> Dict[Tuple[str, str], np.ndarray]:
    """:func:`matched_minority` of each run on the resamples, side by side: (a, b) ->
    T x runs x 5."""
    if "run" not in resampled:
        return {k: v[:, None, :] for k, v in matched_minority(resampled).items()}
    runs = [matched_minority(part) for _, part in resampled.groupby("run", sort=True)]
    return {key: np.stack([run[key] for run in runs], axis=1) for key in runs[0]}


STABILITY_PAIR_COLUMNS = "a b ties_level mr_a mr_b se_a se_b ties_a ties_b d low high".split()


def _pair_statistic(a: str, b: str, reps: np.ndarray, topic: Optional[np.ndarray]) -> Statistic:
    resampled = {} if topic is None else {a: topic[..., 1], b: topic[..., 2]}
    return Statistic(
        "minority rate",
        {a: reps[:, 1], b: reps[:, 2]},
        resampled,
        higher_is_better=False,
        digits=4,
    )


def _se(values: Any) -> float:
    values = np.asarray(values, float)
    return float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else float("nan")


ALL_TIES = 0.999


def stability_sentences(
    pairs: pd.DataFrame, names: Sequence[str], problem: Optional[str] = None
) -> List[str]:
    """Sentences from :func:`stability_comparison`: measures ranked by how many others they
    beat beyond the noise (95% interval of the paired difference excluding 0), then, read
    from the table by :func:`pair_verdicts` as every summary line is, every pair whose
    interval excludes 0 and each neighbour pair in that ranking whose interval holds 0.

    A measure whose curve starts at (almost) only ties orders no systems: its minority rate
    of 0 says nothing, so it is named apart and ranked after the others.
    """
    tied = [n for n in names if _min_ties(pairs, n) >= ALL_TIES]
    names = [n for n in names if n not in tied]
    beats: Dict[str, int] = {n: 0 for n in names}
    rows = {}
    for row in pairs.itertuples(index=False):
        if row.a not in beats or row.b not in beats:
            continue
        if _apart(row):
            beats[row.a if row.d < 0 else row.b] += 1
        rows[(row.a, row.b)] = rows[(row.b, row.a)] = row
    if problem is not None:  # too small a design: the measures in the order given, no verdict
        lines = [f"not ordered ({problem})"]
        for a, b in zip(names, names[1:]):
            row = rows[(a, b)]
            lines.append(f"{a} and {b}: {_minority_rates(row, a, b)} ({_row_interval(row, a)})")
    else:
        ranked = sorted(names, key=lambda n: -beats[n])
        lines = []
        for c in pair_verdicts(ranked, lambda x, y: _row_comparison(rows[(x, y)], x)).said:
            row = rows[(c.a, c.b)]
            if c.apart:  # a lower minority rate is more stable
                more, less = (c.a, c.b) if c.d < 0 else (c.b, c.a)
                lines.append(
                    f"{more} is more stable than {less}: {_minority_rates(row, more, less)} "
                    f"({_row_interval(row, more)})"
                )
            else:
                lines.append(
                    f"{c.a} and {c.b} are not distinguishable here: "
                    f"{_minority_rates(row, c.a, c.b)} ({_row_interval(row, c.a)})"
                )
    if tied:
        lines.append(
            f"{', '.join(tied)} tie{'s' if len(tied) == 1 else ''} (almost) every "
            f"comparison even at the smallest fuzziness, so "
            f"{'it orders' if len(tied) == 1 else 'they order'} no systems: least "
            f"useful"
        )
    return lines


def _apart(row: Any) -> bool:  # (rows: the pairs table's itertuples)
    return Comparison(row.a, row.b, row.d, row.low, row.high).apart


def _row_comparison(row: Any, first: str) -> Comparison:
    """The row's difference as ``first`` minus the other measure."""
    c = Comparison(row.a, row.b, row.d, row.low, row.high)
    return c if first == row.a else c.swapped()


def _minority_rates(row: Any, a: str, b: str) -> str:
    mr = {row.a: (row.mr_a, row.se_a), row.b: (row.mr_b, row.se_b)}
    return (
        f"minority rate {fmt(*mr[a], digits=4)} vs {fmt(*mr[b], digits=4)} "
        f"at {row.ties_level:.2f} ties"
    )


def _row_interval(row: Any, first: str) -> str:
    """The row's difference and interval as ``first`` minus the other measure (the order
    the sentence names them in)."""
    return _row_comparison(row, first).interval(4)


def matched_table(table: pd.DataFrame) -> pd.DataFrame:
    """Each measure's minority rate at one proportion of ties all curves reach (the largest
    of their smallest proportions of ties, measures tying (almost) everything aside), per
    repetition, then mean and SE: the curves read side by side at matched ties."""
    rows = []
    for r, rep in table.groupby("repetition", sort=False):
        curves = {
            m: (p["proportion_ties"].to_numpy(float), p["minority_rate"].to_numpy(float))
            for m, p in rep.groupby("measure", sort=False)
        }
        starts = [c[0].min() for c in curves.values() if c[0].min() < ALL_TIES]
        level = max(starts) if starts else 1.0
        for m, (ties, minority) in curves.items():
            rows.append(
                {
                    "measure": m,
                    "repetition": r,
                    "proportion_ties": level,
                    "minority_rate": minority_at_ties(ties, minority, level),
                }
            )
    out = spread(pd.DataFrame(rows), ["measure"], ["proportion_ties", "minority_rate"])
    return out[["measure", "proportion_ties", "minority_rate", "minority_rate_se"]]


def _min_ties(pairs: pd.DataFrame, name: str) -> float:
    """The smallest proportion of ties of ``name``'s curve (mean over repetitions)."""
    rows = pairs[(pairs["a"] == name) | (pairs["b"] == name)]
    values = np.where(rows["a"] == name, rows["ties_a"], rows["ties_b"])
    return float(values.min()) if len(values) else 0.0
