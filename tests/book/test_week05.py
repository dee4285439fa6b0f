"""Week 5's own comparisons: the steps its pages take across modules, computed with xpucalc, checked by hand.

Each test is a step one Week 5 page takes (named in the test), against golden values worked out from the source's
figures, never copied from xpucalc's output. What one module computes is tested in that module's file (spec-sheet
conversions in tests/catalog/test_spec_reading.py, roofline and end-to-end paths in tests/core/, the reference
runs in tests/bench/test_reference.py); what a page shows is tested as shown in test_chapter_values.py. Nothing
here starts a kernel, so tools/mutation can use this file.
"""
from __future__ import annotations

import math

import pytest

import xpucalc as xc
from xpucalc import llm, units
from xpucalc.bench import reference
from xpucalc.catalog import devices
from xpucalc.render.comparison import ComparisonTable
from xpucalc.units import GB


# --- spec-sheets: figures that cannot be compared as printed -------------------------------------------
def test_meaningless_41x():
    h100 = devices.peak("h100-sxm", "bf16", sparse=True).value           # 1,979 TFLOPS*, 2:4 sparse
    npu = devices.peak("core-ultra-9-288v", "int8", sparse=None).value   # 48 TOPS, Intel says neither
    assert h100 / npu == pytest.approx(1979 / 48)                        # 41.229...
    assert round(h100 / npu) == 41


def test_tpu_pod_256_chips():
    assert devices.extra("tpu-v5e", "Pod size").value == 256
    assert devices.peak("tpu-v5e", "bf16").value * 256 == pytest.approx(50.432e15)   # 256 x 197 TFLOPS


def test_a100_runtime_memory_in_gib():
    mem = devices.extra("a100-sxm4-40gb", "Device memory reported at run time").value
    assert units.gb_to_gib(mem / 1e9) == pytest.approx(42.41e9 / 1073741824)  # 39.497...
    assert math.isclose(units.gb_to_gib(mem / 1e9), 39.5, abs_tol=0.01)


# --- comparison-table: the source's eleven items (§6) ----------------------------------------------------
def test_comparison_template_runs_from_task_to_evidence():
    rows = ComparisonTable.template().rows
    assert [r[0] for r in rows] == [str(i) for i in range(1, 12)]
    assert (rows[0][1], rows[-1][1]) == ("작업·입력", "증거 상태")


# --- worked-example-1 (§7): the catalog's virtual devices A and B --------------------------------------
def test_virtual_devices_of_worked_example_1():
    a, b = devices.get("virtual-a"), devices.get("virtual-b")  # A 200 TFLOP/s 1 TB/s 16 GB, B 100 TFLOP/s 2 TB/s 32 GB
    assert xc.ridge_point(a) == pytest.approx(200)   # 200e12 / 1e12
    assert xc.ridge_point(b) == pytest.approx(50)    # 100e12 / 2e12
    assert xc.crossover(a, b) == pytest.approx(100)  # A's slope 1 x I meets B's flat 100 TFLOP/s
    assert a.fits(8 * GB) and b.fits(8 * GB)         # §7.1: 8 GB resident fits 16 GB and 32 GB
    assert not a.fits(24 * GB) and b.fits(24 * GB)   # exercise 2: 24 GB fits only B


# --- what-fast-means and exercise 3 (§9, §13-14) ----------------------------------------------------------
def test_half_price_quarter_throughput_doubles_cost():
    cx = xc.cost_per_request(4.0, 100.0)   # $4/h at 100 req/s -> 4 / 360,000
    cy = xc.cost_per_request(2.0, 25.0)    # $2/h at 25 req/s  -> 2 / 90,000
    assert cy == pytest.approx(2 / 90_000)
    assert cy / cx == pytest.approx(2.0)


def test_lower_power_is_not_less_energy():
    ga, na = xc.energy_per_request(400, 100), xc.energy_per_request(250, 50)
    assert na == pytest.approx(5.0)     # 250 W / 50 req/s
    # 나 draws 62.5 % of 가's power (250 / 400) but needs 25 % more energy per request (5 / 4): 가 uses 20 % less
    assert na / ga == pytest.approx(1.25)
    assert 1 - ga / na == pytest.approx(0.20)


# --- measurements (§11.4), reading 3: "first call and steady state differ in order of magnitude" ---------------
def test_first_call_ratios_span_two_orders_not_always_thousands():
    ratios = sorted(r.first_call_s / r.device_s for r in reference.load())
    a100_fp32_1 = reference.get("a100-sxm4-40gb", "eager", "fp32", 1)  # smallest ratio, by hand from the CSV
    assert ratios[0] == pytest.approx(a100_fp32_1.first_call_s / a100_fp32_1.device_s)
    assert len(ratios) == 16 and round(ratios[0]) == 192 and round(ratios[-1]) == 30019
    assert sum(x < 1000 for x in ratios) == 5       # the source's "수천 배 이상" fails for five conditions
    assert math.floor(math.log10(ratios[0])) == 2   # the page's verdict: at least two orders of magnitude apart


# --- measurements §3: the only floor no cache can lower is the compute term ------------------------------------
def test_bf16_m128_compute_term_is_below_the_memory_term():
    a100 = devices.get("a100-sxm4-40gb", "bf16")                 # 312 TFLOP/s dense BF16, 1,555 GB/s
    flops = 2 * 128 * 1024 * 1024                                 # 268,435,456 FLOP
    q_min = 2 * (128 * 1024 + 1024 * 1024 + 1024 + 128 * 1024)    # X, W, b, Y in BF16: 2,623,488 B
    assert flops / a100.peak_flops == pytest.approx(0.8604e-6, rel=1e-3)
    assert q_min / a100.bandwidth == pytest.approx(1.6871e-6, rel=1e-3)
    assert flops / a100.peak_flops < q_min / a100.bandwidth      # the memory term sets the roofline floor ...
    assert reference.floor_gap(reference.get("a100-sxm4-40gb", "eager", "bf16", 128)).bound == "memory"


# --- measurements (§11.4), reading 5: the error ranges ------------------------------------------------------
def test_error_ranges_by_precision():
    runs = reference.load()
    fp32 = [r.max_abs_err for r in runs if r.precision == "fp32"]
    bf16 = [r.max_abs_err for r in runs if r.precision == "bf16"]
    assert (min(fp32), max(fp32)) == (pytest.approx(3.71e-07), pytest.approx(1.97e-06))
    assert (min(bf16), max(bf16)) == (pytest.approx(1.38e-02), pytest.approx(2.93e-02))


# --- study-guide: the decode bound favours bandwidth over peak ------------------------------------------------
def test_decode_bound_favours_bandwidth():
    model = llm.weights_bytes(8e9, 2)                       # 16 GB
    assert model == pytest.approx(16e9)
    a100, l40s = devices.get("a100-80gb", "bf16"), devices.get("l40s", "bf16")
    assert a100.peak_flops < l40s.peak_flops                # 312 vs 362 TFLOP/s dense BF16
    assert llm.decode_tokens_per_s_bound(model, a100.bandwidth) == pytest.approx(2039e9 / 16e9)  # ~127 tok/s
    assert llm.decode_tokens_per_s_bound(model, l40s.bandwidth) == pytest.approx(864e9 / 16e9)   # 54 tok/s
