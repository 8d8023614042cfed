"""What the Dask engine's fault tests share (evaluation, meta-evaluation and studies): a
worker plugin that kills its worker's process once, and the command line run as if Dask
were not installed."""

from __future__ import annotations

import os
import subprocess
import sys

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


def cli_without_dask(*argv: str) -> subprocess.CompletedProcess:
    """``irgauge ARGV`` in a process where importing Dask's ``distributed`` fails."""
    return subprocess.run(
        [
            sys.executable,
            "-c",
            "import sys; sys.modules['distributed'] = None; "
            "from irgauge.cli import main; sys.exit(main(sys.argv[1:]))",
            *argv,
        ],
        capture_output=True,
        text=True,
    )
