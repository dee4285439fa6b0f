"""Oracles for the harness's statistics and accuracy check (xpucalc.bench.timing, xpucalc.bench.accuracy).

Every expected value is worked out by hand in the comment beside it: quantiles by position q (n - 1), the
bimodal cut rule, warm-up call counts under a scripted clock, the order of interleaved rounds, max-abs errors of
small arrays. No framework, no real clock.
"""
from __future__ import annotations

import gc
import math
import warnings

import numpy as np
import pytest

from xpucalc.bench import accuracy, timing


class ScriptedClock:
    """A clock that moves only when a scripted call runs: call k takes durations[k] seconds."""

    def __init__(self, durations, start=50.0):
        self.t = start
        self.durations = list(durations)
        self.calls = 0

    def __call__(self):
        return self.t

    def fn(self):
        d = self.durations[min(self.calls, len(self.durations) - 1)]  # the last duration repeats
        self.calls += 1
        self.t += d
        return self.calls


# --- check_count, quantile, is_bimodal -------------------------------------------------------------------------------
def test_check_count():
    assert timing.check_count(3, "reps", 1) == 3
    assert timing.check_count(np.int64(0), "warmup", 0) == 0 and type(timing.check_count(np.int64(2), "r", 1)) is int
    with pytest.raises(ValueError, match=r"^reps must be a whole number >= 1, got True"):
        timing.check_count(True, "reps", 1)
    with pytest.raises(ValueError, match=r"^reps must be a whole number >= 1, got 2\.0"):
        timing.check_count(2.0, "reps", 1)
    with pytest.raises(ValueError, match=r"^reps must be >= 1, got 0"):
        timing.check_count(0, "reps", 1)


def test_quantile_by_position():
    xs = [1.0, 2.0, 3.0, 4.0]
    assert timing.quantile(xs, 0.25) == pytest.approx(1.75)   # position 0.75: 1 + 0.75 x (2 - 1)
    assert timing.quantile(xs, 0.5) == pytest.approx(2.5)     # position 1.5
    assert timing.quantile(xs, 0.0) == 1.0
    assert timing.quantile(xs, 1.0) == 4.0                    # position 3: the last, no element beyond
    assert timing.quantile([7.0], 0.9) == 7.0
    assert timing.quantile([0.0, 10.0], 0.1) == pytest.approx(1.0)
    with pytest.raises(ValueError, match=r"^sorted_xs must hold at least one value"):
        timing.quantile([], 0.5)
    for q in (-0.1, 1.5):
        with pytest.raises(ValueError, match=rf"^q must be in \[0, 1\], got {q}"):
            timing.quantile(xs, q)


def test_is_bimodal_cut_rule():
    # n = 10, min_share 0.1: at least max(3, ceil(1)) = 3 samples on each side, cuts i = 3..7
    assert timing.is_bimodal([1.0] * 3 + [1.25] * 7)          # exactly the gap 1.25 counts
    assert not timing.is_bimodal([1.0] * 3 + [1.24] * 7)
    assert timing.is_bimodal([1.0] * 7 + [2.0] * 3)           # the last allowed cut, i = 7
    assert not timing.is_bimodal([1.0] * 8 + [2.0] * 2)       # only 2 above: no allowed cut separates them
    assert not timing.is_bimodal([1.0] * 2 + [2.0] * 8)
    assert timing.is_bimodal([2.0] * 5 + [1.0] * 5)           # order does not matter (sorted first)
    # n = 40: each side needs ceil(0.1 x 40) = 4
    assert not timing.is_bimodal([1.0] * 3 + [2.0] * 37)
    assert timing.is_bimodal([1.0] * 4 + [2.0] * 36)
    # n = 40 with min_share 0.25: 10 on each side
    assert not timing.is_bimodal([1.0] * 9 + [2.0] * 31, min_share=0.25)
    assert timing.is_bimodal([1.0] * 10 + [2.0] * 30, min_share=0.25)
    # custom gap
    assert timing.is_bimodal([1.0] * 5 + [1.5] * 5) and not timing.is_bimodal([1.0] * 5 + [1.5] * 5, gap=2.0)
    # zero durations below the cut never count as a cluster (ratio undefined)
    assert not timing.is_bimodal([0.0] * 5 + [1.0] * 5)
    assert not timing.is_bimodal([1.0] * 5)


