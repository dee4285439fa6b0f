"""xpucalc.core.roofline: the roofline, ridge point, attainable rate and crossover, at the boundaries where a wrong
comparison shows, Example 1 of the Week 5 source (§11.2), and properties that must hold for any valid input.

Every expected value is derived in the comment next to it from the inputs, never from xpucalc's own output. The
crossover pairs have different peak x bandwidth products, so max/max or min/min in place of the right roofs fails.
"""
import math
import re

from hypothesis import given, settings
from hypothesis import strategies as st
import pytest

import xpucalc as xc

T = 1e12
A = xc.Device("A", 200e12, 1e12, 16e9)
B = xc.Device("B", 100e12, 2e12, 32e9)
W1 = xc.Workload("작업 1", 1e12, 100e9)
W2 = xc.Workload("작업 2", 1e14, 100e9)

CASES = [
    ("intensity", lambda: xc.attainable(0, A)),
    ("intensity", lambda: xc.attainable(math.nan, A)),
]


@pytest.mark.parametrize("name, call", CASES, ids=[f"{i}-{n}" for i, (n, _) in enumerate(CASES)])
def test_bad_input_names_the_argument(name, call):
    # the argument's name as a whole word ("XXpower_wXX" or "None" would not do)
    with pytest.raises(ValueError, match=rf"\b{re.escape(name)}\b"):
        call()


# --- crossover ------------------------------------------------------------------------------------
@pytest.mark.parametrize("a, b", [
    # A dominates on both numbers, and 200x2 != 100x1: a crossover computed as max/max (=100) or
    # min/min (=100) would be a number, but the roofs never cross.
    ((200 * T, 2 * T), (100 * T, 1 * T)),
    ((100 * T, 1 * T), (200 * T, 2 * T)),
    # equal peak, different bandwidth: the product (dp x dbw) is exactly 0, still no crossing
    ((100 * T, 1 * T), (100 * T, 3 * T)),
    # equal bandwidth, different peak
    ((300 * T, 2 * T), (100 * T, 2 * T)),
    # identical devices
    ((100 * T, 1 * T), (100 * T, 1 * T)),
])
def test_crossover_is_none_when_one_device_is_never_below(a, b):
    assert xc.crossover(xc.Device("a", *a), xc.Device("b", *b)) is None


@pytest.mark.parametrize("a, b, expected", [
    # A: 400 TFLOP/s, 1 TB/s; B: 100 TFLOP/s, 2 TB/s. A's slope (1 TB/s x I) meets B's flat roof
    # (100 TFLOP/s) at I = 100 / 1 = 100. (max/max would give 400/2 = 200, min/max 100/2 = 50.)
    ((400 * T, 1 * T), (100 * T, 2 * T), 100.0),
    ((100 * T, 2 * T), (400 * T, 1 * T), 100.0),
    # A: 50 TFLOP/s, 4 TB/s; B: 500 TFLOP/s, 0.5 TB/s: B's slope 0.5 x I = 50 -> I = 100;
    # max/max = 125, max/min = 1000.
    ((50 * T, 4 * T), (500 * T, 0.5 * T), 100.0),
    # A: 989 TFLOP/s, 3.35 TB/s (H100 SXM BF16); B: 197 TFLOP/s, 0.819 TB/s (TPU v5e): A is better on
    # both -> None, although 989/3.35 = 295 and 197/0.819 = 241 are both finite.
    ((989 * T, 3.35 * T), (197 * T, 0.819 * T), None),
])
def test_crossover_value(a, b, expected):
    da, db = xc.Device("a", *a), xc.Device("b", *b)
    x = xc.crossover(da, db)
    if expected is None:
        assert x is None
        return
    assert x == pytest.approx(expected)
    # both roofs are at the flat roof of the lower-peak device there: 100 TFLOP/s and 50 TFLOP/s
    assert xc.attainable(x, da) == pytest.approx(xc.attainable(x, db))


def test_ridge_point_by_hand():
    assert xc.ridge_point(xc.Device("h", 989.4 * T, 3.35 * T)) == pytest.approx(295.34, abs=0.01)  # 989.4/3.35
    with pytest.raises(ValueError, match=r"^device must be a Device, got str"):
        xc.ridge_point("h100")
    with pytest.raises(ValueError, match=r"^device_a must be a Device, got NoneType"):
        xc.crossover(None, xc.Device("b", 1, 1))


