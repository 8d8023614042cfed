"""The reproducibility statistics against their definitions, computed independently:
RBO against Webber, Moffat and Zobel's (2010) sums on hand-made rankings, KTU against
scipy's tau_b over the union, the bootstrap's matrix product against resampling the topics
one sample at a time, Welch's test against scipy, and the documents' order against
trec_eval's rule."""

from __future__ import annotations

import math

import numpy as np
import pytest
from scipy import stats as st

from irgauge.meta.repro.effects import effect_ratio
from irgauge.meta.repro.ktu import ktu
from irgauge.meta.repro.lists import TopK
from irgauge.meta.repro.rbo import rbo
from irgauge.meta.repro.samples import TopicMeans, topic_counts
from irgauge.stats.resampling import bootstrap_indices


def top_k(lists):
    """The TopK of hand-made list pairs [(A, B), ...], one pair per topic."""
    parts = {key: [] for key in ("ct", "ca", "cb", "at", "ar", "bt", "br")}
    for t, (a, b) in enumerate(lists):
        for d in a:
            if d in b:
                parts["ct"].append(t)
                parts["ca"].append(a.index(d) + 1)
                parts["cb"].append(b.index(d) + 1)
            else:
                parts["at"].append(t)
                parts["ar"].append(a.index(d) + 1)
        for d in b:
            if d not in a:
                parts["bt"].append(t)
                parts["br"].append(b.index(d) + 1)
    arrays = {k: np.array(v, dtype=np.int64) for k, v in parts.items()}
    return TopK(
        len(lists),
        np.array([len(a) for a, _ in lists]),
        np.array([len(b) for _, b in lists]),
        arrays["ct"],
        arrays["ca"],
        arrays["cb"],
        arrays["at"],
        arrays["ar"],
        arrays["bt"],
        arrays["br"],
    )


def series(agreement, p, depth=20000):
    """(1 - p) sum_d p^(d-1) A_d, summed to a depth where the tail is below 1e-15."""
    return (1 - p) * sum(p ** (d - 1) * agreement(d) for d in range(1, depth + 1))


def seen_overlap(a, b, d):
    return len(set(a[:d]) & set(b[:d]))


def webber(a, b, p):
    """RBO_ext, RBO_min and RBO_max by their definitions (Webber et al. 2010, sections 4
    and 5), as infinite sums of agreements: the extrapolation (the agreement of the
    unseen part of the shorter list S continues at X_s / s, and beyond the longer one's
    end at the depth-l agreement), the minimum (nothing unseen matches) and the maximum
    (two lists extended to match as early as they can)."""
    s, ell = sorted((len(a), len(b)))
    short, long = (a, b) if len(a) <= len(b) else (b, a)
    x_s = seen_overlap(short, long, s)

    def extrapolated(d):
        if d <= s:
            return seen_overlap(short, long, d) / d
        if d <= ell:
            return (seen_overlap(short, long, d) + x_s * (d - s) / s) / d
        return extrapolated(ell)

    x_l = seen_overlap(short, long, ell)
    minimum = series(lambda d: (seen_overlap(short, long, d) if d <= ell else x_l) / d, p)
    # the maximum: each list continues with the other's unmatched documents in their
    # order, then with the same new documents
    rest_s = [x for x in long if x not in short]
    rest_l = [x for x in short if x not in long]
    fresh = [("new", i) for i in range(4 * (s + ell))]
    ext_s, ext_l = short + rest_s + fresh, long + rest_l + fresh
    prefix = {d: len(set(ext_s[:d]) & set(ext_l[:d])) / d for d in range(1, 2 * (s + ell) + 1)}
    maximum = series(lambda d: prefix.get(d, 1.0), p)
    return series(extrapolated, p), minimum, maximum


CASES = {
    "identical": (list("abcdefghij"), list("abcdefghij")),
    "disjoint": (list("abcdefghij"), list("klmnopqrst")),
    "reversed": (list("abcdefghij"), list("jihgfedcba")),
    "unequal, prefix": (list("abcde"), list("abcdefghij")),
    "unequal, mixed": (list("axbyc"), list("cbazqwerty")),
    "unequal, disjoint": (list("abc"), list("defghijk")),
}


@pytest.mark.parametrize("name", CASES)
# a subnormal p (the smallest double, and 1e-320) made (1-p)/p overflow: NaN, not the
# first depth's agreement that the definitions give as p goes to 0
@pytest.mark.parametrize("p", [0.5, 0.9, 0.95, 1e-300, 1e-320, 5e-324])
def test_rbo_follows_webbers_definitions(name, p):
    a, b = CASES[name]
    ext, low, high = (float(v[0]) for v in rbo(top_k([(a, b)]), p))
    want = webber(a, b, p)
    assert (ext, low, high) == pytest.approx(want, abs=1e-12)
    assert low <= ext <= high