# --- Timing and summarize --------------------------------------------------------------------------------------------
def test_timing_properties_by_hand():
    t = timing.summarize([1, 2, 3, 4, 10], warn=False)
    # sorted 1 2 3 4 10: median 3, q1 at position 1 = 2, q3 at position 3 = 4, IQR 2, IQR/median 2/3
    assert t.samples_s == (1.0, 2.0, 3.0, 4.0, 10.0) and all(type(x) is float for x in t.samples_s)
    assert (t.n, t.median_s, t.q1_s, t.q3_s, t.iqr_s) == (5, 3.0, 2.0, 4.0, 2.0)
    assert t.rel_iqr == pytest.approx(2 / 3)
    assert t.min_s == 1.0
    assert t.p10_s == pytest.approx(1.4)                       # position 0.4: 1 + 0.4 x (2 - 1)
    assert t.noisy and not t.bimodal and t.noisy_threshold == 0.10
    assert t.spread_label() == "67% (불안정)"
    # p10 sorts first; min is the smallest, not the first
    u = timing.summarize([5.0, 1.0, 3.0], warn=False)
    assert (u.samples_s, u.min_s, u.median_s, u.p10_s) == ((5.0, 1.0, 3.0), 1.0, 3.0, pytest.approx(1.4))
    # even count: median is the mean of the middle two
    assert timing.summarize([1, 2, 3, 10], warn=False).median_s == 2.5


def test_noisy_threshold_is_strict_and_zero_median_is_infinite():
    # 2 3 4 5 6: median 4, q1 3, q3 5 -> IQR/median = 0.5 exactly
    assert not timing.summarize([2, 3, 4, 5, 6], noisy_threshold=0.5, warn=False).noisy
    assert timing.summarize([2, 3, 4, 5, 6], noisy_threshold=0.49, warn=False).noisy
    z = timing.summarize([0.0, 0.0, 0.0], warn=False)
    assert z.rel_iqr == math.inf and z.noisy
    assert timing.Timing((1.0,), 1.0, 1.0, 1.0).rel_iqr == 0.0


def test_spread_label_flags():
    assert timing.summarize([1.0] * 5, warn=False).spread_label() == "0%"
    # 10 x 1 and 10 x 2: median 1.5, q1 1 (position 4.75), q3 2 (position 14.25): 1 / 1.5 = 67 %, two clusters
    assert timing.summarize([1.0] * 10 + [2.0] * 10, warn=False).spread_label() == "67% (불안정, 두 무리)"
    # 17 x 1 and 3 x 1.3: IQR 0 (both quartiles 1), but a cut at i = 17 leaves 3 above with ratio 1.3
    assert timing.summarize([1.0] * 17 + [1.3] * 3, warn=False).spread_label() == "0% (두 무리)"


def test_summarize_checks_and_warns():
    with pytest.raises(ValueError, match=r"^samples_s must hold at least one duration"):
        timing.summarize([])
    for bad in (-1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match=r"^samples_s must hold finite durations >= 0, got "):
            timing.summarize([1.0, bad])
    with pytest.raises(ValueError, match=r"^noisy_threshold must be > 0"):
        timing.summarize([1.0], noisy_threshold=0.0)
    assert timing.summarize([0.0], warn=False).median_s == 0.0   # a zero duration is allowed
    with pytest.warns(timing.NoisyTimingWarning,
                      match=r"^matmul: IQR/median = 50% > 10% over 5 samples; the median is unreliable"):
        timing.summarize([2, 3, 4, 5, 6], label="matmul")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        timing.summarize([2, 3, 4, 5, 6], warn=False)
        timing.summarize([1.0, 1.0, 1.0])                      # not noisy: no warning either


