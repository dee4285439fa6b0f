"""The plots are tested on what they draw: line y-values, marker positions, bar heights.

Expected values are worked by hand from the inputs (comments), or read from the published
reference table (reference_runs.csv, source §11.3), not from the plotting code.
"""
from __future__ import annotations

from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

import xpucalc as xc  # noqa: E402
from xpucalc.bench import reference
from xpucalc.render.plot import roofline_plot

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


# --- plot_beside: reference bars next to a reader's bars ------------------------------------------
def _mine(key, device_ms, transfer_ms, first_ms, ok=True):
    path, precision, m = key
    return SimpleNamespace(key=lambda: key, ok=ok, first_call_s=first_ms / 1e3, environment=None,
                           device=SimpleNamespace(median_s=device_ms / 1e3),
                           with_transfer=SimpleNamespace(median_s=transfer_ms / 1e3))


# published A100 rows (reference_runs.csv, source §11.3), in the CSV's order:
# (path, precision, M): (first call ms, device ms, with transfer ms)
A100 = {
    ("eager", "fp32", 128): (235.921, 0.0696, 0.3587),
    ("eager", "fp32", 1): (15.122, 0.0788, 0.1413),
    ("compiled", "fp32", 128): (4394.837, 0.1464, 0.4458),
}


@pytest.mark.parametrize("boundary, col", [("first_call", 0), ("device", 1), ("with_transfer", 2)])
def test_plot_beside_draws_the_chosen_boundary(boundary, col):
    ref = reference.load("a100-sxm4-40gb")
    # my runs: device 1, with transfer 2, first call 3 (x10 for M = 1), so a swapped boundary shows
    mine = [_mine(("eager", "fp32", 128), 1.0, 2.0, 3.0), _mine(("eager", "fp32", 1), 10.0, 20.0, 30.0),
            _mine(("compiled", "fp32", 128), 0, 0, 0, ok=False)]
    ax = reference.plot_beside(mine, ref, boundary=boundary, mine_label="내 실행")
    ref_bars, my_bars = ax.containers
    heights = [b.get_height() for b in ref_bars]
    assert len(heights) == 8
    for i, key in enumerate(A100):
        assert heights[i] == pytest.approx(A100[key][col])
    mine_h = [b.get_height() for b in my_bars]
    assert mine_h[0] == pytest.approx([3.0, 1.0, 2.0][col])
    assert mine_h[1] == pytest.approx([30.0, 10.0, 20.0][col])
    assert np.isnan(mine_h[2])                           # unsupported: no bar, a "미지원" note instead
    assert [t.get_text() for t in ax.texts].count("미지원") == 1
    assert [t.get_text() for t in ax.texts].count("미실행") == 5   # the other 5 reference rows
    # reference bars left of my bars in every group
    assert all(r.get_x() < m.get_x() for r, m in zip(ref_bars, my_bars))
    plt.close(ax.figure)


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
