"""xpucalc.bench.reference: the source's reference runs (§11.3, 2026-10-19), their loader and their roofline floors."""
from __future__ import annotations

import pytest

from xpucalc import evidence
from xpucalc.bench import reference
from xpucalc.units import GB, MS, TFLOPS


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
    assert reference.check_boundary("first_call") == "first_call"
    r = reference.get("tpu-v5e", "eager", "fp32", 128)
    assert (r.time_s("device"), r.time_s("with_transfer"), r.time_s("first_call")) == (r.device_s, r.with_transfer_s,
                                                                                        r.first_call_s)
    assert r.path_label == "JAX Eager" and r.workload.bytes == 4 * (128 * 1024 + 1024 * 1024 + 1024 + 128 * 1024)


def test_roofline_floors_and_gaps_by_hand():
    # A100 BF16 M=128: Q_min = 2 623 488 B (2 bytes x 1 311 744 elements), bandwidth 1 555 GB/s
    # -> 2 623 488 / 1.555e12 = 1.6871 us; F / peak = 268 435 456 / 312e12 = 0.86 us, so memory sets it.
    a = reference.floor_gap(reference.get("a100-sxm4-40gb", "eager", "bf16", 128))
    assert a.floor_s == pytest.approx(1.6871e-6, rel=1e-4) and a.bound == "memory"
    assert a.gap == pytest.approx(62.5 / 1.6871, rel=1e-3)  # 37.0x
    # the hard floor a cache cannot lower: the compute term alone, 268 435 456 / 312e12 = 0.8604 us
    assert a.compute_floor_s == pytest.approx(0.86037e-6, rel=1e-4)
    # TPU v5e BF16 M=128 jax.jit: 2 623 488 / 819e9 = 3.2033 us; 161.9 / 3.2033 = 50.5x
    t = reference.floor_gap(reference.get("tpu-v5e", "compiled", "bf16", 128))
    assert t.floor_s == pytest.approx(3.2033e-6, rel=1e-4) and t.gap == pytest.approx(50.54, rel=1e-3)
    assert t.bandwidth_share == pytest.approx(16.2e9 / 819e9, rel=3e-3)  # ~2 % of the spec bandwidth
    # A100 FP32 M=128 is compute-bound on the CUDA-core peak: 268 435 456 / 19.5e12 = 13.766 us
    f = reference.floor_gap(reference.get("a100-sxm4-40gb", "eager", "fp32", 128))
    assert f.floor_s == pytest.approx(13.766e-6, rel=1e-4) and f.bound == "compute"
    # no FP32 peak for TPU v5e in the catalog: no floor, and the table says so
    n = reference.floor_gap(reference.get("tpu-v5e", "compiled", "fp32", 128))
    assert n.floor_s is None and n.gap is None and "fp32" in n.reason
    assert n.bandwidth is None and n.bandwidth_share is None and n.bound is None and n.compute_floor_s is None
    assert [fg.run for fg in reference.floor_gaps()] == reference.load()   # default: every run, in order


def test_transfer_readings_like_for_like_and_drops_from_times():
    a = reference.get("a100-sxm4-40gb", "eager", "bf16", 128)
    t = reference.get("tpu-v5e", "compiled", "bf16", 128)
    # total / device: 0.2410 / 0.0625 = 3.856 and 0.4488 / 0.1619 = 2.772; extra / device = each minus 1
    assert reference.transfer_ratios(a) == pytest.approx((3.856, 2.856), abs=1e-3)
    assert reference.transfer_ratios(t) == pytest.approx((2.772, 1.772), abs=1e-3)
    # throughput drop M=128 -> M=1 from the times: 128 x t(M=1) / t(M=128)
    a1 = reference.get("a100-sxm4-40gb", "eager", "bf16", 1)
    assert reference.throughput_drop(a, a1) == pytest.approx(128 * 0.0604 / 0.0625)  # 123.7, not 4.297/0.035
    t1 = reference.get("tpu-v5e", "compiled", "bf16", 1)
    assert reference.throughput_drop(t, t1) == pytest.approx(128 * 0.1299 / 0.1619)  # 102.7
