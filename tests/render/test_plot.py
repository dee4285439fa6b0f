"""xpucalc.render.plot, tested on what it draws and how it reads.

- what the roofline plot draws: line y-values, marker positions (expected values worked by hand from the
  inputs, in the comments, not from the plotting code);
- readable in the site's content column: figure size, font size, legends outside the data, labelled log ticks;
- Korean text and log axes draw without a missing glyph.

The plots of measurements (xpucalc.render.bench_plots) are tested in test_bench_plots.py, diagrams in test_dot.py.
"""
from __future__ import annotations

import io
import json
import logging
import sys
import warnings

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import xpucalc as xc  # noqa: E402
from xpucalc.render.plot import (COLUMN_WIDTH_IN, MIN_FONT_PT, PHONE_COLUMN_PX, PNG_KEY_OVERLAPS,  # noqa: E402
                                 PNG_KEY_TEXT_PX, PNG_KEY_TEXTS, drawn_texts, figure_png, legend_below, log_ticks, min_font_pt,
                                 overlapping_texts, phone_text_px, plain_log_ticks, roofline_plot, saved_width_in,
                                 setup_korean_font, smallest_text_pt)

T = 1e12
A = xc.Device("장치 A", 200 * T, 1 * T)   # ridge 200 FLOP/B
B = xc.Device("장치 B", 100 * T, 2 * T)   # ridge 50 FLOP/B
W1 = xc.Workload("작업 1", 1e12, 100e9)   # I = 10
W2 = xc.Workload("작업 2", 1e14, 100e9)   # I = 1000


@pytest.fixture
def ax():
    a = roofline_plot([A, B], [W1, W2], intensity_range=(1.0, 1e4))
    yield a
    plt.close(a.figure)


def _roof_lines(ax):
    return [ln for ln in ax.get_lines() if len(ln.get_xdata()) > 2]


def test_roof_lines_are_the_lower_of_the_two_roofs(ax):
    la, lb = _roof_lines(ax)
    xa, ya = np.asarray(la.get_xdata()), np.asarray(la.get_ydata())
    # ends of the axis: x = 1 -> A: min(200, 1 x 1) = 1 TFLOP/s, B: min(100, 2 x 1) = 2 TFLOP/s;
    # x = 10^4 -> A: 200, B: 100 (a max() roof would draw 200 and 100 at x = 1 already)
    assert (xa[0], xa[-1]) == (pytest.approx(1.0), pytest.approx(1e4))
    assert (ya[0], ya[-1]) == (pytest.approx(1.0), pytest.approx(200.0))
    yb = np.asarray(lb.get_ydata())
    assert (yb[0], yb[-1]) == (pytest.approx(2.0), pytest.approx(100.0))
    # on the sloped part the line is bandwidth x I: A at x ~ 10 draws ~10 TFLOP/s
    i = int(np.argmin(abs(np.log(xa / 10))))
    assert ya[i] == pytest.approx(xa[i] * 1.0, rel=1e-9)
    assert np.all(np.diff(ya) >= 0) and ya.max() == pytest.approx(200.0)
    assert len(xa) == 400


def test_workload_markers_sit_on_each_roof(ax):
    pts = {ln.get_label(): (float(ln.get_xdata()[0]), float(ln.get_ydata()[0]))
           for ln in ax.get_lines() if len(ln.get_xdata()) == 1}
    # I = 10: A 10 TFLOP/s (1 TB/s x 10), B 20; I = 1000: A 200 (flat), B 100 (flat)
    assert pts["작업 1 @ 장치 A: 100 ms"] == (pytest.approx(10), pytest.approx(10))
    assert pts["작업 1 @ 장치 B: 50 ms"] == (pytest.approx(10), pytest.approx(20))
    assert pts["작업 2 @ 장치 A: 500 ms"] == (pytest.approx(1000), pytest.approx(200))
    assert pts["작업 2 @ 장치 B: 1,000 ms"] == (pytest.approx(1000), pytest.approx(100))
    # the crossover star: A's slope 1 x I meets B's flat 100 at I = 100, height 100 TFLOP/s
    assert pts["두 상한이 같아지는 점 I = 100"] == (pytest.approx(100), pytest.approx(100))


def test_ridge_lines_and_default_range():
    a = roofline_plot([A, B], [W1])
    xs = sorted(float(ln.get_xdata()[0]) for ln in a.get_lines() if ln.get_linestyle() == ":")
    assert xs == [pytest.approx(50), pytest.approx(200)]          # the two ridge points
    # default range: from min(ridges, intensities) / 20 = 10 / 20 to max x 20 = 200 x 20
    assert (float(_roof_lines(a)[0].get_xdata()[0]), float(_roof_lines(a)[0].get_xdata()[-1])) == (
        pytest.approx(0.5), pytest.approx(4000))
    plt.close(a.figure)