# --- roofline at the ridge and off it -------------------------------------------------------------
def test_roofline_exact_tie_is_compute_bound():
    # 100 TFLOP/s, 1 TB/s: 1e11 FLOP and 1e9 bytes take 1 ms each -> tie, reported as compute ("연산")
    d = xc.Device("d", 100 * T, 1 * T)
    r = xc.roofline(xc.Workload("tie", 1e11, 1e9), d)
    assert r.compute_time == r.memory_time == pytest.approx(1e-3)
    assert (r.bound, r.bound_ko) == ("compute", "연산")
    assert r.attainable == pytest.approx(100 * T)  # I = 100 = ridge: both roofs give 100 TFLOP/s


def test_roofline_memory_side():
    # 1e11 FLOP over 1e10 bytes (I = 10) on 100 TFLOP/s, 1 TB/s: compute 1 ms, memory 10 ms
    r = xc.roofline(xc.Workload("w", 1e11, 1e10), xc.Device("d", 100 * T, 1 * T))
    assert (r.compute_time, r.memory_time, r.time) == (pytest.approx(1e-3), pytest.approx(1e-2), pytest.approx(1e-2))
    assert (r.bound, r.bound_ko) == ("memory", "대역폭")
    assert r.attainable == pytest.approx(10 * T)  # 1 TB/s x 10 FLOP/B


@pytest.mark.parametrize("i, expected", [(0.5, 0.5 * T), (50, 50 * T), (100, 100 * T), (1e4, 100 * T)])
def test_attainable_is_the_lower_roof(i, expected):
    # 100 TFLOP/s, 1 TB/s: min(100 T, 1 T x I)
    assert xc.attainable(i, xc.Device("d", 100 * T, 1 * T)) == pytest.approx(expected)


def test_type_errors_name_the_argument_and_its_type():
    d = xc.Device("d", 1, 1)
    with pytest.raises(ValueError, match=r"^workload must be a Workload, got str"):
        xc.roofline("w", d)
    with pytest.raises(ValueError, match=r"^device must be a Device, got int"):
        xc.roofline(xc.Workload("w", 1, 1), 3)
    with pytest.raises(ValueError, match=r"^device_b must be a Device, got str"):
        xc.crossover(d, "B")
    with pytest.raises(ValueError, match=r"^device_b must be a Device, got int"):
        xc.crossover(A, 3)


def test_sparse_peak_cannot_be_used_for_dense_work():
    sparse = xc.Device("H100 sparse", 1979e12, 3.35e12, sparse=True)
    dense_work = xc.Workload("dense matmul", 1e12, 1e9)
    with pytest.raises(ValueError, match=r"device 'H100 sparse' carries a sparse \(2:4\) peak_flops but workload "
                                         r"'dense matmul' is dense; use device.dense\(\)"):
        xc.roofline(dense_work, sparse)
    # the explicit conversion is allowed and halves the peak
    assert xc.roofline(dense_work, sparse.dense()).device.peak_flops == pytest.approx(989.5e12)
    # a workload that really is 2:4 sparse may use the sparse peak
    assert xc.roofline(xc.Workload("sparse", 1e12, 1e9, sparse=True), sparse).compute_time == pytest.approx(1e12 / 1979e12)
    with pytest.raises(ValueError, match="already dense"):
        A.dense()


def test_the_sparse_message_says_how_to_mark_a_sparse_workload():
    sparse = xc.Device("s", 2, 1, sparse=True)
    with pytest.raises(ValueError, match=r"or mark the workload sparse=True if it really is 2:4 sparse$"):
        xc.roofline(xc.Workload("w", 1, 1), sparse)


# --- Example 1 of the source (§11.2): its printed output ------------------------------------------
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


