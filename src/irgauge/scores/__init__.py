"""Score matrices: one per measure, systems x topics, the input of every meta-evaluation;
read from irgauge's long TSV, wide CSV/TSV files or DataFrames of any tool."""

from irgauge.scores.files import read_scores
from irgauge.scores.frames import as_score_matrices, as_score_matrix
from irgauge.scores.matrix import (
    LONG_HEADER,
    MEAN_TOPIC,
    Matrices,
    ScoreMatrix,
    align,
    check_matrices,
    combine,
    from_frame,
    require_systems,
    select_systems,
)

__all__ = [
    "LONG_HEADER",
    "MEAN_TOPIC",
    "Matrices",
    "ScoreMatrix",
    "align",
    "as_score_matrices",
    "as_score_matrix",
    "check_matrices",
    "combine",
    "from_frame",
    "read_scores",
    "require_systems",
    "select_systems",
]