def test_no_star_when_the_roofs_do_not_cross():
    # C dominates B on both numbers: no crossover, so no star is drawn
    c = xc.Device("장치 C", 400 * T, 4 * T)
    a = roofline_plot([B, c])
    assert not [ln for ln in a.get_lines() if ln.get_marker() == "*"]
    plt.close(a.figure)
    with pytest.raises(ValueError, match=r"^devices must hold at least one Device"):
        roofline_plot([])


def test_legend_numbers_have_three_significant_figures():
    # a device with ridge 3.35e12... : peak 989.5e12 / 3.35e12 B/s = 295.373 FLOP/B -> "295"
    dev = xc.Device("H", peak_flops=989.5e12, bandwidth=3.35e12)
    w = xc.Workload("층", flops=2 * 1024**3, bytes=3 * 2 * 1024**2)   # I = 2^31 / 6291456 = 341.33 FLOP/B
    a = roofline_plot([dev], [w])
    labels = [t.get_text() for t in a.get_legend().get_texts()] if a.get_legend() else [
        ln.get_label() for ln in a.get_lines()]
    assert "H (분기점 295 FLOP/B)" in labels
    # compute-bound: 2^31 FLOP / 989.5e12 FLOP/s = 2.17025e-6 s = 0.00217 ms
    assert "층 @ H: 0.00217 ms" in labels
    plt.close(a.figure)


def test_default_figure_fits_the_column_and_text_is_large_enough():
    setup_korean_font()
    fig, ax = plt.subplots()
    w, _ = fig.get_size_inches()
    assert w <= COLUMN_WIDTH_IN
    # a phone shows the column 342 px wide: 11 pt in a 5.6 in figure is 11 / 72 * 342 / 5.6 = 9.33 px
    assert MIN_FONT_PT / 72 * PHONE_COLUMN_PX / COLUMN_WIDTH_IN == pytest.approx(9.33, abs=0.01)
    assert min_font_pt(COLUMN_WIDTH_IN) == pytest.approx(9 * 72 * 5.6 / 342)   # 10.61 pt
    assert min_font_pt(COLUMN_WIDTH_IN) <= MIN_FONT_PT
    for key in ("xtick.labelsize", "ytick.labelsize", "legend.fontsize", "axes.labelsize", "font.size"):
        assert matplotlib.rcParams[key] >= MIN_FONT_PT, key
    with pytest.raises(ValueError, match="width_in"):
        min_font_pt(0)
    plt.close(fig)


# --- legibility on a phone: text boxes and sizes, measured on the drawn figure ---------------------------------
def test_overlapping_texts_finds_labels_drawn_over_each_other():
    setup_korean_font()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.set_xlim(0, 10)
    ax.text(5, 0.5, "겹치는 글자")
    ax.text(5.1, 0.5, "또 하나")            # starts 0.1 data units (a few px) to the right: overlaps
    ax.text(5, 0.1, "떨어진 글자")          # 0.4 of the axes height lower (~80 px): does not
    pairs = overlapping_texts(fig)
    assert pairs == [("겹치는 글자", "또 하나")]
    # crowded tick labels overlap too (the defect of the old bar charts)
    ax.set_xticks(range(10))
    ax.set_xticklabels([f"PyTorch Eager {i}" for i in range(10)])
    assert ("PyTorch Eager 0", "PyTorch Eager 1") in overlapping_texts(fig)
    plt.close(fig)


def test_drawn_texts_skip_hidden_and_out_of_view_ticks():
    setup_korean_font()
    fig, ax = plt.subplots()
    ax.plot([0, 1], [0, 1])
    ax.set_title("제목")
    leg = ax.legend(["선"])
    leg.set_visible(False)
    texts = [t.get_text() for t, _ in drawn_texts(fig)]
    assert "제목" in texts and "선" not in texts         # a hidden legend hides its entries
    ax.set_xticks([0.0, 0.5, 1.0])
    ax.set_yticks([])
    ax.set_xlim(0.25, 0.65)                              # tick 0.5 remains; 0.0 and 1.0 are out of view
    labels = [t.get_text() for t, _ in drawn_texts(fig)]
    assert "0.5" in labels and "0.0" not in labels and "1.0" not in labels
    plt.close(fig)


