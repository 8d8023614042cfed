"""From a sample to its estimates: ``irgauge pool --strategy sample`` draws it, the
judging is simulated from qrels, ``pool --format prels`` writes it judged (the unsampled
pool at -1) and ``eval --prels --negative unjudged`` reads it. statAP (both designs) and
infAP (its own design) are checked against a plain loop of the Million Query script's
and sample_eval.pl's formulas; the design is checked from the prels: every pooled
document listed, uniform within each depth stratum."""

from collections import defaultdict

import numpy as np
import pytest

from irgauge.cli import main
from irgauge.collection.pooling import pool
from irgauge.collection.simulate import simulate_collection, write_collection
from irgauge.io.prels import read_prels

DEPTH, BUDGET, SEED = 20, 9, 5
STRATA = [2, 8]


@pytest.fixture(scope="module")
def collection(tmp_path_factory):
    folder = tmp_path_factory.mktemp("prels")
    sim = simulate_collection(n_topics=5, n_runs=4, depth=30, seed=11)
    manifest = write_collection(sim, folder / "c")
    qrels = folder / "c" / manifest["files"]["qrels"]
    runs = [str(folder / "c" / r) for r in manifest["files"]["runs"]]
    return folder, qrels, runs


def _lines(path):
    return [line.split() for line in open(path).read().splitlines() if line.strip()]


def _ranked(runs):
    """run -> topic -> docnos in trec_eval's order (score descending, docno descending)."""
    out = {}
    for path in runs:
        rows = defaultdict(list)
        for t, _, d, _, s, _ in _lines(path):
            rows[t].append((float(s), d))
        out[path] = {
            t: [
                d
                for _, d in sorted(sorted(r, key=lambda x: x[1], reverse=True), key=lambda x: -x[0])
            ]  # fmt: skip
            for t, r in rows.items()
        }
    return out


def _plain_statap(ranking, judged, pi):
    """statAP_MQ_eval: sum over sampled relevant d in the list of prec(d)/pi_d, over
    R^ = sum of 1/pi over sampled relevant; prec(d) = (1 + sum_{above, sampled rel} 1/pi)/r."""
    relevant = [d for d, level in judged.items() if level > 0]
    estimated_r = sum(1 / pi[d] for d in relevant)
    total, above = 0.0, 0.0
    for r, d in enumerate(ranking, 1):
        if judged.get(d, 0) > 0:
            total += (1 + above) / r / pi[d]
            above += 1 / pi[d]
    return total / estimated_r if estimated_r else None  # no estimate: eval skips it


def _plain_xinfap(ranking, judged, stratum):
    """sample_eval.pl: strata by label, N_h listed, n_h sampled, r_h relevant."""
    size, sampled, rel = defaultdict(int), defaultdict(int), defaultdict(int)
    for d, h in stratum.items():
        size[h] += 1
        sampled[h] += d in judged
        rel[h] += judged.get(d, 0) > 0
    estimated_r = sum(rel[h] * size[h] / sampled[h] for h in size if sampled[h])
    docs, n, r_above = defaultdict(int), defaultdict(int), defaultdict(int)
    total = 0.0
    for r, d in enumerate(ranking, 1):
        if judged.get(d, 0) > 0:
            share = sum(docs[h] * (r_above[h] + 1e-5) / (n[h] + 3e-5) for h in docs)
            h = stratum[d]
            total += (1 / r + share / r) * size[h] / sampled[h]
            r_above[h] += 1
        if d in stratum:
            h = stratum[d]
            docs[h] += 1
            n[h] += d in judged
    return total / estimated_r if estimated_r else None  # no estimate: eval skips it


def _approx(value):
    return None if value is None else pytest.approx(value, abs=1e-12)


