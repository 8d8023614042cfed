"""The studies' noise, and the one machinery of their sentences.

A study's metric-level statistic (discriminative power, a required difference, the share of
comparisons reaching it, a minority rate at matched ties, Kendall's tau, phi) moves for two
reasons, and a sentence accounts for both:

* **Monte Carlo error.** Every random experiment (bootstrap samples, topic subsets,
  halvings) is repeated R times with independent seeds, the same seed for every measure
  within a repetition. For values x_1..x_R:
  mean = sum x_r / R, sd = sqrt(sum (x_r - mean)^2 / (R - 1)), SE = sd / sqrt(R).
* **Topic sampling.** Another sample of topics moves the statistic far more. The topics are
  resampled with replacement T times (:func:`topic_resamples`, one draw shared by every
  measure, so differences are paired) and the statistic is recomputed on each resample.

For measures A and B with per-repetition differences d_r = x_A,r - x_B,r and differences
on the resamples e_t = y_A,t - y_B,t:

    d = mean_r d_r
    var_mc = var_r(d_r) / R                                  (0 with one repetition)
    var_topic = var_t(e_t)                                   (e_t free of Monte Carlo noise)
              = max(cov_t(e_t,1, e_t,2), 0)                  (e_t from a random experiment)
    95% interval: d +/- 1.96 sqrt(var_topic + var_mc)

A statistic computed exactly on each resample (discriminative power by the t statistic,
tau) has one value per resample. One that needs a random experiment on each resample (swap,
stability, phi) has two, from two runs with independent seeds (e_t,1 and e_t,2): their Monte
Carlo errors are independent, so the covariance of the two over the resamples is the topic
variance alone. (Taking the resamples' Monte Carlo variance out by the spread of the R
repetitions instead, an estimate with R - 1 degrees of freedom scaled up by the ratio of
their trials, often took out the whole topic variance: the intervals fell to the Monte
Carlo error alone.) "A > B" is stated only when this interval excludes 0; otherwise "A
and B are not distinguishable here (d = ..., 95% interval [...])". A value that is censored
(NaN) in any repetition, e.g. a required difference not reached, is never ordered.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import (
    Callable,
    Dict,
    Generic,
    List,
    Mapping,
    Optional,
    Protocol,
    Sequence,
    Tuple,
    TypeVar,
)
from irgauge.io.words import counted

import numpy as np
import pandas as pd

Z95 = 1.959963984540054  # two-sided 95% normal quantile
TOPIC_RESAMPLES = 1000  # the studies' default number of topic resamples T
TOPIC_METHOD = (
    "paired bootstrap over topics (the same T resamples of the topics, drawn with "
    "replacement, for every measure), combined with the Monte Carlo error over the "
    "repetitions: d +/- 1.96 sqrt(var_topic + var_mc); var_topic is the variance over the "
    "resamples, or for an experiment run twice on each resample with independent seeds "
    "the covariance of the two runs; discriminative power on a resample by the paired "
    "t-test in place of the bootstrap test"
)


def repetition_seeds(seed: int, repetitions: int) -> List[int]:
    """``repetitions`` independent seeds derived from ``seed`` (the first is ``seed``, so one
    repetition is the experiment as the papers ran it)."""
    extra = np.random.SeedSequence(seed).generate_state(max(repetitions - 1, 0), np.uint32)
    return [int(seed)] + [int(s) for s in extra]


def spread(frame: pd.DataFrame, keys: Sequence[str], values: Sequence[str]) -> pd.DataFrame:
    """Mean, sd and SE over the repetitions (rows sharing ``keys``) of each ``values`` column:
    columns ``v``, ``v_sd``, ``v_se``, ``v_ci`` = 1.96 SE (order of first appearance kept;
    NaN ignored)."""
    grouped = frame.groupby(list(keys), sort=False)
    out = grouped[list(values)].mean()
    for v in values:
        sd = grouped[v].std(ddof=1)
        n = grouped[v].count()
        out[f"{v}_sd"] = sd
        out[f"{v}_se"] = sd / np.sqrt(n)
        # the figures' bands: the 95% interval of the mean, as the tables' SE gives it
        out[f"{v}_ci"] = Z95 * out[f"{v}_se"]
    return out.reset_index()


def fmt(value: float, se: Optional[float] = None, digits: int = 3) -> str:
    """``0.412 ± 0.006`` (or the number alone without an error)."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return "n/a"
    text = f"{value:.{digits}f}"
    if se is not None and not (isinstance(se, float) and math.isnan(se)):
        text += f" ± {se:.{digits}f}"
    return text


