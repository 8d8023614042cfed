"""Shared paths and helpers of the QA tests (NTCIREVAL samples read in place, never copied)."""

from pathlib import Path

import pytest

SAMPLES = Path(__file__).resolve().parents[2] / ".." / "shared" / "data" / "ntcireval_samples"


@pytest.fixture
def samples():
    if not SAMPLES.is_dir():
        pytest.skip("shared NTCIREVAL samples not available")
    return SAMPLES


@pytest.fixture
def write(tmp_path):
    """write(name, text) -> path of a UTF-8 file in a temporary directory."""

    def _write(name, text):
        path = tmp_path / name
        path.write_text(text, encoding="utf-8")
        return path

    return _write
