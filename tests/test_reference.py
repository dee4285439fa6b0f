"""Tests of the reference measurements (source §11.3, 2026-10-19) and their loader."""
from __future__ import annotations

import math

import pytest

from xpucalc import bench, evidence, reference
from xpucalc.units import GB, MS, TFLOPS

# tiny repetition counts on a shared CPU are often noisy; the flag itself is tested on synthetic timings
pytestmark = pytest.mark.filterwarnings("ignore::xpucalc.bench.NoisyTimingWarning")


def test_sixteen_rows_full_grid():
    runs = reference.load()
    assert len(runs) == 16
    for key, framework in (("a100-sxm4-40gb", "torch"), ("tpu-v5e", "jax")):
        rs = reference.load(key)
        assert len(rs) == 8 and {r.framework for r in rs} == {framework}
        assert {r.key() for r in rs} == {(p, q, m) for p in ("eager", "compiled") for q in ("fp32", "bf16")
                                         for m in (128, 1)}
    assert all(r.date == "2026-10-19" and r.passed and (r.k, r.n) == (1024, 1024) for r in runs)
    assert all(r.evidence == evidence.MEASURED for r in runs)


def test_spot_values_against_source_text():
    # typed by hand from the source's §11.3 tables
    r = reference.get("a100-sxm4-40gb", "eager", "bf16", 128)
    assert r.device == "NVIDIA A100-SXM4-40GB"
    assert r.device_s == pytest.approx(0.0625 * MS)
    assert r.with_transfer_s == pytest.approx(0.2410 * MS)
    assert r.first_call_s == pytest.approx(178.124 * MS)
    assert r.framework_version == "2.11.0+cu130"
    r = reference.get("a100-sxm4-40gb", "compiled", "fp32", 128)
    assert r.first_call_s == pytest.approx(4394.837 * MS)
    assert r.device_s == pytest.approx(0.1464 * MS)
    assert r.max_abs_err == pytest.approx(1.97e-06)
    r = reference.get("tpu-v5e", "compiled", "bf16", 1)
    assert r.device == "TPU v5 lite" and r.framework_version == "0.7.2"
    assert r.device_s == pytest.approx(0.1299 * MS)
    assert r.effective_bandwidth == pytest.approx(16.2 * GB)
    r = reference.get("tpu-v5e", "eager", "fp32", 128)
    assert r.achieved_flops == pytest.approx(0.569 * TFLOPS)
    assert r.max_abs_err == pytest.approx(6.79e-07)


def test_published_derived_columns_follow_from_the_times():
    """Throughput = F / device time and bandwidth = Q_min / device time, to the source's rounding.

    The published times carry 4 decimals (<= 0.09 % rounding at 0.0604 ms), the rates 3 (TFLOP/s) and 1 (GB/s).
    """
    for r in reference.load():
        w = r.workload
        assert r.intensity == pytest.approx(round(w.intensity, 2))
        assert r.achieved_flops / TFLOPS == pytest.approx(w.flops / r.device_s / TFLOPS, rel=1e-3, abs=6e-4)
        assert r.effective_bandwidth / GB == pytest.approx(w.bytes / r.device_s / GB, rel=1e-3, abs=0.06)