def test_phone_text_px_is_points_over_the_saved_width():
    setup_korean_font()
    fig, ax = plt.subplots(figsize=(6.8, 4))
    ax.plot([1, 2], [1, 2])
    ax.tick_params(labelsize=8)
    ax.set_xlabel("가로", fontsize=12)
    # smallest text 8 pt; the saved width is the tight box plus 0.1 in each side, less than the 6.8 in of the
    # figure (the empty margins are cut; ~5.7 in here): a phone shows it at 342 px, so 8 / 72 * 342 / width
    w = saved_width_in(fig)
    assert 5.0 < w < 6.8
    assert smallest_text_pt(fig) == 8
    assert phone_text_px(fig) == pytest.approx(8 / 72 * 342 / w)
    assert phone_text_px(fig) < 7.0                      # the old charts: 8 pt in such a figure is ~6.6 px
    # a narrow figure is shown at its natural size (dpi 100): 8 pt = 8 / 72 * 100 = 11.1 px
    fig.set_size_inches(3, 2)
    assert phone_text_px(fig) == pytest.approx(8 / 72 * 100)
    # mathtext exponents are drawn at 70 %: a "$10^{2}$" tick label of 11 pt has 7.7 pt glyphs
    ax.set_yscale("log")
    ax.tick_params(labelsize=11)
    ax.set_xlabel("가로", fontsize=12)
    assert smallest_text_pt(fig) == pytest.approx(11 * 0.7)
    plain_log_ticks(ax, "y")
    assert smallest_text_pt(fig) == pytest.approx(11)
    plt.close(fig)


def test_figure_png_carries_text_size_and_overlaps():
    from PIL import Image

    setup_korean_font()
    fig, ax = plt.subplots(figsize=(4, 3))
    ax.plot([0, 1], [0, 1])
    ax.text(0.5, 0.5, "가나다", fontsize=12)
    ax.text(0.52, 0.5, "라마바", fontsize=12)
    ax.tick_params(labelsize=10)
    img = Image.open(io.BytesIO(figure_png(fig)))
    # 10 pt tick labels at 100 dpi: 10 x 100 / 72 = 13.89 image px
    assert img.text[PNG_KEY_TEXT_PX] == "13.89"
    assert img.text[PNG_KEY_OVERLAPS] == "'가나다' / '라마바'"
    texts = json.loads(img.text[PNG_KEY_TEXTS])           # what tests/book/test_labels.py reads back
    assert texts["titles"] == [] and {"가나다", "라마바"} <= set(texts["texts"])
    assert img.size[0] == pytest.approx(saved_width_in(fig) * 100, abs=2)
    plt.close(fig)
    # a figure with no text at all is still drawn, only without the entries (the site test reports it)
    fig, ax = plt.subplots(figsize=(2, 2))
    ax.plot([0, 1], [0, 1])
    ax.set_axis_off()
    assert PNG_KEY_TEXT_PX not in Image.open(io.BytesIO(figure_png(fig))).text
    plt.close(fig)


def test_legend_below_does_not_cover_the_data():
    a, b = xc.Device("A", 200e12, 1e12), xc.Device("B", 100e12, 2e12)
    ax = roofline_plot([a, b], [xc.Workload("w", 1e12, 100e9)])
    fig = ax.figure
    fig.canvas.draw()
    leg = ax.get_legend().get_window_extent()
    axes = ax.get_window_extent()
    assert leg.y1 <= axes.y0, "the legend overlaps the axes area"
    with pytest.raises(ValueError, match="MIN_FONT_PT"):
        legend_below(ax, fontsize=7)
    plt.close(fig)


def test_roofline_plot_is_legible_on_a_phone():
    ax = roofline_plot([A, B], [W1, W2])
    assert overlapping_texts(ax.figure) == []
    assert phone_text_px(ax.figure) >= 9.0
    plt.close(ax.figure)


def test_log_ticks_label_at_least_two_ticks_on_a_short_range():
    fig, ax = plt.subplots()
    ax.semilogy([1, 2, 3], [2.0, 3.0, 6.0])  # less than one decade: one plain major tick by default
    log_ticks(ax, "y")
    fig.canvas.draw()
    lo, hi = ax.get_ylim()
    labels = [t.get_text() for t in ax.get_yticklabels() if t.get_text() and lo <= t.get_position()[1] <= hi]
    assert len(labels) >= 2, labels
    with pytest.raises(ValueError, match="axis"):
        log_ticks(ax, "z")
    plt.close(fig)