# --- warm_up under a scripted clock ----------------------------------------------------------------------------------
def test_warm_up_stops_when_two_windows_agree():
    # constant 1 s calls, window 2: the first comparison needs 2 x 2 = 4 calls and agrees at once
    c = ScriptedClock([1.0])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, max_time_s=100.0, clock=c) == 4
    # 3 3 2 2 1.25 1 1 1, window 2, tolerance 0.1: medians (a, b) after call 4: (3, 2); 5: (2.5, 1.625);
    # 6: (2, 1.125); 7: (1.625, 1); 8: (1.125, 1) -> 0.125 > 0.1125; 9: (1, 1) agree -> 9 calls
    c = ScriptedClock([3, 3, 2, 2, 1.25, 1, 1, 1, 1])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, max_time_s=100.0, clock=c) == 9


def test_warm_up_tolerance_is_inclusive():
    # 1 1 1.25 1.25: a = 1, b = 1.25, |b - a| = 0.25 <= 0.25 x 1 -> stops at 4
    c = ScriptedClock([1.0, 1.0, 1.25])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, tolerance=0.25, max_time_s=100.0, clock=c) == 4
    # with a tolerance just below, call 5 compares (1.125, 1.25): 0.125 <= 0.2 x 1.125 -> 5
    c = ScriptedClock([1.0, 1.0, 1.25])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, tolerance=0.2, max_time_s=100.0, clock=c) == 5


def test_warm_up_zero_medians_never_agree():
    # 0 0 0 0 1 1 1 1, window 2: a = 0 at calls 4-6 (skipped), 7: (0.5, 1), 8: (1, 1) -> 8
    c = ScriptedClock([0, 0, 0, 0, 1, 1, 1, 1])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, max_time_s=100.0, clock=c) == 8


def test_warm_up_min_time_min_calls_and_max_time():
    # constant 1 s calls: the windows agree from call 4, but min_time_s = 6 s is reached at call 6 (not < 6)
    c = ScriptedClock([1.0])
    assert timing.warm_up(c.fn, min_time_s=6.0, window=2, max_time_s=100.0, clock=c) == 6
    # min_calls = 7 beats the windows too
    c = ScriptedClock([1.0])
    assert timing.warm_up(c.fn, min_time_s=0.0, window=2, min_calls=7, max_time_s=100.0, clock=c) == 7
    # alternating 1 s / 3 s, window 1: neighbours never agree; elapsed 1, 4, 5, 8, 9: max_time_s = 9 stops at 5
    c = ScriptedClock([1, 3] * 20)
    assert timing.warm_up(c.fn, min_time_s=0.0, window=1, max_time_s=9.0, clock=c) == 5
    # ... unless min_calls asks for more: 7 calls
    c = ScriptedClock([1, 3] * 20)
    assert timing.warm_up(c.fn, min_time_s=0.0, window=1, max_time_s=9.0, min_calls=7, clock=c) == 7
    # the sync runs inside each call's interval
    c = ScriptedClock([1.0])
    synced = []
    timing.warm_up(c.fn, lambda out: synced.append(out), min_time_s=0.0, window=1, max_time_s=100.0, clock=c)
    assert synced == [1, 2]


@pytest.mark.parametrize("kwargs, pattern", [
    ({"window": 0}, r"^window must be >= 1, got 0"),
    ({"min_calls": -1}, r"^min_calls must be >= 0, got -1"),
    ({"min_time_s": -1.0}, r"^min_time_s must be a finite number of seconds >= 0, got -1\.0"),
    ({"min_time_s": math.inf}, r"^min_time_s must be a finite number of seconds >= 0"),
    ({"min_time_s": 1.0, "max_time_s": 0.5}, r"^max_time_s must be >= min_time_s \(1\.0\), got 0\.5"),
    ({"max_time_s": math.inf}, r"^max_time_s must be >= min_time_s"),
    ({"tolerance": 0.0}, r"^tolerance must be > 0"),
])
def test_warm_up_errors(kwargs, pattern):
    with pytest.raises(ValueError, match=pattern):
        timing.warm_up(lambda: None, **kwargs)