def test_rbo_closed_forms_of_the_simple_cases():
    """Identical lists: RBO_ext = RBO_max = 1 and RBO_min = (1-p)/p (sum_{d<=k} (d - k)
    p^d / d - k ln(1 - p)); disjoint ones: RBO_ext = RBO_min = 0; a reversed list of even
    length k: X_d = max(0, 2d - k), RBO_ext = RBO_max (every document seen at depth k)."""
    p, k = 0.9, 10
    (ext, low, high) = (float(v[0]) for v in rbo(top_k([CASES["identical"]]), p))
    closed = (1 - p) / p * (sum((d - k) * p**d / d for d in range(1, k + 1)) - k * math.log(1 - p))
    assert (ext, high, low) == pytest.approx((1.0, 1.0, closed), abs=1e-12)
    (ext, low, _) = (float(v[0]) for v in rbo(top_k([CASES["disjoint"]]), p))
    assert (ext, low) == (0.0, 0.0)
    (ext, _, high) = (float(v[0]) for v in rbo(top_k([CASES["reversed"]]), p))
    x = [max(0, 2 * d - k) for d in range(1, k + 1)]
    closed = (1 - p) / p * sum(x[d - 1] * p**d / d for d in range(1, k + 1)) + p**k
    assert ext == pytest.approx(closed, abs=1e-12) and high == pytest.approx(closed, abs=1e-12)


def test_rbo_of_many_topics_at_once_is_each_topics_own():
    pairs = list(CASES.values())
    together = rbo(top_k(pairs), 0.8)
    for t, pair in enumerate(pairs):
        alone = rbo(top_k([pair]), 0.8)
        assert [float(v[t]) for v in together] == pytest.approx([float(v[0]) for v in alone])


def union_tau(a, b):
    union = list(dict.fromkeys(a + b))
    ra = [a.index(d) + 1 if d in a else len(a) + 1 for d in union]
    rb = [b.index(d) + 1 if d in b else len(b) + 1 for d in union]
    return st.kendalltau(ra, rb).statistic


def test_ktu_is_tau_b_over_the_union_with_missing_documents_tied_last():
    rng = np.random.default_rng(7)
    pairs = []
    for _ in range(60):
        pool = list(range(int(rng.integers(3, 40))))
        a = [int(v) for v in rng.permutation(pool)[: rng.integers(2, len(pool) + 1)]]
        b = [int(v) for v in rng.permutation(pool)[: rng.integers(2, len(pool) + 1)]]
        pairs.append((a, b))
    found = ktu(top_k(pairs))
    assert found == pytest.approx([union_tau(a, b) for a, b in pairs], abs=1e-12)


def test_ktu_of_the_simple_cases():
    k = 10
    found = ktu(top_k([CASES["identical"], CASES["reversed"], CASES["disjoint"]]))
    assert found == pytest.approx([1.0, -1.0, -2 * k / (3 * k - 1)])


def test_the_bootstrap_is_the_statistic_on_each_resample_of_the_topics():
    """The means of every sample from one matrix product equal the means of the topics
    drawn, sample by sample; a ratio of means (ER) likewise."""
    rng = np.random.default_rng(2)
    x, y = rng.random(40), rng.random(40) - 0.2
    means = TopicMeans()
    hx, hy = means.add("original", x), means.add("original", y)
    counts = topic_counts(40, 30, seed=9)
    means.compute({"original": counts})
    ratio = effect_ratio(means[hx], means[hy])
    for b, drawn in enumerate(bootstrap_indices(40, 30, 9)):
        assert means[hx][b + 1] == pytest.approx(x[drawn].mean())
        assert ratio[b + 1] == pytest.approx(y[drawn].mean() / x[drawn].mean())
    assert ratio[0] == pytest.approx(y.mean() / x.mean())


def test_welch_t_test_is_scipys():
    from irgauge.stats import welch_t_test

    rng = np.random.default_rng(3)
    x, y = rng.random(25), rng.random(60) * 2
    found = welch_t_test(x, y)
    want = st.ttest_ind(x, y, equal_var=False)
    assert (found.statistic, found.pvalue, found.df) == pytest.approx(
        (want.statistic, want.pvalue, want.df)
    )
    assert welch_t_test(x, x + 0.0).pvalue == 1.0


def test_the_documents_come_in_trec_evals_order():
    """Score descending, ties by docno descending in byte order, whatever the file's order."""
    from irgauge.collection.evaluation_order import ordered_documents
    from irgauge.io.runs import read_run

    frame = {"1": {"a": 2.0, "c": 2.0, "B": 2.0}, "2": {"b": 1.0, "a": 3.0}}
    found = ordered_documents(read_run(frame))
    docnos = [d.decode() for d in found.docnos.tolist()]
    topics = [found.topics[t] for t in found.topic]
    assert list(zip(topics, docnos, found.position.tolist())) == [
        ("1", "c", 0),
        ("1", "a", 1),
        ("1", "B", 2),
        ("2", "a", 0),
        ("2", "b", 1),
    ]


def test_inversions_of_topics_of_any_size_are_the_pairs_counted_one_by_one():
    from irgauge.meta.repro.ktu import inversions

    rng = np.random.default_rng(11)
    sizes = [0, 1, 2, 3, 7, 8, 9, 64, 100]
    topic = np.repeat(np.arange(len(sizes)), sizes)
    first = np.concatenate([rng.permutation(s) for s in sizes])
    second = np.concatenate([rng.permutation(3 * s)[:s] for s in sizes])
    want = []
    for t in range(len(sizes)):
        f, s = first[topic == t], second[topic == t]
        want.append(sum((f[i] - f[j]) * (s[i] - s[j]) < 0 for i in range(len(f)) for j in range(i)))
    assert inversions(topic, first, second, len(sizes)).tolist() == want
