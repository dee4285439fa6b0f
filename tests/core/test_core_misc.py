"""Units, formatting, tables, the comparison table and the plot helper."""
import warnings

import pytest

import xpucalc as xc
from xpucalc import evidence, units
from xpucalc.render.comparison import ITEMS, ComparisonTable
from xpucalc.render.table import Table


def test_unit_constants():
    assert units.GiB == 1_073_741_824
    assert units.MiB == 1_048_576
    assert units.TB == 1e12
    assert units.Gbps * 400 == 50e9  # 400 Gb/s InfiniBand NDR = 50 GB/s
    assert units.sparse_to_dense(1979e12) == pytest.approx(989.5e12)


def test_formatting():
    assert units.fmt_si(3.35e12, "B/s") == "3.35 TB/s"
    assert units.fmt_bytes(2_684_354_560) == "2.68 GB"
    assert units.fmt_bytes(2_684_354_560, binary=True) == "2.5 GiB"
    assert units.fmt_time(0.0625e-3) == "62.5 µs"
    assert units.fmt_time(0.015) == "15 ms"
    assert units.fmt_time(30.015) == "30.015 s"
    assert units.fmt_time(11.52 * units.DAY) == "11.5 일"
    assert units.fmt_num(1_311_744, 0) == "1,311,744"


def test_table_renders_and_checks_width():
    t = Table(["a", "b"], caption="캡션")
    t.add(1, "x|y")
    md = t.to_markdown()
    assert "| 1 | x\\|y |" in md and "**캡션**" in md
    html = t.to_html()
    assert "<td>x|y</td>" in html and "overflow-x:auto" in html
    assert t.column("a") == ["1"]
    with pytest.raises(ValueError, match="cells"):
        t.add(1)
    with pytest.raises(ValueError, match="rows"):
        Table(["a"], rows=[["1", "2"]])


def test_evidence_vocabulary():
    assert len(evidence.LABELS) == 8
    assert evidence.check("실측") == "실측"
    with pytest.raises(ValueError, match="vocabulary"):
        evidence.check("측정함")


def test_comparison_table_eleven_items():
    assert [i for i, *_ in ITEMS] == list(range(1, 12))
    ct = ComparisonTable(["H100 SXM", "TPU v5e"])
    ct.set(5, "H100 SXM", "칩 1개 (SXM)", evidence.DOCUMENTED)
    ct.mark(10, "TPU v5e", evidence.NOT_MEASURED, "전력계 없음")
    t = ct.to_table()
    assert len(t.rows) == 11
    assert t.rows[4][2] == "칩 1개 (SXM) [문서 확인]"
    assert t.rows[9][3] == "아직 미측정 (전력계 없음)"
    # 22 cells, one filled with a number -> 21 without one
    assert len(ct.missing()) == 21
    assert len(ComparisonTable.template().rows) == 11
    with pytest.raises(ValueError, match="item"):
        ct.set(12, "H100 SXM", "x", evidence.DOCUMENTED)
    with pytest.raises(KeyError, match="column"):
        ct.set(1, "B200", "x", evidence.DOCUMENTED)
    with pytest.raises(ValueError, match="vocabulary"):
        ct.set(1, "TPU v5e", "x", "대충")


def test_roofline_plot_has_no_missing_glyphs():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xpucalc.render.plot import roofline_plot

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
    import logging

    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    from xpucalc.render.plot import setup_korean_font

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


def test_public_api_of_the_design_is_reachable_from_the_package():
    import sys

    # each design name called once on a case worked by hand
    assert xc.linear_layer(128, 1024, 1024, 2).flops == 268_435_456       # 2 x 128 x 1024 x 1024
    assert xc.roofline(xc.Workload("w", 1e12, 100e9), xc.Device("A", 200e12, 1e12)).time == pytest.approx(0.1)
    assert xc.ridge_point(xc.Device("A", 200e12, 1e12)) == pytest.approx(200)
    assert xc.crossover(xc.Device("A", 200e12, 1e12), xc.Device("B", 100e12, 2e12)) == pytest.approx(100)
    assert xc.breakeven_runs(30, 0.015, 5, 0.020) == 5001                 # 25 s / 5 ms = 5,000 -> 5,001
    assert xc.energy_per_request(400, 100) == pytest.approx(4.0)
    assert xc.devices.get("virtual-a").peak_flops == 200e12 and "virtual-b" in xc.devices.keys()
    assert (xc.units.GB, xc.units.TB, xc.units.GiB, xc.units.TiB, xc.units.TFLOPS) == (1e9, 1e12, 2**30, 2**40, 1e12)
    # Llama-3-70B KV cache at 8,192 tokens, FP16: 2 x 80 x 8,192 x 8 x 128 x 2 B = 2,684,354,560 B (design §7.3)
    assert xc.llm.kv_cache_bytes(80, 8, 128, 8192) == 2_684_354_560
    assert xc.llm.decode_tokens_per_s_bound(140e9, 3.35e12) == pytest.approx(23.93, abs=0.01)  # 3.35e12 / 140e9
    # 6 x 70e9 x 15e12 = 6.3e24 FLOP / (16,000 x 989e12 x 0.4) = 995,323 s = 11.52 days (design §7.2)
    assert xc.llm.train_time_s(70e9, 15e12, 16000, 989e12, 0.4) / 86400 == pytest.approx(11.52, abs=0.01)
    assert xc.llm.allreduce_time_s(14e9, 32e9, 8) == pytest.approx(0.765625)  # 2 x 7/8 x 14 / 32 (design §7.5)
    for n in ("run_torch", "run_jax"):  # the harness needs a framework to call: its own tests run it
        assert callable(getattr(xc.bench, n)), f"xpucalc.bench.{n}"
    # importing the package must not pull in the frameworks (the harness imports them only when it runs)
    import subprocess

    probe = "import sys, xpucalc; print('torch' in sys.modules, 'jax' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True).stdout.split()
    assert out == ["False", "False"]
