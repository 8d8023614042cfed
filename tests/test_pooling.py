"""Pooling strategies (collection/pooling): depth and fusion against trectools on real and
generated TREC runs, Move-to-Front and MM-NS against hand-worked examples and a plain
Python loop, the samples' inclusion probabilities against their definitions and against
the frequencies of many seeded draws; the command line's output and refusals."""

import json
from pathlib import Path

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.collection.pooling import pool
from irgauge.collection.pooling import sampling
from irgauge.collection.pooling.candidates import build_candidates
from irgauge.errors import InputError
from irgauge.io.qrels import read_qrels
from irgauge.io.records import Qrels, Run

DATA = Path(__file__).resolve().parents[1] / ".." / "shared" / "data"
TREC = DATA / "trec_eval_tests"
REAL_RUNS = [TREC / "results.test", TREC / "results.trunc", TREC / "results-302.test"]
GENERATED = DATA / "ntcireval_generated"
GENERATED_RUNS = sorted((GENERATED / "runs").glob("run*.trec"))
needs_data = pytest.mark.skipif(not TREC.is_dir(), reason="conformance data not found")
trectools_warnings = pytest.mark.filterwarnings("ignore:The inplace keyword")  # inside trectools


def ranked(topic, docs):
    """Lines of a run for one topic, ``docs`` in rank order (no tied scores)."""
    return [(topic, d, float(len(docs) - i)) for i, d in enumerate(docs)]


def run_of(name, lines):
    topics, docnos, scores = zip(*lines)
    return Run(
        name,
        np.array([t.encode() for t in topics]),
        np.array([d.encode() for d in docnos]),
        np.array(scores),
    )


def qrels_of(judged):
    """``{(topic, docno): level}`` as Qrels."""
    topics, docnos, levels = zip(*[(t, d, v) for (t, d), v in judged.items()])
    return Qrels(
        np.array([t.encode() for t in topics]),
        np.array([d.encode() for d in docnos]),
        np.array(levels),
    )


def orders(chosen):
    """``{topic: [docno, ...]}`` in judging order."""
    frame = chosen.frame()
    return {t: list(g.sort_values("order")["docno"]) for t, g in frame.groupby("topic")}


def trec_eval_order_copies(paths, folder):
    """Copies of runs whose scores are their trec_eval rank (score descending, ties by
    docno descending), so that a tool breaking ties otherwise sees the same rankings."""
    copies = []
    for path in paths:
        rows = [line.split() for line in Path(path).read_text().splitlines() if line.strip()]
        by_topic = {}
        for r in rows:
            by_topic.setdefault(r[0], []).append((float(r[4]), r[2].encode()))
        lines = []
        for topic, docs in by_topic.items():
            docs.sort(reverse=True)
            lines += [f"{topic} Q0 {d.decode()} {i} {-i} x" for i, (_, d) in enumerate(docs, 1)]
        copy = folder / Path(path).name
        copy.write_text("\n".join(lines) + "\n")
        copies.append(copy)
    return copies


# ------------------------------------------------------------------- depth and fusion


@needs_data
@trectools_warnings
@pytest.mark.parametrize("which", ["real", "generated"])
def test_depth_and_fusion_agree_with_trectools(which, tmp_path):
    trectools = pytest.importorskip("trectools")
    from trectools import fusion

    runs = REAL_RUNS if which == "real" else GENERATED_RUNS
    # trectools breaks score ties by docno ascending, trec_eval descending; the real runs
    # hold ties, so trectools reads them with the scores replaced by trec_eval's ranks
    copies = trec_eval_order_copies(runs, tmp_path)
    theirs_runs = [trectools.TrecRun(str(p)) for p in copies]
    deepest = 100 if which == "real" else 50
    fused = fusion.reciprocal_rank_fusion(theirs_runs, k=60, max_docs=deepest).run_data
    fused_lists = {str(t): list(g.sort_values("rank")["docid"]) for t, g in fused.groupby("query")}
    for n in (1, 5, 20, deepest):
        made = trectools.TrecPoolMaker().make_pool(theirs_runs, strategy="topX", topX=n)
        depth = pool(runs, "depth", depth=n).frame()
        got = {t: set(g["docno"]) for t, g in depth.groupby("topic")}
        assert got == {str(t): set(docs) for t, docs in made.pool.items()}, n
        want = {t: docs[:n] for t, docs in fused_lists.items()}
        assert orders(pool(runs, "fusion", budget=n)) == want, n


