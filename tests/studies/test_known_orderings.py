"""Study summaries on collections whose right answer is known by construction: an ordering
that holds beyond the noise is stated; measures equal by construction are "within noise"."""

import pytest
import numpy as np
import pandas as pd

from irgauge.scores import ScoreMatrix
from irgauge.studies import _noise, matched_ties
from irgauge.studies.onerel import run_onerel
from irgauge.studies.predictive import run_predictive
from irgauge.studies.qa import run_qa

# each test runs a study, and reads its summary and tables, not its figures
pytestmark = [pytest.mark.slow, pytest.mark.usefixtures("undrawn_figures")]

ONE_REL = ("P-plus", "P-measure", "O-measure", "NWRR")


def test_onerel_first_document_metrics_least_discriminative(first_rank_collection, tmp_path):
    """RR, O-measure and NWRR look at the first relevant document only, which is the same
    for every run here: they separate no pair. P-measure and P-plus see the highly relevant
    documents and must be stated above them, beyond the noise."""
    qrels, runs = first_rank_collection
    result = run_onerel(
        qrels, runs, tmp_path, samples=200, trials=40, seed=3, top_k=None, repetitions=3, gains=()
    )
    first = result.summary[0]
    dp = result.tables["discriminative_power"].set_index("measure")
    assert (dp.loc[["RR", "O-measure", "NWRR"], "share"] == 0).all()
    assert (dp.loc[["P-measure", "P-plus"], "share"] > 0.3).all()
    # first-document metrics give every system the same score here: named apart, unranked
    assert any("WARNING" in line and "RR" in line for line in result.summary)
    first = next(line for line in result.summary if line.startswith("Discriminative power"))
    chain = first.split(":", 1)[1].split(";")[0]
    assert "RR (" not in chain and "NWRR (" not in chain
    assert "P-plus" in chain and "P-measure" in chain


def test_onerel_equal_measures_within_noise(all_first_collection, tmp_path):
    qrels, runs = all_first_collection
    result = run_onerel(
        qrels, runs, tmp_path, samples=50, trials=20, seed=3, top_k=None, repetitions=2
    )
    assert "same score" in result.summary[0]
    first = next(line for line in result.summary if line.startswith("Discriminative power"))
    assert " > " not in first.split("For reference")[0]
    stability = next(line for line in result.summary if line.startswith("Stability"))
    # the five are constant: every comparison is a tie, so none is called more stable
    assert "more stable than" not in stability
    assert "P-plus, P-measure, O-measure, NWRR, RR tie (almost) every comparison" in stability
    assert any("gain-value variants skipped" in n for n in result.manifest["notes"])


def _matrices(rng, n_systems=12, n_topics=40):
    """A clean measure (system effect + small topic noise), a noisy one (the same + large
    noise) and an exact copy of the clean one."""
    effect = np.linspace(0.2, 0.8, n_systems)[:, None]
    topics = [f"t{i}" for i in range(n_topics)]
    systems = [f"s{i}" for i in range(n_systems)]
    clean = effect + rng.normal(0, 0.05, (n_systems, n_topics))
    noisy = effect + rng.normal(0, 0.6, (n_systems, n_topics))
    return {
        name: ScoreMatrix(values, systems, topics, name, None)
        for name, values in (("clean", clean), ("noisy", noisy), ("copy", clean.copy()))
    }


def test_predictive_orders_clean_above_noisy_and_copy_within_noise(tmp_path):
    matrices = _matrices(np.random.default_rng(0))
    result = run_predictive(
        out=tmp_path, matrices=matrices, seed=1, halvings=300, top_fraction=None
    )
    first = result.summary[0]
    assert " > noisy (" in first  # the noisy measure predicts itself worst, beyond noise
    assert "not distinguishable here" in first
    assert "clean and copy" in first or "copy and clean" in first
    assert not any(
        "predicts clean better" in s or "predicts copy better" in s for s in result.summary
    )


