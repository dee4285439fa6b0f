"""Week 5 pages written by w2 (worked examples 1-2, what 'fast' means, without hardware, measurements,
misconceptions, exercises, study guide): the computations they rely on, checked against golden values
worked out by hand from the source text (002_..., §7-§16), never copied from xpucalc's own output.
"""
from __future__ import annotations

import pytest

import xpucalc as xc
from xpucalc.catalog import devices
from xpucalc import llm, units
from xpucalc.bench import reference
from xpucalc.units import GB, MS, TFLOPS

PAGES = ["worked-example-1", "worked-example-2", "what-fast-means", "without-hardware", "measurements",
         "misconceptions", "exercises", "study-guide"]


# --- worked example 1 (§7) ----------------------------------------------------------------------------
@pytest.fixture(scope="module")
def ab():
    return devices.get("virtual-a"), devices.get("virtual-b")


def test_virtual_devices_ridge_and_crossover(ab):
    a, b = ab
    assert xc.ridge_point(a) == pytest.approx(200)   # 200e12 / 1e12
    assert xc.ridge_point(b) == pytest.approx(50)    # 100e12 / 2e12
    assert xc.crossover(a, b) == pytest.approx(100)  # A's slope 1*I meets B's flat 100 TFLOP/s
    assert xc.attainable(100, a) == pytest.approx(100e12)
    assert xc.attainable(100, b) == pytest.approx(100e12)


@pytest.mark.parametrize("flops, dev, t_compute_ms, t_memory_ms, t_ms, roof_tflops, bound", [
    (1e12, "A", 5, 100, 100, 10, "memory"),
    (1e12, "B", 10, 50, 50, 20, "memory"),
    (1e14, "A", 500, 100, 500, 200, "compute"),
    (1e14, "B", 1000, 50, 1000, 100, "compute"),
])
def test_worked_example_1_table(ab, flops, dev, t_compute_ms, t_memory_ms, t_ms, roof_tflops, bound):
    d = dict(zip("AB", ab))[dev]
    r = xc.roofline(xc.Workload("w", flops, 100 * GB), d)
    assert r.compute_time / MS == pytest.approx(t_compute_ms)
    assert r.memory_time / MS == pytest.approx(t_memory_ms)
    assert r.time / MS == pytest.approx(t_ms)
    assert r.attainable / TFLOPS == pytest.approx(roof_tflops)
    assert r.bound == bound


def test_capacity_fits(ab):
    a, b = ab
    assert a.fits(8 * GB) and b.fits(8 * GB)          # §7.1: 8 GB resident fits 16 GB and 32 GB
    assert not a.fits(24 * GB) and b.fits(24 * GB)     # exercise 2: 24 GB only fits B


# --- worked example 2 (§8, §15.3 Q4) ------------------------------------------------------------------
def test_paths_per_batch_and_first_run():
    ga = xc.Path("가", 4 * MS, 9 * MS, 2 * MS, 30.0)
    na = xc.Path("나", 7 * MS, 2 * MS, 2 * MS, 5.0)
    assert ga.per_batch_s == pytest.approx(0.015)
    assert na.per_batch_s == pytest.approx(0.011)
    assert ga.first_run_s == pytest.approx(30.015)
    assert na.first_run_s == pytest.approx(5.011)
    # 가 compiles longer and is slower per batch: it never catches up.
    assert xc.breakeven_runs(ga.compile_s, ga.per_batch_s, na.compile_s, na.per_batch_s) is None


def test_discussion_breakeven():
    # (30 - 5) s / (20 - 15) ms = 5,000 batches: equal there, strictly lower from 5,001.
    assert xc.breakeven_point(30.0, 0.015, 5.0, 0.020) == pytest.approx(5000)
    assert xc.breakeven_runs(30.0, 0.015, 5.0, 0.020) == 5001


# --- what "fast" means, exercise 3 (§9, §13-14) --------------------------------------------------------
def test_cost_half_price_quarter_throughput_doubles_cost():
    cx = xc.cost_per_request(4.0, 100.0)   # $4/h at 100 req/s -> 4 / 360,000
    cy = xc.cost_per_request(2.0, 25.0)    # $2/h at 25 req/s  -> 2 / 90,000
    assert cx == pytest.approx(4 / 360_000)
    assert cy == pytest.approx(2 / 90_000)
    assert cy / cx == pytest.approx(2.0)


def test_energy_per_request():
    ga, na = xc.energy_per_request(400, 100), xc.energy_per_request(250, 50)
    assert ga == pytest.approx(4.0)     # 400 W / 100 req/s
    assert na == pytest.approx(5.0)     # 250 W / 50 req/s
    # 나 draws 62.5 % of 가's power (250 / 400) but needs 25 % more energy per request (5 / 4):
    # 가 uses 20 % less (1 - 4 / 5)
    assert na / ga == pytest.approx(1.25)
    assert 1 - ga / na == pytest.approx(0.20)


def test_gib_label_conversion():
    assert units.gib_to_gb(800) * GB == pytest.approx(858_993_459_200)   # 800 x 1024^3


# --- measurements (§11.4) -----------------------------------------------------------------------------
def _ms(key, path, prec, m, field="device_s"):
    return getattr(reference.get(key, path, prec, m), field) / MS