def test_warm_up_default_bounds():
    # defaults: at least 0.1 s and windows of 5 within 10 %, at most 2 s
    assert (timing.WARMUP_MIN_S, timing.WARMUP_WINDOW, timing.WARMUP_TOLERANCE, timing.WARMUP_MAX_S) == (0.1, 5, 0.1, 2.0)
    c = ScriptedClock([0.125])                   # 10 calls = 1.25 s >= 0.1 s, then the windows agree
    assert timing.warm_up(c.fn, clock=c) == 10
    c = ScriptedClock([0.5, 1.5] * 20)          # never agree (window 5 is odd); elapsed reaches 2.0 at call 2
    assert timing.warm_up(c.fn, clock=c) == 2


# --- time_calls, time_rounds, interleaved ----------------------------------------------------------------------------
def test_time_calls_counts_and_samples():
    c = ScriptedClock([5.0, 5.0, 1.0, 2.0, 3.0])                 # two untimed warm-up calls, then 1, 2, 3
    assert timing.time_calls(c.fn, 2, 3, clock=c) == [1.0, 2.0, 3.0]
    assert c.calls == 5
    c = ScriptedClock([1.0])
    extra = []

    def sync(out):
        extra.append(out)
        c.t += 0.5                                            # the sync's wait is inside the interval
    assert timing.time_calls(c.fn, 1, 2, sync=sync, clock=c) == [1.5, 1.5]
    assert extra == [1, 2, 3]                                 # warm-up calls are synced too
    assert timing.time_calls(c.fn, 0, np.int64(1), clock=c) == [1.0]
    with pytest.raises(ValueError, match=r"^reps must be >= 1, got 0"):
        timing.time_calls(c.fn, 0, 0, clock=c)
    with pytest.raises(ValueError, match=r"^warmup must be a whole number >= 0, got True"):
        timing.time_calls(c.fn, True, 1, clock=c)


def test_time_calls_time_based_warm_up_runs_up_to_four_times_warmup_s():
    # warmup_s = 1: warm_up(min 1 s, max max(2, 4 x 1) = 4 s). Alternating 1 s / 3 s never agree:
    # elapsed 1, 4 -> stops after 2 calls; then 1 timed call
    c = ScriptedClock([1, 3] * 20)
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=1.0)
    assert c.calls == 3
    # constant 0.5 s calls would agree at call 10 (two windows of 5), but 8 calls already reach the 4 s maximum
    c = ScriptedClock([0.5])
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=1.0)
    assert c.calls == 9                                        # elapsed 4.0 s >= 4 s at call 8 (max), + 1 timed
    c = ScriptedClock([0.125])
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=1.0)
    assert c.calls == 11                                       # 1.25 s at call 10 (windows agree), + 1 timed


def test_time_calls_gc_state():
    seen = []
    c = ScriptedClock([1.0])

    def fn():
        seen.append(gc.isenabled())
        return c.fn()
    was = gc.isenabled()
    try:
        gc.enable()
        timing.time_calls(fn, 1, 2, clock=c)
        assert seen == [True, False, False] and gc.isenabled()   # warm-up with GC, timed calls without
        gc.disable()
        timing.time_calls(fn, 0, 1, clock=c)
        assert not gc.isenabled()                                # stays off when it was off
    finally:
        (gc.enable if was else gc.disable)()
    with timing.gc_paused():
        assert not gc.isenabled()


def _stepping(clock, log, name, seconds):
    """A call that logs its name and advances the scripted clock by ``seconds``."""
    def f():
        log.append(name)
        clock.t += seconds
        return name
    return f


