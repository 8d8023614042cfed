"""Files padded with gigabytes of NUL bytes (sparse files: no disk is used) are refused at
FILE:LINE after one block, by every reader of line-oriented text: score files, QA gold
and answer files, report inputs. Each reader runs in a child process that reports its own
peak memory (``VmHWM``), which shows it did not read the file whole."""

from __future__ import annotations

import subprocess
from pathlib import Path
import sys

import pytest

pytestmark = pytest.mark.skipif(
    not Path("/proc/self/status").exists(), reason="reads the peak from /proc (Linux)"
)

PADDING = 4 << 30  # 4 GiB of NUL bytes after a valid first line
PEAK_LIMIT_MB = 400  # a whole read would need over 4,000

READERS = {
    "score file": "from irgauge.scores import read_scores as read",
    "QA gold": "from irgauge import read_gold as read",
    "QA answers": "from irgauge import read_answers as read",
    "report input": "from irgauge.report.inputs import read_input as read",
}


def padded(folder, first_line: bytes):
    path = folder / "padded.tsv"
    with open(path, "wb") as handle:
        handle.write(first_line)
        handle.truncate(len(first_line) + PADDING)  # sparse: the NULs take no disk
    return path


@pytest.mark.parametrize("reader", sorted(READERS))
def test_nul_padding_is_refused_after_one_block(tmp_path, reader):
    path = padded(tmp_path, b"run\tmeasure\ttopic\tvalue\n")
    code = (
        f"{READERS[reader]}\n"
        "from irgauge.errors import InputError\n"
        "try:\n"
        f"    read({str(path)!r})\n"
        "except InputError as err:\n"
        "    print(err)\n"
        # VmHWM: this process's peak since exec (ru_maxrss would carry the parent's)
        "peak = [l for l in open('/proc/self/status') if l.startswith('VmHWM')][0]\n"
        "print(int(peak.split()[1]) // 1024)\n"
    )
    child = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert child.returncode == 0, child.stderr
    message, peak_mb = child.stdout.strip().rsplit("\n", 1)
    assert message.startswith(f"{path}:2: line longer than"), child.stdout
    assert int(peak_mb) < PEAK_LIMIT_MB
