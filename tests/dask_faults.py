"""A Dask worker plugin that kills its worker's process once, for the fault tests of the
Dask engine (evaluation, meta-evaluation and studies)."""

from __future__ import annotations

import os

import distributed


class DieOnce(distributed.WorkerPlugin):
    """Kills its worker's process when the first task starts (once across workers: the
    first to start writes ``marker``)."""

    def __init__(self, marker: str):
        self.marker = marker

    def setup(self, worker):
        self.worker = worker

    def transition(self, key, start, finish, **kwargs):
        if finish == "executing" and not os.path.exists(self.marker):
            with open(self.marker, "w"):
                pass
            os._exit(1)
