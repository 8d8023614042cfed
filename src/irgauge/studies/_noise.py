"""Monte Carlo error of the studies' numbers, and sentences that respect it.

Every random experiment of a study (bootstrap samples, topic subsets, reductions, halvings)
is repeated R times with independent seeds. For a number x_1..x_R over the repetitions:

    mean = sum x_r / R,   sd = sqrt(sum (x_r - mean)^2 / (R - 1)),   SE = sd / sqrt(R)

(SE is the Monte Carlo standard error of the mean). When an experiment is one large sample
whose draws are themselves independent (the halvings of predictive power), SE is the sd over
the draws divided by the square root of their number.

Two numbers a and b with errors s_a and s_b are ordered only when they are further apart
than the noise:  |a - b| > Z * sqrt(s_a^2 + s_b^2)  with Z = 2 (about 95% for normal errors).
Otherwise the sentence says "within noise" and gives both numbers with their errors.
"""

from __future__ import annotations

import math
from typing import Dict, List, Mapping, Optional, Sequence, Tuple

import numpy as np
import pandas as pd

Z = 2.0


def repetition_seeds(seed: int, repetitions: int) -> List[int]:
    """``repetitions`` independent seeds derived from ``seed`` (the first is ``seed``, so one
    repetition is the experiment as the papers ran it)."""
    extra = np.random.SeedSequence(seed).generate_state(max(repetitions - 1, 0), np.uint32)
    return [int(seed)] + [int(s) for s in extra]


def spread(frame: pd.DataFrame, keys: Sequence[str], values: Sequence[str]) -> pd.DataFrame:
    """Mean, sd and SE over the repetitions (rows sharing ``keys``) of each ``values`` column:
    columns ``v``, ``v_sd``, ``v_se`` (order of first appearance kept; NaN ignored)."""
    grouped = frame.groupby(list(keys), sort=False)
    out = grouped[list(values)].mean()
    for v in values:
        sd = grouped[v].std(ddof=1)
        n = grouped[v].count()
        out[f"{v}_sd"] = sd
        out[f"{v}_se"] = sd / np.sqrt(n)
    return out.reset_index()