def _eval(prels, runs, measure, capsys):
    argv = ["eval", "--prels", str(prels), "--negative", "unjudged", *runs]
    assert main([*argv, "-m", measure, "-q", "--format", "tsv", "--no-header"]) == 0
    values = {}
    for line in capsys.readouterr().out.splitlines()[1:]:
        run, _, topic, value = line.split("\t")
        values[(run, topic)] = float(value)
    return values


@pytest.mark.parametrize("design", ["statap", "infap"])
def test_pool_judge_eval_gives_the_estimators_of_the_design(collection, design, capsys):
    folder, qrels, runs = collection
    options = ["--strategy", "sample", "--depth", str(DEPTH), "--budget", str(BUDGET)]
    options += ["--seed", str(SEED), "--design", design]
    if design == "infap":
        options += ["--strata", ",".join(map(str, STRATA))]
    tojudge = folder / f"{design}.tsv"
    assert main(["pool", *runs, *options, "-o", str(tojudge)]) == 0
    # the judge: every sampled document gets its level from the full qrels
    full = {(t, d): int(v) for t, _, d, v in _lines(qrels)}
    sample = [row for row in _lines(tojudge) if not row[0].startswith("#")][1:]
    judged_path = folder / f"{design}.judged"
    judged_path.write_text("".join(f"{t} 0 {d} {full.get((t, d), 0)}\n" for t, d, _, _ in sample))
    prels = folder / f"{design}.prels"
    argv = ["pool", *runs, *options, "--qrels", str(judged_path), "--format", "prels"]
    assert main([*argv, "-o", str(prels)]) == 0
    assert capsys.readouterr().err == ""

    # the prels: the sample at its judged levels, with the TSV's probabilities, and the
    # rest of the depth pool at -1
    lines = _lines(prels)
    written = {(t, d): (int(v), float(p)) for t, d, v, p in lines}
    assert len(written) == len(lines)
    for t, d, _, p in sample:
        assert written[(t, d)] == (full.get((t, d), 0), float(p))
    ranked = _ranked(runs)
    best = defaultdict(lambda: DEPTH + 1)
    for lists in ranked.values():
        for t, docs in lists.items():
            for r, d in enumerate(docs[:DEPTH], 1):
                best[(t, d)] = min(best[(t, d)], r)
    assert set(written) == set(best)
    assert sum(v == -1 for v, _ in written.values()) == len(best) - len(sample)

    # the estimates eval gives, against the plain formulas on the design
    statap = _eval(prels, runs, "statAP", capsys)
    infap = _eval(prels, runs, "infAP", capsys) if design == "infap" else {}
    checked = 0
    for path, lists in ranked.items():
        run = open(path).readline().split()[5]
        for t, docs in lists.items():
            judged = {d: v for (q, d), (v, _) in written.items() if q == t and v >= 0}
            pi = {d: p for (q, d), (_, p) in written.items() if q == t}
            assert statap.get((run, t)) == _approx(_plain_statap(docs, judged, pi))
            if design == "infap":
                depth_stratum = defaultdict(list)
                for q, d in written:
                    if q == t:
                        depth_stratum[int(np.searchsorted(STRATA, best[(q, d)]))].append(d)
                for docs_h in depth_stratum.values():  # uniform within each depth stratum
                    n_h = sum(d in judged for d in docs_h)
                    assert {pi[d] for d in docs_h} == {n_h / len(docs_h)}
                # strata sampled at one rate read as one (the prels carry no label)
                stratum = {d: pi[d] for d in pi}
                expected = _plain_xinfap(docs, judged, stratum)
                assert infap.get((run, t)) == _approx(expected)
            checked += 1
    assert checked == 4 * 5


