"""The papers' experiments, one function each, on any collection.

``run_study(name, ...)`` dispatches to ``run_<name>`` of the study's module; every study
writes tables (txt, csv, tex), figures (png, svg), ``manifest.json`` and ``summary.txt`` to
``out/<name>`` and returns a :class:`~irgauge.studies._common.StudyResult`.
"""

from __future__ import annotations

import importlib
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
    """Run study ``name``; see ``irgauge.studies.<name>.run_<name>`` for its options."""
    return study_function(name)(*args, **kwargs)


__all__ = ["PAPERS", "STUDIES", "run_study", "study_function"]