def topic_seed(seed: int) -> int:
    """The seed of the topic resamples, derived from the study's seed (and recorded)."""
    return int(np.random.SeedSequence([int(seed), 20]).generate_state(1, np.uint32)[0])


def topic_resamples(n_topics: int, resamples: int, seed: int) -> np.ndarray:
    """``resamples x n_topics`` topic indices drawn with replacement (one row per resample)."""
    return np.random.default_rng(seed).integers(0, n_topics, size=(resamples, n_topics))


@dataclass
class Statistic:
    """One metric-level statistic of several measures and what moves it.

    ``reps``: measure -> its value in each repetition (NaN: censored or undefined there);
    ``resampled``: measure -> its value on each topic resample (the same resamples for
    every measure; NaN where undefined): T values, or T x 2 for a statistic from a random
    experiment, run twice with independent seeds on each resample.
    """

    label: str
    reps: Dict[str, np.ndarray]
    resampled: Dict[str, np.ndarray] = field(default_factory=dict)
    higher_is_better: bool = True
    digits: int = 3
    # measure -> Monte Carlo SE known otherwise (one long experiment, e.g. phi over the
    # halvings); its variance is added unpaired, se_a^2 + se_b^2
    mc_se: Dict[str, float] = field(default_factory=dict)

    def value(self, m: str) -> float:
        r = np.asarray(self.reps[m], float)
        return float("nan") if np.isnan(r).any() else float(r.mean())

    def se(self, m: str) -> float:
        if m in self.mc_se:
            return float(self.mc_se[m])
        r = np.asarray(self.reps[m], float)
        return float(r.std(ddof=1) / math.sqrt(len(r))) if len(r) > 1 else float("nan")

    def censored(self, m: str) -> int:
        """In how many repetitions ``m``'s value is censored (NaN)."""
        return int(np.isnan(np.asarray(self.reps[m], float)).sum())

    def shown(self, m: str) -> str:
        """``0.412 ± 0.006`` (Monte Carlo SE; the number alone with one repetition)."""
        return fmt(self.value(m), self.se(m), self.digits)


@dataclass(frozen=True)
class Comparison:
    """A paired difference d = A - B with its 95% interval (topic sampling + Monte Carlo)."""

    a: str
    b: str
    d: float
    low: float
    high: float

    @property
    def apart(self) -> bool:
        """True when the 95% interval excludes 0 (and d is not a rounding artefact)."""
        return (self.low > 0 or self.high < 0) and abs(self.d) > 1e-12

    def swapped(self) -> "Comparison":
        """B - A."""
        return Comparison(self.b, self.a, -self.d, -self.high, -self.low)

    def interval(self, digits: int = 3) -> str:
        if not math.isfinite(self.high - self.low):
            return f"d = {self.d:+.{digits}f}; undefined on most topic resamples, so no interval"
        return (
            f"d = {self.d:+.{digits}f}, 95% interval "
            f"[{self.low:+.{digits}f}, {self.high:+.{digits}f}]"
        )


def compare(stat: Statistic, a: str, b: str) -> Comparison:
    """A - B with the 95% interval of the module docstring."""
    reps = np.asarray(stat.reps[a], float) - np.asarray(stat.reps[b], float)
    d = float(reps.mean())
    var_rep = float(reps.var(ddof=1)) if len(reps) > 1 else 0.0
    var = var_rep / len(reps)
    if a in stat.mc_se and b in stat.mc_se:
        var = float(np.nan_to_num(stat.se(a)) ** 2 + np.nan_to_num(stat.se(b)) ** 2)
    if a in stat.resampled and b in stat.resampled:
        e = np.asarray(stat.resampled[a], float) - np.asarray(stat.resampled[b], float)
        e = e.reshape(len(e), -1)
        kept = e[np.isfinite(e).all(axis=1)]
        # a statistic undefined on most resamples has no topic-sampling error to speak of
        if len(kept) < 2 or 2 * len(kept) < len(e):
            return Comparison(a, b, d, -math.inf, math.inf)
        var += topic_variance(kept)
    half = Z95 * math.sqrt(var)
    return Comparison(a, b, d, d - half, d + half)


