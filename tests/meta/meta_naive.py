"""Deliberately naive implementations of SPEC sections 6-7, written from the pseudo-code with
explicit loops over pairs, samples and trials, as a reference for the vectorised code.

They take the random samples as arguments so both implementations see the same draws.
Differences within 1e-12 are ties and bin edges allow 1e-9, as in the library (a stated
convention, so floating-point summation order cannot decide a comparison).
"""

import math

TOL = 1e-12


def mean(values):
    return sum(values) / len(values)


def sd(values):
    m = mean(values)
    return math.sqrt(sum((v - m) ** 2 for v in values) / (len(values) - 1))


def t_stat(values):
    s = sd(values)
    m = mean(values)
    if s == 0:
        return math.nan if m == 0 else math.copysign(math.inf, m)
    return m / (s / math.sqrt(len(values)))


def bootstrap(x, y, samples):
    """(t(z), ASL, list of (|t(w*b)|, |mean(w*b)|)) per SPEC 6, samples = rows of indices."""
    z = [a - b for a, b in zip(x, y)]
    t_obs = t_stat(z)
    zbar = mean(z)
    w = [v - zbar for v in z]
    stars = []
    hits = 0
    for row in samples:
        wb = [w[j] for j in row]
        tb = t_stat(wb)
        stars.append((abs(tb), abs(mean(wb))))
        if abs(tb) >= abs(t_obs):
            hits += 1
    asl = hits / len(samples)
    if max(z) == min(z):
        asl = 1.0 if z[0] == 0 else 0.0
    return t_obs, asl, stars


def discpower(matrix, samples, alpha):
    """(number of pairs with ASL < alpha, required difference) for one systems x topics list."""
    k = round(len(samples) * alpha)
    significant, required = 0, -math.inf
    m = len(matrix)
    for a in range(m):
        for b in range(a + 1, m):
            _, asl, stars = bootstrap(matrix[a], matrix[b], samples)
            significant += asl < alpha
            ranked = sorted((s for s in stars if not math.isnan(s[0])), key=lambda s: -s[0])
            z = [u - v for u, v in zip(matrix[a], matrix[b])]
            if max(z) != min(z):  # identical or constant-shift pairs have no null spread
                required = max(required, ranked[k - 1][1])
    return significant, required


def subset_mean(row, subset):
    return sum(row[j] for j in subset) / len(subset)


def diff_bin(d):
    return min(int(math.floor(abs(d) / 0.01 + 1e-9)), 20)


def sign(d):
    return 0 if abs(d) <= TOL else (1 if d > 0 else -1)


def swap(matrix, q1, q2, strict=True):
    """counts[bin], swaps[bin] per seed 003 Fig. 2."""
    counts, swaps = [0] * 21, [0] * 21
    m = len(matrix)
    for a in range(m):
        for b in range(a + 1, m):
            for s1, s2 in zip(q1, q2):
                d = subset_mean(matrix[a], s1) - subset_mean(matrix[b], s1)
                d2 = subset_mean(matrix[a], s2) - subset_mean(matrix[b], s2)
                k = diff_bin(d)
                counts[k] += 1
                opposite = sign(d) * sign(d2) < 0
                one_zero = (sign(d) == 0) != (sign(d2) == 0)
                swaps[k] += opposite or (strict and one_zero)
    return counts, swaps


def minority_ties(matrix, subsets, f):
    """(MinorityRate, PropTies) per seed 003 Fig. 1."""
    minority = ties = total = 0
    m = len(matrix)
    for a in range(m):
        for b in range(a + 1, m):
            gt_ab = gt_ba = eq = 0
            for s in subsets:
                mx, my = subset_mean(matrix[a], s), subset_mean(matrix[b], s)
                margin = f * max(mx, my)
                if abs(mx - my) < margin - TOL or abs(mx - my) <= TOL:
                    eq += 1
                elif mx > my:
                    gt_ab += 1
                else:
                    gt_ba += 1
            minority += min(gt_ab, gt_ba)
            ties += eq
            total += len(subsets)
    return minority / total, ties / total


def kendall_tau_b(x, y):
    n = len(x)
    num = tx = ty = 0
    for i in range(n):
        for j in range(i + 1, n):
            sx, sy = sign(x[i] - x[j]), sign(y[i] - y[j])
            num += sx * sy
            tx += sx == 0
            ty += sy == 0
    nn = n * (n - 1) / 2
    return num / math.sqrt((nn - tx) * (nn - ty))


def predictive(matrix_a, matrix_b, halves):
    """mean tau between ranking by A on the first half and by B on the second."""
    taus = []
    for h1, h2 in halves:
        ra = [subset_mean(row, h1) for row in matrix_a]
        rb = [subset_mean(row, h2) for row in matrix_b]
        taus.append(kendall_tau_b(ra, rb))
    return mean(taus)


def tukey_pvalues(matrix, keys):
    """Randomised Tukey HSD p-values; keys[b][t][s] orders topic t's scores in trial b."""
    m, n = len(matrix), len(matrix[0])
    ranges = []
    for trial in keys:
        sums = [0.0] * m
        for t in range(n):
            order = sorted(range(m), key=lambda s: trial[t][s])
            for s in range(m):
                sums[s] += matrix[order[s]][t]
        means = [v / n for v in sums]
        ranges.append(max(means) - min(means))
    means = [mean(row) for row in matrix]
    return {
        (a, b): sum(r >= abs(means[a] - means[b]) - TOL for r in ranges) / len(ranges)
        for a in range(m)
        for b in range(a + 1, m)
    }


def randomisation(x, y, signs):
    z = [a - b for a, b in zip(x, y)]
    obs = abs(mean(z))
    hits = sum(abs(mean([s * v for s, v in zip(row, z)])) >= obs - TOL for row in signs)
    return hits / len(signs)
