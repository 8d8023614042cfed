"""Study ``reusability``: is a pooled collection fair to a run that did not help build it?
Leave-one-group-out (Zobel 1998; Büttcher et al. 2007; Voorhees 2018).

For each group g of runs (default: each run alone; a ``run<TAB>group`` file otherwise),
the reduced qrels drop every judged document that only g's runs placed in the depth-K pool
(:mod:`irgauge.evaluation.leave_out`), and every run is scored with them. The topics
are the full qrels', the same under every group's (``empty_topics``,
:func:`irgauge.evaluation.shared_topics.shared_topics`): by default those with a relevant
document, with ``zero`` all of them; a topic that a group's reduction leaves without a
relevant document scores 0 under that group's qrels. Per group and
measure, with s(r) the mean score of run r over those topics and rank(r) its rank among
all runs (1 best; tied means share the best rank):

* ``tables/runs.tsv``: group, run, measure, full = s(r) under the full qrels, reduced =
  s(r) under g's reduced qrels, change = reduced - full, rank_full, rank_reduced;
* ``tables/groups.tsv``: group, measure, kendall_tau (tau-b) and tau_ap (Yilmaz et al.'s
  tau_AP, ties in the reduced ranking averaged) of the ranking of all runs under g's
  reduced qrels against the full ranking (:mod:`irgauge.meta`), max_rank_drop =
  max over g's runs of max(rank_reduced - rank_full, 0), and mean_change = the mean over
  g's runs of change (the left-out runs: the ones the reduction is unfair to).

The summary orders the measures by how little they suffer: the mean over the groups of
Kendall's tau (higher is better) and the mean absolute change of the left-out runs,
mean_g mean_{r in g} |change| (lower is better). An ordering is stated only where the 95%
interval of the paired difference over topic resamples (the same resamples for every
measure) excludes 0 (:mod:`irgauge.studies._noise`). Figures: each left-out run's change
with its topic-sampling interval, and its rank under the full qrels against its rank under
its group's reduced qrels.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Dict, List, Mapping, Optional, Sequence, Union

import numpy as np
import pandas as pd

from irgauge import _checks
from irgauge.evaluation.leave_out import LeaveOutScores, leave_out_scores
from irgauge.measures.parse import measure_texts
from irgauge.meta import kendall_tau, tau_ap
from irgauge.meta.kendall import kendall_tau_cross
from irgauge.report import style
from irgauge.scores._results import REASONS, CheckedResult, check_table
from irgauge.stats.resampling import TIE_TOLERANCE, index_counts
from irgauge.studies import _common as common
from irgauge.studies import collection_record
from irgauge.studies import _noise
from irgauge.io.words import counted
from irgauge.types import PathLike, QrelsLike, RunsLike

NAME = "reusability"
TITLE = "Reusability of a pooled collection: leave one group out (Zobel 1998; Voorhees 2018)"
# AP against the measures built for incomplete judgments (Sakai 2007; Sakai and Kando 2008)
DEFAULT_MEASURES = ("AP", "AP'", "bpref", "infAP", "Q-measure'")
TOPIC_RESAMPLES = _noise.TOPIC_RESAMPLES
DEFAULT_DEPTH = 100  # TREC's classic pool depth (the command line asks for --depth)
RUNS_COLUMNS = ["group", "run", "measure", "full", "reduced", "change", "rank_full", "rank_reduced"]
GROUPS_COLUMNS = ["group", "measure", "kendall_tau", "tau_ap", "max_rank_drop", "mean_change"]


@dataclass
class ReusabilityResult(CheckedResult):
    """What :func:`reusability` computes: the two tables, the statistics the summary
    orders measures by, and the scores behind them."""

    runs: pd.DataFrame  # RUNS_COLUMNS
    groups: pd.DataFrame  # GROUPS_COLUMNS
    left_out: pd.DataFrame  # each run under its own group's qrels, with its interval
    tau: _noise.Statistic  # mean Kendall's tau over the groups
    change: _noise.Statistic  # mean |change| of the left-out runs
    scores: LeaveOutScores
    parameters: Dict[str, Any]
    problem: Optional[str]
    summary: List[str] = field(default_factory=list)
    notes: List[str] = field(default_factory=list)  # why a value is not finite

    def check_notes(self) -> List[str]:
        # the one check of every public result: values in range, NaN with its reason; and
        # the topics the groups' qrels lost, with the rule that chose the topics scored
        return (
            check_table(self.runs)
            + check_table(
                self.groups, {"kendall_tau": (-1.0, 1.0)}, {"kendall_tau": REASONS["tau"]}
            )
            + [f"left_out: {n}" for n in check_table(self.left_out)]
            + self.scores.topic_rule.notes()
        )

    def __repr__(self) -> str:
        runs, groups = len(self.scores.runs), len(self.scores.groups)
        head = f"ReusabilityResult: {counted(runs, 'run')}, {counted(groups, 'group')}"
        return "\n".join([head, *self.summary, "", self.groups.to_string(index=False)])


def reusability(
    qrels: QrelsLike,
    runs: RunsLike,
    depth: int,
    groups: Union[None, PathLike, Mapping[str, str]] = None,
    measures: Sequence[str] = DEFAULT_MEASURES,
    *,
    seed: Optional[int] = None,
    topic_resamples: int = TOPIC_RESAMPLES,
    eval_options: Optional[Dict[str, Any]] = None,
) -> ReusabilityResult:
    """Leave each group out of the depth-``depth`` pool and score every run (module
    docstring); nothing written. ``groups``: a ``run<TAB>group`` file or ``{run: group}``
    (default: each run alone). ``eval_options``: order, rel_level, gains, negative,
    complete (a run's missing qrels topics score 0, where they are refused by default),
    empty_topics (``skip``, the default: the full qrels' topics with a relevant
    document; ``zero``: all of them).
    ``topic_resamples``: T, the resamples of the topics behind the summary's intervals
    (seeded by ``seed``)."""
    seed = common.seed_or_fresh(seed)
    # a spread needs two resamples; refused before the scoring
    topic_resamples = _checks.whole(topic_resamples, "topic_resamples", 2, _checks.MAX_COUNT)
    options = dict(eval_options or {})
    scores = leave_out_scores(qrels, runs, depth, groups, measure_texts(measures), **options)
    n_topics = len(scores.topics)
    t_seed = _noise.topic_seed(seed)
    resamples = _noise.topic_resamples(n_topics, topic_resamples, t_seed)
    counts = index_counts(resamples, n_topics).T / n_topics  # topics x T: mean weights
    own = _own_groups(scores)
    runs_rows, group_rows, left_out = [], [], []
    tau_draws, change_draws, tau_reps, change_reps = {}, {}, {}, {}
    for m in scores.measures:
        full, reduced = scores.full[m].mean(axis=1), scores.reduced[m].mean(axis=2)
        rank_full, rank_reduced = _ranks(full), _ranks(reduced)
        runs_rows += _run_rows(scores, m, full, reduced, rank_full, rank_reduced)
        group_rows += _group_rows(scores, m, full, reduced, rank_full, rank_reduced)
        change = reduced[own, np.arange(len(own))] - full
        drawn_full = scores.full[m] @ counts  # runs x T
        drawn_reduced = scores.reduced[m] @ counts  # groups x runs x T
        drawn_change = drawn_reduced[own, np.arange(len(own))] - drawn_full
        left_out += _left_out_rows(scores, m, change, drawn_change, rank_full, rank_reduced, own)
        # every group's ranking against the full one in one pass (the full ranking's pair
        # signs taken once): groups x T, averaged over the groups in that order
        taus = kendall_tau_cross(drawn_full.T[:, None, :], drawn_reduced.transpose(2, 0, 1))
        tau_draws[m] = np.mean(np.ascontiguousarray(taus[:, 0, :].T), axis=0)
        tau_reps[m] = np.array([np.mean([kendall_tau(full, r) for r in reduced])])
        change_draws[m] = _group_mean(np.abs(drawn_change), own, len(scores.groups))
        change_reps[m] = np.array([_group_mean(np.abs(change), own, len(scores.groups))])
    tau = _noise.Statistic("mean Kendall's tau", tau_reps, tau_draws, True, 3)
    change = _noise.Statistic(
        "mean |change| of the left-out runs", change_reps, change_draws, False, 4
    )
    parameters = {
        "depth": scores.depth,
        "measures": scores.measures,
        "groups": scores.members,
        "eval_options": options,
        "topic_sampling": {"resamples": topic_resamples, "seed": t_seed},
        "dropped_judgments": dict(zip(scores.groups, scores.dropped.tolist())),
        "dropped_relevant": dict(zip(scores.groups, scores.dropped_relevant.tolist())),
        **scores.topic_rule.record(),
    }
    result = ReusabilityResult(
        runs=pd.DataFrame(runs_rows, columns=RUNS_COLUMNS),
        groups=pd.DataFrame(group_rows, columns=GROUPS_COLUMNS),
        left_out=pd.DataFrame(left_out),
        tau=tau,
        change=change,
        scores=scores,
        parameters={**parameters, "seed": seed},
        problem=_noise.design_problem(len(scores.runs), n_topics),
    )
    result.summary = describe_reusability(result)
    return result


def _own_groups(scores: LeaveOutScores) -> np.ndarray:
    """The group of each run (index into ``scores.groups``)."""
    own = np.zeros(len(scores.runs), dtype=np.int64)
    for g, name in enumerate(scores.groups):
        for run in scores.members[name]:
            own[scores.runs.index(run)] = g
    return own


def _ranks(means: np.ndarray) -> np.ndarray:
    """1 + the runs with a higher mean (beyond rounding), along the last axis."""
    above = means[..., None, :] > means[..., :, None] + TIE_TOLERANCE
    return 1 + above.sum(axis=-1)


def _group_mean(values: np.ndarray, own: np.ndarray, n_groups: int) -> np.ndarray:
    """Mean over the groups of the mean over each group's runs (first axis of ``values``)."""
    sums = np.zeros((n_groups,) + values.shape[1:])
    np.add.at(sums, own, values)
    return (
        sums / np.bincount(own, minlength=n_groups).reshape((-1,) + (1,) * (values.ndim - 1))
    ).mean(axis=0)


def _run_rows(scores, m, full, reduced, rank_full, rank_reduced) -> List[dict]:
    return [
        {
            "group": group,
            "run": run,
            "measure": m,
            "full": float(full[r]),
            "reduced": float(reduced[g, r]),
            "change": float(reduced[g, r] - full[r]),
            "rank_full": int(rank_full[r]),
            "rank_reduced": int(rank_reduced[g, r]),
        }
        for g, group in enumerate(scores.groups)
        for r, run in enumerate(scores.runs)
    ]


def _group_rows(scores, m, full, reduced, rank_full, rank_reduced) -> List[dict]:
    rows = []
    for g, group in enumerate(scores.groups):
        mine = [scores.runs.index(r) for r in scores.members[group]]
        rows.append(
            {
                "group": group,
                "measure": m,
                "kendall_tau": kendall_tau(full, reduced[g]),
                "tau_ap": tau_ap(full, reduced[g]),
                "max_rank_drop": int(max(0, (rank_reduced[g, mine] - rank_full[mine]).max())),
                "mean_change": float((reduced[g, mine] - full[mine]).mean()),
            }
        )
    return rows


def _left_out_rows(scores, m, change, drawn, rank_full, rank_reduced, own) -> List[dict]:
    """Each run under its own group's reduced qrels, its change with a topic-sampling
    95% interval (change +/- 1.96 sd over the resamples)."""
    half = _noise.Z95 * drawn.std(axis=1, ddof=1)
    return [
        {
            "measure": m,
            "run": run,
            "group": scores.groups[own[r]],
            "change": float(change[r]),
            "change_ci": float(half[r]),
            "rank_full": int(rank_full[r]),
            "rank_reduced": int(rank_reduced[own[r], r]),
        }
        for r, run in enumerate(scores.runs)
    ]


def describe_reusability(result: ReusabilityResult) -> List[str]:
    """The summary's sentences."""
    s = result.scores
    names = s.measures
    lines = _noise.design_warning(result.problem)
    lines.append(
        f"Leaving each of {counted(len(s.groups), 'group')} out of the depth-{s.depth} pool drops "
        f"{int(s.dropped.mean()):d} judgments on average ({int(s.dropped_relevant.mean()):d} "
        f"relevant; at most {int(s.dropped.max(initial=0))}), "
        f"over {counted(len(s.topics), 'topic')}."
    )
    lines.append(
        "Ranking of all runs under the reduced qrels against the full one, mean Kendall's "
        f"tau over the groups (higher suffers less): "
        f"{_noise.ordering(result.tau, names, result.problem)}."
    )
    lines.append(
        "Mean |change| of the left-out runs' scores (lower suffers less): "
        f"{_noise.ordering(result.change, names, result.problem)}."
    )
    worst = result.groups.sort_values("max_rank_drop", ascending=False).head(1)
    for row in worst.itertuples(index=False):
        lines.append(
            f"Largest rank drop of a left-out run: {row.max_rank_drop} "
            f"place{'s' if row.max_rank_drop != 1 else ''} "
            f"(group {row.group}, {row.measure})."
        )
    lines.append(
        "Intervals: 95%, topic sampling (paired bootstrap over "
        f"{result.parameters['topic_sampling']['resamples']} topic resamples)."
    )
    return lines


@common.study_entry
def run_reusability(
    qrels,
    runs,
    out,
    *,
    depth: int = DEFAULT_DEPTH,
    groups=None,
    measures: Sequence[str] = DEFAULT_MEASURES,
    seed: Optional[int] = None,
    topic_resamples: int = TOPIC_RESAMPLES,
    eval_options: Optional[Dict[str, Any]] = None,
    progress=None,
    report: bool = False,
) -> common.StudyResult:
    """Run the study (:func:`reusability`) and write its tables, figures, manifest and
    summary under ``out/reusability``. ``progress``: ``label -> callback(done, total)``."""
    step = common.steps(progress, "leave one group out", 1)
    result = reusability(
        qrels,
        runs,
        depth,
        groups,
        measures,
        seed=seed,
        topic_resamples=topic_resamples,
        eval_options=eval_options,
    )
    step()
    written = write_reusability(result, runs, out)
    return collection_record.finish_report(
        written, qrels, runs, out, report, dict(eval_options or {})
    )


def write_reusability(result: ReusabilityResult, runs, out) -> common.StudyResult:
    """Write the tables, figures, manifest and summary under ``out/reusability``."""
    s = result.scores
    with common.study_writer(out, NAME, TITLE) as writer:
        writer.table(
            "runs",
            result.runs,
            common.caption(
                f"Every run under the full qrels and under each group's reduced qrels "
                f"(depth-{s.depth} pool without the documents only that group contributed)",
                "zobel1998",
            ),
            digits=4,
            tsv=True,
        )
        writer.table(
            "groups",
            result.groups,
            common.caption(
                "Per group left out: Kendall's tau and tau_AP of the ranking of all runs "
                "against the full one, the largest rank drop and the mean change of the "
                "group's runs",
                "voorhees2018",
            ),
            digits=4,
            tsv=True,
        )
        writer.figure(
            "score_change",
            score_change_figure,
            result.left_out,
            "Change of each run's mean score when its group is left out of the pool "
            "(reduced - full), with its 95% topic-sampling interval",
        )
        writer.figure(
            "rank_full_reduced",
            rank_figure,
            result.left_out,
            "Rank of each run under the full qrels against its rank under its group's "
            "reduced qrels (on the diagonal: no change)",
        )
        record = common.Record(
            result.parameters,
            {
                "seed": result.parameters["seed"],
                "topic_resamples": result.parameters["topic_sampling"]["seed"],
            },
            s.runs,
            s.topics,
            {"qrels": str(s.qrels.source), "runs": common.path_list(runs)},
            result.notes,
        )
        return writer.finish_with(record, result.summary)


def score_change_figure(table: pd.DataFrame, directory, stem: str) -> List[str]:
    """Each left-out run's change (one series per measure, runs on x) with its interval."""
    runs = list(dict.fromkeys(table["run"]))
    fig, ax = style.new_figure(max(6.0, 0.25 * len(runs) + 2.5), 4.0)
    x = np.arange(len(runs))
    measures = list(dict.fromkeys(table["measure"]))
    width = 0.8 / max(len(measures), 1)
    for k, (m, part) in enumerate(table.groupby("measure", sort=False)):
        part = part.set_index("run").loc[runs]
        ax.errorbar(
            x - 0.4 + width * (k + 0.5),
            part["change"].to_numpy(float),
            yerr=part["change_ci"].to_numpy(float),
            fmt=str(style.series_style(k)["marker"]),
            color=style.series_style(k)["color"],
            markersize=3,
            linewidth=0.8,
            label=str(m),
        )
    ax.axhline(0, color="grey", lw=0.8, ls=":")
    ax.set_xticks(x)
    ax.set_xticklabels(runs, rotation=90, fontsize=6)
    ax.set_ylabel("mean score: reduced - full")
    style.legend_outside(ax, "measure")
    return style.save(fig, directory, stem)


def rank_figure(table: pd.DataFrame, directory, stem: str) -> List[str]:
    """Rank under the full qrels (x) against rank under the group's reduced qrels (y)."""
    fig, ax = style.new_figure(5.5, 4.5)
    top = int(max(table["rank_full"].max(), table["rank_reduced"].max()))
    ax.plot([1, top], [1, top], color="grey", lw=0.8, ls=":")
    for k, (m, part) in enumerate(table.groupby("measure", sort=False)):
        style.line(ax, part["rank_full"], part["rank_reduced"], k, str(m), linestyle="none")
    ax.set_xlabel("rank under the full qrels (1 best)")
    ax.set_ylabel("rank under the group's reduced qrels")
    ax.xaxis.get_major_locator().set_params(integer=True)
    ax.yaxis.get_major_locator().set_params(integer=True)
    style.legend_outside(ax, "measure")
    return style.save(fig, directory, stem)


__all__ = ["ReusabilityResult", "reusability", "run_reusability", "DEFAULT_MEASURES"]
