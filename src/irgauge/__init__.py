"""irgauge: evaluate ranked retrieval and QA runs, and evaluate the evaluation metrics.

The public names below are imported lazily so that ``import irgauge`` (and the CLI)
starts fast; heavy modules load on first use.
"""
from __future__ import annotations

import importlib
import sys
import types
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
    "compare_table": "irgauge.comparison",
    "qa_evaluate": "irgauge.qa",
    "read_gold": "irgauge.qa",
    "read_answers": "irgauge.qa",
    "reduce_qrels": "irgauge.incomplete",
    "incomplete_study": "irgauge.incomplete",
    "to_ir_measures": "irgauge.ir_measures_bridge",
    "as_score_matrix": "irgauge.score_frames",
    "as_score_matrices": "irgauge.score_frames",
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


class _Package(types.ModuleType):
    """``irgauge.evaluate`` names the function even after the submodule of the same name
    is imported: the import system then sets the package's attribute to the submodule,
    which would make ``from irgauge import evaluate`` return a module."""

    def __setattr__(self, name: str, value: Any) -> None:
        if isinstance(value, types.ModuleType) and _LAZY.get(name) == value.__name__:
            value = getattr(value, name)
        super().__setattr__(name, value)


sys.modules[__name__].__class__ = _Package
