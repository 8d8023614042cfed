"""The public entry points, each with a small valid call (or a call that fails on bad input):
the table the guest test drives through the process-state snapshot.

A Python case names the public objects it drives (``uses``, dotted names as the docs give
them); the completeness test resolves them and checks that every public callable is driven
by some case or listed in NOT_DRIVEN with its reason. CLI cases are keyed by the command
path (``"study onerel"``), checked against the parser's own list of commands.
"""

from __future__ import annotations

import sys

from dataclasses import dataclass
from pathlib import Path
from typing import Any, Callable, Optional, Tuple

import numpy as np

import irgauge
import irgauge.types

from guest_inputs import MEASURES, SEED, Inputs


@dataclass(frozen=True)
class Case:
    id: str
    call: Callable[[Inputs, Path], Any]
    uses: Tuple[str, ...] = ()
    fails: Optional[str] = None  # dotted name of the error the call must raise
    render: bool = True  # False: figures drawn, their files written as placeholders (speed)
    slow: bool = False  # True: in the full suite only (a Dask cluster's start, say)


def _table(i: Inputs, out: Path):
    i.result.table(), i.result.to_frame(), i.result.means, i.result.score_matrices()


def _custom_measure(i: Inputs, out: Path):
    @irgauge.measure("guest_hits", cutoff=True)
    def hits(ranked):
        return irgauge.rank_sum(ranked.isrel * 1.0)

    try:
        irgauge.evaluate(i.qrels, i.runs[:1], ["guest_hits@5"])
    finally:
        irgauge.unregister_measure("guest_hits")
    irgauge.register_measure("guest_first", lambda ranked: ranked.isrel[:, 0] * 1.0, cutoff=False)
    irgauge.unregister_measure("guest_first")


def _pair(i: Inputs):
    values = i.matrices["AP"].values
    return values[0], values[1]


def _stats(i: Inputs, out: Path):
    from irgauge.stats import adjust, benjamini_hochberg, holm

    x, y = _pair(i)
    irgauge.paired_t_test(x, y), irgauge.sign_test(x, y)
    p = np.array([0.01, 0.2, 0.04])
    adjust(p, "holm"), holm(p), benjamini_hochberg(p)


def _bootstrap_pairs(i: Inputs, out: Path):
    from irgauge.stats import bootstrap_pairs

    x, y = _pair(i)
    counts = np.random.default_rng(SEED).multinomial(len(x), np.full(len(x), 1 / len(x)), 20)
    bootstrap_pairs((x - y)[None, :], counts, alphas=(0.05,))


def _correlations(i: Inputs, out: Path):
    from irgauge.meta import tau_ap_a, tau_ap_b, tau_threshold

    x, y = _pair(i)
    irgauge.kendall_tau(x, y), irgauge.tau_ap(x, y), tau_ap_a(x, y), tau_ap_b(x, y)
    tau_threshold(len(x))
    irgauge.rank_correlations(i.matrices)


def _topicset(i: Inputs, out: Path):
    from irgauge.meta.topicset import ci_width, topics_needed

    variance = irgauge.residual_variance(i.matrices["AP"])
    irgauge.min_detectable_diff(variance, 20), ci_width(variance, 20)
    topics_needed(variance, min_diff=0.1)
    topics_needed(variance, [["ttest"], ["anova"], ["ci"]], [0.1, 0.2], 0.1, 0.05, 0.2, 3)
    irgauge.topic_set_size(i.matrices, min_diff=0.1)


def _matrices(i: Inputs, out: Path):
    irgauge.read_scores(i.scores)
    irgauge.as_score_matrix(i.result.per_topic[i.result.per_topic["measure"] == "AP"])
    irgauge.as_score_matrices(i.result.per_topic)
    irgauge.select_systems(i.matrices, top_k=3, by="AP")
    m = i.matrices["AP"]
    irgauge.ScoreMatrix(m.values, list(m.systems), list(m.topics), "AP")


