"""Reproducibility and replicability of system-oriented IR experiments (Breuer, Ferro,
Fuhr, Maistro, Sakai, Schaer and Soboroff, SIGIR 2020): document order (KTU, RBO),
effectiveness (RMSE, nRMSE), overall effects (ARP, ER, Delta RI) and t-tests, each with a
bootstrap interval over topics. Pure functions over per-topic scores and ranked lists;
:func:`irgauge.reproducibility` is the entry point."""

from irgauge.meta.repro.analysis import reproducibility_table

__all__ = ["reproducibility_table"]
