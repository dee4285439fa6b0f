"""xpucalc.render.bench_plots: the plots of measurements are tested on what they draw (line y-values, bar heights),
worked by hand from the inputs or read from the published reference table (reference_runs.csv, source §11.3)."""
from __future__ import annotations

import logging
import math
from types import SimpleNamespace

import matplotlib
import numpy as np
import pytest

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402

from xpucalc import Device, bench  # noqa: E402
from xpucalc.bench import alpha_beta, bandwidth, collectives, reference  # noqa: E402
from xpucalc.bench.timing import summarize  # noqa: E402
from xpucalc.render import bench_plots  # noqa: E402
from xpucalc.render.plot import overlapping_texts, phone_text_px, saved_width_in, smallest_text_pt  # noqa: E402
from xpucalc.units import MS  # noqa: E402


def _t(seconds):
    return summarize([seconds] * 3, warn=False)


def test_plots_draw_their_data():
    rs = [bandwidth.StreamResult("copy", n, 2 * n, summarize([n / 1e10], warn=False), 1, "cpu", "torch", "float32",
                                 1, True) for n in (2**16, 2**20)]
    ax = bench_plots.bandwidth_plot(rs, {"L2": 2**21})
    assert [ln.get_ydata()[0] for ln in ax.get_lines()[:1]] == pytest.approx([20.0])   # 2n / (n / 1e10) = 20 GB/s
    roof = Device("측정", 1e11, 1e10)
    ax = bench_plots.measured_roofline_plot([roof], {"층": [(1.0, 5e9), (100.0, 9e10)]})
    pts = ax.get_lines()[-1]
    assert list(pts.get_xdata()) == [1.0, 100.0] and list(pts.get_ydata()) == pytest.approx([5.0, 90.0])  # GFLOP/s
    rows = [collectives.CollectiveRow("all_reduce", s, 2, "gloo", summarize([1e-4 + s / 1e9], warn=False), True)
            for s in (1e3, 1e6)]
    ax = bench_plots.collective_time_plot(rows, alpha_beta.fit_alpha_beta([1e3, 1e6], [r.time_s for r in rows]),
                                          [1e-6, 1e-3])
    assert list(ax.get_lines()[0].get_ydata()) == pytest.approx([(1e-4 + 1e-6) * 1e3, (1e-4 + 1e-3) * 1e3])
    # every series names its evidence: gloo runs are CPU 동작 확인, the fit and the formula 분석 계산
    legend = [t.get_text() for t in ax.get_legend().get_texts()]
    assert [x.split(":")[0] for x in legend] == ["측정 (중앙값, CPU 동작 확인)", "측정 (최소, CPU 동작 확인)",
                                                  "α–β 맞춤 (분석 계산)", "링 공식 2(n−1)/n·S/B\n(지연 항 없음, 분석 계산)"]
    ax = bench_plots.measured_roofline_plot([roof], {"층": [(1.0, 5e9)]}, spec=Device("H100", 989e12, 3.35e12))
    assert "문서의 상한선: H100 (문서 확인)" in [t.get_text() for t in ax.get_legend().get_texts()]
    assert "실측" not in ax.get_title()       # a CPU run is not 실측: the default title does not say it
    bench_plots.busbw_plot(rows)
    with pytest.raises(ValueError, match="roofs"):
        bench_plots.measured_roofline_plot([], {})
    plt.close("all")


# --- a reader's results beside the reference runs ----------------------------------------------------
def test_plot_beside_reference(recwarn, caplog):
    caplog.set_level(logging.WARNING, logger="matplotlib")
    ref = reference.load("tpu-v5e")
    # my grid in the reference's order, k = n = 32: device 0.01 ms, copies 0.03 ms, first call 5 ms (x2 for M = 1)
    env = bench.Environment("jax", "0.7.2", "cpu", "x", 1)
    mine = [bench.BenchResult(bench.Condition("jax", r.path, r.precision, r.m, 32, 32), environment=env,
                              first_call_s=5e-3 * (2 if r.m == 1 else 1), device=_t(1e-5), with_transfer=_t(3e-5))
            for r in ref]
    mine[1] = bench.unsupported(bench.Condition("jax", "eager", "fp32", 1, 32, 32), "테스트")
    for boundary in reference.BOUNDARIES:
        ax = bench_plots.beside_reference_plot(mine, ref, boundary=boundary)
        # the data, not only the glyphs: first 8 bars are the reference in its own order, in ms; then mine
        heights = [p.get_width() for p in ax.patches]   # horizontal bars: the time is the bar's length
        assert heights[:8] == pytest.approx([r.time_s(boundary) / MS for r in ref])
        t_mine = {"device": mine[0].device.median_s, "with_transfer": mine[0].with_transfer.median_s,
                  "first_call": mine[0].first_call_s}[boundary]
        assert heights[8] == pytest.approx(t_mine / MS) and math.isnan(heights[9])
        assert ax.get_xscale() == "log"
        labels = [t.get_text() for t in ax.get_yticklabels()]
        assert len(labels) == 8 and "jax.jit" in labels[-1]
        assert any(t.get_text() == "미지원" for t in ax.texts)
        assert ax.get_legend().get_texts()[1].get_text() == f"내 실행: CPU (x)\n(jax 0.7.2, {env.date}, CPU 동작 확인)"
        ax.figure.canvas.draw()
        plt.close(ax.figure)
    glyph = [str(w.message) for w in recwarn if "glyph" in str(w.message).lower()]
    glyph += [rec.getMessage() for rec in caplog.records if "glyph" in rec.getMessage().lower()]
    assert not glyph, glyph  # matplotlib reports missing glyphs as warnings or as log records
    with pytest.raises(ValueError, match="boundary"):
        bench_plots.beside_reference_plot(mine, ref, boundary="total")
    with pytest.raises(ValueError, match="reference_runs"):
        bench_plots.beside_reference_plot(mine, [])
    assert not math.isnan(ref[0].device_s)


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
    ax = bench_plots.beside_reference_plot(mine, ref, boundary=boundary, mine_label="내 실행")
    ref_bars, my_bars = ax.containers
    heights = [b.get_width() for b in ref_bars]
    assert len(heights) == 8
    for i, key in enumerate(A100):
        assert heights[i] == pytest.approx(A100[key][col])
    mine_h = [b.get_width() for b in my_bars]
    assert mine_h[0] == pytest.approx([3.0, 1.0, 2.0][col])
    assert mine_h[1] == pytest.approx([30.0, 10.0, 20.0][col])
    assert np.isnan(mine_h[2])                           # unsupported: no bar, a "미지원" note instead
    assert [t.get_text() for t in ax.texts].count("미지원") == 1
    assert [t.get_text() for t in ax.texts].count("미실행") == 5   # the other 5 reference rows
    # reference bars above my bars in every row (the y axis runs downwards: the first row on top)
    assert all(r.get_y() < m.get_y() for r, m in zip(ref_bars, my_bars)) and ax.yaxis_inverted()
    plt.close(ax.figure)