def test_the_prels_of_a_sample_are_what_its_python_api_gives(collection):
    folder, qrels, runs = collection
    chosen = pool(runs, "sample", depth=DEPTH, budget=BUDGET, seed=SEED, design="infap")
    level, held = chosen.entry_levels(qrels)
    judged = chosen.judged(level)
    text = folder / "api.prels"
    text.write_bytes(chosen.prels(qrels))
    again = read_prels(str(text))
    assert again.levels.tolist() == judged.levels.tolist()
    assert again.inclusion.tolist() == judged.inclusion.tolist()
    assert (judged.levels >= 0).sum() == len(chosen) == 5 * BUDGET
    # a sampled document judged at a negative level is written judged nonrelevant: -1
    # would make it one of the unsampled
    level[chosen.entries[:3]] = -2
    assert (chosen.judged(level).levels >= 0).sum() == len(chosen)


def test_statap_and_its_variances_pass_the_unsampled_lines_over(collection):
    """Read with negative="unjudged", the -1 lines change no statAP, statP or statR, nor
    their variances (the Million Query script's counts are of judged documents)."""
    import irgauge
    from irgauge.io.records import Qrels

    folder, qrels, runs = collection
    chosen = pool(runs, "sample", depth=DEPTH, budget=BUDGET, seed=SEED)
    prels, _ = chosen.judged_by(qrels)
    rows = np.flatnonzero(prels.levels >= 0)
    sampled = Qrels.from_arrays(
        prels.topics[rows], prels.docnos[rows], prels.levels[rows], inclusion=prels.inclusion[rows]
    )
    measures = ["statAP", "statAP(var=true)", "statP@10", "statP(var=true)@10", "statR"]
    measures.append("statR(var=true)")
    values = [
        irgauge.evaluate(runs=runs, prels=p, measures=measures, negative="unjudged").to_frame()
        for p in (prels, sampled)
    ]
    assert len(rows) < len(prels.levels)
    assert len(values[0]) == 4 * (5 + 1) * len(measures)  # each topic and the mean
    assert values[0]["value"].tolist() == values[1]["value"].tolist()


def test_sampled_documents_missing_from_the_judgments_are_counted(collection, capsys, tmp_path):
    folder, qrels, runs = collection
    empty = tmp_path / "none.qrels"
    first = _lines(qrels)[0]
    empty.write_text(f"{first[0]} 0 nothing-pooled 1\n")
    argv = ["pool", *runs, "--strategy", "sample", "--budget", "2", "--seed", "1"]
    # judgments of another sample: a topic with none of its sampled documents judged
    assert main([*argv, "--qrels", str(empty), "--format", "prels"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("irgauge: error: --qrels: they judge none ")
    assert "of the 2 documents sampled for topic" in err
    judged = tmp_path / "judged.qrels"
    tojudge = tmp_path / "sample.tsv"
    assert main([*argv, "-o", str(tojudge)]) == 0
    sample = [row for row in _lines(tojudge) if not row[0].startswith("#")][1:]
    # the judge skipped the second document of every topic
    judged.write_text("".join(f"{t} 0 {d} 1\n" for t, d, order, _ in sample if order == "1"))
    assert main([*argv, "--qrels", str(judged), "--format", "prels"]) == 0
    captured = capsys.readouterr()
    assert "holds no judgment of 5 sampled documents" in captured.err
    assert "note: seed 1" in captured.err
    levels = [line.split()[2] for line in captured.out.splitlines()]
    assert levels.count("0") == 5 and levels.count("1") == 5 and set(levels) == {"0", "1", "-1"}


@pytest.mark.parametrize(
    "extra, problem",
    [
        (["--strategy", "sample", "--budget", "2"], "--format prels: give the sample's judgments"),
        (["--strategy", "depth", "--depth", "2", "--qrels", "{qrels}"], "only --strategy sample"),
        (["--strategy", "sample", "--budget", "2", "--no-header"], "--no-header: --format prels"),
    ],
)
def test_prels_output_refusals(collection, capsys, extra, problem):
    folder, qrels, runs = collection
    extra = [str(qrels) if x == "{qrels}" else x for x in extra]
    assert main(["pool", *runs, *extra, "--format", "prels"]) == 2
    err = capsys.readouterr().err
    assert problem in err and err.count("\n") == 1
