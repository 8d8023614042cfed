"""Publication figures: one style (palette, markers, legends outside), titles naming the
collection and parameters, uncertainty where numbers come from sampling, empty bins dropped,
heat maps scaled to their data, PDF + SVG + PNG."""

import numpy as np
import pandas as pd
import pytest
from scipy.stats import binomtest

from irgauge.report import figures, incomplete_figures, style

TITLE = "robust.qrels: seed 3, B = 200"


@pytest.fixture
def captured(monkeypatch):
    """The figures drawn, captured before ``style.save`` writes and closes them."""
    found = []
    original = style.save

    def save(fig, directory, stem, formats=style.FORMATS):
        fig.canvas.draw()
        found.append(
            (
                fig,
                [ax.get_legend() for ax in fig.axes],
                [ax.get_window_extent() for ax in fig.axes],
                [
                    ax.get_legend().get_window_extent() if ax.get_legend() else None
                    for ax in fig.axes
                ],
            )
        )
        return original(fig, directory, stem, formats)

    monkeypatch.setattr(style, "save", save)
    return found


def _check_common(captured, paths, title=TITLE):
    assert [p.rsplit(".", 1)[1] for p in paths] == ["pdf", "svg", "png"]
    with open(paths[0], "rb") as handle:
        assert handle.read(5) == b"%PDF-"
    fig, legends, axes_boxes, legend_boxes = captured[-1]
    ax = fig.axes[0]
    assert ax.get_title(loc="left") == title
    assert ax.get_xlabel() and ax.get_ylabel()
    if legends[0] is not None:  # legends sit right of the axes, never over the data
        assert legend_boxes[0].x0 >= axes_boxes[0].x1
    return ax


def _colours(ax):
    import matplotlib.colors as mc

    return {
        mc.to_hex(line.get_color()).upper()
        for line in ax.get_lines()
        if line.get_label()[:1] != "_" and line.get_linestyle() != "--"
    }


def test_swap_curves_drop_empty_bins_and_show_intervals(tmp_path, captured):
    rows = []
    for m, measure in enumerate(["AP", "P@10"]):
        for k in range(6):
            comparisons = 0 if k == 3 else 100
            swaps = 0 if k == 3 else 40 - 6 * k + m
            rows.append(
                {
                    "measure": measure,
                    "bin": k,
                    "difference": k / 100,
                    "comparisons": comparisons,
                    "swaps": swaps,
                    "swap_rate": swaps / comparisons if comparisons else np.nan,
                }
            )
    paths = figures.swap_curves(pd.DataFrame(rows), tmp_path, title=TITLE)
    ax = _check_common(captured, paths)
    curves = [l for l in ax.get_lines() if l.get_label() in ("AP", "P@10")]
    assert len(curves) == 2
    for line in curves:  # the empty bin (0.03) is left out, the others joined
        assert list(np.round(line.get_xdata(), 2)) == [0.0, 0.01, 0.02, 0.04, 0.05]
    assert len(ax.collections) == 2  # one Wilson band per measure
    assert _colours(ax) <= set(style.PALETTE) and len(_colours(ax)) == 2
    markers = {l.get_marker() for l in curves}
    assert len(markers) == 2  # legible in black and white too


def test_asl_curves_band_from_bootstrap_samples(tmp_path, captured):
    pairs = pd.DataFrame(
        {
            "measure": ["AP"] * 10 + ["RR"] * 10,
            "asl": np.r_[np.linspace(0, 0.5, 10), np.linspace(0, 0.9, 10)],
        }
    )
    _check_common(captured, figures.asl_curves(pairs, tmp_path, title=TITLE, samples=200))
    ax = captured[-1][0].axes[0]
    band = ax.collections[0].get_paths()[0].vertices[:, 1]
    asl = 0.5 / 9 * 4
    half = 1.96 * np.sqrt(asl * (1 - asl) / 200)
    assert np.isclose(band, asl + half).any() and np.isclose(band, asl - half).any()


def test_stability_and_phi_curves_with_uncertainty(tmp_path, captured):
    table = pd.DataFrame(
        {
            "measure": ["AP"] * 3 + ["RR"] * 3,
            "fuzziness": [0.01, 0.05, 0.1] * 2,
            "minority_rate": [0.05, 0.03, 0.02, 0.06, 0.05, 0.03],
            "proportion_ties": [0.01, 0.05, 0.09, 0.02, 0.06, 0.1],
        }
    )
    ax = _check_common(
        captured, figures.stability_curves(table, tmp_path, title=TITLE, comparisons=3000)
    )
    assert len(ax.containers) == 2  # error bars per measure
    curve = pd.DataFrame(
        {
            "measure_a": ["AP"] * 3,
            "measure_b": ["RR"] * 3,
            "k": [5, 10, 15],
            "phi": [0.5, 0.6, 0.7],
            "sd": [0.2, 0.15, 0.1],
        }
    )
    ax = _check_common(captured, figures.phi_curves(curve, tmp_path, title=TITLE, halvings=50))
    assert len(ax.collections) == 1