def test_qa_equal_gain_variants_on_binary_answers(collection, tmp_path):
    """With one relevance level, Q-measure is the same under every gain vector (gains of a
    single level cancel in the ratio), so its three variants are within noise."""
    from irgauge.studies.qa import qa_collection_from_adhoc

    qrels, runs = collection
    made = qa_collection_from_adhoc(qrels, runs, tmp_path / "data")
    gold = pd.read_csv(made["gold"], sep="\t", dtype=str)
    gold["level"] = "1"
    binary = tmp_path / "binary" / "gold.tsv"
    binary.parent.mkdir()
    gold.to_csv(binary, sep="\t", index=False)
    result = run_qa(binary, made["runs"], tmp_path, seed=2, trials=60, repetitions=3)
    text = " ".join(result.summary)
    for a, b in (("Q 1:1:1", "Q 2:1.5:1"), ("Q 2:1.5:1", "Q 3:2:1")):
        assert (
            f"{a} and {b} are not distinguishable here" in text
            or f"{b} and {a} are not distinguishable here" in text
        )
    assert "DERIVED" not in text  # a gold file without the marker is not labelled derived


def test_ordering_sentence_and_noise_rule():
    """Three repetitions, no topic resamples: the interval is the paired Monte Carlo error."""
    stat = _noise.Statistic(
        "share",
        {
            "a": np.array([0.50, 0.51, 0.49]),
            "b": np.array([0.40, 0.41, 0.39]),
            "c": np.array([0.39, 0.42, 0.36]),
        },
    )
    out = _noise.ordering(stat)
    # by hand: mean ± sd / sqrt(3): 0.01 / 1.732 = 0.006 (a, b), 0.03 / 1.732 = 0.017 (c)
    assert out.text.startswith("a (0.500 ± 0.006) > b (0.400 ± 0.006) ~ c (0.390 ± 0.017)")
    assert "not distinguishable here: b and c (d = +0.010" in out.text
    assert out.stated == [("a", "b"), ("a", "c")]
    c = _noise.compare(stat, "b", "c")
    diffs = np.array([0.01, -0.01, 0.03])
    half = _noise.Z95 * diffs.std(ddof=1) / np.sqrt(3)
    assert np.isclose(c.high - c.d, half) and not c.apart


def test_spread_matches_numpy():
    frame = pd.DataFrame({"m": ["x"] * 4 + ["y"] * 4, "v": [1.0, 2, 3, 5, 0, 0, 1, 1]})
    out = _noise.spread(frame, ["m"], ["v"]).set_index("m")
    x = np.array([1.0, 2, 3, 5])
    assert np.isclose(out.loc["x", "v"], x.mean())
    assert np.isclose(out.loc["x", "v_se"], x.std(ddof=1) / 2)


def test_stability_reading_prefers_the_curve_closer_to_the_origin():
    # A has fewer swaps than B at every share of ties; C ties 90% of the time even at the
    # smallest fuzziness (like RR on a shallow collection) with a minority rate that looks
    # small, but at 0.9 ties A's curve (extended to (1, 0)) is lower still
    rows = []
    for rep in range(3):
        for f, (ta, ma), (tb, mb), (tc, mc) in zip(
            (0.01, 0.05, 0.10),
            ((0.05, 0.040), (0.20, 0.020), (0.40, 0.010)),
            ((0.05, 0.080), (0.20, 0.050), (0.40, 0.030)),
            ((0.90, 0.004), (0.92, 0.003), (0.95, 0.002)),
        ):
            jitter = 0.0005 * rep
            rows += [
                {
                    "measure": m,
                    "repetition": rep,
                    "fuzziness": f,
                    "proportion_ties": t,
                    "minority_rate": mr + jitter,
                }
                for m, t, mr in (("A", ta, ma), ("B", tb, mb), ("C", tc, mc))
            ]
    pairs = matched_ties.stability_comparison(pd.DataFrame(rows))
    lines = matched_ties.stability_sentences(pairs, ["A", "B", "C"])
    assert lines[0].startswith("A is more stable than")
    ac = pairs[(pairs["a"] == "A") & (pairs["b"] == "C")].iloc[0]
    # A at 0.9 ties: linear from (0.40, 0.010) to (1, 0)
    assert np.isclose(ac["mr_a"], (0.010 + 0.0005) * (1 - 0.9) / 0.6, atol=1e-9)
    assert ac["mr_a"] < ac["mr_b"]


