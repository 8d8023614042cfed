"""All pairs of systems at once: mean difference, effect size and p-values of every test.

Effect size: Cohen's d for paired data, ``d_z = mean(z) / sd(z)`` (sd with n - 1), z = x - y.
Ties: pairs with equal means (within stats.resampling.TIE_TOLERANCE) get p = 1 from the
bootstrap, t, randomisation and Tukey HSD tests; the sign test drops tied topics.
Bootstrap, randomisation and Tukey HSD share one seed; their samples are drawn once and used
for every pair. Their chunks of pairs (of trials for Tukey HSD) are independent steps: tasks
on a Dask cluster under ``use_engine("dask")``, with the same draws and the same p-values.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, List, Optional, Sequence, Tuple

import numpy as np

from irgauge.stats.bootstrap import bootstrap_pairs
from irgauge import _checks
from irgauge.errors import InputError
from irgauge.scores._results import CheckedResult
from irgauge.stats.classic import sign_counts, sign_pvalues, t_pvalues
from irgauge.stats.correction import METHODS as CORRECTIONS, adjust
from irgauge.stats.randomisation import random_signs, randomisation_pvalues
from irgauge.stats.resampling import (
    PairDifferences,
    bootstrap_indices,
    index_counts,
    pair_index,
    require_finite,
    require_topics,
    resolve_seed,
    studentised,
    tied,
)
from irgauge.stats.tukey import randomised_tukey_hsd
from irgauge.types import Progress, ScoreRows

TESTS = ("bootstrap", "t", "sign", "randomisation", "tukey")


@dataclass(frozen=True)
class PairsResult(CheckedResult):
    table: Any  # pandas DataFrame, one row per pair
    parameters: dict = field(default_factory=dict)


def compare_pairs(
    values: ScoreRows,
    systems: Sequence[str],
    tests: Sequence[str] = TESTS,
    samples: int = 1000,
    permutations: int = 10000,
    seed: Optional[int] = None,
    correction: str = "none",
    pairs: Optional[Sequence[Tuple[int, int]]] = None,
    progress: Optional[Progress] = None,
) -> PairsResult:
    """Compare every pair (or the given ``pairs`` of index tuples) of the systems' rows.

    ``correction`` (none, holm, bh) adjusts each test's p-values over the pairs compared,
    except Tukey HSD's, which already account for all pairs of its family: every system,
    or with ``pairs`` the systems they name (recorded as ``tukey_family_systems``).
    """
    # pandas on first use: tests/test_startup.py keeps importing irgauge.stats free of it
    import pandas as pd

    values = require_finite(values, "values")
    # one name is one test (the command line's --tests t), not its letters
    tests = [tests] if isinstance(tests, str) else tests
    tests = _checks.sequence(tests, "tests", lambda t, name: _checks.choice(t, name, TESTS))
    correction = _checks.choice(correction, "correction", CORRECTIONS)
    samples = _checks.draws(samples, "samples")
    permutations = _checks.draws(permutations, "permutations")
    seed = resolve_seed(seed)
    if values.ndim != 2 or values.shape[0] < 2:
        raise InputError(
            "comparing systems needs a systems x topics matrix with at least 2 "
            f"systems; got shape {values.shape}"
        )
    m, n = values.shape
    systems = _checks.labels(systems, "systems", m, per="row of values")
    require_topics(n, "comparing systems")
    if pairs is None:
        i, j = pair_index(m)
    else:
        i, j = _pair_positions(pairs, systems)
    # Tukey HSD's family: every system, or the systems the given pairs name (two named
    # systems do not start a test over thousands of others)
    family = np.arange(m) if pairs is None else np.unique(np.concatenate([i, j]))
    z = values[i] - values[j]
    with np.errstate(divide="ignore", invalid="ignore"):
        effect = z.mean(axis=1) / z.std(axis=1, ddof=1)
    means = values.mean(axis=1)
    table = pd.DataFrame(
        {
            "system_a": [systems[k] for k in i],
            "system_b": [systems[k] for k in j],
            "mean_a": means[i],
            "mean_b": means[j],
            "difference": means[i] - means[j],
            "effect_size": effect,
        }
    )
    for test in tests:
        p = _pvalues(test, values, z, (i, j), family, samples, permutations, seed, progress)
        table[f"p_{test}"] = p
        if correction != "none" and test != "tukey":
            table[f"p_{test}_{correction}"] = adjust(p, correction)
    parameters = {
        "tests": list(tests),
        "seed": seed,
        "bootstrap_samples": samples,
        "permutations": permutations,
        "tukey_trials": samples,
        "correction": correction,
        "n_topics": n,
        "n_systems": m,
        **({"tukey_family_systems": len(family)} if "tukey" in tests else {}),
    }
    return PairsResult(table=table, parameters=parameters)


def _pvalues(test, values, z, pairs, family, samples, permutations, seed, progress):
    """One test's p-values of the pairs (rows of ``z``, the per-topic differences)."""
    n = z.shape[1]
    # the resampling tests' tasks on a cluster make their chunks' differences from the
    # scores, sent once; here they cut them from z
    made = PairDifferences(values, pairs, made=z)
    if test == "bootstrap":
        counts = index_counts(bootstrap_indices(n, samples, seed), n)
        return bootstrap_pairs(made, counts, progress=progress).asl
    if test == "t":
        t = studentised(z)
        return np.where(tied(z.mean(axis=1)), 1.0, t_pvalues(t, n - 1))
    if test == "sign":
        return sign_pvalues(*sign_counts(z))
    if test == "randomisation":
        return randomisation_pvalues(made, random_signs(n, permutations, seed))
    return _tukey_pvalues(values, *pairs, family, samples, seed)


def _tukey_pvalues(values, i, j, family, samples: int, seed: int) -> np.ndarray:
    """Randomised Tukey HSD p-values of the pairs (i, j), over the systems of ``family``."""
    position = np.full(len(values), -1)
    position[family] = np.arange(len(family))
    hsd = randomised_tukey_hsd(values[family], samples, seed)
    return hsd.pvalues[position[i], position[j]]


def _pair_positions(pairs: Any, systems: List[str]) -> Tuple[np.ndarray, np.ndarray]:
    """The rows (i, j) of ``pairs``: each two distinct whole numbers, positions of
    ``systems``. Refused otherwise, naming the pair: numpy would read -1 as the last
    system and 1.5 as 1, or fail in its own words."""
    if isinstance(pairs, (str, bytes)) or hasattr(pairs, "keys"):
        raise InputError(
            f"pairs: expected a sequence of (i, j) pairs; got {pairs!r}", parameter="pairs"
        )
    rows = []
    for pair in pairs:
        try:
            a, b = pair
            a, b = (
                _checks.whole(k, None, 0, len(systems) - 1, "a system position") for k in (a, b)
            )
        except (TypeError, ValueError) as err:  # InputError is a ValueError
            shown = err if isinstance(err, InputError) else "expected two system positions"
            raise InputError(f"pairs: pair {pair!r}: {shown}", parameter="pairs") from None
        if a == b:
            raise InputError(
                f"pairs: pair {pair!r} compares system {systems[a]!r} with itself",
                parameter="pairs",
            )
        rows.append((a, b))
    if not rows:
        raise InputError("pairs: no pair given", parameter="pairs")
    i, j = (np.array(k, dtype=int) for k in zip(*rows))
    return i, j