def test_reading_1_batch_ratios():
    # A100 eager BF16: 0.0604 ms at M = 1 vs 0.0625 ms at M = 128 (source §11.3) -> 0.9664, "0.97"
    a100 = _ms("a100-sxm4-40gb", "eager", "bf16", 1) / _ms("a100-sxm4-40gb", "eager", "bf16", 128)
    assert a100 == pytest.approx(0.9664)
    assert round(a100, 2) == 0.97
    tpu = _ms("tpu-v5e", "compiled", "bf16", 1) / _ms("tpu-v5e", "compiled", "bf16", 128)
    q = xc.linear_layer(1, 1024, 1024, 2).bytes / xc.linear_layer(128, 1024, 1024, 2).bytes
    assert tpu == pytest.approx(0.1299 / 0.1619)
    assert q == pytest.approx(2_103_296 / 2_623_488)
    assert round(tpu, 3) == round(q, 3) == 0.802


def test_reading_2_transfer():
    a_dev, a_tot = _ms("a100-sxm4-40gb", "eager", "bf16", 128), _ms("a100-sxm4-40gb", "eager", "bf16", 128,
                                                                    "with_transfer_s")
    assert a_tot - a_dev == pytest.approx(0.1785)
    assert round((a_tot - a_dev) / a_dev, 2) == 2.86
    t_dev, t_tot = _ms("tpu-v5e", "compiled", "bf16", 128), _ms("tpu-v5e", "compiled", "bf16", 128, "with_transfer_s")
    assert round(t_tot / t_dev, 2) == 2.77


def test_reading_3_first_call():
    a = _ms("a100-sxm4-40gb", "compiled", "fp32", 128, "first_call_s") / _ms("a100-sxm4-40gb", "compiled", "fp32", 128)
    t = _ms("tpu-v5e", "compiled", "fp32", 128, "first_call_s") / _ms("tpu-v5e", "compiled", "fp32", 128)
    assert a == pytest.approx(4394.837 / 0.1464)
    assert round(a, -3) == 30_000
    assert round(t, -1) == 6090   # 836.696 / 0.1374 = 6,089.5


def test_reading_4_eager_vs_compiled():
    te, tj = _ms("tpu-v5e", "eager", "bf16", 128), _ms("tpu-v5e", "compiled", "bf16", 128)
    assert round(te / tj, 2) == 3.03
    assert round(100 * (1 - tj / te), 1) == 67.0
    ae, ac = _ms("a100-sxm4-40gb", "eager", "bf16", 128), _ms("a100-sxm4-40gb", "compiled", "bf16", 128)
    assert round(ac - ae, 3) == 0.073


def test_reading_5_error_ranges():
    runs = reference.load()
    fp32 = [r.max_abs_err for r in runs if r.precision == "fp32"]
    bf16 = [r.max_abs_err for r in runs if r.precision == "bf16"]
    assert (min(fp32), max(fp32)) == (pytest.approx(3.71e-07), pytest.approx(1.97e-06))
    assert (min(bf16), max(bf16)) == (pytest.approx(1.38e-02), pytest.approx(2.93e-02))
    assert all(r.passed for r in runs) and len(runs) == 16


def test_published_rates_are_f_and_q_over_device_time():
    # e.g. A100 BF16 eager M=128: 268,435,456 FLOP / 0.0625 ms = 4.295 TFLOP/s (table: 4.297);
    # A100 FP32 eager M=1: 2,097,152 / 0.0788 ms = 0.0266 TFLOP/s (table: 0.027). Both are rounding:
    # device time to 0.0001 ms, rates to 0.001 TFLOP/s and 0.1 GB/s.
    for r in reference.load():
        w = r.workload
        rel_t = 0.00005 / (r.device_s / MS)
        f_rate, q_rate = w.flops / r.device_s, w.bytes / r.device_s
        assert abs(f_rate - r.achieved_flops) <= 0.0005 * TFLOPS + f_rate * rel_t
        assert abs(q_rate - r.effective_bandwidth) <= 0.05 * GB + q_rate * rel_t
    a = reference.get("a100-sxm4-40gb", "eager", "bf16", 128)
    assert a.workload.flops / a.device_s == pytest.approx(268_435_456 / 0.0625e-3)


# --- study guide passport (decode bound) -------------------------------------------------------------
def test_decode_bound_favours_bandwidth():
    model = llm.weights_bytes(8e9, 2)                       # 16 GB
    assert model == pytest.approx(16e9)
    a100, l40s = devices.get("a100-80gb", "bf16"), devices.get("l40s", "bf16")
    assert a100.peak_flops < l40s.peak_flops                # 312 vs 362 TFLOP/s dense BF16
    assert llm.decode_tokens_per_s_bound(model, a100.bandwidth) == pytest.approx(2039e9 / 16e9)  # ~127 tok/s
    assert llm.decode_tokens_per_s_bound(model, l40s.bandwidth) == pytest.approx(864e9 / 16e9)   # 54 tok/s


# --- the pages execute --------------------------------------------------------------------------------
@pytest.mark.parametrize("page", PAGES)
def test_page_executes(page):
    from _toc import executed  # one execution per page and session, shared with the chapter tests

    nb = executed(f"book/week05/{page}")
    errors = [o for c in nb.cells if c.cell_type == "code" for o in c.get("outputs", []) if o.get("output_type") == "error"]
    assert not errors