@needs_data
def test_depth_order_is_best_rank_then_docno_and_a_budget_takes_its_head():
    whole = pool(REAL_RUNS, "depth", depth=30)
    frame = whole.frame()
    for topic, group in frame.groupby("topic"):
        assert group["order"].tolist() == list(range(1, len(group) + 1))
    cut = pool(REAL_RUNS, "depth", depth=30, budget=7)
    heads = {t: docs[:7] for t, docs in orders(whole).items()}
    assert orders(cut) == heads
    assert set(cut.inclusion.tolist()) == {1.0}


def test_fusion_ties_exactly_for_the_same_ranks_and_breaks_them_by_docno():
    # d1 and d2 each get ranks {1, 3} from different runs (1/61 + 1/63 in another order)
    runs = [
        run_of("a", ranked("1", ["d2", "x", "d1"])),
        run_of("b", ranked("1", ["d1", "y", "d2"])),
        run_of("c", ranked("1", ["z", "w", "v"])),
    ]
    chosen = orders(pool(runs, "fusion"))["1"]
    assert chosen[:2] == ["d1", "d2"]
    scores = {d: 0.0 for d in chosen}
    for r in runs:
        for rank, d in enumerate(r.docnos, 1):
            scores[d.decode()] += 1 / (60 + rank)
    assert chosen == sorted(chosen, key=lambda d: (-round(scores[d], 12), d))


# ---------------------------------------------------------------- adaptive strategies

HAND_RUNS = [
    run_of("A", ranked("1", ["a1", "a2", "a3", "a4"])),
    run_of("B", ranked("1", ["b1", "a2", "b2", "b3"])),
]
# relevant: a1, b2, b3; the others judged nonrelevant
HAND_QRELS = qrels_of(
    {("1", d): int(d in ("a1", "b2", "b3")) for d in ["a1", "a2", "a3", "a4", "b1", "b2", "b3"]}
)


def test_move_to_front_by_hand():
    # A first (a tie); a1 relevant: A again; a2 not: A -1, so B (0): b1 not: B -1;
    # tie at -1, A first: a3 not (A -2); B: a2 is judged, passed over; b2 relevant, b3
    # relevant; B is exhausted; A: a4
    assert orders(pool(HAND_RUNS, "mtf", qrels=HAND_QRELS))["1"] == [
        "a1", "a2", "b1", "a3", "b2", "b3", "a4",
    ]  # fmt: skip
    assert orders(pool(HAND_RUNS, "mtf", qrels=HAND_QRELS, budget=3))["1"] == ["a1", "a2", "b1"]


def test_max_mean_and_its_non_stationary_variant_by_hand():
    # MM: means (1 + rel) / (2 + rel + nrel), all 1/2 at first, ties to A
    # a1 rel: A 2/3; a2 not: A 2/4, tie, A: a3 not: A 2/5 < B 1/2: b1 not: B 1/3;
    # A 2/5: a4 not: A 2/6 = B 1/3, A first but exhausted; B: a2 passed over, b2, b3
    assert orders(pool(HAND_RUNS, "bandit", qrels=HAND_QRELS, discount=1.0))["1"] == [
        "a1", "a2", "a3", "b1", "a4", "b2", "b3",
    ]  # fmt: skip
    # NS, discount 1/2: a1 rel: A (1, 0) 2/3; a2 not: A (1/2, 1) 1.5/3.5 < B 1/2:
    # b1 not: B (0, 1) 1/3; A: a3 not: A (1/4, 3/2) 1.25/3.75 = 1/3, tie, A: a4 ...
    assert orders(pool(HAND_RUNS, "bandit", qrels=HAND_QRELS, discount=0.5))["1"] == [
        "a1", "a2", "b1", "a3", "a4", "b2", "b3",
    ]  # fmt: skip


def plain_loop(lists, relevant, budget, policy):
    """One topic's adaptive judging as the papers state it, in plain Python."""
    n = len(lists)
    prio, rel, nrel = [0.5 if policy != "mtf" else 0.0] * n, [0.0] * n, [0.0] * n
    pointer, judged, done = [0] * n, set(), []
    alive = [bool(x) for x in lists]
    while len(done) < budget and any(alive):
        s = max((i for i in range(n) if alive[i]), key=lambda i: (prio[i], -i))
        while pointer[s] < len(lists[s]) and lists[s][pointer[s]] in judged:
            pointer[s] += 1
        if pointer[s] == len(lists[s]):
            alive[s] = False
            continue
        d = lists[s][pointer[s]]
        pointer[s] += 1
        judged.add(d)
        done.append(d)
        r = d in relevant
        if policy == "mtf":
            prio[s] -= not r
        else:
            rel[s], nrel[s] = policy * rel[s] + r, policy * nrel[s] + (not r)
            prio[s] = (1 + rel[s]) / (2 + rel[s] + nrel[s])
    return done