def fmt(value: float, se: Optional[float] = None, digits: int = 3) -> str:
    """``0.412 ± 0.006`` (or the number alone without an error)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    text = f"{value:.{digits}f}"
    if se is not None and not (isinstance(se, float) and math.isnan(se)):
        text += f" ± {se:.{digits}f}"
    return text


def separated(a: float, se_a: float, b: float, se_b: float, z: float = Z) -> bool:
    """True when |a - b| exceeds z combined standard errors (NaN errors count as zero)."""
    noise = math.sqrt(np.nan_to_num(se_a) ** 2 + np.nan_to_num(se_b) ** 2)
    return abs(a - b) > z * noise and abs(a - b) > 1e-12


def ordering(
    values: Mapping[str, Tuple[float, float]], higher_is_better: bool = True, digits: int = 3
) -> str:
    """``"A (0.50 ± 0.01) > B (0.40 ± 0.01) ~ C (0.39 ± 0.02)"`` best first: ``>`` where the two
    neighbours differ beyond the noise, ``~`` where they do not; followed by the list of pairs
    within noise when there are any."""
    items = [(k, float(m), float(s)) for k, (m, s) in values.items() if not math.isnan(m)]
    items.sort(key=lambda t: -t[1] if higher_is_better else t[1])
    if not items:
        return ""
    parts = [f"{items[0][0]} ({fmt(items[0][1], items[0][2], digits)})"]
    close = []
    for prev, cur in zip(items, items[1:]):
        apart = separated(prev[1], prev[2], cur[1], cur[2])
        parts.append((" > " if higher_is_better else " < ") if apart else " ~ ")
        parts.append(f"{cur[0]} ({fmt(cur[1], cur[2], digits)})")
        if not apart:
            close.append(f"{prev[0]} and {cur[0]}")
    text = "".join(parts)
    if close:
        text += f" [within noise (|d| <= {Z:g} combined SE): {'; '.join(close)}]"
    return text


# ------------------------------------------------------------------- stability curves


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


def stability_comparison(table: pd.DataFrame) -> pd.DataFrame:
    """Pairwise reading of the minority-rate / proportion-of-ties curves, per repetition.

    ``table``: measure, repetition, fuzziness, minority_rate, proportion_ties. For measures A
    and B compare their minority rates at the smallest proportion of ties both curves reach,
    t* = max(min ties A, min ties B): a curve closer to the origin (fewer swaps at the same
    share of ties) is more stable, and a curve that cannot get below t* ties is compared where
    it starts. Returns rows (a, b, ties_level, mr_a, mr_b, se_a, se_b, and each curve's
    smallest proportion of ties ties_a, ties_b) with means over the repetitions.
    """
    names = list(dict.fromkeys(table["measure"]))
    reps = sorted(table["repetition"].unique())
    curves = {(m, r): part for (m, r), part in table.groupby(["measure", "repetition"])}
    rows = []
    for i, a in enumerate(names):
        for b in names[i + 1 :]:
            ma, mb, lv, ta, tb = [], [], [], [], []
            for r in reps:
                ca, cb = curves[(a, r)], curves[(b, r)]
                ta.append(ca["proportion_ties"].min())
                tb.append(cb["proportion_ties"].min())
                level = max(ta[-1], tb[-1])
                ma.append(
                    minority_at_ties(
                        ca["proportion_ties"].to_numpy(), ca["minority_rate"].to_numpy(), level
                    )
                )
                mb.append(
                    minority_at_ties(
                        cb["proportion_ties"].to_numpy(), cb["minority_rate"].to_numpy(), level
                    )
                )
                lv.append(level)
            rows.append(
                {
                    "a": a,
                    "b": b,
                    "ties_level": float(np.mean(lv)),
                    "mr_a": float(np.mean(ma)),
                    "mr_b": float(np.mean(mb)),
                    "se_a": _se(ma),
                    "se_b": _se(mb),
                    "ties_a": float(np.mean(ta)),
                    "ties_b": float(np.mean(tb)),
                }
            )
    return pd.DataFrame(
        rows, columns=["a", "b", "ties_level", "mr_a", "mr_b", "se_a", "se_b", "ties_a", "ties_b"]
    )


def _se(values) -> float:
    values = np.asarray(values, float)
    return float(values.std(ddof=1) / math.sqrt(len(values))) if len(values) > 1 else float("nan")


ALL_TIES = 0.999


def stability_sentences(pairs: pd.DataFrame, names: Sequence[str]) -> List[str]:
    """Sentences from :func:`stability_comparison`: measures ranked by how many others they
    beat beyond the noise, then each comparison between neighbours in that ranking.

    A measure whose curve starts at (almost) only ties orders no systems: its minority rate
    of 0 says nothing, so it is named apart and ranked after the others.
    """
    tied = [n for n in names if _min_ties(pairs, n) >= ALL_TIES]
    names = [n for n in names if n not in tied]
    beats: Dict[str, int] = {n: 0 for n in names}
    verdict = {}
    for row in pairs.itertuples(index=False):
        if row.a not in beats or row.b not in beats:
            continue
        apart = separated(row.mr_a, row.se_a, row.mr_b, row.se_b)
        if apart:
            better = row.a if row.mr_a < row.mr_b else row.b
            beats[better] += 1
        verdict[(row.a, row.b)] = verdict[(row.b, row.a)] = row
    ranked = sorted(names, key=lambda n: -beats[n])
    lines = []
    for a, b in zip(ranked, ranked[1:]):
        row = verdict[(a, b)]
        mr = {row.a: (row.mr_a, row.se_a), row.b: (row.mr_b, row.se_b)}
        if separated(row.mr_a, row.se_a, row.mr_b, row.se_b):
            more, less = (a, b) if mr[a][0] < mr[b][0] else (b, a)
            lines.append(
                f"{more} is more stable than {less}: minority rate "
                f"{fmt(*mr[more], digits=4)} vs {fmt(*mr[less], digits=4)} at "
                f"{row.ties_level:.2f} ties"
            )
        else:
            lines.append(
                f"{a} and {b} are within noise: minority rate "
                f"{fmt(*mr[a], digits=4)} vs {fmt(*mr[b], digits=4)} at "
                f"{row.ties_level:.2f} ties"
            )
    if tied:
        lines.append(
            f"{', '.join(tied)} tie{'s' if len(tied) == 1 else ''} (almost) every "
            f"comparison even at the smallest fuzziness, so "
            f"{'it orders' if len(tied) == 1 else 'they order'} no systems: least "
            f"useful"
        )
    return lines


def _min_ties(pairs: pd.DataFrame, name: str) -> float:
    """The smallest proportion of ties of ``name``'s curve (mean over repetitions)."""
    rows = pairs[(pairs["a"] == name) | (pairs["b"] == name)]
    values = np.where(rows["a"] == name, rows["ties_a"], rows["ties_b"])
    return float(values.min()) if len(values) else 0.0
