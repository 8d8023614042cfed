"""irgauge: evaluate ranked retrieval and QA runs, and evaluate the evaluation metrics.

The public names below are imported lazily so that ``import irgauge`` (and the CLI)
starts fast; heavy modules load on first use.
"""
from __future__ import annotations

import importlib
from typing import Any

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    "ScoreMatrix": "irgauge.scores",
    "read_scores": "irgauge.scores",
    "score_matrices": "irgauge.scores",
    "select_systems": "irgauge.scores",
    "paired_bootstrap_test": "irgauge.stats",
    "sign_test": "irgauge.stats",
    "paired_t_test": "irgauge.stats",
    "randomisation_test": "irgauge.stats",
    "randomised_tukey_hsd": "irgauge.stats",
    "compare_pairs": "irgauge.stats",
    "discriminative_power": "irgauge.meta",
    "swap_rates": "irgauge.meta",
    "stability": "irgauge.meta",
    "rank_correlations": "irgauge.meta",
    "kendall_tau": "irgauge.meta",
    "tau_ap": "irgauge.meta",
    "predictive_power": "irgauge.meta",
    "evaluate": "irgauge.evaluate",
    "EvalResult": "irgauge.evaluate",
    "read_qrels": "irgauge.io.qrels",
    "read_run": "irgauge.io.runs",
    "Qrels": "irgauge.collection",
    "Run": "irgauge.collection",
    "parse_measure": "irgauge.measures",
    "list_measures": "irgauge.measures",
    "InputError": "irgauge.errors",
    "MeasureError": "irgauge.errors",
    "simulate_collection": "irgauge.simulate",
    "write_collection": "irgauge.simulate",
    "sample_paths": "irgauge.simulate",
    "run_study": "irgauge.studies",
    "write_report": "irgauge.report.html",
    "qa_evaluate": "irgauge.qa",
    "read_gold": "irgauge.qa",
    "read_answers": "irgauge.qa",
    "reduce_qrels": "irgauge.incomplete",
    "incomplete_study": "irgauge.incomplete",
}

__all__ = sorted(_LAZY) + ["__version__"]


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module 'irgauge' has no attribute {name!r}")
    value = getattr(importlib.import_module(module), name)
    globals()[name] = value
    return value


def __dir__():
    return __all__


class _Package(type(importlib)):
    """``irgauge.evaluate`` is both a function and the submodule defining it. Importing the
    submodule first (``from irgauge.evaluate import read_runs``) would make the import
    system set the package attribute to the module, so ``irgauge.evaluate(...)`` and
    ``from irgauge import evaluate`` would then fail; keep the function instead."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, type(importlib)) and _LAZY.get(name) == f"{__name__}.{name}":
            value = getattr(value, name)
        super().__setattr__(name, value)


import sys as _sys  # noqa: E402

_sys.modules[__name__].__class__ = _Package
