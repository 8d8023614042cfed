"""irgauge: evaluate ranked retrieval and QA runs, and evaluate the evaluation metrics.

The public names below are imported lazily so that ``import irgauge`` (and the CLI)
starts fast; heavy modules load on first use.

The packages follow the pipeline, each importing only from those before it:
``io`` (read inputs, write outputs) -> ``collection`` (judgments and rankings as arrays) ->
``measures`` -> ``scores`` (score matrices) -> ``evaluation`` -> ``stats`` -> ``meta`` ->
``qa`` -> ``report`` -> ``studies`` -> ``interop`` -> ``cli``.
"""

from __future__ import annotations

import sys as _sys


def _run_by_python_m() -> bool:
    """Whether this import is ``python -m irgauge`` locating this package, which Python
    imports before ``__main__.py``: sys.argv[0] is "-m" while a module to run is located,
    and runpy's ``_run_module_as_main`` (which ``-m`` calls) names it ``mod_name``. A
    package run by ``python -m other`` that imports irgauge is not irgauge's process."""
    frame = _sys._getframe(1)
    while True:
        code = frame.f_code
        if code.co_name == "_run_module_as_main" and frame.f_globals.get("__name__") == "runpy":
            return bool(frame.f_locals.get("mod_name") == __name__)
        back = frame.f_back
        if back is None:
            return False
        frame = back


# Ctrl-C is held back here, first, as the console scripts hold it (irgauge_console), for
# ``python -m irgauge`` only: importing irgauge leaves a library's host its own handlers
if _sys.argv[:1] == ["-m"] and _run_by_python_m():
    import irgauge_console  # noqa: F401

# after the hold, which must come before anything slow (typing: most of the import's time)
import importlib  # noqa: E402
from typing import TYPE_CHECKING, Any, Callable, Dict, List, Tuple  # noqa: E402

__version__ = "0.1.0"

# the public names as type checkers see them, from the modules that define them (``X as X``:
# exported); at run time each is loaded on first use by __getattr__ below
if TYPE_CHECKING:
    from irgauge.collection.depth_pool import depth_pool as depth_pool
    from irgauge.collection.depth_reduce import reduce_to_depth as reduce_to_depth
    from irgauge.collection.pooling import pool as pool
    from irgauge.collection.reduce import reduce_qrels as reduce_qrels
    from irgauge.collection.simulate import (
        sample_paths as sample_paths,
        simulate_collection as simulate_collection,
        write_collection as write_collection,
    )
    from irgauge.errors import (
        InputError as InputError,
        MeasureError as MeasureError,
        UserCodeError as UserCodeError,
    )
    from irgauge.evaluation.engine import evaluate as evaluate, score_matrices as score_matrices
    from irgauge.evaluation.eval_result import EvalResult as EvalResult
    from irgauge.evaluation.tasks import use_engine as use_engine, use_jobs as use_jobs
    from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions as TrecEvalOptions
    from irgauge.evaluation.trec_eval.output import trec_eval_output as trec_eval_output
    from irgauge.interop.ir_measures_bridge import to_ir_measures as to_ir_measures
    from irgauge.io.qrels import (
        read_judgment_groups as read_judgment_groups,
        read_qrels as read_qrels,
    )
    from irgauge.io.prels import read_prels as read_prels
    from irgauge.io.records import Qrels as Qrels, Run as Run
    from irgauge.io.runs import read_run as read_run
    from irgauge.measures import list_measures as list_measures
    from irgauge.measures.base import rank_sum as rank_sum
    from irgauge.measures.custom import (
        measure as measure,
        register_measure as register_measure,
        unregister_measure as unregister_measure,
    )
    from irgauge.measures.parse import parse_measure as parse_measure
    from irgauge.meta.agree import agreement as agreement
    from irgauge.meta.correlation import rank_correlations as rank_correlations, tau_ap as tau_ap
    from irgauge.meta.discpower import discriminative_power as discriminative_power
    from irgauge.meta.kendall import kendall_tau as kendall_tau
    from irgauge.meta.predictive import predictive_power as predictive_power
    from irgauge.meta.stability import stability as stability
    from irgauge.meta.swap import swap_rates as swap_rates
    from irgauge.meta.topicset import (
        min_detectable_diff as min_detectable_diff,
        residual_variance as residual_variance,
        topic_set_size as topic_set_size,
    )
    from irgauge.qa.answer_runs import read_answers as read_answers
    from irgauge.qa.gold import read_gold as read_gold
    from irgauge.qa.scoring import qa_evaluate as qa_evaluate
    from irgauge.report.html import write_report as write_report
    from irgauge.scores.files import read_scores as read_scores
    from irgauge.scores.frames import (
        as_score_matrices as as_score_matrices,
        as_score_matrix as as_score_matrix,
    )
    from irgauge.scores.matrix import ScoreMatrix as ScoreMatrix, select_systems as select_systems
    from irgauge.stats.bootstrap import paired_bootstrap_test as paired_bootstrap_test
    from irgauge.stats.classic import paired_t_test as paired_t_test, sign_test as sign_test
    from irgauge.stats.comparison import compare_table as compare_table
    from irgauge.stats.pairs import compare_pairs as compare_pairs
    from irgauge.stats.randomisation import randomisation_test as randomisation_test
    from irgauge.stats.tukey import randomised_tukey_hsd as randomised_tukey_hsd
    from irgauge.studies import run_study as run_study
    from irgauge.studies.incomplete_result import incomplete_study as incomplete_study
    from irgauge.studies.reproduction import reproducibility as reproducibility
    from irgauge.studies.reusability import reusability as reusability

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
    "use_jobs": "irgauge.evaluation.tasks",
    "EvalResult": "irgauge.evaluation",
    "read_qrels": "irgauge.io.qrels",
    "read_judgment_groups": "irgauge.io.qrels",
    "read_prels": "irgauge.io.prels",
    "trec_eval_output": "irgauge.evaluation.trec_eval.output",
    "TrecEvalOptions": "irgauge.evaluation.trec_eval.drop_in_options",
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


def _lazy_attributes(
    package: str, names: Dict[str, str], namespace: Dict[str, Any]
) -> Tuple[Callable[[str], Any], Callable[[], List[str]]]:
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

    def __dir__() -> List[str]:
        return list(namespace["__all__"])

    return __getattr__, __dir__


__getattr__, __dir__ = _lazy_attributes(__name__, _LAZY, globals())
