"""trec_eval's means as its C loops take them: sums in topic order from 0.0, -c's means over
every qrels topic, -R qrels_jg's means over the judgment groups, and the lines derived from
others (a count over a cutoff divided as C divides, constants)."""

from __future__ import annotations

import math
from typing import AbstractSet, Iterable, List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
from irgauge.evaluation.trec_eval.line_scoring import LineValues
from irgauge.evaluation.trec_eval.evaluated_topics import byte_order
from irgauge.measures import parse_measure
from irgauge.measures.base import GMEAN_EPSILON, MAX_CUTOFF
from irgauge.measures.c_numbers import c_quotient
from irgauge.measures.trec_eval_words import TrecLine


def c_sum(terms: Iterable[float]) -> float:
    """The terms added one by one from 0.0, as trec_eval's C loops add them (Python's
    ``sum`` compensates its rounding from 3.12 on, which can flip a printed digit)."""
    total = 0.0
    for term in terms:
        total += term
    return total


def topic_mean(values: LineValues, label: str, order: Sequence[str]) -> float:
    """trec_eval's mean of a line: its topics' values summed in topic order, over their
    number (0 with no topic)."""
    return c_sum(values[(label, topic)] for topic in order) / len(order) if order else 0.0


def complete_means(
    plan: Sequence[TrecLine],
    values: LineValues,
    topics: Mapping[str, int],
    n_qrels_topics: int,
    options: TrecEvalOptions,
) -> int:
    """num_q, and each mean taken again as trec_eval -c takes it (meas_avg.c): over every
    qrels topic, ``n_qrels_topics``, whichever it evaluated (-D 0.query evaluates one):
    the sum of the topics' values over that number, for a geometric mean (gm_map) the
    sum of log(max(value, 1e-5)) with log(1e-5) for each topic not evaluated. Counts
    stay sums. Without -c (or when every topic was evaluated) nothing changes."""
    if not options.complete or len(topics) == n_qrels_topics:
        return len(topics)
    order = sorted(topics, key=byte_order)
    for line in plan:
        if line.kind not in ("value", "summary"):
            continue
        kept = [values[(line.label, topic)] for topic in order]
        if line.spec and parse_measure(line.spec).aggregation() == "gmean":
            logs = c_sum(math.log(max(v, GMEAN_EPSILON)) for v in kept)
            logs += (n_qrels_topics - len(order)) * math.log(GMEAN_EPSILON)
            values[(line.label, "all")] = math.exp(logs / n_qrels_topics)
        else:
            values[(line.label, "all")] = c_sum(kept) / n_qrels_topics
    return n_qrels_topics


def derived_values(
    plan: List[TrecLine],
    values: LineValues,
    topics: Mapping[str, int],
    relevant: Optional[np.ndarray] = None,
) -> None:
    """The lines not measured as such (``TrecLine.per`` and ``constant``), per topic and
    for ``all`` (their sum in topic order over the number of topics, as trec_eval).
    ``relevant``: R per topic index, for the lines divided by min(cutoff, R)."""
    order = sorted(topics, key=byte_order)
    for line in plan:
        if line.per is not None:
            for topic in order:
                # the count behind count/MAX_CUTOFF (exact: counts are far below 2^52),
                # then divided as C divides two longs converted to doubles
                count = round(values[(line.label, topic)] * MAX_CUTOFF)
                divisor = line.per
                if line.per_at_most_R and relevant is not None:
                    divisor = min(divisor, int(relevant[topics[topic]]))
                    if not relevant[topics[topic]]:  # m_rel_P.c returns at once: 0
                        values[(line.label, topic)] = 0.0
                        continue
                values[(line.label, topic)] = c_quotient(float(count), float(divisor))
        elif line.constant is not None:
            for topic in order:
                values[(line.label, topic)] = line.constant
        else:
            continue
        values[(line.label, "all")] = topic_mean(values, line.label, order)


def judgment_group_means(
    plan: Sequence[TrecLine],
    per_group: Sequence[Tuple[AbstractSet[str], LineValues]],
    order: Sequence[str],
) -> LineValues:
    """-R qrels_jg: each measured line's value of a topic, the sum of its values under the
    judgment groups that judge the topic (``per_group``: their topics and values) over
    their number (form_res_rels_jg.c), and its mean over the topics ``order``."""
    values = LineValues(order)
    for line in plan:
        if line.spec is None:
            continue
        for topic in order:
            kept = [group[(line.label, topic)] for found, group in per_group if topic in found]
            if line.per is not None:  # m_P_avgjg.c adds each group's count over the cutoff
                kept = [c_quotient(float(round(v * MAX_CUTOFF)), line.per) for v in kept]
            values[(line.label, topic)] = c_sum(kept) / len(kept)  # x / 1 is x
        values[(line.label, "all")] = topic_mean(values, line.label, order)
    return values
