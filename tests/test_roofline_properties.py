"""Properties of the roofline that must hold for any valid input."""
import math

from hypothesis import assume, given
from hypothesis import strategies as st

import xpucalc as xc

rate = st.floats(min_value=1e9, max_value=1e18, allow_nan=False, allow_infinity=False)
bw = st.floats(min_value=1e8, max_value=1e14, allow_nan=False, allow_infinity=False)
amount = st.floats(min_value=1.0, max_value=1e25, allow_nan=False, allow_infinity=False)
intensity = st.floats(min_value=1e-4, max_value=1e6, allow_nan=False, allow_infinity=False)


@given(amount, amount, rate, bw)
def test_time_is_at_least_each_bound(flops, nbytes, p, b):
    r = xc.roofline(xc.Workload("w", flops, nbytes), xc.Device("d", p, b))
    assert r.time >= flops / p * (1 - 1e-12)
    assert r.time >= nbytes / b * (1 - 1e-12)
    assert r.time in (r.compute_time, r.memory_time)
    assert math.isclose(r.time, max(flops / p, nbytes / b), rel_tol=1e-12)


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


@given(rate, bw, intensity, intensity)
def test_attainable_monotone_in_intensity(p, b, i1, i2):
    d = xc.Device("d", p, b)
    lo, hi = sorted((i1, i2))
    assert xc.attainable(lo, d) <= xc.attainable(hi, d)


@given(rate, bw, rate, bw)
def test_crossover_is_where_roofs_meet(p1, b1, p2, b2):
    a, b = xc.Device("a", p1, b1), xc.Device("b", p2, b2)
    x = xc.crossover(a, b)
    if x is None:
        # one roof is never below the other anywhere
        samples = [10.0**k for k in range(-4, 9)]
        diffs = [xc.attainable(i, a) - xc.attainable(i, b) for i in samples]
        assert all(dv >= -1e-9 * max(p1, p2) for dv in diffs) or all(dv <= 1e-9 * max(p1, p2) for dv in diffs)
        return
    assume((p1 - p2) * (b1 - b2) < 0 and abs(p1 - p2) > 1e-6 * max(p1, p2) and abs(b1 - b2) > 1e-6 * max(b1, b2))
    ra, rb = xc.attainable(x, a), xc.attainable(x, b)
    assert math.isclose(ra, rb, rel_tol=1e-9)
    # the order really flips across the crossover: higher bandwidth wins below, higher peak above
    hi_bw, hi_p = (a, b) if b1 > b2 else (b, a)
    below, above = x / 4, x * 4
    assert xc.attainable(below, hi_bw) > xc.attainable(below, hi_p)
    assert xc.attainable(above, hi_p) > xc.attainable(above, hi_bw)


@given(st.integers(1, 4096), st.integers(1, 4096), st.integers(1, 4096), st.sampled_from([1, 2, 4]))
def test_linear_layer_counts(m, k, n, s):
    w = xc.linear_layer(m, k, n, s)
    assert w.flops == 2 * m * k * n
    assert w.bytes == s * (m * k + k * n + n + m * n)
    assert math.isclose(w.intensity, w.flops / w.bytes)


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
