"""The HTML report as a user sees it: rendered by headless Chromium, offline.

Skipped when no Chromium binary is installed (CI installs Debian's ``chromium`` in
``.ci/run``).
"""
import base64
import os
import re
import shutil
import subprocess

import numpy as np
import pytest

from irgauge.report.html import write_report
from irgauge.simulate import simulate_collection, write_collection
from irgauge.studies.onerel import run_onerel
from irgauge.studies.predictive import run_predictive

CHROMIUM = next((shutil.which(b) for b in ("chromium", "chromium-browser", "google-chrome",
                                           "chrome") if shutil.which(b)), None)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium binary on PATH "
                                "(apt-get install chromium; .ci/run installs it)")


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    sim = simulate_collection(n_topics=16, n_runs=6, depth=50, seed=3, pool_depth=10)
    manifest = write_collection(sim, root / "col")
    qrels = root / "col" / manifest["files"]["qrels"]
    runs = [root / "col" / r for r in manifest["files"]["runs"]]
    run_onerel(qrels, runs, root / "out", B=50, trials=30, seed=1, top_k=None)
    run_predictive(qrels, runs, root / "out", trials=40, seed=1)
    return write_report(root / "out")


def _png_pixels(path):
    import matplotlib.image

    return np.asarray(matplotlib.image.imread(str(path)))


def test_figures_embedded_with_content(report):
    html = report.read_text(encoding="utf-8")
    images = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([^"]+)"', html)
    assert len(images) == 9
    for data in images:
        raw = base64.b64decode(data)
        assert raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) > 5000
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing loaded from a network


def test_chromium_screenshot(report, tmp_path):
    shot = tmp_path / "report.png"
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic",
           "--no-first-run", "--disable-background-networking",
           "--disable-component-update", "--disable-sync",
           f"--user-data-dir={tmp_path / 'profile'}", f"--screenshot={shot}",
           "--window-size=1400,3000", report.resolve().as_uri()]
    subprocess.run(cmd, capture_output=True, timeout=120,
                   env={**os.environ, "HOME": str(tmp_path)})
    assert shot.exists(), "chromium wrote no screenshot"
    pixels = _png_pixels(shot)
    assert pixels.shape[0] == 3000 and pixels.shape[1] == 1400
    gray = pixels[..., :3].mean(axis=2)
    assert gray.std() > 0.05  # not a blank page
    # the page holds figures: many distinct colours (curves, heat maps), not just text
    colours = np.unique((pixels[..., :3] * 255).astype(np.uint8).reshape(-1, 3), axis=0)
    assert len(colours) > 500
    # lower half (figures, tables of the studies) is rendered too, not white
    assert gray[1500:].std() > 0.05