def _readers(i: Inputs, out: Path):
    irgauge.read_qrels(i.qrels), irgauge.read_run(i.runs[0])
    irgauge.read_judgment_groups(i.judgment_groups)
    prels = out / "sample.prels"  # the qrels as a sample drawn with probability 1
    lines = Path(i.qrels).read_text().splitlines()
    prels.write_text("".join(f"{t} {d} {level} 1\n" for t, _, d, level in map(str.split, lines)))
    irgauge.read_prels(prels)


def _arrow(i: Inputs, out: Path):
    from irgauge.io.arrow_tables import iter_arrow_run_chunks, read_arrow_qrels, read_arrow_run

    read_arrow_run(i.run_parquet), read_arrow_qrels(i.qrels_parquet)
    list(iter_arrow_run_chunks(i.run_parquet, max_rows=50))


def _measures(i: Inputs, out: Path):
    from irgauge.measures import custom_measures, load_plugins, parse_measures, plugin_failures

    irgauge.list_measures(), irgauge.parse_measure("nDCG@10"), parse_measures(["AP", "P@5"])
    custom_measures(), load_plugins(), plugin_failures()
    irgauge.rank_sum(np.arange(12.0).reshape(3, 4))


def _trec_eval(i: Inputs, out: Path):
    options = irgauge.TrecEvalOptions(per_topic=True)
    irgauge.trec_eval_output(i.qrels, i.runs[0], ["official", "ndcg_cut.10"], options)


def _simulate(i: Inputs, out: Path):
    sim = irgauge.simulate_collection(n_topics=3, n_runs=2, depth=5, pool_depth=5, seed=SEED)
    irgauge.write_collection(sim, out / "col")


def _qa(i: Inputs, out: Path):
    gold = irgauge.read_gold(i.qa["gold"])
    irgauge.read_answers(i.qa["runs"][0])
    irgauge.qa_evaluate(gold, i.qa["runs"], ["RR", "Q-measure"])


def _engine(i: Inputs, out: Path):
    with irgauge.use_engine("local"):
        irgauge.evaluate(i.qrels, i.runs, ["AP"])


def _jobs(i: Inputs, out: Path):
    with irgauge.use_jobs(2):  # a chunk of pairs per measure: two or more steps, a pool
        irgauge.discriminative_power(i.matrices, samples=10, seed=SEED)


def _worker_processes(i: Inputs, out: Path):
    from irgauge.evaluation import processes, span_tasks

    saved = processes.MIN_BYTES, processes.SPAN_BYTES, span_tasks.SPAN_BYTES
    safe = processes._fork_is_safe
    # the inputs' small run files count as big: forked worker processes score their spans,
    # also beside the idle threads an earlier test may have left in this test process
    processes.MIN_BYTES = processes.SPAN_BYTES = span_tasks.SPAN_BYTES = 256
    processes._fork_is_safe = lambda: sys.platform.startswith("linux")
    try:
        irgauge.evaluate(i.qrels, i.runs, ["AP"], jobs=2)
    finally:
        processes.MIN_BYTES, processes.SPAN_BYTES, span_tasks.SPAN_BYTES = saved
        processes._fork_is_safe = safe


def _dask_engine(i: Inputs, out: Path):
    with irgauge.use_engine("dask"):
        irgauge.evaluate(i.qrels, i.runs, ["AP"])


def _report(i: Inputs, out: Path):
    import shutil

    shutil.copytree(i.study, out / "study")
    irgauge.write_report(out / "study", inputs=[i.scores])


def _study(name: str, **options):
    def call(i: Inputs, out: Path):
        from irgauge.studies import study_function

        study = study_function(name)
        if name == "qa":
            return study(i.qa["gold"], i.qa["runs"], out, seed=SEED, **options).text()
        return study(i.qrels, i.runs, out, seed=SEED, **options).text()

    return call


