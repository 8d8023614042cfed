"""The options of a topic set size design (Sakai 2016), which ``irgauge topics`` and
``irgauge study topicset`` take: ``--min-diff``, ``--alpha``, ``--beta``, ``--systems``
and ``--ci-width``."""

from __future__ import annotations


from typing import Any, Optional

from irgauge._checks import MAX_COUNT
from irgauge.cli._options import add_alpha, integer, number
from irgauge.cli.option_spellings import stated

# the topic set size design's numbers (cmd_topics, study topicset)
_difference = number(0.0, None, min_open=True, what="a difference > 0")
_width = number(0.0, None, min_open=True, what="a width > 0")
_beta = number(0.0, 1.0, True, True, what="a type II error rate")
_systems = integer(2, MAX_COUNT, what="a number of systems")


def add_topic_design(
    parser: Any, min_diff: Optional[float] = None, ci_width: Optional[float] = None
) -> None:
    """``--min-diff``, ``--alpha``, ``--beta``, ``--systems`` (dest ``anova_systems``) and
    ``--ci-width`` of a topic set size design (Sakai 2016): ``min_diff`` None: required;
    ``ci_width`` None: no interval design."""
    words = "required" if min_diff is None else f"default: {min_diff}"
    action = parser.add_argument(
        "--min-diff",
        type=_difference,
        default=min_diff,
        required=min_diff is None,
        metavar="D",
        help=f"minimum difference D between two systems to detect ({words})",
    )
    stated(action, default=words)
    add_alpha(parser)
    parser.add_argument(
        "--beta",
        type=_beta,
        default=0.20,
        help="type II error rate: the power is 1 - beta (default: 0.2)",
    )
    parser.add_argument(
        "--systems",
        dest="anova_systems",  # M, as the results record it: systems= are names in Python
        type=_systems,
        default=2,
        metavar="M",
        help="systems M compared by the one-way ANOVA design (default: 2)",
    )
    words = "none: no interval design" if ci_width is None else str(ci_width)
    action = parser.add_argument(
        "--ci-width",
        type=_width,
        default=ci_width,
        metavar="W",
        help="the topics for a confidence interval of a difference at most W wide "
        f"(default: {words})",
    )
    stated(action, default=words)
