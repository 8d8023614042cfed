"""irgauge: evaluate ranked retrieval and QA runs, and evaluate the evaluation metrics.

The public names below are imported lazily so that ``import irgauge`` (and the CLI)
starts fast; heavy modules load on first use.

The packages follow the pipeline, each importing only from those before it:
``io`` (read inputs, write outputs) -> ``collection`` (judgments and rankings as arrays) ->
``measures`` -> ``scores`` (score matrices) -> ``evaluation`` -> ``stats`` -> ``meta`` ->
``qa`` -> ``report`` -> ``studies`` -> ``interop`` -> ``cli``.
"""

from __future__ import annotations

import importlib
from typing import Any, Dict

__version__ = "0.1.0"

# public name -> module that defines it
_LAZY = {
    "ScoreMatrix": "irgauge.scores",
    "read_scores": "irgauge.scores",
    "score_matrices": "irgauge.evaluation",
    "select_systems": "irgauge.scores",
    "paired_bootstrap_test": "irgauge.stats",
    "sign_test": "irgauge.stats",
    "paired_t_test": "irgauge.stats",
    "randomisation_test": "irgauge.stats",
    "randomised_tukey_hsd": "irgauge.stats",
    "compare_pairs": "irgauge.stats",
    "discriminative_power": "irgauge.meta",
    "agreement": "irgauge.meta",
    "swap_rates": "irgauge.meta",
    "stability": "irgauge.meta",
    "rank_correlations": "irgauge.meta",
    "kendall_tau": "irgauge.meta",
    "tau_ap": "irgauge.meta",
    "predictive_power": "irgauge.meta",
    "topic_set_size": "irgauge.meta",
    "residual_variance": "irgauge.meta",
    "min_detectable_diff": "irgauge.meta",
    "evaluate": "irgauge.evaluation",
    "use_engine": "irgauge.evaluation.tasks",
    "EvalResult": "irgauge.evaluation",
    "read_qrels": "irgauge.io.qrels",
    "read_judgment_groups": "irgauge.io.qrels",
    "read_prels": "irgauge.io.prels",
    "trec_eval_output": "irgauge.evaluation.trec_eval_output",
    "TrecEvalOptions": "irgauge.evaluation.trec_eval_output",
    "read_run": "irgauge.io.runs",
    "Qrels": "irgauge.io.records",
    "Run": "irgauge.io.records",
    "parse_measure": "irgauge.measures",
    "list_measures": "irgauge.measures",
    "register_measure": "irgauge.measures",
    "measure": "irgauge.measures",
    "rank_sum": "irgauge.measures",
    "unregister_measure": "irgauge.measures",
    "InputError": "irgauge.errors",
    "MeasureError": "irgauge.errors",
    "UserCodeError": "irgauge.errors",
    "simulate_collection": "irgauge.collection.simulate",
    "write_collection": "irgauge.collection.simulate",
    "sample_paths": "irgauge.collection.simulate",
    "run_study": "irgauge.studies",
    "write_report": "irgauge.report.html",
    "compare_table": "irgauge.stats.comparison",
    "qa_evaluate": "irgauge.qa",
    "read_gold": "irgauge.qa",
    "read_answers": "irgauge.qa",
    "reduce_qrels": "irgauge.collection.reduce",
    "pool": "irgauge.collection.pooling",
    "depth_pool": "irgauge.collection.depth_pool",
    "reduce_to_depth": "irgauge.collection.depth_reduce",
    "reusability": "irgauge.studies.reusability",
    "incomplete_study": "irgauge.studies.incomplete_result",
    "reproducibility": "irgauge.studies.reproduction",
    "to_ir_measures": "irgauge.interop",
    "as_score_matrix": "irgauge.scores",
    "as_score_matrices": "irgauge.scores",
}

__all__ = sorted(_LAZY) + ["__version__"]


def _lazy_attributes(package: str, names: Dict[str, str], namespace: Dict[str, Any]):
    """``__getattr__`` and ``__dir__`` for a package whose public names load on first use
    (PEP 562): ``names`` maps each name to the module that defines it; a name loaded once
    is kept in the package's ``namespace``, and ``__dir__`` lists its ``__all__``."""

    def __getattr__(name: str) -> Any:
        module = names.get(name)
        if module is None:
            raise AttributeError(f"module {package!r} has no attribute {name!r}")
        value = getattr(importlib.import_module(module), name)
        namespace[name] = value
        return value

    def __dir__():
        return namespace["__all__"]

    return __getattr__, __dir__


__getattr__, __dir__ = _lazy_attributes(__name__, _LAZY, globals())