@needs_data
@pytest.mark.parametrize("policy", ["mtf", 1.0, 0.7])
def test_adaptive_strategies_match_a_plain_loop_on_every_topic(policy):
    qrels = read_qrels(GENERATED / "qrels.trec")
    relevant = {(t, d) for t, d, v in zip(qrels.topics, qrels.docnos, qrels.levels) if v >= 1}
    budget = 15
    if policy == "mtf":
        chosen = pool(GENERATED_RUNS, "mtf", qrels=qrels, budget=budget)
    else:
        chosen = pool(GENERATED_RUNS, "bandit", qrels=qrels, budget=budget, discount=policy)
    lists = {}
    for path in GENERATED_RUNS:
        rows = [line.split() for line in path.read_text().splitlines()]
        for t in {r[0] for r in rows}:
            docs = sorted(((float(r[4]), r[2]) for r in rows if r[0] == t), reverse=True)
            lists.setdefault(t, []).append([d for _, d in docs])
    got = orders(chosen)
    for t, per_run in lists.items():
        rel = {d.decode() for (q, d) in relevant if q.decode() == t}
        assert got[t] == plain_loop(per_run, rel, budget, policy), t


def test_adaptive_strategies_need_judgments():
    with pytest.raises(InputError, match="--qrels"):
        pool(HAND_RUNS, "mtf")


# ---------------------------------------------------------------------------- samples


def test_ap_prior_by_hand():
    # one run of Z = 3: w(r) = (1 + 1/r + ... + 1/3) / 6
    cand = build_candidates([run_of("a", ranked("1", ["x", "y", "z"]))])
    want = [(1 + 1 + 1 / 2 + 1 / 3) / 6, (1 + 1 / 2 + 1 / 3) / 6, (1 + 1 / 3) / 6]
    assert sampling.ap_prior(cand) == pytest.approx(want, rel=1e-12)
    assert sum(want) == pytest.approx(1.0)


def plain_capping(prior, n):
    """pi = min(1, c p), sum n, by the obvious iteration."""
    pi = np.zeros(len(prior))
    sure = np.zeros(len(prior), dtype=bool)
    while True:
        c = (n - sure.sum()) / prior[~sure].sum()
        pi = np.where(sure, 1.0, c * prior)
        if not (pi[~sure] > 1).any():
            return pi
        sure |= pi > 1


def test_capped_inclusion_probabilities_sum_to_the_sample_size():
    rng = np.random.default_rng(5)
    prior = np.concatenate([rng.pareto(1.0, 40) + 0.01, rng.random(25)])
    group = np.repeat([0, 1], [40, 25])
    n = np.array([12, 20])
    pi = sampling.capped_inclusion(prior, group, n)
    assert pi[:40] == pytest.approx(plain_capping(prior[:40], 12), rel=1e-12)
    assert pi[40:] == pytest.approx(plain_capping(prior[40:], 20), rel=1e-12)
    assert (pi[:40] == 1).any()  # the heavy tail caps some


@needs_data
@pytest.mark.parametrize("design, strata", [("statap", None), ("infap", [3, 10])])
def test_drawn_samples_match_their_inclusion_probabilities(design, strata):
    """Over M seeded samples each document's frequency is within 4.5 binomial standard
    errors of its stated pi (a test of size about 1e-3 over the documents; seeded, so it
    gives the same answer every time), and every sample holds exactly n per topic."""
    cand = build_candidates(GENERATED_RUNS, depth=20)
    n, draws = 6, 2000
    rng = np.random.default_rng(34)
    counts = np.zeros(len(cand.pool))
    pi = None
    for _ in range(draws):
        chosen = sampling.select(cand, n, rng, design=design, strata=strata)
        counts[chosen.entries] += 1
        assert (np.bincount(cand.pool.topic[chosen.entries]) == n).all()
        stated = np.zeros(len(cand.pool))
        stated[chosen.entries] = chosen.inclusion
        pi = stated if pi is None else np.maximum(pi, stated)
    assert np.bincount(cand.pool.topic, weights=pi) == pytest.approx(n)
    frequency = counts / draws
    error = np.sqrt(pi * (1 - pi) / draws)
    assert (np.abs(frequency - pi) <= 4.5 * error + 1e-12).all()