def topic_variance(e: np.ndarray) -> float:
    """The topic-sampling variance of resampled values ``e`` (T x 1, or T x 2: two runs of a
    random experiment with independent seeds on each resample, whose covariance over the
    resamples leaves their Monte Carlo errors out), kept at 0 or above."""
    e = np.asarray(e, float).reshape(len(e), -1)
    if e.shape[1] == 1:
        return float(e[:, 0].var(ddof=1))
    return max(float(np.cov(e[:, 0], e[:, 1], ddof=1)[0, 1]), 0.0)


@dataclass
class Ordering:
    """A sentence ordering measures, with the orderings it states (better, worse)."""

    text: str
    stated: List[Tuple[str, str]] = field(default_factory=list)

    def __str__(self) -> str:
        return self.text


def ordering(
    stat: Statistic, names: Optional[Sequence[str]] = None, problem: Optional[str] = None
) -> Ordering:
    """``"A (0.50 ± 0.01) > B (0.40 ± 0.01) ~ C (0.39 ± 0.02)"`` best first: measures in
    groups, ``~`` within a group, ``>`` (``<`` when lower is better) between groups, where
    every measure of a group differs beyond the noise from every measure of every other
    group (so each ordering the sentence implies holds by its own interval); then each
    neighbour pair within a group with its difference and 95% interval. Censored measures
    are named apart, unranked; with a design ``problem``, no ordering at all."""
    names = list(stat.reps) if names is None else list(names)
    censored = [m for m in names if stat.censored(m)]
    items = [m for m in names if m not in censored]
    sign = 1 if stat.higher_is_better else -1
    items.sort(key=lambda m: -sign * stat.value(m))
    if problem is not None:
        listed = ", ".join(f"{m} {stat.shown(m)}" for m in items)
        text = f"{listed} (not ordered: {problem})" if listed else f"not ordered: {problem}"
        return Ordering(text + _censored_text(stat, censored))
    if not items:
        return Ordering(_censored_text(stat, censored).lstrip("; "))
    verdicts = pair_verdicts(items, lambda x, y: compare(stat, x, y))
    groups = verdicts.groups
    group_of = {m: k for k, g in enumerate(groups) for m in g}
    above = " > " if stat.higher_is_better else " < "
    text = above.join(" ~ ".join(f"{m} ({stat.shown(m)})" for m in g) for g in groups)
    stated = [
        (x, y) for k, g in enumerate(groups) for later in groups[k + 1 :] for x in g for y in later
    ]
    # pairs apart inside a group (A ~ B ~ C with A apart from C): the chain cannot say them
    within, close = [], []
    for c in verdicts.said:
        if not c.apart:
            close.append(f"{c.a} and {c.b} ({c.interval(stat.digits)})")
        elif group_of[c.a] == group_of[c.b]:
            c = c if (c.d > 0) == stat.higher_is_better else c.swapped()
            within.append(f"{c.a}{above}{c.b} ({c.interval(stat.digits)})")
            stated.append((c.a, c.b))
    if within:
        text += f"; apart within a group: {'; '.join(within)}"
    if close:
        text += f"; not distinguishable here: {'; '.join(close)}"
    return Ordering(text + _censored_text(stat, censored), stated)


class Verdict(Protocol):
    """What :func:`pair_verdicts` reads of a pair: measures ``a`` (ranked first) and ``b``
    and whether they differ beyond the noise (a :class:`Comparison`, or a study's own)."""

    @property
    def a(self) -> str: ...

    @property
    def b(self) -> str: ...

    @property
    def apart(self) -> bool: ...


V = TypeVar("V", bound=Verdict)


@dataclass(frozen=True)
class Verdicts(Generic[V]):
    """What a summary states of ranked measures from their pairwise differences:
    ``groups`` (best first; every measure of a group differs beyond the noise from every
    measure of every other group) and ``said``, in rank order, every pair whose interval
    excludes 0 and each neighbour pair whose interval holds 0 (``Comparison.apart`` tells
    which)."""

    groups: List[List[str]]
    said: List[V]