def _bad_qrels(i: Inputs, out: Path):
    bad = out / "bad.qrels"
    bad.write_text("1 0 d1 1\n1 0 d2 high\n")
    irgauge.evaluate(bad, i.runs, ["AP"])


def _bad_scores(i: Inputs, out: Path):
    bad = out / "bad.tsv"
    bad.write_text("run\tmeasure\ttopic\tvalue\na\tAP\t1\tnot-a-number\n")
    irgauge.discriminative_power(irgauge.read_scores(bad), samples=10, seed=SEED)


def _one_topic(i: Inputs, out: Path):
    one = out / "one.csv"
    one.write_text("topic,a,b,c\nt1,0.1,0.5,0.9\n")
    irgauge.discriminative_power(irgauge.read_scores(one), samples=10, seed=SEED)


def _bad_measure(i: Inputs, out: Path):
    irgauge.evaluate(i.qrels, i.runs, ["no-such-measure@3"])


def _raising_measure(i: Inputs, out: Path):
    """A registered measure that raises: its guard turns the error into a UserCodeError."""
    irgauge.register_measure("guest_raises", lambda ranked: 1 / 0)
    try:
        irgauge.evaluate(i.qrels, i.runs[:1], ["guest_raises"])
    finally:
        irgauge.unregister_measure("guest_raises")


def _bad_figures_folder(i: Inputs, out: Path):
    """A figure folder that is a file: the study fails after drawing."""
    from irgauge.studies.topic_set_design import run_topicset

    (out / "taken").write_text("x")
    run_topicset(i.qrels, i.runs, out / "taken", seed=SEED, topic_resamples=5)


QUICK_STUDY = {"samples": 20, "trials": 10, "topic_resamples": 5}


def _repro(i: Inputs, out: Path):
    """The study with its figures drawn, and Welch's test it uses for a replication."""
    result = irgauge.reproducibility(
        i.qrels, i.runs[:2], i.runs[2:4], ["AP"], cutoffs=[5, 10], samples=20, seed=SEED
    )
    result.write_figures(out / "repro")
    irgauge.stats.welch_t_test(*_pair(i))
    return result.table, result.conclusions, sorted(result.figures)


_REPRO_USES = (
    "reproducibility",
    "irgauge.studies.reproduction.ReproResult",
    "irgauge.stats.welch_t_test",
)