def test_time_rounds_order_and_samples():
    c = ScriptedClock([1.0])
    log = []
    out = timing.time_rounds({"a": _stepping(c, log, "a", 1.0), "b": _stepping(c, log, "b", 2.0)}, 3, 2, clock=c)
    # rounds alternate the order: a a b b | b b a a | a a b b
    assert log == list("aabbbbaaaabb")
    assert out == {"a": [1.0] * 6, "b": [2.0] * 6}
    synced = []
    timing.time_rounds({"a": _stepping(c, log, "a", 1.0)}, 1, 2, sync=synced.append, clock=c)
    assert synced == ["a", "a"]
    with pytest.raises(ValueError, match=r"^fns must name at least one function"):
        timing.time_rounds({}, 1, 1, clock=c)
    with pytest.raises(ValueError, match=r"^rounds must be >= 1, got 0"):
        timing.time_rounds({"a": c.fn}, 0, 1, clock=c)
    with pytest.raises(ValueError, match=r"^reps_per_round must be >= 1, got 0"):
        timing.time_rounds({"a": c.fn}, 1, 0, clock=c)


def test_interleaved_splits_reps_and_alternates():
    c = ScriptedClock([1.0])
    log = []
    out = timing.interleaved({"a": _stepping(c, log, "a", 1.0), "b": _stepping(c, log, "b", 3.0)}, warmup=1, reps=7,
                             rounds=3, warmup_s=0.0, clock=c)
    # warm-up: one call each (a, b); 7 reps over 3 rounds = 3 + 2 + 2; round 0 a then b, round 1 b then a, round 2 a, b
    assert log == ["a", "b"] + list("aaabbb") + list("bbaa") + list("aabb")
    assert out == {"a": [1.0] * 7, "b": [3.0] * 7}
    with pytest.raises(ValueError, match=r"^rounds must be <= reps \(3\), got 4"):
        timing.interleaved({"a": c.fn}, 0, 3, 4, clock=c)
    for kwargs, pattern in (({"warmup": -1}, r"^warmup must be >= 0"), ({"reps": 0}, r"^reps must be >= 1"),
                            ({"rounds": 0}, r"^rounds must be >= 1")):
        args = dict(warmup=0, reps=2, rounds=1) | kwargs
        with pytest.raises(ValueError, match=pattern):
            timing.interleaved({"a": c.fn}, clock=c, **args)


def test_interleaved_time_based_warm_up_per_function():
    # warmup_s = 1 s: each function warms up for max(2, 4) = 4 s at most; 1 s / 3 s alternating never agree,
    # so each stops after 2 calls (elapsed 4 s). Then 2 reps in 1 round.
    c = ScriptedClock([1, 3] * 40)
    timing.interleaved({"a": c.fn, "b": c.fn}, warmup=0, reps=2, rounds=1, warmup_s=1.0, clock=c)
    assert c.calls == 2 + 2 + 2 * 2


def test_last_output_keeps_the_latest():
    it = iter([10, 20, 30])
    f = timing.LastOutput(lambda: next(it))
    assert (f.value, f.calls) == (None, 0)
    assert f() == 10 and f() == 20
    assert (f.value, f.calls) == (20, 2)


# --- accuracy ---------------------------------------------------------------------------------------------------------
def test_unit_roundoff_and_tolerances():
    # u = 2^-p with p significand bits incl. the implicit one: FP32 24, BF16 8
    assert accuracy.UNIT_ROUNDOFF == {"fp32": 2.0**-24, "bf16": 2.0**-8}
    assert accuracy.TOLERANCE == {"fp32": 1e-4, "bf16": 0.0625}


