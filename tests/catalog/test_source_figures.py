"""Every figure printed in Week 5 source §11.2, reproduced by xpucalc.

Expected values are the source's printed output (and hand arithmetic noted beside
them), not values copied from xpucalc's own output.
"""
import pytest

import xpucalc as xc
from xpucalc import units


def test_tpu_v5e_gib_label_conversion():
    # 800 GiB/s = 800 * 2**30 = 858,993,459,200 B/s (source §11.2, first line)
    b = 800 * units.GiB
    assert b == 858_993_459_200
    assert f"{b / 1e9:.2f}" == "858.99"
    assert f"{b / 1e12:.3f}" == "0.859"
    assert units.gib_to_gb(800) == pytest.approx(858.9934592)
    assert units.gb_to_gib(858.9934592) == pytest.approx(800)


@pytest.mark.parametrize("m, flops, q2, q4, i2, i4", [
    (128, 268_435_456, 2_623_488, 5_246_976, "102.32", "51.16"),
    (1, 2_097_152, 2_103_296, 4_206_592, "1.00", "0.50"),
])
def test_common_example(m, flops, q2, q4, i2, i4):
    w2, w4 = xc.linear_layer(m, 1024, 1024, 2), xc.linear_layer(m, 1024, 1024, 4)
    assert w2.flops == flops == w4.flops
    assert w2.bytes == q2
    assert w4.bytes == q4
    assert f"{w2.intensity:.2f}" == i2
    assert f"{w4.intensity:.2f}" == i4


def test_common_example_elements_and_epilogue():
    # §2.2 table: 1,311,744 and 1,051,648 moved elements; 131,072 and 1,024 bias/ReLU ops each
    big, small = xc.linear_layer(128, 1024, 1024, 2), xc.linear_layer(1, 1024, 1024, 2)
    assert big.moved_elements == 1_311_744
    assert small.moved_elements == 1_051_648
    assert big.epilogue_ops == 2 * 131_072
    assert small.epilogue_ops == 2 * 1_024
    assert big.shapes == {"X": (128, 1024), "W": (1024, 1024), "b": (1024,), "Y": (128, 1024)}
    # "about 0.80x" fewer elements when M drops from 128 to 1
    assert round(small.moved_elements / big.moved_elements, 2) == 0.80


A = xc.Device("A", 200e12, 1e12, 16e9)
B = xc.Device("B", 100e12, 2e12, 32e9)
W1 = xc.Workload("작업 1", 1e12, 100e9)
W2 = xc.Workload("작업 2", 1e14, 100e9)


@pytest.mark.parametrize("w, d, compute_ms, memory_ms, ideal_ms, roof_tflops, bound", [
    (W1, A, 5.0, 100.0, 100.0, 10, "memory"),
    (W1, B, 10.0, 50.0, 50.0, 20, "memory"),
    (W2, A, 500.0, 100.0, 500.0, 200, "compute"),
    (W2, B, 1000.0, 50.0, 1000.0, 100, "compute"),
])
def test_example_1(w, d, compute_ms, memory_ms, ideal_ms, roof_tflops, bound):
    r = xc.roofline(w, d)
    assert r.compute_time * 1e3 == pytest.approx(compute_ms)
    assert r.memory_time * 1e3 == pytest.approx(memory_ms)
    assert r.time * 1e3 == pytest.approx(ideal_ms)
    assert r.attainable / 1e12 == pytest.approx(roof_tflops)
    assert r.bound == bound
    # the source's own consistency check: F / R_roof equals the ideal time
    assert w.flops / r.attainable == pytest.approx(r.time)


def test_example_1_ridges_and_crossover():
    assert xc.ridge_point(A) == pytest.approx(200)
    assert xc.ridge_point(B) == pytest.approx(50)
    assert xc.crossover(A, B) == pytest.approx(100)
    assert xc.crossover(B, A) == pytest.approx(100)
    assert xc.attainable(100, A) == pytest.approx(xc.attainable(100, B)) == pytest.approx(100e12)


def test_example_2_paths():
    ga = xc.Path("경로 가", device_s=4e-3, transfer_s=9e-3, host_s=2e-3, compile_s=30)
    na = xc.Path("경로 나", device_s=7e-3, transfer_s=2e-3, host_s=2e-3, compile_s=5)
    assert ga.per_batch_s * 1e3 == pytest.approx(15)
    assert na.per_batch_s * 1e3 == pytest.approx(11)
    assert f"{ga.first_run_s:.3f}" == "30.015"
    assert f"{na.first_run_s:.3f}" == "5.011"


def test_discussion_breakeven():
    # §15.3 Q4: 30 s + 15 ms/batch vs 5 s + 20 ms/batch. Equal at 25 s / 5 ms = 5,000 batches;
    # strictly lower from batch 5,001 on.
    assert xc.breakeven_point(30, 0.015, 5, 0.020) == pytest.approx(5000)
    assert xc.breakeven_runs(30, 0.015, 5, 0.020) == 5001
    assert xc.breakeven_runs(5, 0.020, 30, 0.015) == 1
    assert xc.breakeven_runs(30, 0.020, 5, 0.015) is None


@pytest.mark.parametrize("power, rps, joules", [(400, 100, 4.0), (250, 50, 5.0)])
def test_exercise_3_energy(power, rps, joules):
    assert xc.energy_per_request(power, rps) == pytest.approx(joules)


def test_breakeven_from_path_totals_is_exact():
    # 가 (4+9+2 = 15 ms) vs 나 (7+2+2 = 11 ms) with compile 5 s vs 30 s swapped: 25 s / 4 ms = 6,250 equal -> 6,251
    fast_compile = xc.Path("a", 7e-3, 2e-3, 2e-3, compile_s=30)
    slow = xc.Path("b", 4e-3, 9e-3, 2e-3, compile_s=5)
    assert fast_compile.per_batch_s == 0.011
    assert xc.breakeven_runs(fast_compile.compile_s, fast_compile.per_batch_s, slow.compile_s, slow.per_batch_s) == 6251
