"""The HTML report as a user sees it: rendered by headless Chromium, offline, and printed to
PDF on US letter and A4 (tables and figures whole, a sensible page count).

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

from irgauge.cli import main
from irgauge.report.html import write_report
from irgauge.collection.simulate import simulate_collection, write_collection
from irgauge.studies.onerel import run_onerel
from irgauge.studies.predictive import run_predictive

CHROMIUM = next(
    (
        shutil.which(b)
        for b in ("chromium", "chromium-browser", "google-chrome", "chrome")
        if shutil.which(b)
    ),
    None,
)
pytestmark = [
    pytest.mark.skipif(
        CHROMIUM is None,
        reason="no chromium binary on PATH (apt-get install chromium; .ci/run installs it)",
    ),
    pytest.mark.slow,  # a report with every figure, rendered by a browser
]


@pytest.fixture(scope="module")
def report(tmp_path_factory):
    root = tmp_path_factory.mktemp("browser")
    sim = simulate_collection(n_topics=16, n_runs=6, depth=50, seed=3, pool_depth=10)
    manifest = write_collection(sim, root / "col")
    qrels = root / "col" / manifest["files"]["qrels"]
    runs = [root / "col" / r for r in manifest["files"]["runs"]]
    run_onerel(qrels, runs, root / "out", samples=50, trials=30, seed=1, top_k=None)
    run_predictive(qrels, runs, root / "out", halvings=40, seed=1)
    inputs = root / "inputs"
    inputs.mkdir()
    measures = ["-m", "AP", "-m", "nDCG@10", "-m", "P@10"]
    assert (
        main(
            [
                "eval",
                str(qrels),
                *map(str, runs),
                *measures,
                "-q",
                "--format",
                "tsv",
                "-o",
                str(inputs / "eval.tsv"),
            ]
        )
        == 0
    )
    assert (
        main(
            [
                "compare",
                "--qrels",
                str(qrels),
                "--run",
                *map(str, runs),
                "-m",
                "AP",
                "-m",
                "nDCG@10",
                "--table",
                "json",
                "--seed",
                "1",
                "--effect",
                "-o",
                str(inputs / "comparison.json"),
            ]
        )
        == 0
    )
    return write_report(root / "out", inputs=[inputs / "eval.tsv", inputs / "comparison.json"])


def _png_pixels(path):
    import matplotlib.image

    return np.asarray(matplotlib.image.imread(str(path)))


def test_figures_embedded_with_content(report):
    html = report.read_text(encoding="utf-8")
    images = re.findall(r'<img alt="[^"]*" src="data:image/png;base64,([^"]+)"', html)
    assert len(images) == 9
    assert (
        '<nav class="toc">' in html and html.count('<li><a href="#') == 5
    )  # collection, 2 inputs, 2 studies
    for data in images:
        raw = base64.b64decode(data)
        assert raw[:8] == b"\x89PNG\r\n\x1a\n" and len(raw) > 5000
    assert not re.search(r'(src|href)="(https?:)?//', html)  # nothing loaded from a network


def _chromium(tmp_path, *flags):
    cmd = [
        CHROMIUM,
        "--headless",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-quic",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        f"--user-data-dir={tmp_path / 'profile'}",
        *flags,
    ]
    subprocess.run(cmd, capture_output=True, timeout=120, env={**os.environ, "HOME": str(tmp_path)})


def test_chromium_screenshot(report, tmp_path):
    shot = tmp_path / "report.png"
    _chromium(
        tmp_path, f"--screenshot={shot}", "--window-size=1400,3000", report.resolve().as_uri()
    )
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


def test_no_absolute_path_and_links_relative(report):
    html = report.read_text(encoding="utf-8")
    root = report.parent.parent  # the temporary folder holding everything
    assert str(root) not in html and str(root.resolve()) not in html
    assert "file:" not in html
    links = re.findall(r'(?:href|src)="([^"]+)"', html)
    files = [l for l in links if not l.startswith(("#", "data:"))]
    assert len(files) >= 3 * 9  # PDF, SVG and PNG of every figure
    for link in files:
        assert not link.startswith("/") and not re.match(r"[a-z]+:", link), link
        assert (report.parent / link).is_file(), link
    assert {l.rsplit(".", 1)[1] for l in files} == {"pdf", "svg", "png"}
    anchors = [l[1:] for l in links if l.startswith("#")]
    assert anchors and all(f'id="{a}"' in html for a in anchors)


PAPER = {"letter": (612, 792), "A4": (595, 842)}  # points


@pytest.mark.parametrize("paper", ["letter", "A4"])
def test_prints_to_pdf_without_splitting_tables(report, tmp_path, paper):
    pypdf = pytest.importorskip("pypdf")
    page = tmp_path / "page.html"  # beside nothing: links are not followed when printing
    html = report.read_text(encoding="utf-8")
    page.write_text(
        html.replace("</style>", "@page { size: %s; }</style>" % paper, 1), encoding="utf-8"
    )
    pdf = tmp_path / "report.pdf"
    _chromium(
        tmp_path,
        f"--print-to-pdf={pdf}",
        "--no-pdf-header-footer",
        "--print-to-pdf-no-header",
        page.as_uri(),
    )  # the flag of newer, older Chromium
    assert pdf.exists(), "chromium wrote no PDF"
    reader = pypdf.PdfReader(str(pdf))
    pages = [p.extract_text() for p in reader.pages]
    assert len(pages) == pdf.read_bytes().count(b"/Type /Page") - pdf.read_bytes().count(
        b"/Type /Pages"
    )
    # 9 figures two a row, ~14 tables and summaries with their intervals: a handful of
    # pages, not one page per figure (that would be 9 pages of figures besides the rest)
    print(paper, len(pages), "pages")
    assert 3 <= len(pages) <= 11, len(pages)
    width, height = (float(v) for v in reader.pages[0].mediabox[2:])
    assert (round(width), round(height)) == PAPER[paper]

    def where(text):
        found = [k for k, p in enumerate(pages) if text in " ".join(p.split())]
        assert found, text
        return found

    # a table is whole: its header row and its caption (below it) are on one page
    assert where("nDCG@10 d_z")[-1] in where("against run1.")
    assert set(where("Contents")) == {0}
    # every figure caption's download links print with it (figure and caption together)
    assert sum(" ".join(p.split()).count("Download: PDF") for p in pages) == 9
