"""What a reproducibility study's output says in words: the labels of the repeated pairs,
the parameters and definitions recorded with the table, and the sentences that say
"reproduced" or "not reproduced" where an interval decides it."""

from __future__ import annotations

from pathlib import Path
from typing import Any, Dict, List

import numpy as np

KTU = (
    "Kendall's tau_b between the rankings of the union U of the two top-k lists (Breuer "
    "et al. 2020): a document missing from a list shares the rank |list| + 1 there, tied"
)
RBO = (
    "rank-biased overlap of the two top-k lists (Webber, Moffat and Zobel 2010): RBO is "
    "the extrapolated value (eq. 32), RBO_min and RBO_max bound the RBO of the full "
    "rankings (RBO_max - RBO_min is the residual)"
)
TIES = (
    "documents in irgauge's evaluation order, trec_eval's: score descending, ties by "
    "docno descending (byte order)"
)
EFFECTS = (
    "ARP = mean score over topics; RMSE = sqrt(mean (original - repeated)^2) per topic; "
    "nRMSE = RMSE / sqrt(mean max(original, 1 - original)^2); ER = mean improvement of "
    "the repeated pair / mean improvement of the original pair; DeltaRI = RI_original - "
    "RI_repeated, RI = (ARP_advanced - ARP_baseline) / ARP_baseline"
)


def labels(groups) -> List[str]:
    """How the rows name each repeated pair: its files' names joined by +, numbered
    where two pairs share them."""
    found = ["+".join(Path(r.source).name for r in g) for g in groups]
    if len(set(found)) < len(found):
        found = [f"{name}#{i + 1}" for i, name in enumerate(found)]
    return found


def parameters(study, cutoffs, rbo_p, samples, seed, confidence) -> Dict[str, Any]:
    """Everything needed to redo the study, and the definitions used."""
    from irgauge.measures import parse_measure

    kind = "replication" if study.replication else "reproduction"
    found: Dict[str, Any] = {
        "kind": kind,
        "qrels": study.qrels.source,
        "original": {r.name.split(":")[1]: r.source for r in study.originals},
        "repeated": {
            label: [r.source for r in group] for label, group in zip(study.labels, study.groups)
        },
        "measures": list(study.measures),
    }
    if study.replication:
        found["repeated_qrels"] = study.qrels_repeated.source
        found["repeated_topics"] = list(study.topics["repeated"])
    else:
        found.update(rbo_p=rbo_p, cutoffs=list(cutoffs) if cutoffs else [1000])
    found.update(
        seed=seed,
        bootstrap_samples=samples,
        confidence=confidence,
        test="Welch's unpaired t-test (two-sided)"
        if study.replication
        else "paired t-test (two-sided)",
        interval="percentile bootstrap over topics (drawn with replacement"
        + (
            "; the original and the repeated topics drawn independently"
            if study.replication
            else "; original and repeated scores resampled together, topic by topic"
        )
        + "; samples where a statistic is undefined left out)",
        measure_definitions={m: parse_measure(m).full for m in study.measures},
        effects=EFFECTS,
        ties=TIES,
    )
    if not study.replication:
        found.update(cutoffs_given=bool(cutoffs), ktu=KTU, rbo=RBO)
    return found


def sentences(rows: List[dict], study, confidence: float) -> List[str]:
    """Per repeated pair and measure, from ER's interval: "reproduced" when it lies above
    0 (the advanced run differs from the baseline in the original's direction), "not reproduced"
    when it lies below 0; a sentence saying that the interval does not decide otherwise.
    Where the interval also excludes 1, the effect is said to be larger or smaller."""
    found = []
    level = f"{confidence * 100:g}%"
    for row in rows:
        if row["statistic"] != "ER":
            continue
        low, high, value = row["low"], row["high"], row["value"]
        who = f"{row['repeated']}, {row['measure']}" if len(study.groups) > 1 else row["measure"]
        span = f"ER {value:.3f}, {level} interval [{low:.3f}, {high:.3f}]"
        if not (np.isfinite(low) and np.isfinite(high)):
            found.append(f"{who}: the interval is undefined ({span}); nothing is decided.")
        elif low > 0:
            size = (
                "; the effect is smaller than the original's (interval below 1)"
                if high < 1
                else "; the effect is larger than the original's (interval above 1)"
                if low > 1
                else ""
            )
            found.append(
                f"{who}: reproduced: the repeated pair's effect goes the way of "
                f"the original's ({span}, above 0){size}."
            )
        elif high < 0:
            found.append(
                f"{who}: not reproduced: the repeated pair reverses the "
                f"original's improvement ({span}, below 0)."
            )
        else:
            found.append(
                f"{who}: the interval holds 0 ({span}): this study does not "
                "decide whether the improvement is reproduced."
            )
    return found