def test_roofline_plot_has_no_missing_glyphs():
    a, b = xc.Device("장치 A", 200e12, 1e12), xc.Device("장치 B", 100e12, 2e12)
    w = [xc.Workload("작업 1", 1e12, 100e9), xc.Workload("작업 2", 1e14, 100e9)]
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        ax = roofline_plot([a, b], w)
        ax.figure.canvas.draw()
    assert not [c for c in caught if "Glyph" in str(c.message) or "missing from font" in str(c.message)]
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert any("I = 100" in s for s in labels)
    assert "NanumGothic" in matplotlib.rcParams["font.family"]
    plt.close(ax.figure)


def test_log_axes_below_one_have_a_minus_glyph(caplog):
    # matplotlib reports a missing mathtext glyph through logging, not warnings
    setup_korean_font()
    fig, ax = plt.subplots()
    ax.loglog([0.01, 1, 100], [0.001, 1, 10])
    ax.set_title("산술 강도 −1 미만")
    with caplog.at_level(logging.WARNING, logger="matplotlib"), warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        fig.canvas.draw()
    assert "does not have a glyph" not in caplog.text
    assert not [c for c in caught if "Glyph" in str(c.message)]
    plt.close(fig)


@pytest.fixture
def fresh_font_setup(monkeypatch):
    """setup_korean_font as on first use in a new process; matplotlib's settings restored afterwards."""
    from xpucalc.render import plot

    monkeypatch.setattr(plot, "_FONT_READY", False)
    monkeypatch.setattr(plot, "_FONT_WARNED", False)
    with matplotlib.rc_context():
        yield plot
    setup_korean_font()  # the session's other tests expect the normal setup


def test_without_koreanize_a_system_korean_font_is_used(fresh_font_setup, monkeypatch):
    # Colab offline or the accelerator image: the font package is missing, a system Korean font is installed.
    # The fallback list is narrowed to a family matplotlib knows here (it ships DejaVu Sans; the Korean
    # families of this machine vary), so the test is about the mechanism, not this machine's fonts.
    from matplotlib import font_manager

    monkeypatch.setitem(sys.modules, "koreanize_matplotlib", None)   # `import koreanize_matplotlib` fails
    installed = sorted({f.name for f in font_manager.fontManager.ttflist} - {"DejaVu Sans"})
    monkeypatch.setattr(fresh_font_setup, "KOREAN_FALLBACK_FAMILIES", ("No Such Korean Font", installed[0]))
    with warnings.catch_warnings():
        warnings.simplefilter("error", fresh_font_setup.KoreanFontWarning)   # no warning when a font is found
        assert setup_korean_font() == "DejaVu Sans"
    assert list(matplotlib.rcParams["font.family"]) == ["DejaVu Sans", installed[0]]
    assert fresh_font_setup.korean_font_family() == installed[0]


def test_without_any_korean_font_it_warns_once_and_goes_on(fresh_font_setup, monkeypatch):
    monkeypatch.setitem(sys.modules, "koreanize_matplotlib", None)
    monkeypatch.setattr(fresh_font_setup, "KOREAN_FALLBACK_FAMILIES", ("No Such Korean Font",))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        assert setup_korean_font() == "DejaVu Sans"
        fresh_font_setup._FONT_READY = False   # a second setup in the same process (e.g. another plot module)
        setup_korean_font()
        fig, ax = plt.subplots()
        ax.set_title("한국어 제목")   # draws (boxes for Hangul), never raises
        fig.canvas.draw()
        plt.close(fig)
    mine = [c for c in caught if issubclass(c.category, fresh_font_setup.KoreanFontWarning)]
    assert len(mine) == 1, [str(c.message) for c in caught]
    text = str(mine[0].message)
    assert "\n" not in text and "한국어 글꼴" in text and "네모" in text
    assert list(matplotlib.rcParams["font.family"]) == ["DejaVu Sans"]
    assert matplotlib.rcParams["figure.figsize"] == [COLUMN_WIDTH_IN, 4.0]   # the column sizes are still set


def test_a_broken_font_package_is_not_fatal(fresh_font_setup, monkeypatch):
    # the package is there but fails while importing (a font file removed): fall back as if it were missing
    real_import = __import__

    def importer(name, *args, **kwargs):
        if name == "koreanize_matplotlib":
            raise OSError("font file missing")
        return real_import(name, *args, **kwargs)

    monkeypatch.delitem(sys.modules, "koreanize_matplotlib", raising=False)
    monkeypatch.setattr("builtins.__import__", importer)
    monkeypatch.setattr(fresh_font_setup, "KOREAN_FALLBACK_FAMILIES", ("No Such Korean Font",))
    with pytest.warns(fresh_font_setup.KoreanFontWarning):
        assert setup_korean_font() == "DejaVu Sans"
