"""Significance tests for paired per-topic scores (scipy.stats style: arrays in, frozen
dataclass results out; every random procedure takes a seed and reports it).

Names are imported on first use: the meta methods import ``irgauge.stats.resampling``,
which must not pull in scipy.stats (only the classic tests need it; it takes most of a
second to import).
"""

from __future__ import annotations

from irgauge import _lazy_attributes

_LAZY = {
    "BootstrapResult": "bootstrap",
    "bootstrap_pairs": "bootstrap",
    "paired_bootstrap_test": "bootstrap",
    "paired_t_test": "classic",
    "sign_test": "classic",
    "welch_t_test": "classic",
    "adjust": "correction",
    "benjamini_hochberg": "correction",
    "holm": "correction",
    "compare_pairs": "pairs",
    "randomisation_test": "randomisation",
    "randomised_tukey_hsd": "tukey",
}
__all__ = sorted(_LAZY)


__getattr__, __dir__ = _lazy_attributes(
    __name__, {name: f"{__name__}.{module}" for name, module in _LAZY.items()}, globals()
)
