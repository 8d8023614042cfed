"""The files ``irgauge reduce`` writes are named after the input's stem without its
compression suffix (they are written uncompressed), and ``qrels`` for standard input or a
pipe: a .bz2 or .xz input gave plain text named ``qrels.txt.50.bz2``, and standard input a
file named ``-.50``, which the next command would take for an option."""

from __future__ import annotations

import bz2
import gzip
import lzma
import os
import subprocess
import sys

import pytest

from hostile_data import QRELS

COMPRESSORS = {"": lambda b: b, ".gz": gzip.compress, ".bz2": bz2.compress, ".xz": lzma.compress}


@pytest.mark.parametrize("suffix", sorted(COMPRESSORS))
def test_compressed_input_gives_plain_files_named_plainly(cli, tmp_path, suffix):
    qrels = tmp_path / f"qrels.txt{suffix}"
    qrels.write_bytes(COMPRESSORS[suffix](QRELS.encode()))
    code, _, err = cli("reduce", qrels, "--out", tmp_path / "out", "--rates", "50", "--seed", "1")
    assert code == 0, err
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["manifest.json", "qrels.50.txt"]
    kept = (tmp_path / "out" / "qrels.50.txt").read_text().splitlines()
    assert kept and set(kept) <= set(QRELS.splitlines())  # the kept lines, as written


def test_standard_input_gives_qrels_files(tmp_path):
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(sys.path)}
    argv = [sys.executable, "-m", "irgauge", "reduce", "-", "--out", "out", "--rates", "50"]
    done = subprocess.run(
        argv + ["--seed", "1"], input=QRELS.encode(), cwd=tmp_path, env=env, capture_output=True
    )
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in (tmp_path / "out").iterdir()) == ["manifest.json", "qrels.50.txt"]