def test_heatmap_scaled_to_off_diagonal_data_with_values(tmp_path, captured):
    square = pd.DataFrame(
        [[1, 0.62, 0.71], [0.62, 1, 0.35], [0.71, 0.35, 1]],
        index=["AP", "P@10", "RR"],
        columns=["AP", "P@10", "RR"],
    )
    _check_common(captured, figures.tau_heatmap(square, tmp_path, title=TITLE))
    ax = captured[-1][0].axes[0]
    assert ax.images[0].get_clim() == (0.35, 0.71)  # the least and greatest off-diagonal
    assert sorted(t.get_text() for t in ax.texts) == [
        "0.35",
        "0.35",
        "0.62",
        "0.62",
        "0.71",
        "0.71",
    ]


def test_incomplete_rate_curves_in_the_style(tmp_path, captured):
    table = pd.DataFrame(
        {
            "measure": ["AP"] * 3 + ["AP'"] * 3,
            "lists": ["original"] * 3 + ["condensed"] * 3,
            "rate": [100, 50, 10] * 2,
            "tau": [1, 0.8, np.nan, 1, 0.9, 0.85],
        }
    )
    paths = incomplete_figures.rate_curves(table, "tau", tmp_path, title=TITLE)
    ax = _check_common(captured, paths)
    dotted, solid = ax.get_lines()[:2]
    assert dotted.get_linestyle() == ":" and solid.get_linestyle() == "-"
    assert len(dotted.get_xdata()) == 2  # the missing value is left out, not a dot at 0


def test_wilson_matches_scipy():
    low, high = style.wilson(np.array([0, 3, 17, 20]), np.array([20, 20, 20, 20]))
    for k, lo, hi in zip([0, 3, 17, 20], low, high):
        ci = binomtest(k, 20).proportion_ci(method="wilson")
        assert lo == pytest.approx(ci.low) and hi == pytest.approx(ci.high)


def test_describe():
    assert style.describe("robust.qrels", seed=3, B=200, c=None) == "robust.qrels: seed 3, B = 200"
    assert style.describe(None, B=10) == "B = 10"


def test_heatmap_keeps_a_meaningful_diagonal(tmp_path, captured):
    phi = pd.DataFrame([[0.8, 0.6], [0.5, 0.9]], index=["AP", "RR"], columns=["AP", "RR"])
    figures.tau_heatmap(phi, tmp_path, title=TITLE, label="phi")
    ax = captured[-1][0].axes[0]
    assert ax.images[0].get_clim() == (0.5, 0.9) and len(ax.texts) == 4


def _legend_figure():
    fig, ax = style.new_figure(title=TITLE)
    for index in range(6):
        x = np.arange(10)
        style.band(ax, x, np.full(10, 0.5), np.zeros(10), np.ones(10), index, f"series {index}")
    style.legend_outside(ax, "measures")
    ax.set_xlabel("x")
    return fig


def test_save_measures_the_crop_once_for_every_format(tmp_path, monkeypatch):
    """bbox "tight" drew each figure twice per format; save measures the crop in one draw
    without output and then draws once per format."""
    from matplotlib.figure import Figure

    fig = _legend_figure()
    draws = []
    original = Figure.draw

    def counted(self, renderer):
        draws.append(type(renderer).__name__)
        return original(self, renderer)

    monkeypatch.setattr(Figure, "draw", counted)
    style.save(fig, tmp_path, "s")
    assert len(draws) == len(style.FORMATS) + 1


def test_saved_crop_is_the_tight_one(tmp_path):
    """The PNG is byte for byte what bbox "tight" gives; the vector pages are within a
    point of their own tight crop (they measure text a little differently)."""
    import io
    import re

    fig = _legend_figure()
    style.save(fig, tmp_path, "s")
    tight = {}
    with style.styled():
        for ext in ("png", "pdf", "svg"):
            buffer = io.BytesIO()
            fig.savefig(buffer, format=ext, dpi=style.PNG_DPI, bbox_inches="tight")
            tight[ext] = buffer.getvalue()
    assert (tmp_path / "s.png").read_bytes() == tight["png"]

    def pdf_size(data):
        box = re.search(rb"/MediaBox \[ 0 0 ([\d.]+) ([\d.]+) \]", data).groups()
        return np.array([float(v) for v in box])

    def svg_size(data):
        found = re.search(rb'<svg[^>]*width="([\d.]+)pt" height="([\d.]+)pt"', data).groups()
        return np.array([float(v) for v in found])

    saved_pdf = pdf_size((tmp_path / "s.pdf").read_bytes())
    assert np.abs(saved_pdf - pdf_size(tight["pdf"])).max() < 1.0  # points
    saved_svg = svg_size((tmp_path / "s.svg").read_bytes())
    assert np.abs(saved_svg - svg_size(tight["svg"])).max() < 1.0
