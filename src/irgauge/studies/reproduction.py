"""``irgauge.reproducibility``: the reproducibility study of Breuer et al. (SIGIR 2020) with
its uncertainty, as one call returning the table and the figures (the statistics are in
:mod:`irgauge.meta.repro`, the figures in :mod:`irgauge.report.repro_figures`)."""

from __future__ import annotations

from typing import Any, Dict, List, Optional, Sequence, Union

from irgauge.meta.repro.analysis import DEFAULT_MEASURES, reproducibility_table
from irgauge.meta.result import MetaResult
from irgauge.scores._results import CheckedResult
from irgauge.types import QrelsLike, RunPairLike


class ReproResult(CheckedResult):
    """A reproducibility study: ``table`` (DataFrame: [repeated,] run, measure, statistic,
    cutoff, value, low, high), ``parameters`` (seed and every parameter, the definitions
    and ``conclusions``, the sentences), ``notes`` and ``figures`` (``{stem: matplotlib
    Figure}``: the KTU, RBO and RMSE curves over the cutoffs, drawn on first use)."""

    def __init__(self, result: MetaResult):
        self.result = result
        self._figures: Optional[Dict[str, Any]] = None
        self.__post_init__()

    @property
    def table(self):
        return self.result.table

    @property
    def parameters(self) -> Dict[str, Any]:
        return self.result.parameters

    def check_notes(self) -> List[str]:
        # its table is a MetaResult's, checked as that was made
        return self.result.notes

    @property
    def conclusions(self) -> List[str]:
        return list(self.result.parameters["conclusions"])

    @property
    def figures(self) -> Dict[str, Any]:
        if self._figures is None:
            from irgauge.report.repro_figures import repro_figure_set

            self._figures = repro_figure_set(self.table, self.title())
        return self._figures

    def title(self) -> str:
        """The figures' title: the qrels file, seed and B."""
        from pathlib import Path

        from irgauge.report.style import describe

        p = self.parameters
        return describe(Path(str(p["qrels"])).name, seed=p["seed"], B=p["bootstrap_samples"])

    def write_figures(self, directory) -> List[str]:
        """Save the figures (PDF, SVG, PNG) in ``directory``; the paths written."""
        from irgauge.report.repro_figures import repro_figures

        return repro_figures(self.result, directory, self.title())

    def columns(self):
        return self.result.columns()

    def metadata(self) -> Dict[str, Any]:
        return self.result.metadata()

    def __repr__(self) -> str:
        return repr(self.result)

    def _repr_html_(self) -> str:
        return self.result._repr_html_()


def reproducibility(
    qrels: QrelsLike,
    original: RunPairLike,
    repeated: Union[RunPairLike, Sequence[RunPairLike]],
    measures: Optional[Sequence[str]] = DEFAULT_MEASURES,
    *,
    repeated_qrels: Optional[QrelsLike] = None,
    cutoffs: Optional[Sequence[int]] = None,
    rbo_p: Optional[float] = None,
    samples: int = 1000,
    seed: Optional[int] = None,
    confidence: float = 0.95,
    empty_topics: str = "skip",
) -> ReproResult:
    """Did the repeated runs reproduce the original ones? (Breuer et al., SIGIR 2020.)

    ``original``: the baseline run, or (baseline, advanced); ``repeated``: the repeated
    runs in the same shape, or a list of such pairs (every team of a track at once, one
    row block each). Runs as :func:`irgauge.evaluate` takes them (paths, Runs, DataFrames,
    dicts). The same ``qrels`` for both sides is a reproduction; ``repeated_qrels`` (another
    collection's qrels) makes it a replication.

    Statistics (definitions in the guide, docs/reproducibility.md): KTU and RBO (with
    RBO_min and RBO_max) of the top-k documents at each of ``cutoffs`` (default 1000;
    persistence ``rbo_p``, default 0.95) and RMSE, nRMSE per measure (reproduction only,
    where ``cutoffs`` and ``rbo_p`` act; RMSE at each cutoff too when ``cutoffs`` is
    given); ARP; ER and Delta RI (two runs); the paired t-test (reproduction) or Welch's
    (replication) of original against repeated scores.
    Each mean statistic has a percentile bootstrap interval over topics (``samples`` draws
    of ``seed`` at ``confidence``; a replication draws the two topic sets independently).
    Runs must answer exactly their qrels' topics; ER with an original improvement of 0
    is undefined and refused. ``empty_topics`` as :func:`irgauge.evaluate` takes it
    (``zero``: trec_eval's reading; the notes say where the default differs from it).
    """
    return ReproResult(
        reproducibility_table(
            qrels,
            original,
            repeated,
            measures,
            repeated_qrels,
            cutoffs,
            rbo_p,
            samples,
            seed,
            confidence,
            empty_topics,
        )
    )