def test_source_ratios_hold():
    tpu_128 = reference.get("tpu-v5e", "compiled", "bf16", 128)
    tpu_1 = reference.get("tpu-v5e", "compiled", "bf16", 1)
    time_ratio = tpu_1.device_s / tpu_128.device_s
    # Q_min by hand: 2 bytes * (m*1024 + 1024*1024 + 1024 + m*1024)
    q_128 = 2 * (128 * 1024 + 1024 * 1024 + 1024 + 128 * 1024)
    q_1 = 2 * (1 * 1024 + 1024 * 1024 + 1024 + 1 * 1024)
    assert (q_128, q_1) == (2_623_488, 2_103_296)
    assert time_ratio == pytest.approx(0.802, abs=0.0005)
    assert q_1 / q_128 == pytest.approx(0.802, abs=0.0005)
    assert time_ratio == pytest.approx(q_1 / q_128, rel=0.001)

    # A100 BF16 eager: M=1 barely faster than M=128 (~0.97) although F is 128x smaller
    a = reference.get("a100-sxm4-40gb", "eager", "bf16", 1).device_s / \
        reference.get("a100-sxm4-40gb", "eager", "bf16", 128).device_s
    assert a == pytest.approx(0.966, abs=0.001)
    # transfers: 0.2410 / 0.0625 -> copies cost ~2.86x the device time on A100; TPU jit 0.4488/0.1619 ~ 2.77x
    r = reference.get("a100-sxm4-40gb", "eager", "bf16", 128)
    assert (r.with_transfer_s - r.device_s) / r.device_s == pytest.approx(2.856, abs=0.001)
    assert tpu_128.with_transfer_s / tpu_128.device_s == pytest.approx(2.77, abs=0.01)
    # first call vs steady state: ~30,000x on A100 torch.compile, ~6,090x on TPU jax.jit (FP32, M=128)
    c = reference.get("a100-sxm4-40gb", "compiled", "fp32", 128)
    assert c.first_call_s / c.device_s == pytest.approx(30_020, rel=0.001)
    j = reference.get("tpu-v5e", "compiled", "fp32", 128)
    assert j.first_call_s / j.device_s == pytest.approx(6_090, rel=0.001)
    # JAX eager -> jit speed-up ~3.03x (BF16, M=128)
    e = reference.get("tpu-v5e", "eager", "bf16", 128)
    assert e.device_s / tpu_128.device_s == pytest.approx(3.03, abs=0.005)


def test_filters_and_errors():
    assert len(reference.load(framework="jax")) == 8
    with pytest.raises(KeyError, match="known"):
        reference.load("h100")
    with pytest.raises(KeyError, match="framework"):
        reference.load(framework="tf")
    with pytest.raises(KeyError):
        reference.get("tpu-v5e", "eager", "fp32", 64)
    with pytest.raises(ValueError, match="boundary"):
        reference.load()[0].time_s("total")


def test_table_renders_with_evidence_and_source():
    t = reference.table(reference.load("a100-sxm4-40gb"), caption="A100")
    assert len(t.rows) == 8
    assert set(t.column("근거")) == {evidence.MEASURED}
    assert t.column("장치 상주 중앙값 (ms)")[4] == "0.0625"
    assert any("2026-10-19" in n and "2.11.0+cu130" in n for n in t.notes)


def test_plot_beside_reference(recwarn, caplog):
    import logging

    import matplotlib

    matplotlib.use("Agg")
    caplog.set_level(logging.WARNING, logger="matplotlib")
    import matplotlib.pyplot as plt

    ref = reference.load("tpu-v5e")
    mine = bench.run_grid("jax", ms=(128, 1), k=32, n=32, platform="cpu", warmup=0, reps=2)
    mine[1] = bench.unsupported("jax", "eager", "fp32", 1, 32, 32, "테스트")
    for boundary in reference.BOUNDARIES:
        ax = reference.plot_beside(mine, ref, boundary=boundary)
        assert ax.get_yscale() == "log"
        labels = [t.get_text() for t in ax.get_xticklabels()]
        assert len(labels) == 8 and "jax.jit" in labels[-1]
        assert any(t.get_text() == "미지원" for t in ax.texts)
        ax.figure.canvas.draw()
        plt.close(ax.figure)
    glyph = [str(w.message) for w in recwarn if "glyph" in str(w.message).lower()]
    glyph += [rec.getMessage() for rec in caplog.records if "glyph" in rec.getMessage().lower()]
    assert not glyph, glyph  # matplotlib reports missing glyphs as warnings or as log records
    with pytest.raises(ValueError, match="reference_runs"):
        reference.plot_beside(mine, [])
    assert not math.isnan(ref[0].device_s)
