"""The score statistics of Breuer et al. (SIGIR 2020), on means over topics.

Each function takes means (one per topic set: the observed set, or every bootstrap sample
of it at once) and returns the statistic of each, so that one matrix product of the
per-topic values with the samples' topic counts gives every sample's statistic.

    ARP         mean over topics of a run's scores (average retrieval performance)
    RMSE        sqrt(mean_j (x_j - y_j)^2), x original and y repeated scores of topic j
    nRMSE       RMSE / sqrt(mean_j max(x_j, 1 - x_j)^2): RMSE over the largest RMSE a
                repeated run could reach, for measures in [0, 1] (repro_eval's nRMSE)
    ER          mean_j(a'_j - b'_j) / mean_j(a_j - b_j): the repeated pair's mean
                improvement (advanced a', baseline b') over the original pair's
    RI          (ARP(a) - ARP(b)) / ARP(b), the relative improvement of a pair
    Delta RI    RI_original - RI_repeated (the paper's sign: > 0 when the repetition
                improves less)
"""

from __future__ import annotations

import numpy as np


def sample_means(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """Means of each row of ``values`` (rows x topics) over each bootstrap sample
    (``counts``: samples x topics, how often each topic is drawn): rows x samples."""
    return values @ counts.T / counts.shape[1]


def rmse(mean_squared_error: np.ndarray) -> np.ndarray:
    """RMSE from the mean of the squared per-topic differences."""
    return np.sqrt(mean_squared_error)


def nrmse(mean_squared_error: np.ndarray, mean_squared_largest: np.ndarray) -> np.ndarray:
    """nRMSE: RMSE over the largest RMSE, sqrt(mean max(x, 1 - x)^2) (NaN where 0)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.sqrt(mean_squared_error / mean_squared_largest)


def largest_error(original: np.ndarray) -> np.ndarray:
    """Per topic, the squared largest error a repeated score in [0, 1] can make."""
    return np.maximum(original, 1 - original) ** 2


def effect_ratio(original_improvement: np.ndarray, repeated_improvement: np.ndarray):
    """ER = repeated mean improvement / original mean improvement (inf or NaN where the
    original's is 0: undefined)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return repeated_improvement / original_improvement


def relative_improvement(advanced: np.ndarray, baseline: np.ndarray) -> np.ndarray:
    """RI = (ARP(advanced) - ARP(baseline)) / ARP(baseline)."""
    with np.errstate(divide="ignore", invalid="ignore"):
        return (advanced - baseline) / baseline


def delta_ri(original: tuple, repeated: tuple) -> np.ndarray:
    """Delta RI = RI_original - RI_repeated, each pair given as (advanced, baseline) ARPs."""
    return relative_improvement(*original) - relative_improvement(*repeated)