def test_a_measure_tying_everything_is_named_least_useful():
    rows = []
    for rep in range(2):
        for f, (ta, ma) in zip((0.01, 0.05), ((0.05, 0.04), (0.2, 0.02))):
            rows.append(
                {
                    "measure": "A",
                    "repetition": rep,
                    "fuzziness": f,
                    "proportion_ties": ta,
                    "minority_rate": ma + 0.001 * rep,
                }
            )
            rows.append(
                {
                    "measure": "flat",
                    "repetition": rep,
                    "fuzziness": f,
                    "proportion_ties": 1.0,
                    "minority_rate": 0.0,
                }
            )
    lines = matched_ties.stability_sentences(
        matched_ties.stability_comparison(pd.DataFrame(rows)), ["flat", "A"]
    )
    assert lines == [
        "flat ties (almost) every comparison even at the smallest fuzziness, "
        "so it orders no systems: least useful"
    ]


def test_qa_first_answer_metrics_tie_everything_by_construction(tmp_path):
    """Every run answers every question correctly at rank 1, then finds k of the four other
    answer classes (k depends on the run): RR, NQcorrect1 and NQcorrect5 (a correct answer
    in the top 1 / top 5) are 1 everywhere, while Q-measure orders the runs. The summary
    must put the three apart as ordering nothing, never more stable or more sensitive."""
    rng = np.random.default_rng(2)
    gold = ["topic\tanswer\tlevel\tclass"]
    for t in range(30):
        gold += [f"q{t}\tq{t}a{j}\t1\tc{j}" for j in range(5)]
    (tmp_path / "gold.tsv").write_text("\n".join(gold) + "\n")
    runs = []
    for k in range(6):
        lines = ["topic\tanswer"]
        for t in range(30):
            hits = min(4, max(0, int(round(k * 4 / 5 + rng.normal(0, 0.7)))))
            answers = [f"q{t}a0"] + [f"q{t}a{j}" for j in range(1, 1 + hits)]
            answers += [f"q{t}wrong{j}" for j in range(5 - len(answers))]
            lines += [f"q{t}\t{a}" for a in answers]
        path = tmp_path / f"run{k}.tsv"
        path.write_text("\n".join(lines) + "\n")
        runs.append(path)
    result = run_qa(tmp_path / "gold.tsv", runs, tmp_path / "out", seed=4, trials=40, repetitions=2)
    text = " ".join(result.summary)
    assert "RR, NQcorrect1, NQcorrect5 tie (almost) every comparison" in text
    assert "RR, NQcorrect1, NQcorrect5 give every system the same score" in text
    assert not any(
        f"{m} is more stable" in text or f"than {m}:" in text
        for m in ("RR", "NQcorrect1", "NQcorrect5")
    )
    swap = text.split("Share of comparisons")[-1].split("Sign test")[0]
    assert "RR (" not in swap and "NQcorrect" not in swap


def test_incomplete_condensed_ap_moves_less_than_ap(tmp_path):
    """Complete judgments of the top 30 documents, relevant documents ranked high: when 90%
    of the judgments are removed, AP counts the relevant documents that lost their judgment
    as nonrelevant and its mean drops, while AP' (unjudged documents removed) keeps the
    precision of the judged ones; so AP' must be said to move less than AP."""
    from irgauge.studies.incomplete import run_incomplete

    from tests.studies.conftest import write_trec

    rng = np.random.default_rng(8)
    rows, runs = [], {f"r{k}": {} for k in range(6)}
    for t in range(1, 21):
        relevant = [f"d{j}" for j in range(10)]
        rows += [(t, d, 1) for d in relevant] + [(t, f"n{j}", 0) for j in range(20)]
        for k in range(6):
            docs = relevant + [f"n{j}" for j in range(20)]
            noise = rng.normal(0, 4 + k, len(docs))
            order = np.argsort(np.arange(len(docs)) + noise, kind="stable")
            runs[f"r{k}"][t] = [docs[i] for i in order]
    qrels, paths = write_trec(tmp_path / "c", rows, runs)
    result = run_incomplete(
        qrels, paths, tmp_path / "out", samples=50, seed=1, top_k=None, rates=(10,), reductions=4
    )
    text = " ".join(result.summary)
    assert "AP' moves less than AP (" in text