def test_make_inputs_shapes_and_scales():
    x, w, b = accuracy.make_inputs(64, 1024, 512, seed=1)
    assert (x.shape, w.shape, b.shape) == ((64, 1024), (1024, 512), (512,))
    assert x.dtype == w.dtype == b.dtype == np.float32
    # X ~ N(0, 1), W ~ N(0, 1/k) (std 1/32), b ~ N(0, 0.01) (std 0.1); each entry of XW is ~ N(0, 1)
    assert np.std(x) == pytest.approx(1.0, rel=0.02)
    assert np.std(w) == pytest.approx(1 / 32, rel=0.02)
    assert np.std(b) == pytest.approx(0.1, rel=0.1)
    assert np.std(x.astype(np.float64) @ w) == pytest.approx(1.0, rel=0.05)
    x2, w2, b2 = accuracy.make_inputs(64, 1024, 512, seed=1)
    assert np.array_equal(x, x2) and np.array_equal(w, w2) and np.array_equal(b, b2)
    assert not np.array_equal(x, accuracy.make_inputs(64, 1024, 512, seed=2)[0])
    # defaults: k = n = 1024, seed 0
    xd, wd, bd = accuracy.make_inputs(2)
    assert (xd.shape, wd.shape, bd.shape) == ((2, 1024), (1024, 1024), (1024,))
    assert np.array_equal(xd, accuracy.make_inputs(2, 1024, 1024, seed=0)[0])
    for args, name in (((0,), "m"), ((2, 0), "k"), ((2, 4, 0), "n")):
        with pytest.raises(ValueError, match=rf"^{name} must be a whole number"):
            accuracy.make_inputs(*args)


def test_reference_output_by_hand_in_float64():
    x = np.array([[1.0, -2.0]], dtype=np.float32)
    w = np.array([[1.0, 0.0], [0.0, 1.0]], dtype=np.float32)
    b = np.array([0.5, -0.5], dtype=np.float32)
    # [1, -2] + [0.5, -0.5] = [1.5, -2.5] -> ReLU [1.5, 0]
    y = accuracy.reference_output(x, w, b)
    assert y.dtype == np.float64 and y.tolist() == [[1.5, 0.0]]
    # 4097 x 4097 = 16,785,409 needs 25 significand bits: exact in float64, not in float32
    big = np.array([[4097.0]], dtype=np.float32)
    assert accuracy.reference_output(big, big, np.zeros(1, np.float32)).tolist() == [[16_785_409.0]]


def test_accuracy_verdict_boundary():
    assert accuracy.Accuracy(0.0625, 0.0625).passed                     # equal to the tolerance passes
    assert accuracy.Accuracy(0.0625, 0.0625).verdict == "통과"
    assert not accuracy.Accuracy(0.0626, 0.0625).passed
    assert accuracy.Accuracy(0.0626, 0.0625).verdict == "실패"


def test_check_accuracy_by_hand():
    ref = np.array([[1.0, 2.0], [3.0, 4.0]])
    y = ref + np.array([[0.0, 3e-5], [-7e-5, 0.0]])
    acc = accuracy.check_accuracy(y, ref, "fp32")
    assert acc.max_abs_err == pytest.approx(7e-5) and acc.tolerance == 1e-4 and acc.passed
    assert accuracy.check_accuracy(y, ref, "bf16").tolerance == 0.0625
    acc = accuracy.check_accuracy(y, ref, "bf16", tolerance=5e-5)           # explicit tolerance wins
    assert acc.tolerance == 5e-5 and not acc.passed
    assert accuracy.check_accuracy(y, ref, tolerance=1e-4).passed         # no precision needed then
    assert accuracy.check_accuracy(np.zeros((0, 2)), np.zeros((0, 2)), "fp32").max_abs_err == 0.0
    nan = ref.copy()
    nan[0, 0] = np.nan
    assert accuracy.check_accuracy(nan, ref, "fp32").max_abs_err == math.inf
    assert accuracy.check_accuracy([[1, 2], [3, 4]], ref, "fp32").max_abs_err == 0.0   # lists are converted
    with pytest.raises(ValueError, match=r"^pass precision \('fp32' or 'bf16'\) or an explicit tolerance"):
        accuracy.check_accuracy(y, ref)
    with pytest.raises(ValueError, match=r"^precision must be one of 'fp32', 'bf16', got 'fp16'"):
        accuracy.check_accuracy(y, ref, "fp16")
    with pytest.raises(ValueError, match=r"^tolerance must be > 0"):
        accuracy.check_accuracy(y, ref, tolerance=0.0)
    with pytest.raises(ValueError, match=r"^y has shape \(1, 2\) but y_ref has shape \(2, 2\)"):
        accuracy.check_accuracy(y[:1], ref, "fp32")