@needs_data
def test_infap_strata_share_the_budget_in_proportion():
    chosen = pool(GENERATED_RUNS, "sample", depth=20, budget=6, seed=3, design="infap",
                  strata=[5])  # fmt: skip
    cand = build_candidates(GENERATED_RUNS, depth=20)
    stratum = sampling.strata_of(cand, [5])
    sizes = np.bincount(cand.pool.topic * 2 + stratum, minlength=2 * cand.n_topics)
    frame = chosen.frame()
    assert (frame.groupby("topic").size() == 6).all()
    first_topic = frame[frame["topic"] == cand.pool.topic_ids[0]]
    inclusions = set(first_topic["inclusion"].round(12))
    total = sizes[0] + sizes[1]
    take = [round(6 * sizes[0] / total), 6 - round(6 * sizes[0] / total)]
    assert inclusions <= {round(take[0] / sizes[0], 12), round(take[1] / sizes[1], 12)}


@needs_data
def test_a_seed_gives_the_same_sample_and_another_seed_another():
    one = pool(GENERATED_RUNS, "sample", budget=5, seed=1)
    again = pool(GENERATED_RUNS, "sample", budget=5, seed=1)
    other = pool(GENERATED_RUNS, "sample", budget=5, seed=2)
    assert orders(one) == orders(again) and orders(one) != orders(other)
    assert one.parameters["seed"] == 1


# ----------------------------------------------------------------- the command line


def exit_status(args) -> int:
    try:
        return main(args)
    except SystemExit as stop:
        return stop.code


@needs_data
def test_the_command_writes_tsv_or_qrels_with_a_manifest(tmp_path):
    runs = [str(p) for p in GENERATED_RUNS]
    out = tmp_path / "pool.tsv"
    argv = ["pool", *runs, "--strategy", "sample", "--budget", "4", "--seed", "7"]
    assert main(argv + ["-o", str(out)]) == 0
    lines = out.read_text().splitlines()
    body = [x for x in lines if not x.startswith("#")]
    assert body[0] == "topic\tdocno\torder\tinclusion"
    assert "# seed: 7" in lines
    manifest = json.loads((tmp_path / "pool.tsv.json").read_text())
    assert manifest["seed"] == 7 and manifest["budget"] == 4
    assert manifest["parameters"] == {"design": "statap", "strata": None}
    assert sorted(p.name for p in tmp_path.iterdir()) == ["pool.tsv", "pool.tsv.json"]
    qrels = tmp_path / "pool.qrels"
    assert main(["pool", *runs, "--depth", "3", "--format", "qrels", "-o", str(qrels)]) == 0
    read = read_qrels(qrels)
    assert set(read.levels.tolist()) == {-1}
    assert len(read) == len(pool(GENERATED_RUNS, "depth", depth=3))


@needs_data
@pytest.mark.parametrize(
    "options, words",
    [
        (["--budget", "100000"], ["--budget", "topic"]),
        (["--depth", "0"], ["--depth"]),
        (["--strategy", "mtf", "--budget", "3"], ["--qrels"]),
        (["--depth", "3", "--seed", "1"], ["--seed"]),
        (["--strategy", "sample", "--budget", "3", "--strata", "2"], ["--strata"]),
        (["--strategy", "fusion", "--design", "infap"], ["--design"]),
        (["--strategy", "sample"], ["--budget"]),
        (["--strategy", "depth"], ["--depth"]),
    ],
)
def test_bad_options_are_refused_in_one_line(options, words, capsys):
    runs = [str(p) for p in GENERATED_RUNS]
    assert exit_status(["pool", *runs, *options]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 or err[0].startswith("usage:")
    assert all(w in err[-1] for w in words), err


@needs_data
def test_a_run_missing_a_qrels_topic_is_refused_naming_its_file(tmp_path, capsys):
    partial = tmp_path / "partial.run"
    lines = GENERATED_RUNS[0].read_text().splitlines()
    first = lines[0].split()[0]
    partial.write_text("".join(x + "\n" for x in lines if x.split()[0] != first))
    argv = ["pool", str(partial), *map(str, GENERATED_RUNS[1:]), "--depth", "5"]
    assert exit_status(argv + ["--qrels", str(GENERATED / "qrels.trec")]) == 2
    err = capsys.readouterr().err.strip()
    assert str(partial) in err and "\n" not in err
    assert f"misses 1 topic of qrels {GENERATED / 'qrels.trec'} ({first})" in err


@needs_data
def test_the_depth_pool_stays_exact_when_documents_share_a_hash(monkeypatch):
    from irgauge.collection import depth_pool

    want = orders(pool(GENERATED_RUNS, "depth", depth=10))
    # every document of a topic keyed alike: the hashed keys must give way to exact ones
    monkeypatch.setattr(
        depth_pool, "pair_keys", lambda codes, hashes, n: codes.astype(np.uint64) << np.uint64(40)
    )
    assert orders(pool(GENERATED_RUNS, "depth", depth=10)) == want