PYTHON_CASES = [
    Case("EvalResult methods", _table, ("EvalResult",)),
    Case("evaluate", lambda i, o: irgauge.evaluate(i.qrels, i.runs, MEASURES), ("evaluate",)),
    Case(
        "score_matrices",
        lambda i, o: irgauge.score_matrices(i.qrels, i.runs, ["AP"]),
        ("score_matrices",),
    ),
    Case("use_engine", _engine, ("use_engine",)),
    Case("use_engine dask", _dask_engine, ("use_engine",), slow=True),
    Case("evaluate on worker processes", _worker_processes, ("evaluate",)),
    Case("use_jobs", _jobs, ("use_jobs", "discriminative_power")),
    Case("custom measures", _custom_measure, ("measure", "register_measure", "unregister_measure")),
    Case(
        "measures",
        _measures,
        (
            "list_measures",
            "parse_measure",
            "rank_sum",
            "irgauge.measures.parse_measures",
            "irgauge.measures.custom_measures",
            "irgauge.measures.load_plugins",
            "irgauge.measures.plugin_failures",
        ),
    ),
    Case("readers", _readers, ("read_qrels", "read_run", "read_judgment_groups", "read_prels")),
    Case(
        "arrow readers",
        _arrow,
        (
            "irgauge.io.arrow_tables.read_arrow_run",
            "irgauge.io.arrow_tables.read_arrow_qrels",
            "irgauge.io.arrow_tables.iter_arrow_run_chunks",
        ),
    ),
    Case("trec_eval_output", _trec_eval, ("trec_eval_output", "TrecEvalOptions")),
    Case(
        "score matrices",
        _matrices,
        ("read_scores", "as_score_matrix", "as_score_matrices", "select_systems", "ScoreMatrix"),
    ),
    Case("simulate", _simulate, ("simulate_collection", "write_collection")),
    Case("sample_paths", lambda i, o: irgauge.sample_paths(), ("sample_paths",)),
    Case("reduce_qrels", lambda i, o: irgauge.reduce_qrels(i.qrels, seed=SEED), ("reduce_qrels",)),
    Case(
        "pool",
        lambda i, o: irgauge.pool(i.runs, "bandit", budget=3, qrels=i.qrels).frame(),
        ("pool", "collection.pooling.Pool"),
    ),
    Case(
        "classic tests",
        _stats,
        (
            "paired_t_test",
            "sign_test",
            "irgauge.stats.adjust",
            "irgauge.stats.holm",
            "irgauge.stats.benjamini_hochberg",
        ),
    ),
    Case(
        "paired_bootstrap_test",
        lambda i, o: irgauge.paired_bootstrap_test(*_pair(i), samples=50, seed=SEED),
        ("paired_bootstrap_test",),
    ),
    Case("bootstrap_pairs", _bootstrap_pairs, ("irgauge.stats.bootstrap_pairs",)),
    Case(
        "randomisation_test",
        lambda i, o: irgauge.randomisation_test(*_pair(i), permutations=50, seed=SEED),
        ("randomisation_test",),
    ),
    Case(
        "randomised_tukey_hsd",
        lambda i, o: irgauge.randomised_tukey_hsd(i.matrices["AP"].values, trials=20, seed=SEED),
        ("randomised_tukey_hsd",),
    ),
    Case(
        "compare_pairs",
        lambda i, o: irgauge.compare_pairs(
            i.matrices["AP"].values,
            list(i.matrices["AP"].systems),
            samples=20,
            permutations=20,
            seed=SEED,
        ),
        ("compare_pairs",),
    ),
    Case(
        "compare_table",
        lambda i, o: irgauge.compare_table(i.result, seed=SEED, samples=20).render("latex"),
        ("compare_table",),
    ),
    Case(
        "discriminative_power",
        lambda i, o: irgauge.discriminative_power(i.matrices, samples=20, seed=SEED).table,
        ("discriminative_power",),
    ),
    Case(
        "swap_rates",
        lambda i, o: irgauge.swap_rates(i.matrices, trials=10, seed=SEED),
        ("swap_rates",),
    ),
    Case(
        "stability",
        lambda i, o: irgauge.stability(i.matrices, trials=10, seed=SEED),
        ("stability",),
    ),
    Case(
        "predictive_power",
        lambda i, o: irgauge.predictive_power(i.matrices, halvings=10, seed=SEED),
        ("predictive_power",),
    ),
    Case(
        "agreement",
        lambda i, o: irgauge.agreement(
            [i.qrels, i.relabelled_qrels], i.runs, samples=20, seed=SEED
        ),
        ("agreement",),
    ),
    Case("reproducibility", _repro, _REPRO_USES),
    Case(
        "correlations",
        _correlations,
        (
            "kendall_tau",
            "tau_ap",
            "rank_correlations",
            "irgauge.meta.tau_ap_a",
            "irgauge.meta.tau_ap_b",
            "irgauge.meta.tau_threshold",
        ),
    ),
    Case(
        "topic set size",
        _topicset,
        (
            "residual_variance",
            "min_detectable_diff",
            "topic_set_size",
            "irgauge.meta.topicset.ci_width",
            "irgauge.meta.topicset.topics_needed",
        ),
    ),
    Case(
        "incomplete_study",
        lambda i, o: irgauge.incomplete_study(i.qrels, i.runs, rates=(50,), seed=SEED, samples=20),
        ("incomplete_study",),
    ),
    Case("qa", _qa, ("read_gold", "read_answers", "qa_evaluate")),
    Case(
        "to_ir_measures",
        lambda i, o: irgauge.to_ir_measures(["AP", "nDCG@10"]),
        ("to_ir_measures",),
    ),
    Case("write_report", _report, ("write_report",)),
    Case(
        "run_study onerel",
        lambda i, o: irgauge.run_study(
            "onerel", i.qrels, i.runs, o, seed=SEED, repetitions=1, gains=("1:1:1",), **QUICK_STUDY
        ),
        ("run_study", "irgauge.studies.onerel.run_onerel"),
        render=False,
    ),
    Case(
        "study incomplete",
        _study("incomplete", samples=20, reductions=1, rates=(50,), topic_resamples=5),
        ("irgauge.studies.study_function", "irgauge.studies.incomplete.run_incomplete"),
        render=False,
    ),
    Case(
        "study predictive",
        _study("predictive", halvings=10, topic_resamples=5),
        ("irgauge.studies.predictive.run_predictive",),
        render=False,
    ),
    Case(
        "study topicset",
        _study("topicset", topic_resamples=10, measures=["AP"]),  # its curves are per measure
        ("irgauge.studies.topic_set_design.run_topicset",),
        render=False,
    ),
    Case(
        "depth pool and its reduction",
        lambda i, o: (
            irgauge.depth_pool(i.runs, 5),
            irgauge.reduce_to_depth(i.qrels, i.runs, [3, 5]),
        ),
        (
            "depth_pool",
            "reduce_to_depth",
            "irgauge.collection.depth_pool.DepthPool",
        ),
    ),
    Case(
        "reusability",
        lambda i, o: repr(irgauge.reusability(i.qrels, i.runs, 3, topic_resamples=5, seed=SEED)),
        ("reusability",),
    ),
    Case(
        "study reusability",
        _study("reusability", depth=3, topic_resamples=5),
        ("irgauge.studies.reusability.run_reusability",),
        render=False,
    ),
    Case(
        "study pooling",
        _study("pooling", budgets=[3], strategies=["depth", "bandit"], topic_resamples=5),
        ("irgauge.studies.pooling.run_pooling",),
        render=False,
    ),
    Case(
        "study qa",
        _study("qa", trials=10, repetitions=1, topic_resamples=5, second_size=None),
        ("irgauge.studies.qa.run_qa",),
        render=False,
    ),
    Case("error: bad qrels level", _bad_qrels, fails="irgauge.InputError"),
    Case("error: bad score value", _bad_scores, fails="irgauge.InputError"),
    Case("error: one topic", _one_topic, fails="irgauge.errors.InputSizeError"),
    Case("error: unknown measure", _bad_measure, fails="irgauge.MeasureError"),
    Case("error: a measure that raises", _raising_measure, fails="irgauge.UserCodeError"),
    Case("error: study into a file", _bad_figures_folder, fails="OSError", render=False),
]