def test_worst_is_the_largest_excess_over_tolerance():
    bf16_ok = accuracy.Accuracy(0.05, 0.0625)        # larger error, but 0.0125 below its tolerance
    fp32_bad = accuracy.Accuracy(2e-4, 1e-4)         # smaller error, 1e-4 above its tolerance
    fp32_ok = accuracy.Accuracy(1e-5, 1e-4)
    assert accuracy.worst(bf16_ok, fp32_bad, fp32_ok) is fp32_bad
    assert accuracy.worst(None, fp32_ok, bf16_ok) is fp32_ok   # excess -9e-5 is larger than -0.0125
    assert accuracy.worst(fp32_ok, None) is fp32_ok
    assert accuracy.worst() is None and accuracy.worst(None, None) is None


# --- defaults and time-based warm-up in detail ------------------------------------------------------------------------
def test_warm_up_edges():
    c = ScriptedClock([5.0])                   # one call already passes max_time_s: one call is enough by default
    assert timing.warm_up(c.fn, min_time_s=0.0, max_time_s=1.0, clock=c) == 1
    c = ScriptedClock([0.5])                   # min_time_s == max_time_s is allowed: stops at 1 s (call 2)
    assert timing.warm_up(c.fn, min_time_s=1.0, max_time_s=1.0, clock=c) == 2


def test_time_based_warm_up_uses_min_and_four_times_max():
    # warmup_s = 2: at least 2 s, at most max(2, 4 x 2) = 8 s.
    # constant 0.125 s: the windows agree from call 10, but 2 s are reached only at call 16 -> 16 + 1 timed call
    c = ScriptedClock([0.125])
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=2.0)
    assert c.calls == 17
    # 0.5 s / 1.5 s alternating never agree (odd window): elapsed 0.5, 2, 2.5, 4, 4.5, 6, 6.5, 8 -> 8 + 1
    c = ScriptedClock([0.5, 1.5] * 50)
    timing.time_calls(c.fn, 0, 1, clock=c, warmup_s=2.0)
    assert c.calls == 9
    # the same for each function of interleaved
    c = ScriptedClock([0.125])
    timing.interleaved({"a": c.fn}, 0, 1, 1, warmup_s=2.0, clock=c)
    assert c.calls == 17
    c = ScriptedClock([0.5, 1.5] * 50)
    timing.interleaved({"a": c.fn}, 0, 1, 1, warmup_s=2.0, clock=c)
    assert c.calls == 9


def test_time_calls_syncs_its_warm_up_calls():
    # warmup_s = 1 with 1 s / 3 s calls: 2 warm-up calls (4 s = max), then 1 timed call; each is synced
    c = ScriptedClock([1, 3] * 20)
    synced = []
    timing.time_calls(c.fn, 0, 1, sync=synced.append, clock=c, warmup_s=1.0)
    assert synced == [1, 2, 3]


def test_interleaved_allows_one_rep_per_round():
    c = ScriptedClock([1.0])
    assert timing.interleaved({"a": c.fn}, 0, 3, 3, warmup_s=0.0, clock=c) == {"a": [1.0, 1.0, 1.0]}


def test_noisy_warning_has_the_default_label():
    with pytest.warns(timing.NoisyTimingWarning, match=r"^timing: IQR/median = 50% > 10% over 5 samples"):
        timing.summarize([2, 3, 4, 5, 6])


def test_make_inputs_draws_float32_normals_in_order():
    # a second method: the same generator drawn by hand, X then W then b, all as float32 normals
    rng = np.random.default_rng(7)
    x = rng.standard_normal((3, 16), dtype=np.float32)
    w = rng.standard_normal((16, 5), dtype=np.float32) / np.float32(4.0)       # sqrt(16) = 4
    b = np.float32(0.1) * rng.standard_normal(5, dtype=np.float32)
    gx, gw, gb = accuracy.make_inputs(3, 16, 5, seed=7)
    assert np.array_equal(gx, x) and np.allclose(gw, w, rtol=1e-6, atol=0) and np.allclose(gb, b, rtol=1e-6, atol=0)
