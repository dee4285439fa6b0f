"""Properties of the roofline that must hold for any valid input."""
import math

from hypothesis import assume, given, settings
from hypothesis import strategies as st

import xpucalc as xc

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


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(st.integers(1, 4096), st.integers(1, 4096), st.integers(1, 4096), st.sampled_from([1, 2, 4]))
def test_linear_layer_counts_scale_as_the_shapes_say(m, k, n, s):
    # relations between layers instead of the code's own formula: one more row of X adds k
    # multiply-adds per output column (2kn FLOP) and one row of X and of Y (k + n elements);
    # doubling the element size doubles the bytes and halves the intensity.
    w, taller = xc.linear_layer(m, k, n, s), xc.linear_layer(m + 1, k, n, s)
    assert taller.flops - w.flops == 2 * k * n
    assert taller.bytes - w.bytes == s * (k + n)
    assert xc.linear_layer(m, k, n, 2 * s).bytes == 2 * w.bytes
    assert math.isclose(xc.linear_layer(m, k, n, 2 * s).intensity, w.intensity / 2)
    # the 1 x 1 x 1 layer by hand: 2 FLOP; x, w, b, y moved once -> 4 elements
    one = xc.linear_layer(1, 1, 1, s)
    assert (one.flops, one.bytes) == (2, 4 * s)
    assert w.flops == one.flops * m * k * n


@settings(deadline=None)  # timing varies on a loaded machine; the properties do not
@given(st.floats(0, 100), st.floats(1e-4, 1), st.floats(0, 100), st.floats(1e-4, 1))
def test_breakeven_runs_is_the_first_run_where_a_is_lower(ca, pa, cb, pb):
    n = xc.breakeven_runs(ca, pa, cb, pb)
    if n is None:
        assert pa >= pb and ca + pa >= cb + pb
        return
    assume(n < 10**7)
    # totals computed independently, with a tolerance for float rounding at the tie
    assert ca + n * pa < cb + n * pb + 1e-9
    if n > 1:
        assert ca + (n - 1) * pa >= cb + (n - 1) * pb - 1e-9
