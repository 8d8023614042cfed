"""What trec_eval 10.0 prints where its C code departs from the measures' definitions, as it
prints it: the -c stand-in ranking of an unanswered topic, 0/0 on an empty ranking, and
ideal_dcg carried over from the topic before."""

from __future__ import annotations

import math
from dataclasses import replace
from typing import List, Mapping, Optional, Sequence, Tuple

import numpy as np

from irgauge.collection.judgments import Judgments
from irgauge.evaluation.trec_eval.means import c_sum, topic_mean
from irgauge.evaluation.trec_eval.drop_in_options import TrecEvalOptions
from irgauge.evaluation.trec_eval.line_scoring import LineValues, score_lines
from irgauge.evaluation.trec_eval.evaluated_topics import byte_order, negative_levels_only
from irgauge.measures import parse_measure
from irgauge.measures.base import GMEAN_EPSILON
from irgauge.measures.iprec import ELEVEN_POINTS
from irgauge.measures.trec_eval_words import TrecLine

Settings = Tuple[TrecEvalOptions, int]  # the options, and the memory budget to score with


STAND_IN = "<trec_eval -c stand-in>"
STAND_IN_DOCNO = "ceci_nest_pas_un_docno"  # trec_eval's ranking for an unanswered topic


def stand_in_values(
    plan: Sequence[TrecLine],
    values: LineValues,
    judgments: Judgments,
    topics: Mapping[str, int],
    unanswered: Sequence[str],
    settings: Settings,
) -> None:
    """trec_eval -c scores an unanswered topic on a stand-in ranking (one document not in
    the qrels, ``ceci_nest_pas_un_docno``), then resets num_ret, utility, rbp_resid,
    relstring and unj* by their printed names: with parameters (``utility_2,-1,0,0``)
    utility and rbp_resid keep the stand-in's value. irgauge's -c gives the reset value,
    so these lines are scored on the stand-in, and their means taken again as trec_eval
    takes them (the sum in topic order over the number of topics). So are lines that
    give the stand-in document a gain (``ndcg.-1=2``: level -1, outside the qrels)."""
    kept = _scored_stand_in(values, plan, judgments, unanswered, settings)
    if kept is None:
        return
    order = sorted(topics, key=byte_order)
    for line in kept:
        if line.kind == "summary":  # gm_map, gm_bpref: meas_avg.c's geometric mean
            logs = c_sum(math.log(max(values[(line.label, t)], GMEAN_EPSILON)) for t in order)
            values[(line.label, "all")] = math.exp(logs / len(order))
        else:
            values[(line.label, "all")] = topic_mean(values, line.label, order)


def group_stand_in_values(
    plan: Sequence[TrecLine],
    group: LineValues,
    judgments: Judgments,
    unanswered: Sequence[str],
    settings: Settings,
) -> None:
    """-R qrels_jg: the -c stand-in scored under one judgment group (``group``: that
    group's values, ``judgments`` its judgments), as form_res_rels_jg.c scores it under
    every group that judges the topic; averaged over the groups with the others."""
    _scored_stand_in(group, plan, judgments, unanswered, settings)


def _scored_stand_in(
    target: LineValues,
    plan: Sequence[TrecLine],
    judgments: Judgments,
    unanswered: Sequence[str],
    settings: Settings,
) -> Optional[List[TrecLine]]:
    """The lines the -c stand-in is scored on, their values for each unanswered topic
    put in ``target``; None where no line needs it."""
    kept = _stand_in_lines(plan, settings[0])
    scored = _stand_in_scores(kept, judgments, unanswered, settings)
    if scored is None:
        return None
    for line in kept:
        for topic in unanswered:
            target[(line.label, topic)] = scored[(line.label, topic)]
    return kept


def _stand_in_lines(plan: Sequence[TrecLine], options: TrecEvalOptions) -> List[TrecLine]:
    """The measured lines whose value on the -c stand-in is not the value irgauge's -c
    gives an unanswered topic (see ``stand_in_values``)."""
    return [
        line
        for line in plan
        if line.spec is not None
        and (
            line.label.startswith(("utility_", "rbp_resid_"))
            or "trec_gains=" in line.spec
            # below 0, -l makes the stand-in document relevant in its ranking
            or (
                options.rel_level < 0
                and line.kind in ("value", "summary")
                and not _reset_on_stand_in(line.label)
            )
        )
    ]