# --- measured beside the roofline floor -------------------------------------------------------------------------
def test_plot_floor_draws_measured_and_floor():
    ax = bench_plots.floor_plot(precision="bf16")
    heights = [p.get_width() for p in ax.patches]
    # 8 BF16 groups (4 A100, 4 TPU): first the measured bars (us), then the floors (us)
    assert len(heights) == 16
    assert heights[0] == pytest.approx(62.5) and heights[8] == pytest.approx(1.6871, rel=1e-4)
    assert heights[6] == pytest.approx(161.9) and heights[14] == pytest.approx(3.2033, rel=1e-4)
    assert ax.get_xscale() == "log"
    # the gap labels end the measured bars: 62.5 / 1.6871 = 37.0
    assert [t.get_text() for t in ax.texts[:2]] == ["37배", "45배"]
    plt.close(ax.figure)
    with pytest.raises(ValueError, match="precision"):
        bench_plots.floor_plot(precision="int4")


# --- legible on a phone: every plot, drawn with realistic data, has no overlapping text and >= 9 px text ---------
def _legibility_figures():
    rs = [bandwidth.StreamResult(k, n, 2 * n, summarize([n / 1e10], warn=False), 1, "cpu", "torch", "float32", 1,
                                 True) for k in ("copy", "scale", "add", "triad") for n in (2**16, 2**20, 2**24)]
    rows = [collectives.CollectiveRow(op, s, 4, "gloo", summarize([1e-4 + s / 1e9], warn=False), True)
            for op in ("all_reduce", "all_gather") for s in (1e3, 1e5, 1e7)]
    ar = rows[:3]
    fit = alpha_beta.fit_alpha_beta([r.size_bytes for r in ar], [r.time_s for r in ar])
    ref = reference.load("a100-sxm4-40gb")
    env = bench.Environment("torch", "2.13.0+cpu", "cpu", "AMD EPYC 7B13", 1)
    mine = [bench.BenchResult(bench.Condition("torch", r.path, r.precision, r.m, 1024, 1024), environment=env,
                              first_call_s=5e-3, device=_t(1e-4), with_transfer=_t(3e-4)) for r in ref]
    mine[1] = bench.unsupported(bench.Condition("torch", "eager", "fp32", 1, 1024, 1024), "테스트")
    yield "bandwidth", lambda: bench_plots.bandwidth_plot(rs, {"L2": 2**21, "LLC": 3e7})
    yield "measured_roofline", lambda: bench_plots.measured_roofline_plot(
        [Device("측정 (CPU)", 1e11, 1e10), Device("측정 2", 2e11, 2e10)], {"층 (FP32)": [(1.0, 5e9), (100.0, 9e10)]},
        spec=Device("H100 SXM", 989e12, 3.35e12))
    yield "collective_time", lambda: bench_plots.collective_time_plot(
        ar, fit, [1.5 * r.size_bytes / 1e9 for r in ar], extra_fits={"10번째 백분위 맞춤": fit})
    yield "busbw", lambda: bench_plots.busbw_plot(rows)
    for boundary in reference.BOUNDARIES:
        yield f"beside_{boundary}", lambda b=boundary: bench_plots.beside_reference_plot(mine, ref, boundary=b)
    yield "beside_tpu", lambda: bench_plots.beside_reference_plot([], reference.load("tpu-v5e"))
    yield "floor_bf16", lambda: bench_plots.floor_plot(precision="bf16")
    yield "floor_fp32", lambda: bench_plots.floor_plot(precision="fp32")


@pytest.mark.parametrize("name, draw", list(_legibility_figures()), ids=lambda v: v if isinstance(v, str) else "")
def test_plot_is_legible_on_a_phone(name, draw):
    """No two texts overlap (tick labels, legend, axis labels, bar labels, annotations) and the smallest text is
    >= 9 CSS px when the saved figure is scaled to a 390 px phone's 342 px column."""
    ax = draw()
    fig = ax.figure
    assert overlapping_texts(fig) == [], name
    assert phone_text_px(fig) >= 9.0, (name, smallest_text_pt(fig), saved_width_in(fig))
    plt.close(fig)