def _runs(i: Inputs) -> list:
    return [str(r) for r in i.runs]


def _agree(i: Inputs, *judgments: str) -> list:
    """``agree`` on ``judgments`` (two qrels, or -g and a judgment-group file)."""
    return ["agree", *judgments, "--run", *_runs(i), "-B", "20", "--seed", str(SEED), "--quiet"]


def _scores(i: Inputs) -> list:
    return [str(i.scores), "--seed", str(SEED), "--quiet"]


def _study_args(i: Inputs, out: Path) -> list:
    return ["--out", str(out / "s"), "--seed", str(SEED), "--quiet", str(i.qrels), *_runs(i)]


@dataclass(frozen=True)
class Command:
    """A command line of ``irgauge`` run in-process; ``code`` is its expected exit code."""

    id: str
    args: Callable[[Inputs, Path], list]
    command: str  # the command path it drives ("study onerel")
    code: int = 0
    render: bool = True


CLI_CASES = [
    Command(
        "eval",
        lambda i, o: [
            "eval",
            str(i.qrels),
            *_runs(i),
            "-m",
            "AP nDCG@10",
            "-q",
            "--format",
            "json",
            "-o",
            str(o / "e.json"),
        ],
        "eval",
    ),
    Command(
        "trec_eval",
        lambda i, o: ["trec_eval", "-q", "-m", "all_trec", str(i.qrels), str(i.runs[0])],
        "trec_eval",
    ),
    Command(
        "compare", lambda i, o: ["compare", "--table", "latex", "-B", "20", *_scores(i)], "compare"
    ),
    Command(
        "discpower with figures",
        lambda i, o: ["discpower", "-B", "20", "--figures", str(o / "f"), *_scores(i)],
        "discpower",
    ),
    Command(
        "swap with figures",
        lambda i, o: ["swap", "--trials", "10", "--figures", str(o / "f"), *_scores(i)],
        "swap",
    ),
    Command("stability", lambda i, o: ["stability", "--trials", "10", *_scores(i)], "stability"),
    Command("agree", lambda i, o: _agree(i, str(i.qrels), str(i.relabelled_qrels)), "agree"),
    Command("agree judgment groups", lambda i, o: _agree(i, "-g", str(i.judgment_groups)), "agree"),
    Command("correlate", lambda i, o: ["correlate", str(i.scores), "--quiet"], "correlate"),
    Command(
        "repro with figures",
        lambda i, o: [
            "repro",
            str(i.qrels),
            "--original",
            *_runs(i)[:2],
            "--repeated",
            *_runs(i)[2:4],
            "-B",
            "20",
            "--seed",
            str(SEED),
            "--cutoffs",
            "5,10",
            "--figures",
            str(o / "f"),
            "--quiet",
        ],  # fmt: skip
        "repro",
    ),
    Command("predictive", lambda i, o: ["predictive", "-P", "10", *_scores(i)], "predictive"),
    Command(
        "topics", lambda i, o: ["topics", str(i.scores), "--min-diff", "0.1", "--quiet"], "topics"
    ),
    Command(
        "incomplete",
        lambda i, o: [
            "incomplete",
            str(i.qrels),
            *_runs(i),
            "--rates",
            "50",
            "-B",
            "20",
            "--seed",
            str(SEED),
            "--quiet",
        ],
        "incomplete",
    ),
    Command(
        "reduce",
        lambda i, o: [
            "reduce",
            str(i.qrels),
            "--rates",
            "50",
            "--seed",
            str(SEED),
            "--out",
            str(o / "r"),
        ],
        "reduce",
    ),
    Command(
        "pool",
        lambda i, o: (
            ["pool", *map(str, i.runs), "--strategy", "sample", "--budget", "3"]
            + ["--seed", str(SEED), "-o", str(o / "pool.tsv")]
        ),
        "pool",
    ),
    Command("report", lambda i, o: ["report", str(o / "rep"), str(i.scores)], "report"),
    Command(
        "simulate",
        lambda i, o: [
            "simulate",
            "--out",
            str(o / "c"),
            "--topics",
            "3",
            "--runs",
            "2",
            "--depth",
            "5",
            "--pool-depth",
            "5",
            "--quiet",
        ],
        "simulate",
    ),
    Command("measures", lambda i, o: ["measures", "--format", "json"], "measures"),
    Command(
        "qa eval",
        lambda i, o: ["qa", "eval", str(i.qa["gold"]), *map(str, i.qa["runs"]), "-q"],
        "qa eval",
    ),
    Command(
        "qa label",
        lambda i, o: ["qa", "label", str(i.qa["gold"]), str(i.qa["runs"][0])],
        "qa label",
    ),
    Command(
        "study onerel",
        lambda i, o: [
            "study",
            "onerel",
            *_study_args(i, o),
            "-B",
            "20",
            "--trials",
            "10",
            "--repetitions",
            "1",
            "--gains",
            "1:1:1",
            "--topic-resamples",
            "5",
        ],
        "study onerel",
        render=False,
    ),
    Command(
        "study incomplete",
        lambda i, o: [
            "study",
            "incomplete",
            *_study_args(i, o),
            "-B",
            "20",
            "--reductions",
            "1",
            "--rates",
            "50",
            "--topic-resamples",
            "5",
        ],
        "study incomplete",
        render=False,
    ),
    Command(
        "study predictive",
        lambda i, o: [
            "study",
            "predictive",
            *_study_args(i, o),
            "-P",
            "10",
            "--topic-resamples",
            "5",
        ],
        "study predictive",
        render=False,
    ),
    Command(
        "study pooling",
        lambda i, o: (
            ["study", "pooling", *_study_args(i, o), "--budgets", "3"] + ["--topic-resamples", "5"]
        ),
        "study pooling",
        render=False,
    ),
    Command(
        "study reusability",
        lambda i, o: (
            ["study", "reusability", *_study_args(i, o), "--depth", "3"]
            + ["--topic-resamples", "5"]
        ),
        "study reusability",
        render=False,
    ),
    Command(
        "study topicset",
        lambda i, o: [
            "study",
            "topicset",
            *_study_args(i, o),
            "--topic-resamples",
            "10",
            "-m",
            "AP",
        ],
        "study topicset",
        render=False,
    ),
    Command(
        "study qa",
        lambda i, o: [
            "study",
            "qa",
            "--out",
            str(o / "s"),
            "--seed",
            str(SEED),
            "--quiet",
            "--derive-qa",
            "--trials",
            "10",
            "--repetitions",
            "1",
            "--topic-resamples",
            "5",
            str(i.qrels),
            *_runs(i),
        ],
        "study qa",
        render=False,
    ),
    Command(
        "error: eval of a missing run",
        lambda i, o: ["eval", str(i.qrels), str(o / "missing.run")],
        "eval",
        code=2,
    ),
    Command(
        "error: bad option",
        lambda i, o: ["discpower", "--no-such-option", str(i.scores)],
        "discpower",
        code=2,
    ),
    Command(
        "error: output into a missing folder",
        lambda i, o: ["eval", str(i.qrels), *_runs(i), "-o", str(o / "no" / "such" / "x.tsv")],
        "eval",
        code=1,
    ),
    Command(
        "error: report of nothing", lambda i, o: ["report", str(o / "nothing")], "report", code=2
    ),
]

