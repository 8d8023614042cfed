"""Significance tests for paired per-topic scores (scipy.stats style: arrays in, frozen
dataclass results out; every random procedure takes a seed and reports it)."""
from irgauge.stats.bootstrap import BootstrapResult, bootstrap_pairs, paired_bootstrap_test
from irgauge.stats.classic import paired_t_test, sign_test
from irgauge.stats.correction import adjust, benjamini_hochberg, holm
from irgauge.stats.pairs import compare_pairs
from irgauge.stats.randomisation import randomisation_test
from irgauge.stats.tukey import randomised_tukey_hsd

__all__ = ["BootstrapResult", "adjust", "benjamini_hochberg", "bootstrap_pairs",
           "compare_pairs", "holm", "paired_bootstrap_test", "paired_t_test",
           "randomisation_test", "randomised_tukey_hsd", "sign_test"]
