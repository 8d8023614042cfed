"""trec_eval's nDCG averages: ndcg_rel and Rndcg (log2 discount, gain = level by
default, every level keeping its gain whatever -l says, like ndcg).

DCG(r) and IDCG(r) are the cumulative discounted gains of the run and of the ideal
list (every positive-gain document, highest gain first) at rank r; Rg = number of
positive-gain documents of the topic.
- ndcg_rel = (1/Rg) [sum_{r: g(r) > 0} DCG(r)/IDCG(r) + (Rg - retrieved ones) DCG(L)/IDCG]:
  nDCG averaged over the ranks of the gaining documents, missing ones at the end value.
- Rndcg: nDCG averaged over the ranks q where the ideal gain changes (g_I(q+1) !=
  g_I(q), the last being q = Rg), taking DCG(min(q, L))/IDCG(q); plus DCG(L)/IDCG(Rg)
  when the list runs on past rank Rg + 1. 0 when the topic has no relevant document, and
  when its relevant documents all have gain 0 (no_gain=nan: NaN there, trec_eval's 0/0).
"""

from __future__ import annotations

import numpy as np

from irgauge.measures.base import Param, rank_sum, ratio, register
from irgauge.measures.ndcg import TREC_GAINS, discounted, graded_lists


def _curves(ranked, trec_gains=None):
    """DCG(r) of the run (r = 1..width) and the per-topic ideal gains, both threshold-free."""
    ranked = graded_lists(ranked, "all", trec_gains)
    dcg = np.cumsum(discounted(ranked.gain, ranked.ranks), axis=1)
    return ranked, dcg


def _ideal(ranked, extra: int = 0):
    """Ideal gains of each row's topic (padded with ``extra`` zero columns) and IDCG(r)."""
    table = ranked.judgments.ideal_gain
    gains = np.hstack([table, np.zeros((table.shape[0], extra))])[ranked.topic]
    ranks = np.arange(1, gains.shape[1] + 1, dtype=np.float64)
    return gains, np.cumsum(discounted(gains, ranks), axis=1)


@register(
    "ndcg_rel",
    "nDCG averaged over the ranks of the documents with gain, missing "
    "ones at the final value (trec_eval ndcg_rel)",
    cutoff="none",
    graded=True,
    levels="all",
    params=(TREC_GAINS,),
)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # trec_gains: any double
def ndcg_rel(ranked, trec_gains=None) -> np.ndarray:
    ranked, dcg = _curves(ranked, trec_gains)
    gains, idcg = _ideal(ranked)
    n_gain = (gains > 0).sum(axis=1)
    # IDCG at each rank of the list (constant past the ideal list's end)
    idcg_at = idcg[:, np.minimum(np.arange(ranked.width), idcg.shape[1] - 1)]
    hits = ranked.gain > 0
    at_hits = rank_sum(np.where(hits, ratio(dcg, idcg_at), 0.0))
    final = ratio(ranked.at_rank(dcg, ranked.lengths), idcg[:, -1])
    total = at_hits + (n_gain - hits.sum(axis=1)) * final
    return np.where(total > 0, ratio(total, n_gain), 0.0)


@register(
    "Rndcg",
    "nDCG averaged over the ranks where the ideal gain changes (trec_eval Rndcg)",
    cutoff="none",
    graded=True,
    levels="all_gains",  # which topics have a relevant document: at the threshold
    params=(
        Param(
            "no_gain",
            "zero",
            "str",
            "the value of a topic whose relevant documents all have gain 0: zero, or nan "
            "(trec_eval's Rndcg divides 0 by 0)",
            ("zero", "nan"),
        ),
        TREC_GAINS,
    ),
)
@np.errstate(over="ignore", invalid="ignore", divide="ignore")  # trec_gains: any double
def r_ndcg(ranked, no_gain: str = "zero", trec_gains=None) -> np.ndarray:
    has_relevant = ranked.R > 0  # under the threshold, as trec_eval checks
    ranked, dcg = _curves(ranked, trec_gains)
    gains, idcg = _ideal(ranked, extra=1)
    n_gain = (gains > 0).sum(axis=1)
    q = np.arange(1, gains.shape[1])  # candidate ranks 1..maxR
    change = (gains[:, 1:] != gains[:, :-1]) & (q[None, :] <= n_gain[:, None])
    dcg_at = dcg[:, np.minimum(q, ranked.width) - 1]  # DCG(min(q, L)): flat past L
    total = rank_sum(np.where(change, ratio(dcg_at, idcg[:, :-1]), 0.0))
    count = change.sum(axis=1)
    runs_on = (ranked.lengths > n_gain + 1) & (n_gain > 0)  # trec_eval: when IDCG > 0
    idcg_all = np.take_along_axis(idcg, np.maximum(n_gain - 1, 0)[:, None], axis=1)[:, 0]
    total = total + np.where(runs_on, ratio(ranked.at_rank(dcg, ranked.lengths), idcg_all), 0.0)
    count = count + runs_on
    # relevant documents all of gain 0 (-l 0, or gains of 0) leave no rank to average
    # over: trec_eval divides 0 by 0 and prints -nan
    with np.errstate(invalid="ignore", divide="ignore"):
        averaged = total / count if no_gain == "nan" else ratio(total, count)
    return np.where(has_relevant, averaged, 0.0)