# Commands not driven in-process, with the reason.
CLI_NOT_DRIVEN = {
    "demo": "the sample collection's full studies (minutes); the same study code runs above",
}

# Public callables not called directly, with the reason.
NOT_DRIVEN = {
    **{
        f"irgauge.types.{name}": "a type alias for annotations; no code of its own"
        for name in irgauge.types.__all__
    },
    "irgauge.InputError": "an exception class: raised by the failing cases",
    "irgauge.MeasureError": "an exception class: raised by the failing cases",
    "irgauge.UserCodeError": "an exception class: raised by the failing cases",
    "irgauge.errors.InputSizeError": "an exception class: raised by the failing cases",
    "irgauge.Qrels": "a record the readers return (read_qrels, ...); it holds arrays only",
    "irgauge.Run": "a record the readers return (read_run, ...); it holds arrays only",
    "irgauge.stats.BootstrapResult": "the record paired_bootstrap_test returns",
    "irgauge.meta.MetaResult": "the record of the meta-evaluation functions; .table() is called",
    "irgauge.studies._common.StudyResult": "the record of the studies; .text() is called",
    "irgauge.studies.incomplete_result.IncompleteResult": "the record incomplete_study returns",
    "irgauge.measures.Measure": "the record parse_measure returns",
    "irgauge.measures.Family": "the record register_measure returns",
}
