"""The papers' experiments, one function each, on any collection.

``run_study(name, ...)`` dispatches to ``run_<name>`` of the study's module; every study
writes tables (txt, csv, tex), figures (png, svg), ``manifest.json`` and ``summary.txt`` to
``out/<name>`` and returns a :class:`~irgauge.studies._common.StudyResult`.
"""

from __future__ import annotations

import importlib
import inspect
from typing import Any, Callable

from irgauge.errors import InputError

# the seed papers' studies (the demo runs these), then the studies of methods beyond them
PAPERS = ("onerel", "incomplete", "qa", "predictive", "topicset")
STUDIES = PAPERS + ("pooling", "reusability")
# a study whose module is not named after it (irgauge.meta.topicset holds the method)
MODULES = {"topicset": "topic_set_design"}


def study_function(name: str) -> Callable[..., Any]:
    """The ``run_<name>`` function of study ``name``."""
    if name not in STUDIES:
        raise InputError(f"unknown study {name!r}; choose from {', '.join(STUDIES)}")
    module = MODULES.get(name, name)
    function: Callable[..., Any] = getattr(
        importlib.import_module(f"irgauge.studies.{module}"), f"run_{name}"
    )
    return function


def run_study(name: str, *args: Any, **kwargs: Any) -> Any:
    """Run study ``name``; see ``irgauge.studies.<name>.run_<name>`` for its options.
    Arguments the study does not take are refused (an InputError naming them), before it
    starts, where Python's TypeError escaped."""
    function = study_function(name)
    try:
        inspect.signature(function).bind(*args, **kwargs)
    except TypeError as err:
        raise InputError(f"run_study({name!r}): {err}") from None
    return function(*args, **kwargs)


__all__ = ["PAPERS", "STUDIES", "run_study", "study_function"]