def _stand_in_scores(
    kept: List[TrecLine], judgments: Judgments, unanswered: Sequence[str], settings: Settings
) -> Optional[LineValues]:
    """The ``kept`` lines' values on the -c stand-in ranking of each ``unanswered`` topic
    (None when there is nothing to score: under -M 0 the stand-in is cut away too, and
    the empty ranking's values stand)."""
    options, budget = settings
    if not (options.complete and unanswered and kept) or options.max_docs == 0:
        return None
    stand_in = {t: {STAND_IN_DOCNO: 1.0} for t in unanswered}
    alone = replace(options, complete=False)  # the stand-in answers the topics it scores
    return score_lines(kept, judgments, stand_in, alone, budget, name=STAND_IN)[0]


def _reset_on_stand_in(label: str) -> bool:
    """The lines trec_eval.c resets by name after scoring the -c stand-in."""
    return label in ("num_ret", "utility", "relstring", "rbp_resid") or label.startswith("unj")


def empty_rankings(
    plan: Sequence[TrecLine],
    values: LineValues,
    judgments: Judgments,
    topics: Mapping[str, int],
    grades: Mapping[str, np.ndarray],
    options: TrecEvalOptions,
) -> None:
    """trec_eval's iprec_at_recall and 11pt_avg divide 0 by 0 for a topic with no document
    left (with -J: every document unjudged, or -c with an unanswered topic, whose stand-in
    document is unjudged; -M 0: every topic): a recall point rounding to 0 or fewer relevant
    documents takes the value -nan, and so does the mean over topics. Without -J or -M 0
    a ranking is never empty. ``grades``: each topic's first (-J: judged) grades."""
    if not (options.judged_only or options.max_docs == 0):
        return
    empty = [t for t, g in grades.items() if len(g) == 0]
    if not empty:
        return
    for line in plan:
        points = _recall_points(line.spec)
        if points is None:
            continue
        for topic in empty:
            n_rel = int(judgments.R[topics[topic]])
            # a level whose cut round(x*R) is 0 or less takes 0/0; 11pt_avg adds it in
            if any(x * n_rel + 0.5 < 1 for x in points):
                values[(line.label, topic)] = values[(line.label, "all")] = -math.nan


def _recall_points(spec: Optional[str]) -> Optional[List[float]]:
    """The recall levels of an IPrec or IPrec_avg measure (11pt_avg), else None."""
    if spec is None:
        return None
    measure = parse_measure(spec)
    if measure.family.name not in ("IPrec", "IPrec_avg"):
        return None
    given = {p.name: p.default for p in measure.family.params} | dict(measure.params)
    if measure.family.name == "IPrec":
        return [given["recall"]]
    return list(ELEVEN_POINTS if given["recalls"] is None else given["recalls"])


def ideal_dcg_carried_over(
    plan: Sequence[TrecLine], values: LineValues, judgments: Judgments, topics: Mapping[str, int]
) -> None:
    """trec_eval counts each topic's documents per level in a table it reuses from topic
    to topic (form_res_rels.c). A topic judged with negative levels only counts none and
    leaves the counts of the topic evaluated before it, in byte order, whose ideal_dcg it
    prints; its other values divide a gain of 0 by it. (The first topic stops instead:
    unjudged_first_stop.)"""
    order = sorted(topics, key=byte_order)
    negative_only = negative_levels_only(judgments)
    carried = [(before, t) for before, t in zip(order, order[1:]) if negative_only[topics[t]]]
    if not carried:  # the usual case: the plan's measures are not parsed again
        return
    for line in plan:
        if not line.spec or parse_measure(line.spec).family.name != "IDCG":
            continue
        for before, topic in carried:  # in order: a run of such topics carries one value
            values[(line.label, topic)] = values[(line.label, before)]
        values[(line.label, "all")] = topic_mean(values, line.label, order)