# --- properties ------------------------------------------------------------------------------------
rate = st.floats(min_value=1e9, max_value=1e18, allow_nan=False, allow_infinity=False)
bw = st.floats(min_value=1e8, max_value=1e14, allow_nan=False, allow_infinity=False)
amount = st.floats(min_value=1.0, max_value=1e25, allow_nan=False, allow_infinity=False)
intensity = st.floats(min_value=1e-4, max_value=1e6, allow_nan=False, allow_infinity=False)


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(amount, amount, rate, bw)
def test_time_is_at_least_each_bound(flops, nbytes, p, b):
    r = xc.roofline(xc.Workload("w", flops, nbytes), xc.Device("d", p, b))
    assert r.time >= flops / p * (1 - 1e-12)
    assert r.time >= nbytes / b * (1 - 1e-12)
    assert r.time in (r.compute_time, r.memory_time)
    assert math.isclose(r.time, max(flops / p, nbytes / b), rel_tol=1e-12)


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(amount, amount, rate, bw)
def test_attainable_never_exceeds_peak_and_matches_time(flops, nbytes, p, b):
    w, d = xc.Workload("w", flops, nbytes), xc.Device("d", p, b)
    r = xc.roofline(w, d)
    assert r.attainable <= p * (1 + 1e-12)
    assert math.isclose(w.flops / r.attainable, r.time, rel_tol=1e-9)
    # the limiting resource follows from which side of the ridge point the workload sits
    if w.intensity > d.ridge_point * (1 + 1e-9):
        assert r.bound == "compute"
    elif w.intensity < d.ridge_point * (1 - 1e-9):
        assert r.bound == "memory"


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(rate, bw, intensity, intensity)
def test_attainable_monotone_in_intensity(p, b, i1, i2):
    d = xc.Device("d", p, b)
    lo, hi = sorted((i1, i2))
    assert xc.attainable(lo, d) <= xc.attainable(hi, d)


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(rate, bw, rate, bw)
def test_crossover_is_where_roofs_meet(p1, b1, p2, b2):
    a, b = xc.Device("a", p1, b1), xc.Device("b", p2, b2)
    x = xc.crossover(a, b)
    # sample the two roofs on a grid wide enough to hold every ridge (1e-5 .. 1e11 FLOP/B)
    samples = [10.0**k for k in range(-5, 12)]
    diffs = [xc.attainable(i, a) - xc.attainable(i, b) for i in samples]
    tol = 1e-9 * max(p1, p2)
    if x is None:
        # one roof is never below the other anywhere
        assert all(dv >= -tol for dv in diffs) or all(dv <= tol for dv in diffs)
        return
    # a crossover is only reported for pairs that really cross: one has the higher peak, the other
    # the higher bandwidth (no assume() here: a crossover returned for a dominated pair must fail)
    assert (p1 - p2) * (b1 - b2) < 0
    ra, rb = xc.attainable(x, a), xc.attainable(x, b)
    assert math.isclose(ra, rb, rel_tol=1e-9)
    # the order really flips across the crossover: higher bandwidth wins below, higher peak above
    hi_bw, hi_p = (a, b) if b1 > b2 else (b, a)
    below, above = x / 4, x * 4
    assert xc.attainable(below, hi_bw) >= xc.attainable(below, hi_p)
    assert xc.attainable(above, hi_p) >= xc.attainable(above, hi_bw)
    if abs(p1 - p2) > 1e-6 * max(p1, p2) and abs(b1 - b2) > 1e-6 * max(b1, b2):
        assert xc.attainable(below, hi_bw) > xc.attainable(below, hi_p)
        assert xc.attainable(above, hi_p) > xc.attainable(above, hi_bw)


def test_a_sparse_peak_is_refused_by_every_roof_as_by_roofline():
    import pytest
    import xpucalc as xc
    s = xc.Device("S", 2e15, 3e12, sparse=True)
    d = xc.Device("D", 1e15, 4e12)
    for call, name in ((lambda: xc.attainable(100, s), "device"), (lambda: xc.ridge_point(s), "device"),
                       (lambda: xc.crossover(s, d), "device_a"), (lambda: xc.crossover(d, s), "device_b")):
        with pytest.raises(ValueError, match=rf"^{name} 'S' carries a sparse \(2:4\) peak_flops.*pass {name}\.dense\(\)"):
            call()
    assert xc.ridge_point(s.dense()) == pytest.approx(1e15 / 3e12)
    with pytest.raises(ValueError, match=r"^device must be a Device, got str"):
        xc.attainable(100, "H100")


def test_sparse_given_as_a_string_is_refused():
    import pytest
    import xpucalc as xc
    with pytest.raises(ValueError, match=r"^sparse must be True or False, got 'False'"):
        xc.Workload("w", 1e9, 1e6, sparse="False")
    with pytest.raises(ValueError, match=r"^sparse must be True or False, got 'True'"):
        xc.Device("d", 1e12, 1e9, sparse="True")
