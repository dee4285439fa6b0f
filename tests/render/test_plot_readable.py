"""Figures sized for the site's content column: legends outside the data, labelled log ticks, diagrams: tests/test_dot.py."""
from __future__ import annotations

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pytest  # noqa: E402

import xpucalc as xc  # noqa: E402
from xpucalc.render.plot import (COLUMN_WIDTH_IN, MIN_FONT_PT, legend_below, log_ticks, roofline_plot,
                                 setup_korean_font)


def test_default_figure_fits_the_column_and_text_is_large_enough():
    setup_korean_font()
    fig, ax = plt.subplots()
    w, _ = fig.get_size_inches()
    assert w <= COLUMN_WIDTH_IN
    # 9 px on screen at 70 % of natural size and 100 dpi needs >= 9 / 0.7 / 100 * 72 = 9.26 pt
    assert MIN_FONT_PT >= 9 / 0.7 / 100 * 72
    for key in ("xtick.labelsize", "ytick.labelsize", "legend.fontsize", "axes.labelsize"):
        assert matplotlib.rcParams[key] >= MIN_FONT_PT, key
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