def pair_verdicts(ranked: Sequence[str], comparison: Callable[[str, str], V]) -> Verdicts[V]:
    """The one reading of a table of pairwise differences behind every summary line that
    compares measures: ``comparison(x, y)`` is x - y with its 95% interval, for x ranked
    before y (or any verdict with ``a``, ``b`` and ``apart``). Groups: a measure starts a
    new group only when it differs beyond the noise from every measure before it; one it
    does not differ from merges the groups from that measure's on."""
    pairs = {(x, y): comparison(x, y) for k, x in enumerate(ranked) for y in ranked[k + 1 :]}
    groups: List[List[str]] = []
    for cur in ranked:
        tied = [k for k, g in enumerate(groups) if not all(pairs[(x, cur)].apart for x in g)]
        if not tied:
            groups.append([cur])
            continue
        merged = [m for g in groups[tied[0] :] for m in g] + [cur]
        groups = groups[: tied[0]] + [merged]
    neighbours = set(zip(ranked, ranked[1:]))
    said = [c for key, c in pairs.items() if c.apart or key in neighbours]
    return Verdicts(groups, said)


def _censored_text(stat: Statistic, censored: Sequence[str]) -> str:
    if not censored:
        return ""
    parts = [
        f"{m} ({stat.censored(m)} of {counted(len(stat.reps[m]), 'repetition')})" for m in censored
    ]
    return f"; not ranked, {stat.label} not reached: {', '.join(parts)}"


def pair_sentence(
    stat: Statistic, a: str, b: str, claim: str, problem: Optional[str] = None
) -> Tuple[str, bool]:
    """(``claim`` "A ... B" with both values when A - B is beyond the noise in the direction
    of ``stat.higher_is_better``, else "A and B are not distinguishable here", and whether
    the claim holds); with a design ``problem``, the values and the interval, no verdict."""
    c = compare(stat, a, b)
    values = f"{stat.shown(a)} vs {stat.shown(b)}"
    if problem is not None:
        return f"{a} vs {b}: {values}; {c.interval(stat.digits)} (not ordered)", False
    better = c.apart and (c.d > 0) == stat.higher_is_better
    if better:
        return f"{claim} ({values})", True
    if c.apart:
        return f"{b} beats {a} ({values}; {c.interval(stat.digits)})", False
    return f"{a} and {b} are not distinguishable here ({values}; {c.interval(stat.digits)})", False


def from_means(
    label: str,
    values: Mapping[str, Tuple[float, float]],
    higher_is_better: bool = True,
    digits: int = 3,
) -> Statistic:
    """A :class:`Statistic` known only by its means and Monte Carlo SEs (no topic
    resamples: its interval is the Monte Carlo error alone, added unpaired)."""
    return Statistic(
        label,
        {m: np.array([float(v)]) for m, (v, _) in values.items()},
        {},
        higher_is_better,
        digits,
        {m: float(e) for m, (_, e) in values.items()},
    )


def design_problem(n_systems: int, n_topics: int) -> Optional[str]:
    """Why a design is too small to order measures by a statistic over system pairs: fewer
    than 5 systems or 10 pairs, or fewer than 10 topics (None when it is not)."""
    pairs = n_systems * (n_systems - 1) // 2
    reasons = []
    if n_systems < 5 or pairs < 10:
        reasons.append(
            f"{counted(n_systems, 'system')} ({counted(pairs, 'pair')}; at least 5 and 10 needed)"
        )
    if n_topics < 10:
        reasons.append(f"{counted(n_topics, 'topic')} (at least 10 needed)")
    return "; ".join(reasons) or None


def design_warning(problem: Optional[str], flat: Sequence[str] = ()) -> List[str]:
    """The summary's warnings on the design: too small, or measures constant over systems."""
    lines = []
    if problem:
        lines.append(f"WARNING: too small a design to order measures: {problem}; no orderings.")
    if flat:
        lines.append(
            f"WARNING: {', '.join(flat)} give{'s' if len(flat) == 1 else ''} every system the "
            f"same score: left out of every ordering."
        )
    return lines
