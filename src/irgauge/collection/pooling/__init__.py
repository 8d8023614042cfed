"""Pools: which documents of the runs to judge, and in what order.

:func:`pool` reads the runs, builds their depth pool (:mod:`.candidates`, on the shared
:mod:`irgauge.collection.depth_pool`) and hands it to a strategy, one module each behind
one signature (``select(candidates, budget, rng, **parameters) -> Selection``):

- ``depth`` (:mod:`.depth`): TREC's depth-K pool, judged by best rank, then docno;
- ``fusion`` (:mod:`.fusion`): the top N of reciprocal rank fusion (k = 60);
- ``mtf`` (:mod:`.mtf`): Move-to-Front (Cormack, Palmer and Clarke 1998);
- ``bandit`` (:mod:`.bandit`): multi-armed bandits, MM-NS (Losada, Parapar and
  Barreiro 2016, 2017);
- ``sample`` (:mod:`.sampling`): a sample with known inclusion probabilities (statAP's
  AP prior, or infAP's uniform sample within depth strata).

The adaptive strategies (mtf, bandit) judge as they go: given qrels they simulate it.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict, Optional

import numpy as np

from irgauge._checks import resolve_seed
from irgauge.collection.pooling.candidates import Candidates, build_candidates, check_budget
from irgauge.collection.pooling.pooled import Pool
from irgauge.errors import InputError
from irgauge.types import QrelsLike, RunsLike

STRATEGIES = {
    "depth": "depth",
    "fusion": "fusion",
    "mtf": "mtf",
    "bandit": "bandit",
    "sample": "sampling",
}
RANDOM = {"sample"}  # the strategies that draw: they take a seed


def strategy_module(name: str):
    if name not in STRATEGIES:
        raise InputError(
            f"strategy: {name!r} is not a pooling strategy; choose from {', '.join(STRATEGIES)}",
            parameter="strategy",
        )
    return importlib.import_module(f"{__name__}.{STRATEGIES[name]}")


def pool(
    runs: RunsLike,
    strategy: str = "depth",
    depth: Optional[int] = None,
    budget: Optional[int] = None,
    qrels: Optional[QrelsLike] = None,
    seed: Optional[int] = None,
    order: Optional[str] = None,
    **parameters: Any,
) -> Pool:
    """The pool of ``runs`` (a list of runs, each a path, Run, DataFrame or dict) by ``strategy``.

    ``depth``: each run read to its top K (None: whole runs; ``depth`` needs K or a
    budget). ``budget``: documents per topic to choose (None: the whole pool; ``sample``
    needs it); more than a topic's pool holds is refused. ``qrels``: the judgments the
    adaptive strategies simulate judging with (relevant: level >= 1); they also fix the
    topics, and a run that misses one is refused. ``seed``: the random strategies' seed
    (a fresh one, recorded, when None; refused by the deterministic ones). Strategy
    parameters (``k`` of fusion, ``discount`` of bandit, ``design`` and ``strata`` of
    sample) are keywords; each strategy's defaults are recorded with the ones given.
    """
    if strategy == "depth" and depth is None and budget is None:
        raise InputError("depth: the depth pool needs a depth K or a budget", parameter="depth")
    _checked(strategy, seed, parameters)
    candidates = build_candidates(runs, depth, qrels, order=order)
    chosen = choose(candidates, strategy, budget, seed, **parameters)
    chosen.parameters["qrels"] = _source(qrels)
    return chosen


def _checked(strategy: str, seed, parameters):
    """The strategy's module, its parameters and seed checked."""
    module = strategy_module(strategy)
    unknown = sorted(set(parameters) - set(module.PARAMETERS))
    if unknown:
        raise InputError(
            f"{unknown[0]}: strategy {strategy} takes no parameter {unknown[0]!r}"
            + (f" (it takes {', '.join(module.PARAMETERS)})" if module.PARAMETERS else ""),
            parameter=unknown[0],
        )
    if strategy not in RANDOM and seed is not None:
        raise InputError(
            f"seed: strategy {strategy} draws nothing; only {', '.join(sorted(RANDOM))} "
            "takes a seed",
            parameter="seed",
        )
    return module


def choose(
    candidates: Candidates,
    strategy: str,
    budget: Optional[int] = None,
    seed: Optional[int] = None,
    **parameters: Any,
) -> Pool:
    """The pool ``strategy`` chooses from ``candidates`` (:func:`build_candidates`, built
    once for many pools, as the pooling study does)."""
    module = _checked(strategy, seed, parameters)
    budget = check_budget(candidates, budget)
    settings: Dict[str, Any] = {**module.PARAMETERS, **parameters}
    record: Dict[str, Any] = {"strategy": strategy, "paper": module.PAPER}
    record.update(depth=candidates.depth, budget=budget, parameters=settings)
    rng = None
    if strategy in RANDOM:
        record["seed"] = seed = resolve_seed(seed)
        rng = np.random.default_rng(seed)
    chosen = module.select(candidates, budget, rng, **settings)
    record["runs"] = candidates.sources
    return Pool.of(candidates, chosen, record)


def _source(qrels) -> Optional[str]:
    if qrels is None:
        return None
    return (
        str(qrels)
        if isinstance(qrels, (str, bytes)) or hasattr(qrels, "__fspath__")
        else ("<memory>")
    )


__all__ = ["Pool", "pool", "choose", "build_candidates", "STRATEGIES"]
